# SPDX-License-Identifier: GPL-2.0
"""A raw-socket iSCSI PDU fuzzer (tools/fuzz-iscsi, tests/test_iscsi_fuzz.py)
against a target on 127.0.0.0/8 that lets any initiator log in without
CHAP (demo mode) and has LUN 0.

Each case opens a connection, logs in (unless it fuzzes the login
itself) and sends something malformed or truncated:
  opcode      a PDU of a random opcode with random fields and data
  bhs         a valid opcode (SCSI Command, NOP-Out, Text, TMF, Logout,
              Data-Out, SNACK) with random BHS fields
  dlen        a DataSegmentLength above the negotiated MaxRecvDSL
  ahs         a TotalAHSLength with too few AHS bytes, or junk AHS
  digest      a header or data digest gone wrong (digests negotiated)
  login_keys  a login with malformed, unknown, out-of-range or repeated
              keys, bad stage flags, versions, C with T, junk text
  login_cont  a login key list continued (C=1) past the 8 KiB limit,
              or with its stage or task tag changed
  tsih        a login with a random non-zero TSIH
  text        Text requests: too many keys, long keys, C=1, a bad TTT,
              SendTargets over and over
  chap        AuthMethod=CHAP, then CHAP_R of a wrong length or junk
  truncated   a valid PDU cut short, then the connection half-closed
then settles it (Conn.settle(): a Reject, a close, or the answer to a
NOP-Out ping after it; "stuck" is a finding) and checks that a fresh
connection still logs in and gets TEST UNIT READY through.

Meanwhile a second session (Background) writes and reads back 4 KiB
blocks of LUN 0 the whole time: any error, miscompare, or pause longer
than STALL seconds is a finding.  At the end the kernel log since the
start must have no WARNING/BUG/oops, and (check_ratelimit) no message
of the target logged more than RATE_MAX times in any 5 s.

Case i of seed s is generated from its own random stream (s, i): a case
can be replayed alone (only=i)."""
import collections
import os
import random
import re
import socket
import struct
import threading
import time

from . import iscsi_pdu as ip
from .host import BAD_KMSG

CASES = ("opcode", "bhs", "dlen", "ahs", "digest", "login_keys",
         "login_cont", "tsih", "text", "chap", "truncated")
STALL = 20              # seconds the background session may pause
# opcodes a fuzzed SCSI Command never carries: they would change what the
# background session sees for good (FORMAT UNIT, MODE SELECT, RESERVE,
# START STOP UNIT, SANITIZE, UNMAP, WRITE SAME, PERSISTENT RESERVE OUT,
# EXTENDED COPY, SET TARGET PORT GROUPS); TEST UNIT READY instead
NEVER = {0x04, 0x15, 0x16, 0x1b, 0x41, 0x42, 0x48, 0x55, 0x56, 0x5f, 0x83,
         0x93, 0xa4}
RATE_MAX = 20           # lines of one message in any 5 s (2 bursts of 10)
BG_LBA, BG_BLOCKS = 4096, 256


def write10(lba, n):
    return bytes([0x2a, 0]) + struct.pack(">IBH", lba, 0, n) + b"\0"


def read10(lba, n):
    return bytes([0x28, 0]) + struct.pack(">IBH", lba, 0, n) + b"\0"


class Target:
    """Where the fuzzer goes: addr:port, the target name, its initiator
    names (one for the cases, one for the background session)."""

    def __init__(self, iqn, addr="127.0.0.1", port=3260,
                 initiator="iqn.2026-12.test.tcmx:fuzz",
                 bg_initiator="iqn.2026-12.test.tcmx:fuzz-bg"):
        self.iqn, self.addr, self.port = iqn, addr, port
        self.initiator, self.bg_initiator = initiator, bg_initiator

    def conn(self, timeout=10):
        return ip.Conn(self.addr, self.port, timeout)

    def session(self, initiator=None, isid=None, **kw):
        c = self.conn()
        if isid:
            c.isid = isid
        try:
            c.login(initiator or self.initiator, self.iqn, **kw)
        except BaseException:
            c.close()
            raise
        return c


def health(tgt):
    """None when a fresh session logs in and TEST UNIT READY is GOOD,
    else what failed."""
    try:
        with tgt.session() as c:
            st = c.tur()
            if st != 0:
                return "TEST UNIT READY: status 0x%02x" % st
            c.logout()
    except (OSError, ip.LoginError) as e:
        return "fresh login + TEST UNIT READY: %r" % e
    return None


