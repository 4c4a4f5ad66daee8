"""Task management from the SCSI error handler under verified I/O: the
LUN, target, bus and host resets of sg_reset, and the abort of commands
that time out, made to on purpose by the device's fault injection
(inject/, target/inject.c): "fault stuck N" leaves every Nth READ/WRITE
in the core until task management aborts it (at once), delay_read_us /
delay_write_us completes each command that much later (its I/O done
first; a delayed command is not abortable: an abort or reset waits for
it). Each reset returns in seconds, fio --verify=crc32c goes on without
an error, another TPG's LUN keeps its data, and afterwards the LUNs unlink
and the modules unload. inject/'s values themselves: test_inject.py."""
import os
import re
import subprocess
import time

import pytest

import tcmxlib
from tcmxlib import (MiB, disk, mk_rd, mk_target, link_lun, rd, run, sgdev,
                     sgio, sha, unlink_lun, wr)
from tcmxlib import fill
from tcmxlib import fio, ftrace

pytestmark = pytest.mark.tcmx_only

DID_TIME_OUT = 0x03
WRITE10 = [0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0]


def quiet(so):
    tcmxlib.inject(so, fault="none", delay_read_us="0", delay_write_us="0")


def writes_done(dev):
    """Writes completed on /dev/sdX (field 5 of its stat file)."""
    with open("/sys/block/%s/stat" % os.path.basename(dev)) as f:
        return int(f.read().split()[4])


def wait_writes(dev, more=32, limit=60):
    """I/O goes on: `more` writes complete on dev within limit seconds."""
    start, end = writes_done(dev), time.time() + limit
    while writes_done(dev) < start + more:
        assert time.time() < end, "I/O on %s stalled" % dev
        time.sleep(0.2)


@pytest.fixture
def luns(stack):
    """LUNs 0 and 1 of TPG 1 (fio verifies both) and LUN 0 of TPG 2 on the
    same loopback host, filled with a pattern; LUN 0's device (sa) back to
    no fault and no delay after."""
    tpg1 = mk_target()
    wwn = os.path.dirname(tpg1)
    tpg2 = mk_target(wwn=os.path.basename(wwn), tag=2)
    sa = mk_rd("a", 32 * MiB)
    la = link_lun(tpg1, 0, sa)
    link_lun(tpg1, 1, mk_rd("b", 32 * MiB))
    link_lun(tpg2, 0, mk_rd("c", 32 * MiB))
    a, b, c = disk(tpg1, 0), disk(tpg1, 1), disk(tpg2, 0)
    fill(c, "tmf", 32 * MiB)
    want = sha(c, 0, 32 * MiB)
    try:
        yield dict(a=a, b=b, c=c, la=la, sa=sa, sga=sgdev(tpg1, 0),
                   want=want)
    finally:
        quiet(sa)
    assert sha(c, 0, 32 * MiB) == want, "the other TPG's LUN lost its data"


