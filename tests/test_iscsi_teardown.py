# SPDX-License-Identifier: GPL-2.0
"""Teardown under load over iSCSI, the in-tree's most reported hangs: an
open-iscsi session runs random I/O (fio, 16 deep) while targetcli
deletes the initiator's mapped LUN, the TPG's LUN, the ACL, or the whole
target, or while the stack is emptied (clearconfig) and the fabric
module removed. Each step must end within its bound (no hang), the
initiator must see what the step means (its LUN gone, its session lost),
and the module must then leave (nothing held). A LUN RESET over iSCSI on
commands the core holds (the device's inject/: stuck ones, which it
aborts, and delayed ones, which it waits for) ends once they are back,
the session goes on, and it still logs out within its bound.

A step that does not end fails the test with the kernel stacks of what
blocks it (iscsi.blocked_report()); a target connection that never ends
stops the run there (os._exit), since emptying configfs would wait for it
for ever.

On the tcmx stack they skip while tcmx_iscsi.ko is not built.
"""
import os
import re
import subprocess
import sys
import time

import pytest

import tcmxlib
from tcmxlib import MiB, iscsi, run, tcli

WHY = iscsi.missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=str(WHY))

STEP_SECONDS = 60       # a configfs step under load ends within this
# open-iscsi gives up on a lost session after this many seconds
REPLACEMENT_TIMEOUT = 5


def busy(dev):
    """fio doing random 4k reads and writes on dev, 16 deep, until
    killed (errors do not stop it: the path is meant to go). Its job is
    a thread (--thread): as a forked process of its own (fio's default)
    it outlives a killed fio, doing I/O until its runtime ends."""
    return subprocess.Popen(
        ["fio", "--name=busy", "--thread", "--filename=" + dev,
         "--ioengine=libaio", "--direct=1", "--rw=randrw", "--bs=4k",
         "--iodepth=16", "--size=16M", "--time_based", "--runtime=300",
         "--continue_on_error=all", "--output-format=terse"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop(p):
    """fio killed and gone within STEP_SECONDS: its exit waits for each
    of its I/Os to be back."""
    if p.returncode is None:
        p.kill()
        p.communicate(timeout=STEP_SECONDS)


def timed(what, fn, *args, **kw):
    """fn(*args, **kw) ends within STEP_SECONDS: it did not hang (a
    subprocess's timeout counts as a hang)."""
    start = time.monotonic()
    try:
        out = fn(*args, **kw)
    except subprocess.TimeoutExpired:
        raise AssertionError("%s did not end within %ds; blocked:\n%s" % (
            what, STEP_SECONDS, iscsi.blocked_report())) from None
    took = time.monotonic() - start
    assert took < STEP_SECONDS, "%s took %.1fs; blocked:\n%s" % (
        what, took, iscsi.blocked_report())
    return out


def connections_end():
    """No connection to the target is left within STEP_SECONDS. One that
    stays means a target connection that never ends: configfs's rmdir of
    its TPG (and module unload) would wait for it for ever, so the run
    stops here with what blocks it, rather than hang the VM."""
    try:
        iscsi.quiesce(STEP_SECONDS)
    except AssertionError as e:
        sys.stdout.write("\nFATAL: a target connection did not end (%s); "
                         "blocked:\n%s\n" % (e, iscsi.blocked_report()))
        sys.stdout.flush()
        time.sleep(1)   # sysrq-w's dump reaches the console
        os._exit(3)


@pytest.fixture
def tgt(stack):
    """TPG 1 on 127.0.0.1:3260, LUN 0 (64 MiB) mapped to INI_A through
    an ACL; INI_A logged in with a short replacement_timeout and busy
    on its disk."""
    iscsi.load()
    t = iscsi.target()
    iqn = os.path.basename(t)
    tpg = iscsi.tpg(t, 1, portals=(iscsi.ADDR1,))
    _, so = iscsi.rd_lun(tpg, 0, 64 * MiB)
    acl = iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0)])
    iscsi.enable(tpg)
    ini = iscsi.Initiator(iscsi.INI_A)
    ini.start()
    p = None
    try:
        ini.discover(iscsi.ADDR1)
        ini.node_set(iqn, iscsi.ADDR1,
                     "node.session.timeo.replacement_timeout",
                     str(REPLACEMENT_TIMEOUT))
        s = ini.login(iqn, iscsi.ADDR1)
        dev, sg = iscsi.luns(s, 1)[0]
        tcmxlib.tur(dev)
        p = busy(dev)
        iscsi.io_flows(dev, "before the teardown", n=200)
        yield dict(iqn=iqn, tgt=t, tpg=tpg, acl=acl, ini=ini, s=s, dev=dev,
                   sg=sg, fio=p, so=so)
    finally:
        try:
            if p:
                timed("fio's end", stop, p)
        finally:
            for old in iscsi.sessions():
                iscsi.iscsiadm("-m", "session", "-r", str(old["sid"]), "-u",
                               check=False, timeout=STEP_SECONDS)
            ini.stop()
            connections_end()
            timed("unload", iscsi.unload)


def targetcli(what, cmd):
    """cmd in targetcli, within STEP_SECONDS and without an error."""
    out = timed(what, tcli, cmd)
    errors = [e for _, errs in out for e in errs]
    assert not errors, errors


def tpg_path(t):
    return "/iscsi/%s/tpg1" % t["iqn"]