class Background(threading.Thread):
    """A session writing then reading back blocks of LUN 0 until stop():
    .ops, .errors (strings), .longest (the longest pause, seconds)."""

    def __init__(self, tgt):
        super().__init__(daemon=True)
        self.tgt = tgt
        self.ops = 0
        self.errors = []
        self.longest = 0.0
        self.halt = threading.Event()

    def stop(self):
        self.halt.set()
        self.join(60)
        if self.is_alive():
            self.errors.append("the background session did not stop")

    def run(self):
        try:
            c = self.tgt.session(self.tgt.bg_initiator,
                                 bytes.fromhex("80aabbccdd01"))
        except (OSError, ip.LoginError) as e:
            self.errors.append("background login: %r" % e)
            return
        with c:
            try:
                c.tur()
                self.loop(c)
            except (OSError, ip.LoginError) as e:
                self.errors.append("background session ended: %r" % e)

    @staticmethod
    def scsi(c, cdb, **kw):
        """A command, again after a unit attention (a reset the fuzzer
        sent on its own session reports one to every session)."""
        for _ in range(4):
            st, got, sense = c.scsi(cdb, **kw)
            key = sense[2] & 0xf if sense[:1] in (b"\x70", b"\x71") and \
                len(sense) > 2 else sense[1] & 0xf if len(sense) > 1 else 0
            if st != 2 or key != 6:
                break
        return st, got, sense

    def loop(self, c):
        last = time.monotonic()
        i = 0
        while not self.halt.is_set():
            lba = BG_LBA + i % BG_BLOCKS
            pat = struct.pack(">QQ", lba, i) * 32 * 8
            st, _, sense = self.scsi(c, write10(lba, 8), write=pat)
            if st == 0:
                st, got, sense = self.scsi(c, read10(lba, 8), read_len=4096)
                if st == 0 and got != pat:
                    self.errors.append("LBA %d: read back differs" % lba)
            if st != 0:
                self.errors.append("LBA %d: status 0x%02x sense %s" % (
                    lba, st, sense.hex()))
            now = time.monotonic()
            self.longest = max(self.longest, now - last)
            last = now
            self.ops += 1
            i += 1
            if len(self.errors) > 10:
                return


# ------------------------------------------------------------ the cases

def rbytes(r, n):
    return bytes(r.getrandbits(8) for _ in range(n))


def random_bhs(r, op):
    h = bytearray(rbytes(r, 48))
    h[0] = op | (IMM if r.random() < 0.5 else 0)
    h[4] = 0
    dlen = r.choice((0, 0, r.randrange(1, 512)))
    h[5:8] = dlen.to_bytes(3, "big")
    return bytes(h), rbytes(r, dlen)


IMM = ip.IMMEDIATE


def case_opcode(r, tgt, c):
    op = r.randrange(0x40)
    h, data = random_bhs(r, op)
    if op == ip.OP_SCSI_CMD and h[32] in NEVER:
        h = h[:32] + b"\0" + h[33:]
    c.send(h, data)
    return c.settle()


def case_bhs(r, tgt, c):
    op = r.choice((ip.OP_SCSI_CMD, ip.OP_NOOP_OUT, ip.OP_TEXT, ip.OP_TMF,
                   ip.OP_LOGOUT, ip.OP_DATA_OUT, ip.OP_SNACK, ip.OP_LOGIN))
    h, data = random_bhs(r, op)
    h = bytearray(h)
    if r.random() < 0.5:                # plausible sequence numbers
        h[24:28] = struct.pack(">I", c.cmdsn)
        h[28:32] = struct.pack(">I", c.exp_statsn)
    if op == ip.OP_SCSI_CMD and r.random() < 0.5:
        h[32] = r.choice((0x00, 0x12, 0x25, 0x28, 0x2a, 0x88, 0x8a, 0xa0))
        h[8:16] = bytes(8) if r.random() < 0.7 else h[8:16]
    if op == ip.OP_SCSI_CMD and h[32] in NEVER:
        h[32] = 0
    c.send(bytes(h), data)
    return c.settle()


def case_dlen(r, tgt, c):
    dlen = min(0xffffff, c_mrdsl(c) + r.choice((1, 4, 4096, 1 << 20,
                                                0xffffff)))
    op = r.choice((ip.OP_NOOP_OUT, ip.OP_SCSI_CMD, ip.OP_TEXT,
                   ip.OP_DATA_OUT))
    h = ip.bhs(op | (IMM if op == ip.OP_NOOP_OUT else 0), ip.F_FINAL, 0,
               0, 0, dlen, bytes(8), c.next_itt(), ip.RESERVED, c.cmdsn,
               c.exp_statsn)
    c.send_raw(h + rbytes(r, min(dlen, 2048)))
    c.sock.shutdown(socket.SHUT_WR)
    return c.settle(ping=False)


