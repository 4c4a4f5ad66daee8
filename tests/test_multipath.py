# SPDX-License-Identifier: GPL-2.0
"""dm-multipath over two loopback paths to one ramdisk: the map assembles
with scsi_dh_alua and the ALUA prioritiser (multipath-tools' built-in
LIO-ORG entry), fio --verify=crc32c on the map survives a path taken
offline (transport_status) and brought back, a path's group set to
Standby and back, and a path's LUN unlinked; sg_persist through both
paths sees one set of keys and one reservation.

The VM runs no udev: multipath needs udev's database (ID_SERIAL, ...), so
the fixture starts systemd-udevd and replays the block and scsi uevents
(udevadm refuses to in what looks like a chroot to it, the 9p root, unless
SYSTEMD_IGNORE_CHROOT=1), and writes an /etc/multipath.conf (on the VM's
tmpfs overlay) with find_multipaths no, so that the two paths make a map
without a wwids file."""
import os
import contextlib
import subprocess
import time

import pytest

import tcmxlib
from tcmxlib import MiB, rd, run, wr

pytestmark = pytest.mark.tcmx_only

UDEV = dict(os.environ, SYSTEMD_IGNORE_CHROOT="1")
CONF = "defaults {\n\tfind_multipaths no\n\tuser_friendly_names no\n" \
    "\tpolling_interval 2\n}\n"


def sh(cmd, check=True, timeout=120):
    p = subprocess.run(cmd, shell=True, text=True, env=UDEV,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout)
    assert not check or p.returncode == 0, "%s: %d\n%s" % (
        cmd, p.returncode, p.stdout)
    return p.stdout


def paths_state():
    """{sdX: (dm_st, chk_st, pri)} from multipathd."""
    out = sh("multipathd show paths format '%d %t %T %p'")
    st = {}
    for line in out.splitlines()[1:]:
        f = line.split()
        if len(f) == 4:
            st[f[0]] = (f[1], f[2], f[3])
    return st


def wait_for(what, fn, timeout=90):
    end = time.time() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.time() > end:
            raise AssertionError("timed out waiting for %s: %s" % (
                what, sh("multipathd show paths", check=False)))
        time.sleep(1)


def io_count(dev):
    """Reads and writes completed on a path (/sys/block/<dev>/stat)."""
    f = rd("/sys/block/%s/stat" % dev).split()
    return int(f[0]) + int(f[4])


@pytest.fixture
def mpath(stack):
    """A 64 MiB ramdisk behind loopback targets A and B, B's LUN in its own
    ALUA group "b" (id 1); the multipath map over /dev/sdA and /dev/sdB."""
    for m in ("dm_multipath", "dm_round_robin", "scsi_dh_alua"):
        run(["modprobe", m])
    try:
        os.makedirs("/etc/multipath", exist_ok=True)
        with open("/etc/multipath.conf", "w") as f:
            f.write(CONF)
        so = tcmxlib.mk_rd("mp0", 64 * MiB)
        ta, tb = tcmxlib.mk_target(), tcmxlib.mk_target()
        tcmxlib.link_lun(ta, 0, so)
        tcmxlib.link_lun(tb, 0, so)
        os.mkdir(so + "/alua/b")
        wr(so + "/alua/b/tg_pt_gp_id", "1")
        wr(tb + "/lun/lun_0/alua_tg_pt_gp", "b")
        da, db = tcmxlib.disk(ta, 0), tcmxlib.disk(tb, 0)
        tcmxlib.tur(da)
        tcmxlib.tur(db)
        # scsi_dh_alua read B's group (0) from VPD 0x83 when the LUN
        # appeared; a rescan has it read it again (1)
        wr("/sys/block/%s/device/rescan" % os.path.basename(db), "1")
        sh("/lib/systemd/systemd-udevd --daemon")
        sh("udevadm trigger --action=add --subsystem-match=block "
           "--subsystem-match=scsi && udevadm settle -t 60")
        sh("multipathd")
        wwid = "3" + rd("/sys/block/%s/device/wwid" % os.path.basename(da)
                        ).strip().split(".", 1)[1]
        mapdev = "/dev/mapper/" + wwid
        wait_for("the map", lambda: os.path.exists(mapdev) and
                 len(paths_state()) == 2)
        wait_for("both paths up", lambda: all(
            v[0] == "active" and v[1] == "ready"
            for v in paths_state().values()))
        yield dict(so=so, ta=ta, tb=tb, a=os.path.basename(da),
                   b=os.path.basename(db), map=mapdev, wwid=wwid,
                   ga=so + "/alua/default_tg_pt_gp/", gb=so + "/alua/b/")
    finally:
        sh("multipathd shutdown", check=False)
        time.sleep(1)
        sh("multipath -F", check=False)
        sh("udevadm control --exit", check=False)
        if os.path.exists("/etc/multipath.conf"):
            os.unlink("/etc/multipath.conf")
        unload_dm()


DM_MODULES = ("scsi_dh_alua", "dm_multipath")


def dm_loaded():
    """scsi_dh_alua, dm_multipath and what holds it (its path selectors:
    multipath loads dm_service_time itself), holders first."""
    mods = []
    for m in DM_MODULES:
        holders = "/sys/module/%s/holders" % m
        if os.path.isdir(holders):
            mods += sorted(os.listdir(holders))
        if tcmxlib.loaded(m):
            mods.append(m)
    return mods


def unload_dm():
    """Nothing of this file stays loaded: scsi_dh_alua retries unit
    attentions inside the midlayer (check_sense), so the later tests that
    read them through SG_IO would never see them.  It lets go once the
    LUNs' SCSI devices are gone."""
    tcmxlib.clean()
    for _ in range(30):
        for m in dm_loaded():
            run(["rmmod", m], check=False)
        if not dm_loaded():
            return
        time.sleep(1)
    raise AssertionError("still loaded: %s" % dm_loaded())


