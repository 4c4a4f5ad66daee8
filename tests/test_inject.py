# SPDX-License-Identifier: GPL-2.0
"""Per-device fault injection, <device>/inject/ (target/inject.c), over the
loopback fabric: what each file takes and refuses (EINVAL, ENOSPC for a
65th bad range, one kernel log line each, the value kept), what it does to
READ and WRITE (6/10/12/16) as an initiator sees it: the delays in fio's
latencies and the wall clock, the bad blocks in the sense data (MEDIUM
ERROR 03/11/00 and WRITE ERROR 03/0C/00, INFORMATION = the first bad LBA,
fixed and descriptor format), in dd's and badblocks(8)'s view and healed by
a write, the faults' statuses (BUSY, TASK SET FULL, 06/29/00, 0B/00/00) and
the midlayer's retries under fio --verify, stuck commands that only task
management ends (the SCSI error handler's aborts, a LUN reset, a LUN
unlink), ext4 under delays and BUSY, the tcmx:inject tracepoint and the
counters. The in-tree LIO has no inject/: every test here is tcmx_only.

Timings: the VM is QEMU TCG, some 50x slower than the machine and noisy,
so a delay's figures are bounded from below (the delay can only add) and
loosely from above; tools/vm --icount (instructions as the clock, see
README) makes them repeatable, and test_delay_read_latency tightens its
bound there (tcmxlib.cmdline_icount())."""
import errno
import os
import re
import struct
import threading
import time

import pytest

import tcmxlib
from tcmxlib import (CHECK, GOOD, MiB, caw_cdb, disk, err_of, kcq, link_lun,
                     mk_rd, mk_target, rd, run, sg_raw, sgdev, sgio,
                     unlink_lun, wr)
from tcmxlib import fio, ftrace
from tcmxlib.sense import COMMAND_ABORTED

pytestmark = pytest.mark.tcmx_only

BS = 512
FILES = ("badblocks", "badblocks_heal", "counters", "delay_read_us",
         "delay_write_us", "fault", "sanitize_ms")
# the counters, in the order the file lists them
KINDS = ("delayed", "badblock_read", "badblock_write", "busy",
         "task_set_full", "ua", "aborted", "stuck")
MEDIUM_READ = (0x3, 0x11, 0x00)
MEDIUM_WRITE = (0x3, 0x0c, 0x00)
POWER_ON = (0x6, 0x29, 0x00)
DEVICE_RESET = (0x6, 0x29, 0x03)
BUSY, TASK_SET_FULL = 0x08, 0x28
TR = "/sys/kernel/tracing/"


def r16(lba, n):
    return b"\x88\x00" + struct.pack(">QI", lba, n) + b"\x00\x00"


def w16(lba, n):
    return b"\x8a\x00" + struct.pack(">QI", lba, n) + b"\x00\x00"


def r10(lba, n):
    return b"\x28\x00" + struct.pack(">IxH", lba, n) + b"\x00"


def w10(lba, n):
    return b"\x2a\x00" + struct.pack(">IxH", lba, n) + b"\x00"


def r12(lba, n):
    return b"\xa8\x00" + struct.pack(">II", lba, n) + b"\x00\x00"


def w12(lba, n):
    return b"\xaa\x00" + struct.pack(">II", lba, n) + b"\x00\x00"


def r6(lba, n):
    return bytes([0x08, (lba >> 16) & 0x1f, (lba >> 8) & 0xff, lba & 0xff,
                  n, 0])


def info_of(sense):
    """(VALID, INFORMATION) of fixed (bytes 0 and 3..6) or descriptor
    sense data (the information descriptor, type 0), else (False, None)."""
    if sense[0] & 0x7f in (0x70, 0x71):
        return bool(sense[0] & 0x80), struct.unpack(">I", sense[3:7])[0]
    at, end = 8, 8 + sense[7]
    while at + 1 < end:
        if sense[at] == 0x00:
            return bool(sense[at + 2] & 0x80), \
                struct.unpack(">Q", sense[at + 4:at + 12])[0]
        at += 2 + sense[at + 1]
    return False, None


