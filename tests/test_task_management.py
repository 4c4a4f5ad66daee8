"""Task management from the SCSI error handler under verified I/O: the
LUN, target, bus and host resets of sg_reset, and the abort of commands
that time out, made to time out on purpose by tcmx_rd's hold_every test
knob (every Nth READ/WRITE held in the backend's worker for hold_ms).
Each reset returns in seconds, fio --verify=crc32c goes on without an
error, another TPG's LUN keeps its data, and afterwards the LUNs unlink
and the modules unload."""
import errno
import os
import re
import subprocess
import time

import pytest

from tcmxlib import (MiB, disk, err_of, mk_rd, mk_target, link_lun,
                     rd, run, sha, unlink_lun, wr)
from tcmxlib import fill
from tcmxlib import fio

pytestmark = pytest.mark.tcmx_only

PARAMS = "/sys/module/tcmx_rd/parameters/"


TR = "/sys/kernel/tracing/"


def tmr_events():
    """The tcmx:tmr event on, an empty buffer; returns a function giving
    [(tmf, result, latency_ns)] of the events since."""
    if not os.path.exists(TR + "trace"):
        run("mount -t tracefs nodev " + TR)
    for name, data in (("tracing_on", "0"), ("trace", ""),
                       ("events/tcmx/tcmx_tmr/enable", "1"),
                       ("tracing_on", "1")):
        with open(TR + name, "w") as f:
            f.write(data)

    def events():
        with open(TR + "trace") as f:
            return [(m.group(1), int(m.group(2)), int(m.group(3)))
                    for m in re.finditer(r"tcmx_tmr: .*tmf=(\w+) "
                                         r"result=(-?\d+) latency_ns=(\d+)",
                                         f.read())]
    return events


def hold(every, ms=None):
    if ms is not None:
        wr(PARAMS + "hold_ms", "%d\n" % ms)
    wr(PARAMS + "hold_every", "%d\n" % every)


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
    same loopback host, filled with a pattern; hold_every off after."""
    tpg1 = mk_target()
    wwn = os.path.dirname(tpg1)
    tpg2 = mk_target(wwn=os.path.basename(wwn), tag=2)
    la = link_lun(tpg1, 0, mk_rd("a", 32 * MiB))
    link_lun(tpg1, 1, mk_rd("b", 32 * MiB))
    link_lun(tpg2, 0, mk_rd("c", 32 * MiB))
    a, b, c = disk(tpg1, 0), disk(tpg1, 1), disk(tpg2, 0)
    fill(c, "tmf", 32 * MiB)
    want = sha(c, 0, 32 * MiB)
    try:
        yield dict(a=a, b=b, c=c, la=la, want=want)
    finally:
        hold(0)
    assert sha(c, 0, 32 * MiB) == want, "the other TPG's LUN lost its data"


def test_hold_knob_refuses_bad_values(stack, dmesg):
    """hold_ms 1..60000, hold_every a number: else EINVAL, one line, and
    the value stays."""
    before = rd(PARAMS + "hold_ms")
    said = []
    for bad in ("0", "60001", "-1", "abc", "5000x"):
        assert err_of(wr, PARAMS + "hold_ms", bad + "\n") == errno.EINVAL
        lines = [ln for ln in dmesg.lines() if "hold_ms" in ln]
        assert lines[len(said):] == ["tcmx_rd: hold_ms=%s: must be 1 to "
                                     "60000" % bad], lines
        said = lines
        assert rd(PARAMS + "hold_ms") == before
    assert err_of(wr, PARAMS + "hold_every", "many\n") == errno.EINVAL
    assert [ln for ln in dmesg.lines() if "hold_every" in ln] == \
        ["tcmx_rd: hold_every=many: not a number of commands"]
    assert rd(PARAMS + "hold_every").strip() == "0"


def test_resets_under_verified_io(luns):
    """With every 32nd command held 1.5 s: LUN, target, bus and host reset
    each wait for the held commands, return within seconds, and I/O goes
    on; then LUN 0 unlinks under I/O with commands held."""
    hold(32, 1500)
    events = tmr_events()
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
        tmfs = events()
        print("task management (function, result, ns):", tmfs)
        assert [t for t, _, _ in tmfs] == ["LUN_RESET"] + \
            ["I_T_NEXUS_LOSS"] * 3, tmfs
        assert all(r == 0 for _, r, _ in tmfs), tmfs
    except BaseException:
        p.kill()
        p.communicate()
        raise
    fio.verify_stop(p)
    # unlink while fio writes to it and commands are held
    hold(8, 2000)
    p = subprocess.Popen(
        ["fio", "--name=u", "--filename=" + luns["a"], "--ioengine=libaio",
         "--direct=1", "--rw=randwrite", "--bs=4k", "--iodepth=8",
         "--time_based", "--runtime=120"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_writes(luns["a"], 8)
        t0 = time.time()
        unlink_lun(luns["la"])
        assert time.time() - t0 < 30
        assert not os.path.exists(luns["a"])
        p.wait(timeout=60)      # fio gets errors and ends
    finally:
        p.kill()
        p.wait()
    hold(0)


def test_timed_out_commands_are_aborted(luns):
    """A 1 s SCSI timeout and every 16th command held 2.5 s: the midlayer
    times them out and aborts them; each abort waits for the backend,
    succeeds, the command is retried; fio verifies without an error and
    the disk stays running."""
    a = os.path.basename(luns["a"])
    sysd = "/sys/block/%s/device/" % a
    tmo0 = int(rd(sysd + "iotmo_cnt"), 0)
    wr(sysd + "timeout", "1\n")
    hold(16, 2500)
    events = tmr_events()
    p = fio.verify_start([luns["a"]])
    try:
        end = time.time() + 90
        while int(rd(sysd + "iotmo_cnt"), 0) < tmo0 + 3:
            assert p.poll() is None, p.communicate()[0]
            assert time.time() < end, "no command timed out"
            time.sleep(0.5)
        hold(0)
        wr(sysd + "timeout", "30\n")
        wait_writes(luns["a"])
    except BaseException:
        p.kill()
        p.communicate()
        raise
    fio.verify_stop(p)
    assert rd(sysd + "state").strip() == "running"
    # each timed-out command was aborted once it had completed: the abort
    # waited (up to the 2.5 s hold) and succeeded
    aborts = [e for e in events() if e[0] == "ABORT_TASK"]
    assert len(aborts) >= 3, aborts
    assert all(r == 0 for _, r, _ in aborts), aborts
    assert max(ns for _, _, ns in aborts) > 100 * 1000 * 1000, aborts
