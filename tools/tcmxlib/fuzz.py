# SPDX-License-Identifier: GPL-2.0
"""A CDB fuzzer over SG_IO, run as root against a SCSI logical unit (the
VM half of the CDB fuzzer; tests/unit/fuzz_cdb.c is the host half).  It
asks the unit for its capacity, its opcodes (REPORT SUPPORTED OPERATION
CODES) and its D_SENSE bit, then sends N random commands from T threads
(one file descriptor each), and prints a histogram.

Commands: opcodes over 00h-ffh, mostly the reported ones (with their
service action); CDB lengths 6..32, mostly the right one, else a standard
one or any; fields random, LBA and transfer lengths near and past the end
of the medium and overflowing (ffffffffh..., LBA + length wrapping);
data buffers of any direction and size 0..64 KiB, often not the CDB's.

What the unit keeps: write-type commands (WRITE*, WRITE SAME*, WRITE AND
VERIFY*, ORWRITE, COMPARE AND WRITE, WRITE ATOMIC, the 7Fh variable-length
ones) get their LBA moved to --scratch or above when it is below, and so
do the LBAs of every 16-byte slot of an UNMAP parameter list; LBAs beyond
the medium stay, so an LBA + length that wraps to block 0 is sent (a unit
that writes there fails the caller's pattern check).  Never sent: FORMAT
UNIT (04h) and SANITIZE (48h), which rewrite the whole medium.  EXTENDED
COPY (83h) goes with random parameter data only (its targets name the
unit by designator: random bytes never do).

Oracles (each violation is listed, and the exit status is 1):
  - every command completes: the ioctl succeeds, host status 0 (DID_OK),
    driver status 0 or 08h (DRIVER_SENSE), no time-out;
  - status GOOD, CHECK CONDITION, BUSY, RESERVATION CONFLICT or TASK SET
    FULL; CHECK CONDITION carries sense data: response code 70h/71h (fixed)
    when D_SENSE is 0, 72h/73h (descriptor) when it is 1 (D_SENSE is read
    again after each MODE SELECT that succeeds); a sense key that SPC
    defines for a direct-access device; an additional length that holds
    ASC/ASCQ (fixed) or exactly the descriptors (descriptor); a valid
    sense-key-specific field pointer (SKSV) within the CDB (C/D=1) or
    the data-out buffer (C/D=0), never into the parameter list for
    INVALID FIELD IN CDB (05/24/00).  A 05/24/00 may come without one:
    the unit answers so when the data buffer's direction or size, not a
    CDB field, is wrong (counted as "05/24/00 without SKSV").

With one thread a seed gives the same commands in the same order; with
several, thread i has its own stream (seed, i) and only the interleaving
varies."""
import collections
import ctypes
import errno
import os
import random
import sys
import threading

from .scsi import (SG_DXFER_FROM_DEV, SG_DXFER_NONE, SG_DXFER_TO_DEV, be,
                   sg_io, sgio)
from .sense import CHECK, GOOD, INVALID_FIELD, STATUS
KEYS_OK = {0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0xa, 0xb, 0xe}
DIRS = {SG_DXFER_NONE: "none", SG_DXFER_TO_DEV: "out",
        SG_DXFER_FROM_DEV: "in"}
MAXBUF = 64 * 1024
CDB_LENS = (6, 10, 12, 16, 32)
GROUP_LEN = {0: 6, 1: 10, 2: 10, 4: 16, 5: 12}
NEVER = {0x04, 0x48}            # FORMAT UNIT, SANITIZE
# write-type opcodes: where their LBA is (first byte, size in bytes)
WRITE_LBA = {0x0a: (1, 3), 0x2a: (2, 4), 0x2e: (2, 4), 0x41: (2, 4),
             0xaa: (2, 4), 0xae: (2, 4), 0x8a: (2, 8), 0x8e: (2, 8),
             0x93: (2, 8), 0x89: (2, 8), 0x8b: (2, 8), 0x9c: (2, 8),
             0x7f: (12, 8)}
# (LBA, length) field positions by CDB length, for the interesting values
LBA_LEN = {6: ((1, 3), (4, 1)), 10: ((2, 4), (7, 2)),
           12: ((2, 4), (6, 4)), 16: ((2, 8), (10, 4)),
           32: ((12, 8), (28, 4))}