def fio_verify(mapdev, runtime):
    """fio writing and verifying (crc32c) the map for runtime seconds."""
    return subprocess.Popen(
        ["fio", "--name=mp", "--filename=" + mapdev, "--ioengine=libaio",
         "--direct=1", "--rw=randwrite", "--bs=4k", "--iodepth=8",
         "--size=32M", "--verify=crc32c", "--verify_backlog=64",
         "--verify_fatal=1", "--time_based", "--runtime=%d" % runtime,
         "--output-format=terse"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@contextlib.contextmanager
def killed_on_failure(p):
    """A failing check ends fio before the fixture takes the map away."""
    try:
        yield
    except BaseException:
        p.kill()
        p.wait()
        raise


def fio_done(p, timeout=180):
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        raise AssertionError("fio did not end:\n" + out)
    assert p.returncode == 0, out
    assert "verify:" not in out and "bad magic" not in out, out
    return out


def test_map_assembles(mpath):
    out = sh("multipath -ll " + mpath["wwid"])
    assert "hwhandler='1 alua'" in out and "LIO-ORG,RAMDISK-MCP" in out, out
    assert mpath["a"] in out and mpath["b"] in out, out
    assert int(rd("/sys/block/%s/size" % os.path.basename(
        os.path.realpath(mpath["map"])))) * 512 == 64 * MiB
    # both groups Active/Optimized: the ALUA prioritiser gives both 50
    assert {v[2] for v in paths_state().values()} == {"50"}, paths_state()


def test_failover_transport_offline(mpath):
    a, ta = mpath["a"], mpath["ta"]
    p = fio_verify(mpath["map"], 40)
    with killed_on_failure(p):
        time.sleep(8)
        wr(ta + "/transport_status", "offline")
        wait_for("A failed", lambda: paths_state()[a][0] == "failed")
        before = io_count(mpath["b"])
        time.sleep(5)
        assert io_count(mpath["b"]) > before, "no I/O on B"
        wr(ta + "/transport_status", "online")
        wait_for("A reinstated", lambda: paths_state()[a][0] == "active")
    fio_done(p)


def test_failover_alua_standby(mpath):
    """A's group implicit only: with explicit ALUA, scsi_dh_alua would
    bring it back to Active/Optimized by SET TARGET PORT GROUPS as soon as
    dm-multipath initialises A's path group."""
    a, b = mpath["a"], mpath["b"]
    wr(mpath["ga"] + "alua_access_type", "1")
    p = fio_verify(mpath["map"], 50)
    with killed_on_failure(p):
        time.sleep(5)
        wr(mpath["ga"] + "alua_access_state", "2")
        # A's priority drops (Standby), B's group takes the I/O
        wait_for("A in Standby", lambda: paths_state()[a][2] != "50")
        time.sleep(3)
        ca, cb = io_count(a), io_count(b)
        time.sleep(6)
        assert io_count(b) > cb, "no I/O on B"
        assert io_count(a) - ca < 10, "I/O still on A"
        assert rd(mpath["ga"] + "alua_access_state").strip() == "2"
        wr(mpath["ga"] + "alua_access_state", "0")
        wait_for("A back", lambda: paths_state()[a][2] == "50")
    fio_done(p)


def test_unlink_path_under_io(mpath):
    p = fio_verify(mpath["map"], 30)
    with killed_on_failure(p):
        time.sleep(8)
        tcmxlib.unlink_lun(mpath["ta"] + "/lun/lun_0")
        wait_for("A gone", lambda: mpath["a"] not in paths_state())
    fio_done(p)
    assert os.path.exists(mpath["map"])


def test_sg_persist_through_both_paths(mpath):
    da, db = "/dev/" + mpath["a"], "/dev/" + mpath["b"]

    def persist(dev, *args):
        return run(["sg_persist", "-n"] + list(args) + [dev], check=False)

    assert persist(da, "--out", "--register", "--param-sark=0xa1"
                   ).returncode == 0
    assert persist(da, "--out", "--reserve", "--param-rk=0xa1",
                   "--prout-type=5").returncode == 0
    for dev in (da, db):
        keys = persist(dev, "--in", "--read-keys").stdout
        assert "0xa1" in keys, keys
        res = persist(dev, "--in", "--read-reservation").stdout
        assert "0xa1" in res and "Write Exclusive, registrants only" in res, \
            res
    # B is not registered: its writes conflict, its reads pass
    st, sense, _ = tcmxlib.sgcmd(db, [0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0],
                                 dout=bytes(512))
    assert st == 0x18, (st, sense)
    st, _, _ = tcmxlib.sgcmd(db, [0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0], din=512)
    assert st == 0
    # B registers and preempts A's reservation and registration
    assert persist(db, "--out", "--register", "--param-sark=0xb2"
                   ).returncode == 0
    assert persist(db, "--out", "--preempt-abort", "--param-rk=0xb2",
                   "--param-sark=0xa1", "--prout-type=5").returncode == 0
    # A's REGISTRATIONS PREEMPTED first
    tcmxlib.tur(da)
    for dev in (da, db):
        keys = persist(dev, "--in", "--read-keys").stdout
        assert "0xb2" in keys and "0xa1" not in keys, keys
        res = persist(dev, "--in", "--read-reservation").stdout
        assert "0xb2" in res, res
    st, sense, _ = tcmxlib.sgcmd(da, [0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0],
                                 dout=bytes(512))
    assert st == 0x18, (st, sense)
    assert persist(db, "--out", "--clear", "--param-rk=0xb2"
                   ).returncode == 0