def c_mrdsl(c):
    """What the target declared it receives (its MaxRecvDSL)."""
    return c.max_xmit


def case_ahs(r, tgt, c):
    words = r.randrange(1, 256)
    have = r.choice((0, words * 4, r.randrange(words * 4 + 1)))
    h = bytearray(ip.bhs(ip.OP_NOOP_OUT | IMM, ip.F_FINAL, 0, 0, words, 0,
                         bytes(8), c.next_itt(), ip.RESERVED, c.cmdsn,
                         c.exp_statsn))
    if r.random() < 0.5:
        h[0] = ip.OP_SCSI_CMD
        h[32] = 0
    c.send_raw(bytes(h) + rbytes(r, have))
    if have < words * 4:
        c.sock.shutdown(socket.SHUT_WR)
        return c.settle(ping=False)
    return c.settle()


def case_digest(r, tgt, c):
    """c logged in with digests (see run_case)."""
    data = rbytes(r, r.randrange(1, 300)) if r.random() < 0.6 else b""
    h = ip.bhs(ip.OP_NOOP_OUT | IMM, ip.F_FINAL, 0, 0, 0, len(data),
               bytes(8), c.next_itt(), ip.RESERVED, c.cmdsn, c.exp_statsn)
    bad_hd = not data or r.random() < 0.5
    c.send(h, data, bad_hd=bad_hd, bad_dd=not bad_hd)
    return c.settle()


BAD_VALUES = ("", "x" * 300, "0", "4294967296", "-1", "Yes,No", "\xff",
              "None,CRC32C,,", "1~2", "999999999999", "=", "NotUnderstood")


def login_keys(r, tgt):
    keys = [("InitiatorName", tgt.initiator), ("TargetName", tgt.iqn),
            ("SessionType", "Normal"), ("AuthMethod", "None")]
    keys += list(ip.OP_KEYS.items())
    for _ in range(r.randrange(1, 6)):
        what = r.randrange(5)
        i = r.randrange(len(keys))
        if what == 0:                   # a bad value
            keys[i] = (keys[i][0], r.choice(BAD_VALUES))
        elif what == 1:                 # repeated
            keys.insert(r.randrange(len(keys) + 1), keys[i])
        elif what == 2:                 # unknown or odd names
            keys.append((r.choice(("X-com.example", "A" * 70, "",
                                   "CHAP_R", "TargetAddress",
                                   "SendTargets")), "1"))
        elif what == 3:                 # dropped
            del keys[i]
        else:
            keys.insert(i, (r.choice(("InitiatorName", "TargetName",
                                      "SessionType")),
                            r.choice(("", "x" * 250, "Discovery", "Bogus",
                                      tgt.iqn))))
    text = ip.kv(keys)
    if r.random() < 0.2:                # junk: no NUL, no '='
        cut = r.randrange(len(text) + 1)
        text = text[:cut] + rbytes(r, r.randrange(1, 64)).replace(
            b"=", b"+")
    return text


def case_login_keys(r, tgt, c):
    text = login_keys(r, tgt)
    csg, nsg = r.choice(((0, 1), (1, 3), (0, 3), (2, 3), (3, 3), (1, 0),
                         (0, 1), (1, 3)))
    flags = csg << 2 | nsg | r.choice((ip.LOGIN_T, ip.LOGIN_T, 0,
                                       ip.LOGIN_T | ip.LOGIN_C))
    vmax, vmin = r.choice(((0, 0), (0, 0), (0, 0), (1, 1), (0xff, 0x7f)))
    h = ip.bhs(ip.OP_LOGIN | IMM, flags, vmax, vmin, 0, len(text),
               ip.ISID + bytes(2), 7, 0, 1, 0)
    c.send(h, text)
    return settle_login(c, tgt, r)


def settle_login(c, tgt, r):
    """After a login PDU: the responses until a refusal, a close, or the
    full feature phase (then a ping)."""
    for _ in range(6):
        p = c.answer(5)
        if isinstance(p, str):
            return p
        if p.op != ip.OP_LOGIN_RSP:
            return "reject" if p.op == ip.OP_REJECT else "odd"
        if p.bhs[36]:
            return "refused"
        if p.flags & ip.LOGIN_T and p.flags & 3 == 3:
            return c.settle()
        # go on with an empty request of the stage the target is in
        csg = (p.flags >> 2) & 3
        nsg = p.flags & 3 if p.flags & ip.LOGIN_T else csg
        try:
            c.send(ip.bhs(ip.OP_LOGIN | IMM, ip.LOGIN_T | nsg << 2 | 3, 0,
                          0, 0, 0, ip.ISID + bytes(2), 7, 0, 1,
                          (p.be32(24) + 1) & ip.RESERVED))
        except OSError:
            return "closed"
    return "answered"