def session_gone(t):
    """The initiator's session failed: the target took it down. The
    initiator then gives it up (iscsid would try to log in again for
    ever), and no connection to the target is left."""
    end = time.monotonic() + STEP_SECONDS
    while time.monotonic() < end:
        st = [s["state"] for s in iscsi.sessions()]
        if not st or st[0] != "LOGGED_IN":
            break
        time.sleep(0.2)
    st = [s["state"] for s in iscsi.sessions()]
    assert not st or st[0] != "LOGGED_IN", st
    iscsi.iscsiadm("-m", "session", "-r", str(t["s"]["sid"]), "-u",
                   check=False, timeout=STEP_SECONDS)
    end = time.monotonic() + STEP_SECONDS
    while iscsi.sessions() and time.monotonic() < end:
        time.sleep(0.2)
    assert iscsi.sessions() == []
    iscsi.quiesce(STEP_SECONDS)


def lun_gone(t):
    """A write to the initiator's LUN 0 fails: tcmx answers 05/25/00
    LOGICAL UNIT NOT SUPPORTED; the in-tree answers for an unmapped LUN 0
    through its virtual LUN 0, which passes a TEST UNIT READY and refuses
    writes (07/27/00)."""
    p = run(["dd", "if=/dev/zero", "of=" + t["dev"], "bs=4k", "count=1",
             "oflag=direct"], check=False, timeout=STEP_SECONDS)
    assert p.returncode != 0, p.stderr


def test_mapped_lun_deleted_under_io(tgt):
    targetcli("delete the mapped LUN",
              "%s/acls/%s delete 0" % (tpg_path(tgt), iscsi.INI_A))
    # the session stays, its LUN 0 is gone: 05/25/00 for what follows
    lun_gone(tgt)
    assert iscsi.session(tgt["s"]["sid"])["state"] == "LOGGED_IN"


def test_lun_deleted_under_io(tgt):
    targetcli("delete the LUN", "%s/luns delete 0" % tpg_path(tgt))
    lun_gone(tgt)
    assert iscsi.session(tgt["s"]["sid"])["state"] == "LOGGED_IN"


def test_acl_deleted_under_io(tgt):
    targetcli("delete the ACL",
              "%s/acls delete %s" % (tpg_path(tgt), iscsi.INI_A))
    session_gone(tgt)


def test_target_deleted_under_io(tgt):
    targetcli("delete the target", "/iscsi delete %s" % tgt["iqn"])
    session_gone(tgt)
    assert not os.path.exists(tgt["tgt"])


def test_stack_emptied_and_module_removed_under_io(tgt):
    mod = "tcmx_iscsi" if tcmxlib.STACK == "tcmx" else "iscsi_target_mod"
    # configured, the fabric module is in use: refused at once
    p = timed("rmmod in use", run, ["rmmod", mod], check=False)
    assert p.returncode != 0
    assert iscsi.session(tgt["s"]["sid"])["state"] == "LOGGED_IN"
    iscsi.io_flows(tgt["dev"], "after the refused rmmod", n=50)
    targetcli("clearconfig", "clearconfig confirm=True")
    session_gone(tgt)
    # rtslib leaves $T/iscsi, which pins the module (configfs): gone too
    timed("rmdir iscsi/", os.rmdir, iscsi.ISCSI)
    p = timed("rmmod", run, ["rmmod", mod], check=False)
    assert p.returncode == 0, p.stderr


@pytest.mark.tcmx_only
def test_lun_reset_on_a_held_command(tgt, dmesg):
    """For a second every 8th READ/WRITE is stuck (inject/fault: held
    until task management ends it) and every one is delayed up to 3 s
    (inject/delay_*_us: not abortable); a LUN RESET (sg_reset -d) sent
    then aborts the stuck ones, waits for the delayed ones, answers once,
    and the session and its I/O go on (no escalation, no double answer).
    Then the session still ends as asked: fio's I/O back, the logout
    answered, the connection gone, each within its bound."""
    inj = tgt["so"] + "/inject/"

    def stuck():
        return int(re.search(r"^stuck (\d+)$", tcmxlib.rd(inj + "counters"),
                             re.M).group(1))

    tcmxlib.wr(inj + "delay_read_us", "0-3000000")
    tcmxlib.wr(inj + "delay_write_us", "0-3000000")
    tcmxlib.wr(inj + "fault", "stuck 8\n")
    try:
        end = time.monotonic() + 10
        while not stuck() and time.monotonic() < end:
            time.sleep(0.1)
        time.sleep(1)
        # no more stuck ones: those there are the reset's to end
        tcmxlib.wr(inj + "fault", "none")
        assert stuck() > 0
        before = iscsi.session_info(tgt["acl"])
        timed("LUN RESET", run, ["sg_reset", "-d", tgt["sg"]],
              timeout=STEP_SECONDS)
        tcmxlib.wr(inj + "delay_read_us", "0")
        tcmxlib.wr(inj + "delay_write_us", "0")
        after = iscsi.session_info(tgt["acl"])
        assert after["sid"] == before["sid"], (before, after)
        assert iscsi.session(tgt["s"]["sid"])["state"] == "LOGGED_IN"
        iscsi.io_flows(tgt["dev"], "after the LUN RESET", n=200)
        # killed with commands in flight: its exit waits for each
        timed("fio's end", stop, tgt["fio"])
    finally:
        tcmxlib.wr(inj + "fault", "none")
        tcmxlib.wr(inj + "delay_read_us", "0")
        tcmxlib.wr(inj + "delay_write_us", "0")
    log = dmesg.read().lower()
    assert "target reset" not in log, log
    p = timed("logout", iscsi.iscsiadm, "-m", "session", "-r",
              str(tgt["s"]["sid"]), "-u", check=False, timeout=STEP_SECONDS)
    assert p.returncode == 0, p.stdout + p.stderr
    end = time.monotonic() + STEP_SECONDS
    while iscsi.sessions() and time.monotonic() < end:
        time.sleep(0.2)
    assert iscsi.sessions() == []
    connections_end()