# opcodes with a 5-bit service action in byte 1
SA_BYTE1 = {0x9e, 0x9f, 0xa3, 0xa4, 0x5e, 0x5f, 0x83, 0x84, 0x48, 0x8c,
            0x8d, 0x86, 0x3c, 0x3b}
# commands that move data to the unit
DATA_OUT = {0x0a, 0x2a, 0xaa, 0x8a, 0x2e, 0xae, 0x8e, 0x41, 0x93, 0x89,
            0x8b, 0x9c, 0x15, 0x55, 0x42, 0x5f, 0x83, 0x3b, 0xa4, 0x7f,
            0x2f, 0xaf, 0x8f, 0x1d}
# commands that move no data (VERIFY and WRITE SAME only with some bits)
NO_DATA = {0x00, 0x01, 0x16, 0x17, 0x1b, 0x1e, 0x2f, 0x34, 0x35, 0x56,
           0x57, 0x8f, 0x90, 0x91, 0xaf}
UNMAP = 0x42
UNMAP_MAX = 8 + 16 * 64         # (the time to patch a longer list)
MODE_SELECT = (0x15, 0x55)


def put(cdb, at, n, v):
    if at + n <= len(cdb):
        cdb[at:at + n] = be(v, n)


def get(cdb, at, n):
    return int.from_bytes(cdb[at:at + n], "big")


class Unit:
    """What the fuzzer learns from the unit before it starts."""

    def __init__(self, dev):
        fd = os.open(dev, os.O_RDWR)
        try:
            st, sense, data, _ = sgio(fd, [0x9e, 0x10] + [0] * 8 +
                                      [0, 0, 0, 32, 0, 0], din=32)
            assert st == 0, ("READ CAPACITY(16)", st, sense.hex())
            self.blocks = get(data, 0, 8) + 1
            self.bs = get(data, 8, 4)
            self.ops = self.opcodes(fd)
            self.d_sense = self.read_d_sense(fd)
        finally:
            os.close(fd)

    @staticmethod
    def opcodes(fd):
        """[(opcode, service action or None, CDB length)] from REPORT
        SUPPORTED OPERATION CODES, all commands."""
        n = 65532
        st, sense, data, _ = sgio(fd, [0xa3, 0x0c, 0, 0, 0, 0] +
                                  list(be(n, 4)) + [0, 0], din=n)
        assert st == 0, ("REPORT SUPPORTED OPERATION CODES", st, sense.hex())
        end = 4 + get(data, 0, 4)
        ops, at = [], 4
        while at + 8 <= min(end, len(data)):
            op, sa, fl = data[at], get(data, at + 2, 2), data[at + 5]
            ops.append((op, sa if fl & 1 else None, get(data, at + 6, 2)))
            at += 8 + (12 if fl & 2 else 0)
        assert ops, "no opcodes reported"
        return ops

    @staticmethod
    def read_d_sense(fd):
        """D_SENSE of the control mode page (MODE SENSE(10), current)."""
        st, sense, data, _ = sgio(fd, [0x5a, 0x08, 0x0a, 0, 0, 0, 0, 0, 255,
                                       0], din=255)
        assert st == 0, ("MODE SENSE control page", st, sense.hex())
        at = 8 + get(data, 6, 2)
        assert data[at] & 0x3f == 0x0a, data.hex()
        return bool(data[at + 2] & 0x04)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.sent = 0
        self.status = collections.Counter()
        self.host = collections.Counter()
        self.kcq = collections.Counter()
        self.dirs = collections.Counter()
        self.lens = collections.Counter()
        self.ioctl_err = collections.Counter()
        self.no_sks = 0
        self.fmt = collections.Counter()     # sense response codes
        self.bad = []                   # (description, cdb hex, ...)

    def report(self, out=sys.stdout, top=20):
        p = lambda *a: print(*a, file=out)     # noqa: E731
        p("commands sent: %d" % self.sent)
        p("by status:")
        for k, v in self.status.most_common():
            p("  %-22s %d" % (k, v))
        p("by host/driver status:")
        for (h, d), v in sorted(self.host.items()):
            p("  host 0x%02x driver 0x%02x %d" % (h, d, v))
        if self.ioctl_err:
            p("ioctl errors: %s" % dict(self.ioctl_err))
        p("by data direction: %s" % dict(self.dirs))
        p("by CDB length: %s" % dict(sorted(self.lens.items())))
        p("sense key/ASC/ASCQ, top %d of %d:" % (top, len(self.kcq)))
        for (k, a, q), v in self.kcq.most_common(top):
            p("  %x/%02x/%02x %d" % (k, a, q, v))
        p("sense formats: %s" % ", ".join(
            "%02x: %d" % kv for kv in sorted(self.fmt.items())))
        p("05/24/00 without SKSV: %d" % self.no_sks)
        p("violations: %d" % len(self.bad))
        for b in self.bad[:20]:
            p("  " + b)


