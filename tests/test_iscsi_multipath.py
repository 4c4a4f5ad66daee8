# SPDX-License-Identifier: GPL-2.0
"""dm-multipath over iSCSI (tcmxlib.iscsi): one 64 MiB ramdisk behind two
TPGs of one target, TPG 1 on 127.0.0.1:3260 and TPG 2 on
127.0.0.2:3260 (its LUN in ALUA group "b"), open-iscsi logged in to
both, and a multipath map made by hand (dmsetup, round-robin over both
paths). fio --verify=crc32c on the map survives, with its I/O moving to
TPG 2's path and back to both once TPG 1 returns:
  - TPG 1 disabled (enable 0), then enabled again;
  - TPG 1's portal deleted (its connection then cut: the initiator must
    log in again, and cannot), then made again;
  - TPG 1's ALUA group put in Standby, then back to Active/Optimized.

The map is dmsetup's (no multipathd, no udev: what the kernel does);
the initiator's replacement_timeout is 5 s, so a lost path fails its I/O
within seconds. On the tcmx stack they skip while tcmx_iscsi.ko is not
built.
"""
import contextlib
import os
import re
import time

import pytest

import tcmxlib
from tcmxlib import MiB, fio, iscsi, rd, run, wr

WHY = iscsi.missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=str(WHY))

MAP = "tcmx-iscsi-mp"


def path_states():
    """{major:minor: 'A' or 'F'} of the map's paths (dmsetup status)."""
    out = run(["dmsetup", "status", MAP]).stdout
    return dict(re.findall(r" (\d+:\d+) ([AF]) ", out))


def wait_for(what, fn, timeout=90, every=0.2):
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for %s: %s" % (
                what, run(["dmsetup", "status", MAP], check=False).stdout))
        time.sleep(every)


def io_flows(dev, what, n=100):
    iscsi.io_flows(dev, what, n)


@pytest.fixture
def mp(stack):
    iscsi.load()
    run(["modprobe", "-a", "dm_multipath", "dm_round_robin"])
    t = iscsi.target()
    iqn = os.path.basename(t)
    so = tcmxlib.mk_rd("mp0", 64 * MiB)
    tpg1 = iscsi.tpg(t, 1, portals=(iscsi.ADDR1,))
    tpg2 = iscsi.tpg(t, 2, portals=(iscsi.ADDR2,))
    for tpg in (tpg1, tpg2):
        tcmxlib.link_lun(tpg, 0, so)
        iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0)])
    os.mkdir(so + "/alua/b")
    wr(so + "/alua/b/tg_pt_gp_id", "1")
    wr(tpg2 + "/lun/lun_0/alua_tg_pt_gp", "b")
    # implicit ALUA only: the target alone moves its groups
    wr(so + "/alua/default_tg_pt_gp/alua_access_type", "1")
    iscsi.enable(tpg1)
    iscsi.enable(tpg2)
    made = False
    try:
        with iscsi.Initiator(iscsi.INI_A) as ini:
            assert len(ini.discover(iscsi.ADDR1)) == 2
            sa = ini.login(iqn, iscsi.ADDR1)
            sb = ini.login(iqn, iscsi.ADDR2)
            da, db = iscsi.luns(sa, 1)[0][0], iscsi.luns(sb, 1)[0][0]
            a, b = os.path.basename(da), os.path.basename(db)
            for d in (da, db):
                tcmxlib.tur(d)
            assert rd("/sys/block/%s/device/wwid" % a) == \
                rd("/sys/block/%s/device/wwid" % b)
            ids = [rd("/sys/block/%s/dev" % x).strip() for x in (a, b)]
            sectors = int(rd("/sys/block/%s/size" % a))
            run(["dmsetup", "create", MAP, "--table",
                 "0 %d multipath 0 0 1 1 round-robin 0 2 1 %s 16 %s 16"
                 % (sectors, ids[0], ids[1])])
            made = True
            dm = run(["dmsetup", "info", "-c", "--noheadings", "-o",
                      "blkdevname", MAP]).stdout.strip()
            # devtmpfs makes /dev/dm-N; /dev/mapper/<name> is udev's
            yield dict(ini=ini, iqn=iqn, so=so, tpg1=tpg1, tpg2=tpg2,
                       a=a, b=b, ida=ids[0], idb=ids[1], dm=dm,
                       map="/dev/" + dm, sa=sa, sb=sb)
            if made:
                dm_remove()
                made = False
    finally:
        if made:
            dm_remove()
        iscsi.unload()
        for m in ("dm_round_robin", "dm_multipath"):
            run(["rmmod", m], check=False)
        unload_alua_handler()