def case_login_cont(r, tgt, c):
    text = ip.kv([("InitiatorName", tgt.initiator), ("TargetName", tgt.iqn),
                  ("AuthMethod", "None")])
    how = r.randrange(3)
    chunks = [text]
    if how == 0:                        # past the limit
        junk = b"X-pad=" + b"y" * 1000 + b"\0"
        chunks = [text] + [junk] * r.randrange(8, 20)
    statsn = 0
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1 and how == 0
        itt = 7 if not (how == 1 and i) else 8
        csg = 0 if not (how == 2 and i) else 1
        h = ip.bhs(ip.OP_LOGIN | IMM, csg << 2 | 1 |
                   (ip.LOGIN_T if last else ip.LOGIN_C), 0, 0, 0,
                   len(chunk), ip.ISID + bytes(2), itt, 0, 1, statsn)
        try:
            c.send(h, chunk)
        except OSError:
            return "closed"
        p = c.answer(5)
        if isinstance(p, str):
            return p
        if p.op != ip.OP_LOGIN_RSP or p.bhs[36]:
            return "refused"
        statsn = (p.be32(24) + 1) & ip.RESERVED
        if how and i == 0:
            chunks.append(b"SessionType=Normal\0")
    return "answered"


def case_tsih(r, tgt, c):
    c.tsih = r.randrange(1, 0x10000)
    c.cid = r.randrange(0x10000)
    try:
        c.login(tgt.initiator, tgt.iqn, tsih=c.tsih)
    except ip.LoginError:
        return "refused"
    except OSError:
        return "closed"
    return c.settle()


def case_text(r, tgt, c):
    how = r.randrange(5)
    if how == 0:
        data = ip.kv([("K%d" % i, "v") for i in range(r.randrange(17, 400))])
    elif how == 1:
        data = ip.kv([("SendTargets", "All")] * r.randrange(2, 200))
    elif how == 2:
        data = ip.kv([("A" * r.randrange(64, 2000), "x" * 100)])
    else:
        data = ip.kv([("SendTargets", "All")])
    data = data[:c_mrdsl(c)]
    flags = ip.F_FINAL | (0x40 if how == 3 else 0)
    ttt = r.getrandbits(32) if how == 4 else ip.RESERVED
    h = ip.bhs(ip.OP_TEXT | IMM, flags, 0, 0, 0, len(data), bytes(8),
               c.next_itt(), ttt, c.cmdsn, c.exp_statsn)
    c.send(h, data)
    return c.settle()


def case_chap(r, tgt, c):
    first = ip.kv([("InitiatorName", tgt.initiator), ("TargetName", tgt.iqn),
                   ("SessionType", "Normal"), ("AuthMethod", "CHAP,None")])
    try:
        p = c.login_step(first, 0, 1, transit=False)
        if c.keys.get("AuthMethod") != "CHAP":
            return "no-chap"
        p = c.login_step(ip.kv([("CHAP_A", r.choice(("5", "7", "5,7",
                                                     "99", "")))]), 0, 1,
                         transit=False)
        n = r.choice((0, 1, 15, 17, 31, 33, 64, 200))
        resp = r.choice(("0x" + rbytes(r, n).hex(), "0b" + "A" * n,
                         "0x", "junk", "0x" + "g" * 32))
        keys = [("CHAP_N", r.choice(("fuzz", "", "x" * 300))),
                ("CHAP_R", resp)]
        if r.random() < 0.3:
            keys += [("CHAP_I", str(r.randrange(-1, 300))),
                     ("CHAP_C", "0x" + rbytes(r, r.randrange(0, 2000)).hex())]
        data = ip.kv(keys)[:8192]
        p = c.login_pdu(data, 0, 1, transit=True)
    except ip.LoginError:
        return "refused"
    except socket.timeout:
        return "stuck"
    except OSError:
        return "closed"
    if p is None:
        return "closed"
    return "refused" if p.bhs[36] else "answered"


def case_truncated(r, tgt, c):
    data = rbytes(r, r.randrange(0, 600))
    op = r.choice((ip.OP_NOOP_OUT | IMM, ip.OP_SCSI_CMD, ip.OP_TEXT | IMM))
    h = ip.bhs(op, ip.F_FINAL, 0, 0, 0, len(data), bytes(8), c.next_itt(),
               ip.RESERVED, c.cmdsn, c.exp_statsn)
    whole = h + data + b"\0" * ip.pad4(len(data))
    c.send_raw(whole[:r.randrange(1, len(whole))])
    c.sock.shutdown(socket.SHUT_WR)
    return c.settle(ping=False)