def check_sense(sb, cdb_len, dout_len, d_sense):
    """(what is wrong with sense data sb or None, its (key, asc, ascq),
    its sense-key specific bytes when SKSV is set, else None).
    d_sense: the set of formats allowed (True: descriptor)."""
    if len(sb) < 8:
        return "sense too short (%d)" % len(sb), None, None
    rc = sb[0] & 0x7f
    addl = sb[7]
    sks = None
    if rc in (0x70, 0x71):
        if False not in d_sense:
            return "fixed sense with D_SENSE=1", None, None
        if addl < 6 or len(sb) < 14:
            return "fixed sense without ASC/ASCQ (add. length %d)" % addl, \
                None, None
        k = (sb[2] & 0xf, sb[12], sb[13])
        if addl >= 10 and len(sb) >= 18 and sb[15] & 0x80:
            sks = sb[15:18]
        elif len(sb) >= 16 and sb[15]:
            return "SKSV 0 with a sense-key specific field", k, sks
    elif rc in (0x72, 0x73):
        if True not in d_sense:
            return "descriptor sense with D_SENSE=0", None, None
        k = (sb[1] & 0xf, sb[2], sb[3])
        at, end = 8, 8 + addl
        if end > len(sb) and len(sb) < 96:
            return "add. length %d past the %d bytes" % (
                addl, len(sb)), k, sks
        while at < min(end, len(sb)):
            if at + 2 > end:
                return "descriptor header past the add. length", k, sks
            typ, dl = sb[at], sb[at + 1]
            if at + 2 + dl > end:
                return "descriptor %02x past the add. length" % typ, k, sks
            if typ == 0x02 and dl == 6 and at + 8 <= len(sb) and \
                    sb[at + 4] & 0x80:
                sks = sb[at + 4:at + 7]
            at += 2 + dl
    else:
        return "response code %02x" % sb[0], None, None
    if k[0] not in KEYS_OK:
        return "sense key %x" % k[0], k, sks
    if k[0] == 0x5 and sks is not None:
        fp = get(sks, 1, 2)
        if sks[0] & 0x40:
            if fp >= cdb_len:
                return "CDB field pointer %d >= CDB length %d" % (
                    fp, cdb_len), k, sks
        elif k[1:] == INVALID_FIELD[1:]:
            return "05/24/00 points into the parameter list", k, sks
        elif fp >= dout_len:
            return "parameter field pointer %d >= data-out length %d" % (
                fp, dout_len), k, sks
    return None, k, sks