def unload_alua_handler():
    """scsi_dh_alua out (mpd loads it): left loaded, it would attach to
    the next tests' disks and take their unit attentions."""
    for _ in range(30):
        if not tcmxlib.loaded("scsi_dh_alua"):
            return
        run(["rmmod", "scsi_dh_alua"], check=False)
        time.sleep(1)
    raise AssertionError("scsi_dh_alua still loaded after the test")


def dm_remove():
    """The hand-made map gone (if it is there)."""
    if run(["dmsetup", "info", MAP], check=False).returncode:
        return
    for _ in range(30):
        if run(["dmsetup", "remove", MAP], check=False).returncode == 0:
            return
        time.sleep(1)
    run(["dmsetup", "remove", "--force", MAP], check=False)


@contextlib.contextmanager
def verifying(mp):
    """fio --verify on the map while the block runs, flowing on the map
    first; it must end clean."""
    p = fio.verify_start([mp["map"]], "32M", 300)
    try:
        io_flows(mp["dm"], "on the map")
        yield p
    except BaseException:
        p.kill()
        p.wait()
        raise
    fio.verify_stop(p)


def a_fails_b_carries(mp):
    wait_for("A failed in the map", lambda: path_states()[mp["ida"]] == "F")
    assert path_states()[mp["idb"]] == "A"
    io_flows(mp["b"], "on B, A failed")


def a_returns(mp):
    """A's session logged in again: the path reinstated, I/O on it."""
    iscsi.wait_state(mp["sa"]["sid"], "LOGGED_IN", timeout=90)
    tcmxlib.tur("/dev/" + mp["a"])
    run(["dmsetup", "message", MAP, "0", "reinstate_path", mp["ida"]])
    wait_for("A active", lambda: path_states()[mp["ida"]] == "A")
    io_flows(mp["a"], "on A, back")


def test_map_over_two_tpgs(mp):
    assert set(path_states().values()) == {"A"}, path_states()
    with verifying(mp):
        io_flows(mp["a"], "on A")
        io_flows(mp["b"], "on B")


def test_tpg_disabled(mp):
    with verifying(mp):
        iscsi.enable(mp["tpg1"], False)
        a_fails_b_carries(mp)
        iscsi.enable(mp["tpg1"])
        a_returns(mp)


def test_portal_deleted(mp):
    np = mp["tpg1"] + "/np/%s:%d" % (iscsi.ADDR1, iscsi.PORT)
    with verifying(mp):
        os.rmdir(np)
        # the session may outlive its portal: cut it, no portal takes the
        # login again
        iscsi.kill_connections(addr=iscsi.ADDR1)
        a_fails_b_carries(mp)
        assert iscsi.session(mp["sa"]["sid"])["state"] != "LOGGED_IN"
        iscsi.portal(mp["tpg1"], iscsi.ADDR1)
        a_returns(mp)


def test_alua_standby(mp):
    ga = mp["so"] + "/alua/default_tg_pt_gp/alua_access_state"
    with verifying(mp):
        wr(ga, "2")
        a_fails_b_carries(mp)
        st, sense, _ = tcmxlib.sgcmd("/dev/" + mp["a"],
                                     tcmxlib.rw_cdb(0x28, 0, 1), din=512)
        assert tcmxlib.kcq(sense) == tcmxlib.NOT_READY_STANDBY, \
            tcmxlib.sense_name(tcmxlib.kcq(sense))
        wr(ga, "0")
        a_returns(mp)


# ------------------------------------------------- multipathd, ALUA prio