def test_resets_under_verified_io(luns):
    """Every 32nd READ/WRITE of LUN 0 stuck, each delayed up to 0.3 s: LUN,
    target, bus and host reset each abort the stuck commands (which the
    midlayer retries) and wait for the delayed ones, return within
    seconds, and I/O goes on; then LUN 0 unlinks under I/O with commands
    stuck and delayed up to 2 s."""
    sa = luns["sa"]
    tcmxlib.inject(sa, fault="stuck 32", delay_read_us="0-300000",
           delay_write_us="0-300000")
    events = ftrace.tmr_events()
    p = fio.verify_start([luns["a"], luns["b"]])
    try:
        wait_writes(luns["a"])
        for flag in ("-d", "-t", "-b", "-H"):
            t0 = time.time()
            r = run(["sg_reset", flag, luns["a"]], check=False, timeout=120)
            took = time.time() - t0
            assert r.returncode == 0, (flag, r.stdout, r.stderr)
            assert took < 20, "sg_reset %s took %.1f s" % (flag, took)
            wait_writes(luns["a"])
            wait_writes(luns["b"])
        # a command stuck 30 s (the SCSI timeout) is aborted by the
        # midlayer: that ABORT_TASK may come between the resets
        tmfs = [e for e in events() if e[0] != "ABORT_TASK"]
        print("task management (function, result, ns):", events())
        assert [t for t, _, _ in tmfs] == ["LUN_RESET"] + \
            ["I_T_NEXUS_LOSS"] * 3, tmfs
        assert all(r == 0 for _, r, _ in events()), events()
        assert tcmxlib.inject_counter(sa, "stuck") > 0 and tcmxlib.inject_counter(sa, "delayed") > 0
        # no new stuck command; the last ones end with one more reset
        # rather than with their timeout
        tcmxlib.inject(sa, fault="none")
        run(["sg_reset", "-d", luns["a"]], timeout=120)
    except BaseException:
        quiet(sa)
        run(["sg_reset", "-d", luns["a"]], check=False, timeout=120)
        p.kill()
        p.communicate()
        raise
    fio.verify_stop(p)
    # unlink while fio writes to it and commands are stuck and delayed
    tcmxlib.inject(sa, fault="stuck 8", delay_write_us="0-2000000")
    p = subprocess.Popen(
        ["fio", "--name=u", "--filename=" + luns["a"], "--ioengine=libaio",
         "--direct=1", "--rw=randwrite", "--bs=4k", "--iodepth=8",
         "--time_based", "--runtime=120"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_writes(luns["a"], 8)
        stuck = tcmxlib.inject_counter(sa, "stuck")
        t0 = time.time()
        unlink_lun(luns["la"])
        # well within the SCSI timeout (30 s), which would end the
        # stuck commands too
        took = time.time() - t0
        assert took < 20, "the unlink took %.1f s" % took
        assert not os.path.exists(luns["a"])
        p.wait(timeout=60)      # fio gets errors and ends
    finally:
        p.kill()
        p.wait()
    assert stuck > 0
    quiet(sa)


def test_timed_out_commands_are_aborted(luns):
    """A 1 s SCSI timeout and every 16th command stuck: the midlayer
    times them out and aborts them; each abort ends its stuck command at
    once and succeeds, the command is retried; fio verifies without an
    error and the disk stays running. Then a write (SG_IO, 1 s timeout)
    delayed 5 s: the abort waits for it (a delayed command is not
    abortable) and succeeds, the command ends timed out (SG_IO does not
    retry), its data written. (The block layer rounds a timeout up to
    the next second: the abort starts 1 to 2 s in.)"""
    a = os.path.basename(luns["a"])
    sa = luns["sa"]
    sysd = "/sys/block/%s/device/" % a
    tmo0 = int(rd(sysd + "iotmo_cnt"), 0)
    wr(sysd + "timeout", "1\n")
    tcmxlib.inject(sa, fault="stuck 16")
    events = ftrace.tmr_events()
    p = fio.verify_start([luns["a"]])
    try:
        end = time.time() + 90
        while int(rd(sysd + "iotmo_cnt"), 0) < tmo0 + 3:
            assert p.poll() is None, p.communicate()[0]
            assert time.time() < end, "no command timed out"
            time.sleep(0.5)
        tcmxlib.inject(sa, fault="none")
        wr(sysd + "timeout", "30\n")
        wait_writes(luns["a"])
    except BaseException:
        quiet(sa)
        p.kill()
        p.communicate()
        raise
    fio.verify_stop(p)
    assert rd(sysd + "state").strip() == "running"
    stuck = tcmxlib.inject_counter(sa, "stuck")
    aborts = [e for e in events() if e[0] == "ABORT_TASK"]
    print("stuck %d; aborts (function, result, ns): %s" % (stuck, aborts))
    assert stuck >= 3 and len(aborts) >= stuck, (stuck, aborts)
    assert all(r == 0 for _, r, _ in aborts), aborts
    # a stuck command's abort ends it at once: no wait up to the
    # loopback's 30 s abort bound
    assert sorted(ns for _, _, ns in aborts)[stuck - 1] < 2 * 10 ** 9, \
        aborts
    # a delayed command: the abort waits for its completion
    tcmxlib.inject(sa, delay_write_us="5000000")
    events = ftrace.tmr_events()
    fd = os.open(luns["sga"], os.O_RDWR)
    try:
        t0 = time.monotonic()
        _, _, _, h = sgio(fd, WRITE10, dout=b"\xd1" * 512, timeout_ms=1000)
        took = time.monotonic() - t0
        tcmxlib.inject(sa, delay_write_us="0")
        st, _, data, _ = sgio(fd, [0x28] + WRITE10[1:], din=512)
    finally:
        os.close(fd)
    aborts = [e for e in events() if e[0] == "ABORT_TASK"]
    print("delayed write: %.2f s, host status %#x, aborts %s" % (
        took, h.host_status, aborts))
    assert h.host_status == DID_TIME_OUT and took >= 4.9, \
        (h.host_status, took)
    assert len(aborts) == 1 and aborts[0][1] == 0, aborts
    assert aborts[0][2] > 2 * 10 ** 9, aborts
    assert (st, data) == (0, b"\xd1" * 512)


def test_host_reset_waits_for_what_the_core_holds(luns, dmesg):
    """The host reset is the midlayer's last resort: should it fail, the
    disk goes offline and the midlayer takes back commands the core still
    holds (their memory reused under a live timer). With the host's
    eh_deadline 0 the error handler skips the abort and the other resets
    and goes straight to a host reset, and a write (SG_IO, 1 s timeout)
    is delayed 16 s, longer than a reset's 10 s wait: the host reset waits
    it out (one "waiting" line in the kernel log) and succeeds, the disk
    stays running, the write ends timed out with its data written. (It
    used to fail after 10 s and take the disk offline.)"""
    a = os.path.basename(luns["a"])
    sa = luns["sa"]
    sysd = "/sys/block/%s/device/" % a
    host = re.search(r"/(host\d+)/", os.path.realpath(sysd)).group(1)
    deadline = "/sys/class/scsi_host/%s/eh_deadline" % host
    events = ftrace.tmr_events()
    wr(deadline, "0")
    tcmxlib.inject(sa, delay_write_us="16000000")
    try:
        fd = os.open(luns["sga"], os.O_RDWR)
        try:
            t0 = time.monotonic()
            _, _, _, h = sgio(fd, WRITE10, dout=b"\xd2" * 512,
                              timeout_ms=1000)
            took = time.monotonic() - t0
            tcmxlib.inject(sa, delay_write_us="0")
            state = rd(sysd + "state").strip()
            st, _, data, _ = sgio(fd, [0x28] + WRITE10[1:], din=512)
        finally:
            os.close(fd)
    finally:
        wr(deadline, "off")
        tcmxlib.inject(sa, delay_write_us="0")
    tmfs = events()
    log = dmesg.read()
    print("delayed write: %.2f s, host status %#x, state %s, tmfs %s" % (
        took, h.host_status, state, tmfs))
    assert state == "running", log
    assert [(f, r) for f, r, _ in tmfs] == [("I_T_NEXUS_LOSS", 0)], tmfs
    assert tmfs[0][2] > 10.5 * 10 ** 9, tmfs
    assert h.host_status == DID_TIME_OUT and took >= 15.9, \
        (h.host_status, took)
    assert log.count("still in the target core, waiting") == 1, log
    assert "reset failed" not in log, log
    assert (st, data) == (0, b"\xd2" * 512)