class Fuzzer:
    def __init__(self, dev, unit, scratch, timeout_ms=20000):
        self.dev, self.u, self.scratch = dev, unit, scratch
        self.timeout_ms = timeout_ms
        self.stats = Stats()
        self.d_sense = {unit.d_sense}
        self.ops = [o for o in unit.ops if o[0] not in NEVER]

    # ---------------------------------------------------- generation
    def lba_value(self, r, n):
        b = self.u.blocks
        return r.choice((0, 1, b - 1, b, b + 1, b - n, b - 1 - n // 2,
                         r.randrange(b), r.randrange(b, 2 * b),
                         0xffffffff, 0xfffffffe, 0x7fffffff, 1 << 32,
                         (1 << 64) - 1, (1 << 64) - 1 - n // 2, 1 << 63,
                         (1 << 64) - r.randrange(1, 1 << 16),
                         r.getrandbits(64), r.getrandbits(32)))

    def len_value(self, r):
        return r.choice((0, 1, 2, 8, 16, 127, 128, 255, 256, 257, 0xffff,
                         0x10000, 0xffffffff, 0x80000000, self.u.blocks,
                         self.u.blocks + 1, r.randrange(1, 130),
                         r.getrandbits(16), r.getrandbits(32)))

    def gen(self, r):
        """One command: (cdb bytes, direction, data-out bytes or None,
        data-in length)."""
        if r.random() < 0.8:
            op, sa, ln = r.choice(self.ops)
        else:
            op = r.randrange(256)
            while op in NEVER:
                op = r.randrange(256)
            sa = None
            ln = 32 if op in (0x7e, 0x7f) else GROUP_LEN.get(op >> 5,
                                                             r.choice(
                                                                 CDB_LENS))
        x = r.random()
        if x < 0.7:
            cl = ln
        elif x < 0.9:
            cl = r.choice(CDB_LENS)
        else:
            cl = r.randrange(6, 33)
        y = r.random()
        clean = y < 0.3                 # only opcode, SA, LBA and length
        if clean:
            cdb = bytearray(cl)
        elif y < 0.55:
            cdb = bytearray(cl)
            for _ in range(r.randrange(1, 4)):
                cdb[r.randrange(cl)] = r.getrandbits(8)
        elif y < 0.8:
            cdb = bytearray(r.getrandbits(8) for _ in range(cl))
        else:
            cdb = bytearray(cl)
            for _ in range(r.randrange(0, 3)):
                cdb[r.randrange(1, cl)] = r.choice((0xff, 0x80, 0x01))
        cdb[0] = op
        if op in (0x7e, 0x7f) and cl >= 10:
            if r.random() < 0.85:
                cdb[7] = cl - 8
            if sa is not None:
                put(cdb, 8, 2, sa)
            elif r.random() < 0.7:
                put(cdb, 8, 2, r.randrange(0x0f))
        elif sa is not None and r.random() < 0.95:
            cdb[1] = (cdb[1] & 0xe0) | (sa & 0x1f)
        if clean or r.random() < 0.7:
            cdb[-1] = 0                 # CONTROL
        nblocks = None
        pos = LBA_LEN.get(cl)
        if pos and (clean or r.random() < 0.6):
            (la, ls), (na, ns) = pos
            if cl == 6:
                nb = r.choice((0, 1, 255, r.getrandbits(8)))
                lba = self.lba_value(r, nb or 256) & 0x1fffff
                cdb[1] = (cdb[1] & 0xe0) | (lba >> 16)
                put(cdb, 2, 2, lba)
                cdb[4] = nb
                nblocks = nb or 256
            else:
                nb = self.len_value(r)
                put(cdb, la, ls, self.lba_value(r, nb))
                put(cdb, na, ns, nb)
                nblocks = nb & ((1 << (8 * ns)) - 1)
        self.keep_out(cdb)
        # data buffer: the command's direction and size, or not
        natural = SG_DXFER_TO_DEV if op in DATA_OUT else SG_DXFER_FROM_DEV
        if clean and op in NO_DATA:
            natural = SG_DXFER_NONE
        z = 0 if clean else r.random()
        d = natural if z < 0.6 else r.choice((SG_DXFER_NONE, SG_DXFER_TO_DEV,
                                              SG_DXFER_FROM_DEV))
        if d == SG_DXFER_NONE:
            n = 0
        else:
            w = r.random()
            if nblocks is not None and clean:
                n = min(MAXBUF, nblocks * self.u.bs)
            elif nblocks is not None and w < 0.4:
                n = min(MAXBUF, nblocks * self.u.bs + r.choice((0, 0, -1, 1)))
            elif w < 0.6:
                n = r.choice((0, 1, 4, 8, 24, 255, 256, 511, 512, 4096,
                              MAXBUF))
            else:
                n = r.randrange(MAXBUF + 1)
            n = max(0, n)
        dout = None
        if d == SG_DXFER_TO_DEV:
            dout = self.data_out(r, op, n)
        return bytes(cdb), d, dout, n if d == SG_DXFER_FROM_DEV else 0

    def data_out(self, r, op, n):
        if op == UNMAP:
            n = min(n, UNMAP_MAX)
        if r.random() < 0.5:
            buf = bytearray(n)
            for _ in range(min(n, r.randrange(0, 8))):
                buf[r.randrange(n)] = r.getrandbits(8)
        else:
            buf = bytearray(r.randbytes(n))
        if op == UNMAP and n >= 8:
            nd = (n - 8) // 16
            put(buf, 0, 2, r.choice((6 + 16 * nd, n - 2, r.getrandbits(16))))
            put(buf, 2, 2, r.choice((16 * nd, n - 8, r.getrandbits(16))))
            for i in range(nd):
                nb = self.len_value(r)
                put(buf, 8 + 16 * i, 8, self.lba_value(r, nb))
                put(buf, 16 + 16 * i, 4, nb)
        if op == UNMAP:
            # every 16-byte descriptor slot: LBAs below scratch move up
            for at in range(8, n - 7, 16):
                lba = get(buf, at, 8)
                if lba < self.scratch:
                    put(buf, at, 8, self.scratch + lba % max(
                        1, self.u.blocks - self.scratch))
        return bytes(buf)

    def keep_out(self, cdb):
        """Move a write-type command's LBA to scratch or above."""
        op = cdb[0]
        if op not in WRITE_LBA:
            return
        at, n = WRITE_LBA[op]
        if at + n > len(cdb):
            return
        if op == 0x0a:
            lba = ((cdb[1] & 0x1f) << 16) | get(cdb, 2, 2)
            if lba < self.scratch:
                lba = self.scratch + lba % (self.u.blocks - self.scratch)
                cdb[1] = (cdb[1] & 0xe0) | (lba >> 16)
                put(cdb, 2, 2, lba)
            return
        lba = get(cdb, at, n)
        if lba < self.scratch:
            put(cdb, at, n, self.scratch + lba % (self.u.blocks -
                                                  self.scratch))

    # ------------------------------------------------------- running
    def one(self, fd, cdb, d, dout, din):
        n = len(dout) if dout is not None else din
        buf = ctypes.create_string_buffer(dout or b"", max(1, n))
        before = frozenset(self.d_sense)
        s = self.stats
        try:
            st, sense, h = sg_io(fd, cdb, d, ctypes.addressof(buf) if n
                                 else None, n, self.timeout_ms)
        except OSError as e:
            with s.lock:
                s.sent += 1
                s.ioctl_err[errno.errorcode.get(e.errno, e.errno)] += 1
                s.bad.append("ioctl %s: cdb %s dir %s len %d" % (
                    e.strerror, cdb.hex(), DIRS[d], n))
            return
        name = STATUS.get(st, "other 0x%02x" % st)
        why, k, sks = None, None, None
        if h.host_status or h.driver_status not in (0, 0x08):
            why = "host 0x%x driver 0x%x" % (h.host_status, h.driver_status)
        elif st not in STATUS:
            why = "status 0x%02x" % st
        elif st == CHECK:
            why, k, sks = check_sense(sense, len(cdb), len(dout or b""),
                                 before | self.d_sense)
        if st == GOOD and cdb[0] in MODE_SELECT:
            self.resense_d(fd)
        with s.lock:
            s.sent += 1
            s.status[name] += 1
            s.host[(h.host_status, h.driver_status)] += 1
            s.dirs[DIRS[d]] += 1
            s.lens[len(cdb)] += 1
            if k:
                s.kcq[k] += 1
                s.fmt[sense[0] & 0x7f] += 1
            if k == INVALID_FIELD and sks is None:
                s.no_sks += 1
            if why:
                s.bad.append("%s: cdb %s dir %s len %d sense %s" % (
                    why, cdb.hex(), DIRS[d], n, sense.hex()))

    def resense_d(self, fd):
        v = Unit.read_d_sense(fd)
        self.d_sense = {v}

    def worker(self, seed, count):
        r = random.Random(seed)
        fd = os.open(self.dev, os.O_RDWR)
        try:
            for _ in range(count):
                self.one(fd, *self.gen(r))
        finally:
            os.close(fd)

    def run(self, count, seed, threads=4):
        per = [count // threads + (i < count % threads)
               for i in range(threads)]
        ts = [threading.Thread(target=self.worker,
                               args=((seed << 8) + i, per[i]))
              for i in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return self.stats
