# SPDX-License-Identifier: GPL-2.0
"""Teardown under load over iSCSI, the in-tree's most reported hangs: an
open-iscsi session runs random I/O (fio, 16 deep) while targetcli
deletes the initiator's mapped LUN, the TPG's LUN, the ACL, or the whole
target. Each step must end within its bound (no hang), the initiator
must see what the step means (its LUN gone, its session lost), and the
module must then leave (nothing held).

On the tcmx stack they skip while tcmx_iscsi.ko is not built.
"""
import os
import subprocess
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
    killed (errors do not stop it: the path is meant to go)."""
    return subprocess.Popen(
        ["fio", "--name=busy", "--filename=" + dev, "--ioengine=libaio",
         "--direct=1", "--rw=randrw", "--bs=4k", "--iodepth=16",
         "--size=16M", "--time_based", "--runtime=300",
         "--continue_on_error=all", "--output-format=terse"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop(p):
    p.kill()
    p.communicate()


def timed(what, fn, *args):
    """fn(*args) ends within STEP_SECONDS: it did not hang."""
    start = time.monotonic()
    out = fn(*args)
    took = time.monotonic() - start
    assert took < STEP_SECONDS, "%s took %.1fs" % (what, took)
    return out


@pytest.fixture
def tgt(stack):
    """TPG 1 on 127.0.0.1:3260, LUN 0 (64 MiB) mapped to INI_A through
    an ACL; INI_A logged in with a short replacement_timeout and busy
    on its disk."""
    iscsi.load()
    t = iscsi.target()
    iqn = os.path.basename(t)
    tpg = iscsi.tpg(t, 1, portals=(iscsi.ADDR1,))
    iscsi.rd_lun(tpg, 0, 64 * MiB)
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
                   sg=sg, fio=p)
    finally:
        if p:
            stop(p)
        for old in iscsi.sessions():
            iscsi.iscsiadm("-m", "session", "-r", str(old["sid"]), "-u",
                           check=False, timeout=STEP_SECONDS)
        ini.stop()
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


def test_mapped_lun_deleted_under_io(tgt):
    targetcli("delete the mapped LUN",
              "%s/acls/%s delete 0" % (tpg_path(tgt), iscsi.INI_A))
    # the session stays, its LUN 0 is gone: 05/25/00 for what follows
    p = run(["sg_turs", tgt["sg"]], check=False)
    assert p.returncode != 0
    assert iscsi.session(tgt["s"]["sid"])["state"] == "LOGGED_IN"


def test_lun_deleted_under_io(tgt):
    targetcli("delete the LUN", "%s/luns delete 0" % tpg_path(tgt))
    p = run(["sg_turs", tgt["sg"]], check=False)
    assert p.returncode != 0
    assert iscsi.session(tgt["s"]["sid"])["state"] == "LOGGED_IN"


def test_acl_deleted_under_io(tgt):
    targetcli("delete the ACL",
              "%s/acls delete %s" % (tpg_path(tgt), iscsi.INI_A))
    session_gone(tgt)


def test_target_deleted_under_io(tgt):
    targetcli("delete the target", "/iscsi delete %s" % tgt["iqn"])
    session_gone(tgt)
    assert not os.path.exists(tgt["tgt"])