UDEV = dict(os.environ, SYSTEMD_IGNORE_CHROOT="1")
CONF = "defaults {\n\tfind_multipaths no\n\tuser_friendly_names no\n" \
    "\tpolling_interval 2\n}\n"


def sh(cmd, check=True, timeout=120):
    p = run(cmd, check=False, timeout=timeout, env=UDEV)
    assert not check or p.returncode == 0, "%s: %d\n%s%s" % (
        cmd, p.returncode, p.stdout, p.stderr)
    return p.stdout


def mpd_paths():
    """{sdX: (dm state, checker state, priority)} from multipathd."""
    st = {}
    for line in sh("multipathd show paths format '%d %t %T %p'",
                   check=False).splitlines()[1:]:
        f = line.split()
        if len(f) == 4:
            st[f[0]] = (f[1], f[2], f[3])
    return st


@pytest.fixture
def mpd(mp):
    """mp's two paths, with multipathd's own map instead of the one made
    by hand: udevd (multipath reads its database) and multipathd with
    its built-in LIO-ORG entry (ALUA hardware handler and prioritiser)."""
    dm_remove()
    run(["modprobe", "scsi_dh_alua"])
    for d in (mp["a"], mp["b"]):
        # scsi_dh_alua attaches on a rescan: the paths came before it
        wr("/sys/block/%s/device/rescan" % d, "1")
    with open("/etc/multipath.conf", "w") as f:
        f.write(CONF)
    try:
        sh("/lib/systemd/systemd-udevd --daemon")
        sh("udevadm trigger --action=add --subsystem-match=block "
           "--subsystem-match=scsi && udevadm settle -t 60")
        sh("multipathd")
        wwid = "3" + rd("/sys/block/%s/device/wwid" % mp["a"]).strip(
        ).split(".", 1)[1]
        dev = "/dev/mapper/" + wwid
        wait_for("multipathd's map", lambda: os.path.exists(dev) and
                 len(mpd_paths()) == 2)
        wait_for("both paths up", lambda: all(
            v[0] == "active" and v[1] == "ready"
            for v in mpd_paths().values()))
        yield dict(mp, map=dev, wwid=wwid,
                   dm=os.path.basename(os.path.realpath(dev)))
    finally:
        sh("multipathd shutdown", check=False)
        time.sleep(1)
        sh("multipath -F", check=False)
        sh("udevadm control --exit", check=False)
        os.unlink("/etc/multipath.conf")
        # scsi_dh_alua goes in mp's teardown, once the sessions' disks it
        # is attached to are gone


@pytest.mark.skipif(tcmxlib.PREEMPT_RT, reason=tcmxlib.USERSPACE_NOT_ON_RT_WHY)
def test_multipathd_alua_standby(mpd):
    """multipathd's map groups the paths by ALUA priority: both 50 while
    both groups are Active/Optimized; TPG 1's in Standby drops A's, the
    I/O goes to B alone; back, both carry it again."""
    a, b = mpd["a"], mpd["b"]
    out = sh("multipath -ll " + mpd["wwid"])
    assert "hwhandler='1 alua'" in out and "LIO-ORG" in out, out
    assert {v[2] for v in mpd_paths().values()} == {"50"}, mpd_paths()
    ga = mpd["so"] + "/alua/default_tg_pt_gp/alua_access_state"
    p = fio.verify_start([mpd["map"]], "32M", 300)
    try:
        io_flows(mpd["dm"], "on the map")
        wr(ga, "2")
        wait_for("A in Standby", lambda: mpd_paths()[a][2] != "50")
        io_flows(b, "on B, A in Standby", n=200)
        ca = iscsi.io_count(a)
        io_flows(b, "on B alone", n=200)
        assert iscsi.io_count(a) - ca < 10, "I/O still on A"
        wr(ga, "0")
        wait_for("A back", lambda: mpd_paths()[a][2] == "50")
        io_flows(mpd["dm"], "on the map, A back")
    except BaseException:
        p.kill()
        p.wait()
        raise
    fio.verify_stop(p)