class Lun:
    """A ramdisk as LUN n of tpg: its configfs paths, /dev/sgN (open) and,
    with sd, /dev/sdX; its inject/ files."""

    def __init__(self, tpg, n, size, name, sd=True, kmsg=None):
        self.name = name
        self.so = mk_rd(name, size)
        self.inject = self.so + "/inject/"
        self.blocks = size // BS
        self.lun = link_lun(tpg, n, self.so)
        self.n = n
        self.sg = sgdev(tpg, n)
        self.dev = disk(tpg, n) if sd else None
        if sd:
            # sd's own reads (the partition scan: after the node appears,
            # before it says it attached the disk) are over
            tcmxlib.sd_attached(kmsg, self.dev)
            self.settle()
        # the power-on unit attention (sd took it if it attached)
        tcmxlib.ua_clear(self.sg)
        self.fd = os.open(self.sg, os.O_RDWR)

    def settle(self, limit=10):
        """No request of /dev/sdX in flight (its inflight file)."""
        path = "/sys/block/%s/inflight" % os.path.basename(self.dev)
        end = time.monotonic() + limit
        while rd(path).split() != ["0", "0"]:
            assert time.monotonic() < end, rd(path)
            time.sleep(0.05)

    def get(self, f):
        """inject/f as read, its one trailing newline off."""
        text = rd(self.inject + f)
        return text[:-1] if text.endswith("\n") else text

    def put(self, f, value):
        wr(self.inject + f, value)

    def ranges(self):
        return rd(self.inject + "badblocks").splitlines()

    def counters(self):
        """{kind: count}; the file lists every kind, in KINDS' order."""
        lines = [ln.split() for ln in rd(self.inject + "counters")
                 .splitlines()]
        assert [ln[0] for ln in lines] == list(KINDS), lines
        return {k: int(v) for k, v in lines}

    def cmd(self, cdb, din=0, dout=None, timeout_ms=60000):
        """(status, sense, data-in, hdr) of one SG_IO on /dev/sgN."""
        return sgio(self.fd, bytes(cdb), din=din, dout=dout,
                    timeout_ms=timeout_ms)

    def good(self, cdb, din=0, dout=None):
        st, sense, data, _ = self.cmd(cdb, din, dout)
        assert st == GOOD, (bytes(cdb).hex(), st, sense.hex())
        return data

    def read(self, lba, n):
        return self.good(r16(lba, n), din=n * BS)

    def write(self, lba, data):
        self.good(w16(lba, len(data) // BS), dout=data)

    def medium(self, cdb, want, first_bad, n=0, dout=None):
        """cdb (n blocks read, or dout written) ends in CHECK CONDITION
        want (03/11/00 or 03/0C/00), VALID, INFORMATION first_bad and,
        for a read, no data (residual: all of it). The sense bytes."""
        st, sense, data, h = self.cmd(cdb, din=n * BS, dout=dout)
        assert st == CHECK and kcq(sense) == want, \
            (bytes(cdb).hex(), st, sense.hex())
        assert info_of(sense) == (True, first_bad), sense.hex()
        if n:
            assert h.resid == n * BS and data == b"", (h.resid, len(data))
        return sense

    def close(self):
        os.close(self.fd)


@pytest.fixture
def target(stack, dmesg):
    """A loopback TPG and a factory of Luns on it (closed after)."""
    tpg = mk_target()
    luns = []

    def make(n=3, size=16 * MiB, name=None, sd=True):
        lun = Lun(tpg, n, size, name or "j%d" % n, sd=sd, kmsg=dmesg)
        luns.append(lun)
        return lun

    make.tpg = tpg
    yield make
    for x in luns:
        x.close()


@pytest.fixture
def lun(target):
    """A 16 MiB rd as LUN 3, sd attached."""
    return target()


@pytest.fixture
def sg_lun(target):
    """A 16 MiB rd as LUN 3, sd kept off: only this test's commands
    reach it (exact counts)."""
    with tcmxlib.sd_off():
        yield target(sd=False)


def set_d_sense(lun, on):
    """MODE SELECT(10) of the control mode page with D_SENSE = on."""
    data = lun.good([0x5a, 0x08, 0x0a, 0, 0, 0, 0, 0, 255, 0], din=255)
    at = 8 + int.from_bytes(data[6:8], "big")
    page = bytearray(data[at:at + 2 + data[at + 1]])
    page[0] &= 0x3f
    page[2] = (page[2] & ~0x04) | (0x04 if on else 0)
    lun.good([0x55, 0x10, 0, 0, 0, 0, 0, 0, 8 + len(page), 0],
             dout=bytes(8) + bytes(page))


def dd(args):
    """dd with args; (exit status, stderr)."""
    p = run("dd " + args, check=False, timeout=120)
    return p.returncode, p.stderr


def io_done(dev):
    """Reads and writes completed on /dev/sdX (fields 1 and 5 of its
    stat: each request once, however often the midlayer retried it)."""
    f = rd("/sys/block/%s/stat" % os.path.basename(dev)).split()
    return int(f[0]) + int(f[4])


def fio_verify(dev, size="2M", iodepth=4, timeout=300, extra=()):
    """One fio pass: 4k random writes (direct) over size bytes of dev,
    then every block read back and checked (crc32c): it must end 0,
    without a verify error, having read and written. Its output."""
    p = run(["fio", "--name=v", "--filename=" + dev, "--ioengine=libaio",
             "--direct=1", "--rw=randwrite", "--bs=4k",
             "--iodepth=%d" % iodepth, "--size=" + size, "--verify=crc32c",
             "--verify_fatal=1", "--output-format=terse"] + list(extra),
            check=False, timeout=timeout)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "verify:" not in out and "bad magic" not in out, out
    f = out.strip().splitlines()[-1].split(";")
    # terse v3: field 5 is the job's error, 6 KiB read, 47 KiB written
    assert f[4] == "0" and int(f[5]) > 0 and int(f[46]) > 0, out
    return out


def inject_events(action, extra=()):
    """Run action() with tcmx:inject (and the events of extra, e.g.
    "tcmx_cmd_complete") on: [(event, {field: value})] meanwhile."""
    if not os.path.exists(TR + "trace"):
        run("mount -t tracefs nodev " + TR)
    names = ("inject",) + tuple(extra)

    def put(name, data):
        with open(TR + name, "w") as f:
            f.write(data)

    put("tracing_on", "0")
    put("current_tracer", "nop")
    put("buffer_size_kb", "4096")
    put("trace", "")
    for e in names:
        put("events/tcmx/%s/enable" % e, "1")
    put("tracing_on", "1")
    try:
        action()
    finally:
        put("tracing_on", "0")
        for e in names:
            put("events/tcmx/%s/enable" % e, "0")
        with open(TR + "trace") as f:
            text = f.read()
        put("trace", "")
    out = []
    for line in text.splitlines():
        m = re.search(r"\s(%s): (.*)$" % "|".join(names), line)
        if m:
            out.append((m.group(1), dict(re.findall(r"(\w+)=(\S+)",
                                                    m.group(2)))))
    return out


def wait_count(lun, kind, n, limit=20):
    """Wait until counter kind reaches n."""
    end = time.monotonic() + limit
    while lun.counters()[kind] < n:
        assert time.monotonic() < end, (kind, n, lun.counters())
        time.sleep(0.05)


def in_thread(fn):
    """Run fn() in a thread; (thread, dict: "result" = what it returned,
    or "error" = what it raised, and "at" = when)."""
    done = {}

    def body():
        try:
            done["result"] = fn()
        except Exception as e:      # pylint: disable=broad-except
            done["error"] = e
        done["at"] = time.monotonic()

    t = threading.Thread(target=body)
    t.start()
    return t, done


def sg_command(sg, cdb, din=0, dout=None, timeout_ms=120000):
    """One SG_IO on sg, opened for it: (status, (key, asc, ascq), hdr
    host_status)."""
    fd = os.open(sg, os.O_RDWR)
    try:
        st, sense, _, h = sgio(fd, bytes(cdb), din=din, dout=dout,
                               timeout_ms=timeout_ms)
    finally:
        os.close(fd)
    return st, kcq(sense), h.host_status


# ---------------------------------------------------------------- the files

def test_files_defaults_and_values_read_back(lun):
    """inject/ has its seven files; the defaults; each value written reads
    back in its canonical form (a trailing newline accepted, MIN-MAX with
    MIN == MAX as N, "KIND N ppm")."""
    assert sorted(os.listdir(lun.inject)) == list(FILES)
    assert [lun.get(f) for f in ("sanitize_ms", "delay_read_us",
                                 "delay_write_us", "badblocks_heal",
                                 "fault")] == ["0", "0", "0", "0", "none"]
    assert rd(lun.inject + "badblocks") == ""
    assert rd(lun.inject + "counters") == "".join("%s 0\n" % k
                                                  for k in KINDS)
    for f in ("delay_read_us", "delay_write_us"):
        for value, back in (("200\n", "200"), ("500-2000", "500-2000"),
                            ("300-300\n", "300"), ("60000000", "60000000"),
                            ("0-60000000", "0-60000000"), ("0", "0")):
            lun.put(f, value)
            assert lun.get(f) == back, (f, value)
    for value in ("1", "0\n"):
        lun.put("badblocks_heal", value)
        assert lun.get("badblocks_heal") == value.strip()
    for value, back in (("busy 50\n", "busy 50"),
                        ("task_set_full 2147483647",
                         "task_set_full 2147483647"),
                        ("ua 1", "ua 1"),
                        ("aborted 1000000 ppm", "aborted 1000000 ppm"),
                        ("stuck 1 ppm\n", "stuck 1 ppm"),
                        ("busy 1000 ppm", "busy 1000 ppm"),
                        ("none\n", "none")):
        lun.put("fault", value)
        assert lun.get("fault") == back, value
    # nothing of that ran: no command came
    assert set(lun.counters().values()) == {0}


def bad_values(blocks):
    """(file, value, errno) that inject/ refuses."""
    out = [("sanitize_ms", v, errno.EINVAL)
           for v in ("3600001", "abc", "-1", "5\x00")]
    for f in ("delay_read_us", "delay_write_us"):
        out += [(f, v, errno.EINVAL) for v in (
            "60000001", "300-200", "0-60000001", "60000001-60000002",
            "abc", "-5", "5-", "-", "1-2-3", "1.5", "200us", "200 -300",
            "200\x00", "1\x00-5", "\n")]
    out += [("badblocks", v, errno.EINVAL) for v in (
        "+200-100", "-200-100", "+%d" % blocks, "+0-%d" % blocks,
        "+%d-%d" % (blocks + 1, blocks + 9), "+18446744073709551616",
        "+abc", "+5-x", "+-5", "+5-", "100", "*5", "clear all", "+",
        "+5\x00", "+5\x00-9", "\n")]
    out += [("badblocks_heal", v, errno.EINVAL)
            for v in ("2", "-1", "yes", "1\x00", "\n")]
    out += [("fault", v, errno.EINVAL) for v in (
        "busy 0", "busy 2147483648", "busy -3", "busy 1.5",
        "busy 1000001 ppm", "busy 0 ppm", "busy 5 ppb", "busy 5 ppm 1",
        "slow 5", "busy", "stuck", "busy x", "none 5", "busy\x005",
        "busy 5\x00", "\n")]
    out += [("counters", v, errno.EINVAL)
            for v in ("1", "abc", "0 0", "0\x00", "\n")]
    return out


def refused(kmsg, so, f, value, err):
    """Writing value to so's inject/f fails with err, the kernel says so
    in exactly one line (tcmx_core: <dev>: inject/<f>: ...), and the file
    reads as before."""
    path = so + "/inject/" + f
    before = rd(path)
    seen = len(kmsg.lines())
    got = err_of(wr, path, value)
    new = kmsg.lines()[seen:]
    assert got == err, (f, value, got)
    prefix = "tcmx_core: %s: inject/%s: " % (os.path.basename(so), f)
    assert len(new) == 1 and new[0].startswith(prefix), (f, value, new)
    assert rd(path) == before, (f, value, rd(path))


def test_bad_values_refused(stack, dmesg):
    """Every file refuses what it does not take: EINVAL, one kernel log
    line, nothing changed (a programmed value stays); badblocks also on a
    device not enabled yet, and ENOSPC for a 65th range, merging ranges
    counted after the merge, a split that would make a 65th refused."""
    so = mk_rd("bv", 16 * MiB)
    blocks = 16 * MiB // BS
    inj = so + "/inject/"
    for f, v in (("sanitize_ms", "1000"), ("delay_read_us", "100-200"),
                 ("delay_write_us", "300"), ("badblocks", "+10-20"),
                 ("badblocks_heal", "1"), ("fault", "busy 7")):
        wr(inj + f, v)
    for f, v, err in bad_values(blocks):
        refused(dmesg, so, f, v, err)
    assert rd(inj + "delay_read_us") == "100-200\n"
    assert rd(inj + "badblocks") == "10-20\n"
    assert rd(inj + "fault") == "busy 7\n"
    # a device not enabled yet has no size: no bad blocks
    hba = "%s/core/rd_mcp_%d" % (tcmxlib.T, tcmxlib.free_hba_index())
    os.mkdir(hba)
    os.mkdir(hba + "/ne")
    wr(hba + "/ne/control", "rd_pages=16")
    refused(dmesg, hba + "/ne", "badblocks", "+1", errno.EINVAL)
    assert rd(hba + "/ne/inject/badblocks") == ""
    # 64 ranges at most
    wr(inj + "badblocks", "clear")
    for i in range(64):
        wr(inj + "badblocks", "+%d-%d" % (i * 10, i * 10 + 2))
    full = ["%d-%d\n" % (i * 10, i * 10 + 2) for i in range(64)]
    assert rd(inj + "badblocks") == "".join(full)
    refused(dmesg, so, "badblocks", "+1000", errno.ENOSPC)
    refused(dmesg, so, "badblocks", "+5", errno.ENOSPC)
    # joined to 0-2: still 64
    wr(inj + "badblocks", "+3")
    assert rd(inj + "badblocks").splitlines()[:2] == ["0-3", "10-12"]
    # 0-3 split in two would be a 65th
    refused(dmesg, so, "badblocks", "-1", errno.ENOSPC)
    wr(inj + "badblocks", "-0-3")
    wr(inj + "badblocks", "+1000")
    assert len(rd(inj + "badblocks").splitlines()) == 64
    wr(inj + "badblocks", "clear")
    assert rd(inj + "badblocks") == ""


def test_badblocks_list_merges_and_splits(sg_lun):
    """badblocks reads back sorted, inclusive, merged ranges: adjacent and
    overlapping ones join, a removal may split one or cut its ends,
    removing blocks not listed changes nothing, "clear" empties it."""
    lun, last = sg_lun, sg_lun.blocks - 1
    steps = (("+100-107\n", ["100-107"]),
             ("+108", ["100-108"]),
             ("+50-60", ["50-60", "100-108"]),
             ("+61-99\n", ["50-108"]),
             ("+200-300", ["50-108", "200-300"]),
             ("+250-400", ["50-108", "200-400"]),
             ("+5", ["5-5", "50-108", "200-400"]),
             ("-250-260", ["5-5", "50-108", "200-249", "261-400"]),
             ("-200-249", ["5-5", "50-108", "261-400"]),
             ("-0-55\n", ["56-108", "261-400"]),
             ("-300", ["56-108", "261-299", "301-400"]),
             ("-1000-2000", ["56-108", "261-299", "301-400"]),
             ("-400", ["56-108", "261-299", "301-399"]),
             ("+%d" % last, ["56-108", "261-299", "301-399",
                             "%d-%d" % (last, last)]),
             ("+0-%d" % last, ["0-%d" % last]),
             ("clear\n", []))
    for value, want in steps:
        lun.put("badblocks", value)
        assert lun.ranges() == want, (value, lun.ranges())


# ---------------------------------------------------------------- bad blocks

def test_badblocks_sense_data_and_dd(lun):
    """A READ touching a bad block: 03/11/00 with VALID and INFORMATION =
    the first bad LBA of the command's range, no data; a WRITE: 03/0C/00,
    nothing written, the good blocks of its range neither; all READ and
    WRITE sizes (6/10/12/16); descriptor sense with D_SENSE; sg_raw says
    the same; dd (direct, 512-byte blocks) fails exactly at block 100's
    offset; the counters count each refused command."""
    a, b = b"\x5a" * 16 * BS, b"\xb5" * 16 * BS
    lun.write(96, a)
    lun.write(992, a)
    lun.put("badblocks", "+100-107")
    lun.put("badblocks", "+1000")
    lun.put("counters", "0")
    reads = 0
    for cdb, n, first in ((r16(96, 16), 16, 100), (r16(104, 8), 8, 104),
                          (r10(100, 1), 1, 100), (r12(99, 9), 9, 100),
                          (r6(107, 1), 1, 107), (r16(990, 20), 20, 1000)):
        lun.medium(cdb, MEDIUM_READ, first, n=n)
        reads += 1
    assert lun.read(96, 4) == a[:4 * BS]
    assert lun.read(108, 4) == a[:4 * BS]
    assert lun.read(999, 1) == a[:BS] and lun.read(1001, 1) == a[:BS]
    writes = 0
    for cdb, data, first in ((w16(96, 16), b, 100), (w10(107, 1), b[:BS], 107),
                             (w12(1000, 1), b[:BS], 1000)):
        lun.medium(cdb, MEDIUM_WRITE, first, dout=data)
        writes += 1
    # nothing of the refused writes landed, not even their good blocks
    assert lun.read(96, 4) == a[:4 * BS]
    assert lun.read(108, 4) == a[:4 * BS]
    assert lun.counters() == dict.fromkeys(KINDS, 0) | {
        "badblock_read": reads, "badblock_write": writes}
    # sg_raw, the user's tool
    st, k, _ = sg_raw(lun.sg, list(r16(96, 16)), rlen=16 * BS)
    assert (st, k) == ("Check Condition", MEDIUM_READ), st
    # descriptor format
    set_d_sense(lun, True)
    try:
        sense = lun.medium(r16(96, 16), MEDIUM_READ, 100, n=16)
        assert sense[0] == 0x72, sense.hex()
        sense = lun.medium(w16(1000, 1), MEDIUM_WRITE, 1000, dout=b[:BS])
        assert sense[0] == 0x72, sense.hex()
    finally:
        set_d_sense(lun, False)
    # the blocks themselves: back once they are off the list
    lun.put("badblocks", "-100-107")
    assert lun.read(96, 16) == a
    lun.put("badblocks", "+100-107")
    # dd, direct, one 512-byte block a read: 100 blocks, then the error
    lun.put("counters", "0")
    rc, err = dd("if=%s of=/dev/null bs=512 count=200 iflag=direct"
                 % lun.dev)
    assert rc != 0 and "100+0 records in" in err, err
    assert re.search(r"Input/output error|No data available", err), err
    for skip, ok in ((99, True), (100, False), (107, False), (108, True),
                     (999, True), (1000, False), (1001, True)):
        rc, err = dd("if=%s of=/dev/null bs=512 skip=%d count=1 "
                     "iflag=direct" % (lun.dev, skip))
        assert (rc == 0) == ok, (skip, err)
    assert lun.counters()["badblock_read"] == 4
    assert lun.counters()["badblock_write"] == 0


def test_badblocks_heal(lun):
    """badblocks_heal 1: a write over bad blocks succeeds, takes the
    blocks of its range off the list (splitting a range), and reads back;
    the blocks not written stay bad. Healed writes are not counted as
    badblock_write; with heal 0 again a write is refused."""
    a, b = b"\x11" * 16 * BS, b"\xee" * 16 * BS
    lun.write(96, a)
    lun.put("badblocks", "+100-107")
    lun.put("badblocks", "+1000")
    lun.put("badblocks_heal", "1")
    lun.put("counters", "0")
    lun.write(104, b[:8 * BS])
    assert lun.ranges() == ["100-103", "1000-1000"]
    assert lun.read(104, 8) == b[:8 * BS]
    lun.medium(r10(96, 16), MEDIUM_READ, 100, n=16)
    lun.good(w10(96, 8), dout=b[:8 * BS])
    assert lun.ranges() == ["1000-1000"]
    assert lun.read(96, 16) == b
    # dd through sd heals too
    with open("/tmp/inject-heal", "wb") as f:
        f.write(b"\x77" * BS)
    rc, err = dd("if=/tmp/inject-heal of=%s bs=512 seek=1000 count=1 "
                 "oflag=direct" % lun.dev)
    os.unlink("/tmp/inject-heal")
    assert rc == 0, err
    assert lun.ranges() == []
    assert lun.read(1000, 1) == b"\x77" * BS
    c = lun.counters()
    assert (c["badblock_read"], c["badblock_write"]) == (1, 0), c
    lun.put("badblocks_heal", "0")
    lun.put("badblocks", "+200")
    lun.medium(w16(200, 1), MEDIUM_WRITE, 200, dout=b[:BS])
    assert lun.ranges() == ["200-200"]
    assert lun.counters()["badblock_write"] == 1


def test_badblocks_tool_finds_them(lun):
    """badblocks(8) -b 4096 (read-only scan) reports exactly the 4 KiB
    blocks that hold a bad 512-byte block: its unit is its -b."""
    bad = [(100, 107), (1000, 1000), (5000, 5010), (32767, 32767)]
    for s, e in bad:
        lun.put("badblocks", "+%d-%d" % (s, e))
    want = sorted({lba * BS // 4096 for s, e in bad
                   for lba in range(s, e + 1)})
    assert want == [12, 13, 125, 625, 626, 4095]
    p = run(["badblocks", "-b", "4096", "-c", "16", lun.dev], check=False,
            timeout=300)
    got = [int(x) for x in p.stdout.split()]
    assert got == want, (p.stdout, p.stderr)
    assert lun.counters()["badblock_read"] >= len(want)


# ---------------------------------------------------------------- delays

def p50_read(dev, runtime=3):
    """fio QD1 4k random reads (direct) for runtime s: p50 of the total
    latency (submission + completion: without a delay the loopback
    completes a read before io_submit returns, in fio's slat) in us, and
    how many reads it counted."""
    job = fio.run_json(fio.lat_job([dev], "randread", runtime, 1) +
                       ["--size=8M", "--output-format=json"],
                       timeout=runtime + 120)
    return fio.figures(job, "lat")["lat_p50_us"], job["read"]["total_ios"]


def test_delay_read_latency(lun):
    """delay_read_us 200: fio's QD1 random read p50 (total latency) rises
    by about 200 us.
    Under TCG the wall clock is too noisy for a 10% bound: the p50 must
    rise by at least 180 us over the lower of two runs without a delay
    (the delay can only add) and by less than 20 ms (a unit mix-up);
    under tools/vm --icount by 180 to 220 us (within 10%). Every read counts as
    delayed; writes do not."""
    fio_verify(lun.dev, size="8M", iodepth=8)    # no hole reads
    base1, _ = p50_read(lun.dev)
    lun.put("delay_read_us", "200")
    lun.put("counters", "0")
    slow, n = p50_read(lun.dev)
    assert lun.counters()["delayed"] >= n > 0
    lun.put("delay_read_us", "0")
    base2, _ = p50_read(lun.dev)
    base = min(base1, base2)
    print("QD1 randread p50: %.0f us, %.0f us without delay, %.0f us with "
          "delay_read_us 200" % (base1, base2, slow))
    assert slow >= base + 180, (base1, base2, slow)
    assert slow < max(base1, base2) + 20000, (base1, base2, slow)
    if tcmxlib.cmdline_icount() is not None:
        # within 10% of the delay (measured: +215 us on 6.1, +218 on 6.12)
        assert slow - base <= 220, (base1, base2, slow)
    # writes are not delayed by delay_read_us
    lun.put("delay_read_us", "200")
    lun.put("counters", "0")
    rc, err = dd("if=/dev/zero of=%s bs=4k count=20 oflag=direct" % lun.dev)
    assert rc == 0, err
    assert lun.counters()["delayed"] == 0


def test_delay_min_max_and_write_lands_first(lun):
    """delay_read_us 20000-40000: 50 direct reads take 1 s at least and
    not much over 2 s (TCG: a loose bound), each delayed by a value in
    [20000, 40000] (tcmx:inject's delay_us, spread over the range), and
    50 counted. delay_write_us: the write's data is on the medium at once,
    its completion comes after the delay."""
    lun.put("delay_read_us", "20000-40000")
    assert lun.get("delay_read_us") == "20000-40000"
    lun.put("counters", "0")
    took = []

    def reads():
        t0 = time.monotonic()
        rc, err = dd("if=%s of=/dev/null bs=4k count=50 iflag=direct"
                     % lun.dev)
        took.append(time.monotonic() - t0)
        assert rc == 0, err

    ev = inject_events(reads)
    print("50 reads, delay_read_us 20000-40000: %.2f s" % took[0])
    assert 1.0 <= took[0] < 2.0 + 6, took
    assert lun.counters()["delayed"] == 50
    delays = [int(kv["delay_us"]) for e, kv in ev if kv.get("kind") ==
              "delayed"]
    assert len(delays) == 50, ev[:5]
    assert all(20000 <= d <= 40000 for d in delays), delays
    assert max(delays) - min(delays) > 4000, delays
    lun.put("delay_read_us", "0")
    # a write delayed 3 s: its data reads back while it is still pending
    lun.write(300, b"\x01" * BS)
    lun.put("delay_write_us", "3000000")
    t, done = in_thread(lambda: sg_command(lun.sg, w10(300, 1),
                                           dout=b"\x02" * BS))
    try:
        time.sleep(1)
        assert lun.read(300, 1) == b"\x02" * BS
        assert "at" not in done, "the delayed write completed early"
    finally:
        t.join(30)
    assert done.get("result", (None,))[0] == GOOD, done
    assert lun.counters()["delayed"] == 51


# ---------------------------------------------------------------- faults

def test_fault_statuses_and_counters(sg_lun):
    """Each fault kind as the initiator sees it, every Nth READ/WRITE
    counted from when fault was written: ua and aborted give CHECK
    CONDITION 06/29/00 and 0B/00/00 (no unit attention left behind, no
    data written); busy and task_set_full the statuses BUSY and TASK SET
    FULL (tcmx:cmd_complete), which the midlayer retries: the next
    command is not faulted, SG_IO ends GOOD. ppm 1000000 faults each
    command. The counters count each, and "0" resets them."""
    lun = sg_lun
    lun.write(10, b"\x10" * 2 * BS)
    lun.put("fault", "ua 1")
    st, sense, _, _ = lun.cmd(r10(10, 1), din=BS)
    assert (st, kcq(sense)) == (CHECK, POWER_ON), sense.hex()
    lun.good([0, 0, 0, 0, 0, 0])        # not a real unit attention
    st, sense, _, _ = lun.cmd(w10(11, 1), dout=b"\xee" * BS)
    assert (st, kcq(sense)) == (CHECK, POWER_ON), sense.hex()
    lun.put("fault", "aborted 1")
    st, sense, _, _ = lun.cmd(w10(10, 1), dout=b"\xee" * BS)
    assert (st, kcq(sense)) == (CHECK, COMMAND_ABORTED), sense.hex()
    lun.put("fault", "none")
    assert lun.read(10, 2) == b"\x10" * 2 * BS
    # every 3rd, from the write of fault on
    lun.put("fault", "ua 3")
    seen = [kcq(lun.cmd(r10(10, 1), din=BS)[1]) for _ in range(6)]
    assert seen == [None, None, POWER_ON] * 2, seen
    lun.cmd(r10(10, 1), din=BS)
    lun.put("fault", "ua 3")
    seen = [kcq(lun.cmd(r10(10, 1), din=BS)[1]) for _ in range(3)]
    assert seen == [None, None, POWER_ON], seen
    lun.put("fault", "aborted 1000000 ppm")
    for _ in range(3):
        st, sense, _, _ = lun.cmd(r10(10, 1), din=BS)
        assert (st, kcq(sense)) == (CHECK, COMMAND_ABORTED), sense.hex()
    lun.put("fault", "aborted 1 ppm")
    for _ in range(20):
        lun.read(10, 1)
    c = lun.counters()
    assert c == dict.fromkeys(KINDS, 0) | {"ua": 2 + 2 + 1, "aborted": 4}, c

    def statuses():
        for kind in ("busy 2", "task_set_full 2"):
            lun.put("fault", kind)
            assert lun.read(20, 1) == bytes(BS)
            assert lun.read(21, 1) == bytes(BS)     # faulted, retried
        lun.put("fault", "none")

    ev = inject_events(statuses, extra=("tcmx_cmd_complete",))
    done = [(kv["lba"], kv["status"]) for e, kv in ev
            if e == "tcmx_cmd_complete" and kv.get("opcode") == "0x88"]
    assert done == [("20", "0x00"), ("21", "0x%02x" % BUSY), ("21", "0x00"),
                    ("20", "0x00"), ("21", "0x%02x" % TASK_SET_FULL),
                    ("21", "0x00")], ev
    c = lun.counters()
    assert (c["busy"], c["task_set_full"], c["ua"]) == (1, 1, 5), c
    lun.put("counters", "0")
    assert lun.counters() == dict.fromkeys(KINDS, 0)
    lun.put("fault", "aborted 1")
    lun.cmd(r10(10, 1), din=BS)
    assert lun.counters() == dict.fromkeys(KINDS, 0) | {"aborted": 1}
    # a fault comes before the bad blocks: the bad block is not read
    lun.put("badblocks", "+30")
    lun.put("fault", "ua 1")
    st, sense, _, _ = lun.cmd(r10(30, 1), din=BS)
    assert (st, kcq(sense)) == (CHECK, POWER_ON), sense.hex()
    lun.put("fault", "none")
    lun.medium(r10(30, 1), MEDIUM_READ, 30, n=1)
    assert lun.counters() == dict.fromkeys(KINDS, 0) | {
        "aborted": 1, "ua": 1, "badblock_read": 1}


def test_nothing_programmed_costs_nothing(sg_lun):
    """While nothing is programmed (no delay, no bad block, fault none)
    the device's execute_rw is the backend's own: tcmx_inject_rw() (the
    function tracer counts its calls) does not run for a READ, also once
    a program was set and undone; it runs for each while one is set."""
    from tcmxlib.ftrace import function_calls
    lun = sg_lun

    def reads():
        for i in range(10):
            lun.read(i, 1)

    def calls():
        return function_calls(["tcmx_inject_rw"], reads)["tcmx_inject_rw"]

    assert calls() == 0
    for f, on, off in (("delay_read_us", "1", "0"),
                       ("badblocks", "+1000", "clear"),
                       ("fault", "busy 1000000", "none"),
                       ("delay_write_us", "5-9", "0")):
        lun.put(f, on)
        assert calls() >= 10, (f, on)
        lun.put(f, off)
        assert calls() == 0, (f, off)
    # two set, one undone: still programmed
    lun.put("delay_read_us", "1")
    lun.put("badblocks", "+1000")
    lun.put("delay_read_us", "0")
    assert calls() >= 10
    lun.put("badblocks", "-1000")
    assert calls() == 0


def test_verdict_inside_the_write_exclusion(sg_lun):
    """A READ or WRITE that overlaps a COMPARE AND WRITE just done (the
    write exclusion: its window lingers 20 ms after the holder, and a
    command that overlaps it runs after it, in a worker) gets inject/'s
    verdict as any other: a bad block's 03/11/00 and 03/0C/00 (nothing
    written, each counted), a fault's 0B/00/00, a delay (counted). It
    used to bypass inject/ there (GOOD, data read or written). The
    function tracer shows that some of them did take that way
    (tcmx_inject_excl())."""
    from tcmxlib.ftrace import function_calls
    lun = sg_lun
    lun.put("badblocks", "+100")
    rounds = 10
    aborted = []

    def overlapping():
        for _ in range(rounds):
            lun.good(caw_cdb(100, 1), dout=bytes(2 * BS))
            lun.medium(r10(100, 1), MEDIUM_READ, 100, n=1)
            lun.good(caw_cdb(100, 1), dout=bytes(2 * BS))
            lun.medium(w10(100, 1), MEDIUM_WRITE, 100, dout=b"\xee" * BS)
        lun.put("badblocks", "clear")
        lun.put("fault", "aborted 1")
        for _ in range(rounds):
            lun.good(caw_cdb(100, 1), dout=bytes(2 * BS))
            st, sense, _, _ = lun.cmd(r10(100, 1), din=BS)
            aborted.append((st, kcq(sense)))
        lun.put("fault", "none")
        lun.put("delay_read_us", "1000")
        for _ in range(rounds):
            lun.good(caw_cdb(100, 1), dout=bytes(2 * BS))
            assert lun.read(100, 1) == bytes(BS)
        lun.put("delay_read_us", "0")

    calls = function_calls(["tcmx_inject_excl"], overlapping)
    print("tcmx_inject_excl calls: %s" % calls)
    assert calls["tcmx_inject_excl"] >= 1, calls
    assert aborted == [(CHECK, COMMAND_ABORTED)] * rounds, aborted
    c = lun.counters()
    assert (c["badblock_read"], c["badblock_write"], c["aborted"],
            c["delayed"]) == (rounds,) * 4, c
    assert lun.read(100, 1) == bytes(BS)


@pytest.mark.parametrize("fault,every", [
    ("busy 8", 8), ("task_set_full 8", 8), ("ua 16", 16),
    ("aborted 16", 16), ("busy 100000 ppm", None)])
def test_fault_under_fio_verify(lun, fault, every):
    """fio --verify (direct 4k random writes, then all read back) passes
    with every Nth command faulted: the midlayer retries each (BUSY and
    TASK SET FULL requeued, 06/29/00 and 0B/00/00 retried), and the
    counter of the kind is the number of commands faulted: one in N of
    all commands sent (each request once, plus the retries), or about
    10% with 100000 ppm."""
    kind = fault.split()[0]
    io0 = io_done(lun.dev)
    lun.put("fault", fault)
    fio_verify(lun.dev)
    lun.put("fault", "none")
    n = lun.counters()[kind]
    total = io_done(lun.dev) - io0 + n      # commands sent
    print("%s: %d of %d commands faulted" % (fault, n, total))
    assert n > 0
    if every:
        assert abs(n - total // every) <= 1, (n, total)
    else:
        assert 0.03 < n / total < 0.25, (n, total)
    assert sum(lun.counters().values()) == n


def test_stuck_until_task_management(lun):
    """fault stuck: the command never completes by itself; writing "fault
    none" does not release it; a LUN reset (sg_reset -d) does, at once,
    with ABORTED COMMAND 0B/00/00, and it wrote nothing. A LUN unlink
    releases one too (and returns)."""
    lun.write(20, b"\xaa" * BS)
    lun.put("fault", "stuck 1")
    t, done = in_thread(lambda: sg_command(lun.sg, w10(20, 1),
                                           dout=b"\xbb" * BS))
    try:
        wait_count(lun, "stuck", 1)
        lun.put("fault", "none")
        time.sleep(1.5)
        assert "at" not in done, done
        assert lun.read(20, 1) == b"\xaa" * BS
        t0 = time.monotonic()
        run(["sg_reset", "-d", lun.sg])
        t.join(30)
    finally:
        if t.is_alive():
            run(["sg_reset", "-d", lun.sg], check=False)
            t.join(30)
    assert done["at"] - t0 < 10, done["at"] - t0
    st, k, _ = done["result"]
    assert (st, k) == (CHECK, COMMAND_ABORTED), done
    assert DEVICE_RESET in tcmxlib.ua_clear(lun.sg)
    assert lun.read(20, 1) == b"\xaa" * BS
    # the unlink of the LUN ends a stuck command and returns, long
    # before the command's own timeout (60 s) would have ended it
    lun.put("fault", "stuck 1")
    t, done = in_thread(lambda: sg_command(lun.sg, r10(0, 1), din=BS,
                                           timeout_ms=60000))
    try:
        wait_count(lun, "stuck", 2)
        t0 = time.monotonic()
        unlink_lun(lun.lun)
        took = time.monotonic() - t0
        t.join(30)
    finally:
        if t.is_alive():
            run(["sg_reset", "-d", lun.sg], check=False)
            t.join(30)
    assert took < 20, "the unlink took %.1f s" % took
    assert "at" in done and done["at"] - t0 < 20, done
    assert "error" in done or done["result"][0] != GOOD, done
    assert lun.counters()["stuck"] == 2


@pytest.mark.parametrize("tas", (1, 0))
def test_stuck_ended_by_another_nexus_lun_reset(target, tas):
    """SAM-5 5.6: nexus B's READ is stuck; nexus A resets the logical unit
    (sg_reset -d): B's command comes back at once, TASK ABORTED while the
    control page's TAS (emulate_tas) is 1, else ABORTED COMMAND."""
    with tcmxlib.sd_off():
        so = mk_rd("ob%d" % tas, 8 * MiB)
        wr(so + "/attrib/emulate_tas", str(tas))    # fixed once linked
        ta, tb = target.tpg, mk_target()
        link_lun(ta, 0, so)
        link_lun(tb, 0, so)
        a, b = sgdev(ta, 0), sgdev(tb, 0)
        tcmxlib.ua_clear(a)
        tcmxlib.ua_clear(b)
        wr(so + "/inject/fault", "stuck 1")
        t, done = in_thread(lambda: sg_command(b, r10(7, 1), din=BS))
        try:
            end = time.monotonic() + 10
            while "stuck 1\n" not in rd(so + "/inject/counters"):
                assert time.monotonic() < end, rd(so + "/inject/counters")
                time.sleep(0.05)
            wr(so + "/inject/fault", "none")
            reset = time.monotonic()
            run(["sg_reset", "-d", a])
            t.join(20)
        finally:
            if t.is_alive():
                run(["sg_reset", "-d", b], check=False)
                t.join(30)
    assert done["at"] - reset < 10, done["at"] - reset
    st, k, _ = done["result"]
    if tas:
        assert (st, k) == (0x40, None), (st, k)
    else:
        assert (st, k) == (CHECK, COMMAND_ABORTED), (st, k)


def tmr_aborts():
    """tcmx:tcmx_tmr on, an empty buffer; returns a function giving
    [(result, latency_ns)] of the ABORT_TASKs since."""
    events = ftrace.tmr_events()
    return lambda: [(r, ns) for tmf, r, ns in events() if tmf == "ABORT_TASK"]


def test_stuck_commands_aborted_by_the_error_handler(lun):
    """A 2 s SCSI timeout and every 64th command stuck: the midlayer times
    each out and aborts it (ABORT TASK, which ends it at once), then
    retries it; fio --verify passes and the disk stays running."""
    sysd = "/sys/block/%s/device/" % os.path.basename(lun.dev)
    tmo0 = int(rd(sysd + "iotmo_cnt"), 0)
    wr(sysd + "timeout", "2")
    aborts = tmr_aborts()
    lun.put("fault", "stuck 64")
    try:
        fio_verify(lun.dev, size="2M", iodepth=8)
    finally:
        lun.put("fault", "none")
        wr(sysd + "timeout", "30")
    ab = aborts()
    stuck = lun.counters()["stuck"]
    timed_out = int(rd(sysd + "iotmo_cnt"), 0) - tmo0
    print("stuck %d, timed out %d, aborts (result, ns): %s" % (
        stuck, timed_out, ab))
    assert stuck >= 3
    assert timed_out >= stuck
    assert len(ab) >= stuck and all(r == 0 for r, _ in ab), ab
    # a stuck command's abort does not wait for it (LOOP_ABORT_MS: 30 s)
    assert sorted(ns for _, ns in ab)[stuck - 1] < 5 * 10 ** 9, ab
    assert rd(sysd + "state").strip() == "running"


# ---------------------------------------------------------------- file system

def test_ext4_under_delays_and_busy(target, tmp_path):
    """ext4 on a LUN whose writes are delayed 500-2000 us and every 50th
    command BUSY: mkfs, a mixed fio load on files (direct and buffered
    writes verified, direct reads), unmount, and e2fsck -fn finds it
    clean."""
    lun = target(size=64 * MiB, name="fs")
    lun.put("delay_write_us", "500-2000")
    lun.put("fault", "busy 50")
    run("mkfs.ext4 -q -F %s" % lun.dev)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    run("mount %s %s" % (lun.dev, mnt))
    try:
        # verified: the two writers (a reader's file has no headers)
        verify = ["--verify=crc32c", "--verify_fatal=1"]
        p = run(["fio", "--directory=%s" % mnt, "--ioengine=libaio",
                 "--bs=4k", "--iodepth=4", "--size=6M",
                 "--output-format=terse",
                 "--name=dw", "--rw=randwrite", "--direct=1"] + verify +
                ["--name=bw", "--rw=randwrite", "--direct=0",
                 "--fsync=64"] + verify +
                ["--name=dr", "--rw=randread", "--direct=1"],
                check=False, timeout=600)
        out = p.stdout + p.stderr
        assert p.returncode == 0, out
        assert "verify:" not in out and "bad magic" not in out, out
        for line in p.stdout.strip().splitlines():
            assert line.split(";")[4] == "0", out
    finally:
        run("umount %s" % mnt)
    p = run(["e2fsck", "-fn", lun.dev], check=False, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    lun.put("fault", "none")
    lun.put("delay_write_us", "0")
    c = lun.counters()
    print("ext4 counters:", c)
    assert c["delayed"] > 0 and c["busy"] > 0, c


# ---------------------------------------------------------------- tracepoint

def test_inject_tracepoint(target):
    """tcmx:inject: one event per injected fault, with the device, the
    LUN as the initiator addressed it, the LBA, the kind and, for a
    delay, its length."""
    with tcmxlib.sd_off():
        lun = target(n=5, name="tp", sd=False)
        lun.put("badblocks", "+100")
        holder = {}

        def faults():
            lun.medium(r10(100, 1), MEDIUM_READ, 100, n=1)
            lun.medium(w10(100, 1), MEDIUM_WRITE, 100, dout=bytes(BS))
            lun.put("badblocks_heal", "1")
            lun.good(w10(100, 1), dout=bytes(BS))
            lun.put("delay_read_us", "1000")
            lun.read(50, 1)
            lun.put("delay_read_us", "0")
            lun.put("fault", "ua 1")
            lun.cmd(r10(60, 1), din=BS)
            lun.put("fault", "aborted 1")
            lun.cmd(r10(61, 1), din=BS)
            lun.put("fault", "busy 2")
            lun.read(70, 1)
            lun.read(71, 1)
            lun.put("fault", "task_set_full 2")
            lun.read(72, 1)
            lun.read(73, 1)
            lun.put("fault", "stuck 1")
            t, done = in_thread(lambda: sg_command(lun.sg, r10(80, 1),
                                                   din=BS))
            wait_count(lun, "stuck", 1)
            lun.put("fault", "none")
            run(["sg_reset", "-d", lun.sg])
            t.join(30)
            holder["stuck"] = done

        ev = inject_events(faults)
    assert "result" in holder["stuck"], holder
    got = [(kv.get("kind"), kv.get("lba")) for e, kv in ev]
    assert got == [("badblock_read", "100"), ("badblock_write", "100"),
                   ("badblock_heal", "100"), ("delayed", "50"),
                   ("ua", "60"), ("aborted", "61"), ("busy", "71"),
                   ("task_set_full", "73"), ("stuck", "80")], ev
    for e, kv in ev:
        assert kv.get("lun") == "5", kv
        assert kv.get("delay_us") == ("1000" if kv["kind"] == "delayed"
                                      else "0"), kv
    fmt = rd(TR + "events/tcmx/inject/format")
    for field in ("dev", "lun", "lba", "kind", "delay_us"):
        assert re.search(r"field:.*\b%s(\[\])?;" % field, fmt), (field, fmt)
    assert all(kv.get("dev") == "tp" for e, kv in ev), ev