LOGGED_IN = {"opcode", "bhs", "dlen", "ahs", "digest", "text", "truncated"}


def run_case(tgt, seed, i):
    """Case i of seed: (its kind, what the target did)."""
    r = random.Random(seed * 1000003 + i)
    kind = CASES[r.randrange(len(CASES))]
    fn = globals()["case_" + kind]
    try:
        c = tgt.conn()
    except OSError as e:
        return kind, "no connection: %r" % e
    with c:
        c.isid = bytes([0x80]) + rbytes(r, 5)
        if kind in LOGGED_IN:
            try:
                c.login(tgt.initiator, tgt.iqn, digest=kind == "digest")
            except (OSError, ip.LoginError) as e:
                return kind, "login failed: %r" % e
        try:
            return kind, fn(r, tgt, c)
        except socket.timeout:
            return kind, "stuck"
        except OSError:
            return kind, "closed"


# ------------------------------------------------------------ the kernel log

class KernelLog:
    """/dev/kmsg records from now on, with their times (seconds)."""

    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)

    def records(self):
        out = []
        while True:
            try:
                rec = os.read(self.fd, 8192).decode(errors="replace")
            except BlockingIOError:
                break
            except BrokenPipeError:
                continue
            head, _, msg = rec.partition(";")
            f = head.split(",")
            out.append((int(f[2]) / 1e6 if len(f) > 2 else 0.0,
                        msg.split("\n")[0]))
        os.close(self.fd)
        return out


def template(msg):
    """A message with its numbers and addresses taken out."""
    return re.sub(r"\[?\d[\w:.\]]*", "#", msg)


def over_rate(records, prefix):
    """The messages starting with prefix logged more than RATE_MAX times
    within 5 s: [(template, count)]."""
    by = collections.defaultdict(list)
    for t, msg in records:
        if msg.startswith(prefix):
            by[template(msg)].append(t)
    out = []
    for tpl, times in by.items():
        j = 0
        for i, t in enumerate(times):
            while times[j] < t - 5:
                j += 1
            if i - j + 1 > RATE_MAX:
                out.append((tpl, i - j + 1))
                break
    return out


# ------------------------------------------------------------ the run

class Result:
    def __init__(self):
        self.outcomes = collections.Counter()
        self.bad = []
        self.cases = 0
        self.bg_ops = 0

    def report(self, out=print):
        out("%d cases, background session: %d write+read pairs" % (
            self.cases, self.bg_ops))
        for (kind, what), n in sorted(self.outcomes.items()):
            out("  %-11s %-10s %d" % (kind, what, n))
        for b in self.bad:
            out("BAD: " + b)


def run(tgt, count, seed, seconds=None, only=None, background=True,
        check_ratelimit=False, log_prefix="tcmx_", stuck_ok=False):
    """count cases (or only case `only`), stopping early after seconds;
    a Result (.bad lists the findings). stuck_ok: a PDU the target
    answers with nothing is counted, not a finding (the in-tree leaves
    some unanswered, e.g. a Logout of an unknown reason out of the CmdSN
    window)."""
    res = Result()
    klog = KernelLog()
    bg = Background(tgt) if background else None
    if bg:
        bg.start()
    end = time.monotonic() + seconds if seconds else None
    todo = [only] if only is not None else range(count)
    why = health(tgt)
    if why:
        res.bad.append("before any case: " + why)
        todo = []
    for i in todo:
        if end and time.monotonic() > end:
            break
        kind, what = run_case(tgt, seed, i)
        res.cases += 1
        res.outcomes[(kind, what)] += 1
        if (what == "stuck" and not stuck_ok) or what.startswith(
                ("no connection",
                                              "login failed")):
            res.bad.append("case %d (%s): %s" % (i, kind, what))
        why = health(tgt)
        if why:
            res.bad.append("after case %d (%s, %s): %s" % (i, kind, what,
                                                           why))
            break
    if bg:
        bg.stop()
        res.bg_ops = bg.ops
        res.bad += ["background: " + e for e in bg.errors]
        if not bg.ops:
            res.bad.append("background: no I/O completed")
        if bg.longest > STALL:
            res.bad.append("background: paused %.1f s" % bg.longest)
    time.sleep(0.5)
    recs = klog.records()
    res.bad += ["kernel log: " + m for _, m in recs if BAD_KMSG.search(m)]
    if check_ratelimit:
        res.bad += ["not ratelimited: %r %d times in 5 s" % x
                    for x in over_rate(recs, log_prefix)]
    return res
