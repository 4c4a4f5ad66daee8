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
from tcmxlib import PREEMPT_RT, USERSPACE_NOT_ON_RT_WHY, MiB, fio, rd, run, wr

pytestmark = [pytest.mark.tcmx_only,
              pytest.mark.skipif(PREEMPT_RT, reason=USERSPACE_NOT_ON_RT_WHY)]

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


def wait_for(what, fn, timeout=90, every=0.5):
    end = time.time() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.time() > end:
            raise AssertionError("timed out waiting for %s: %s" % (
                what, sh("multipathd show paths", check=False)))
        time.sleep(every)


def io_count(dev):
    """Reads and writes completed on a path or on the map
    (/sys/block/<dev>/stat)."""
    f = rd("/sys/block/%s/stat" % dev).split()
    return int(f[0]) + int(f[4])


def io_flows(dev, what, n=200, timeout=60):
    """Waits for n more reads and writes to complete on dev: proof that
    fio's I/O goes through it now (a fixed sleep proves nothing)."""
    start = io_count(dev)
    wait_for("%d I/Os %s (%s)" % (n, what, dev),
             lambda: io_count(dev) - start >= n, timeout=timeout, every=0.2)


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
                   dm=os.path.basename(os.path.realpath(mapdev)),
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


@contextlib.contextmanager
def killed_on_failure(p):
    """A failing check ends fio before the fixture takes the map away."""
    try:
        yield
    except BaseException:
        p.kill()
        p.wait()
        raise


def test_map_assembles(mpath):
    out = sh("multipath -ll " + mpath["wwid"])
    assert "hwhandler='1 alua'" in out and "LIO-ORG,RAMDISK-MCP" in out, out
    assert mpath["a"] in out and mpath["b"] in out, out
    assert int(rd("/sys/block/%s/size" % os.path.basename(
        os.path.realpath(mpath["map"])))) * 512 == 64 * MiB
    # both groups Active/Optimized: the ALUA prioritiser gives both 50
    assert {v[2] for v in paths_state().values()} == {"50"}, paths_state()


def test_failover_transport_offline(mpath):
    a, b, ta = mpath["a"], mpath["b"], mpath["ta"]
    p = fio.verify_start([mpath["map"]], "32M", 240)
    with killed_on_failure(p):
        io_flows(mpath["dm"], "on the map")
        wr(ta + "/transport_status", "offline")
        wait_for("A failed", lambda: paths_state()[a][0] == "failed")
        io_flows(b, "on B, A failed")
        wr(ta + "/transport_status", "online")
        wait_for("A reinstated", lambda: paths_state()[a][0] == "active")
        io_flows(mpath["dm"], "on the map, A back")
    fio.verify_stop(p)


def map_prefers(mpath, dev, other):
    """The live table has two path groups now, and the first (preferred)
    holds dev and not other: multipathd has regrouped them by priority."""
    ids = [rd("/sys/block/%s/dev" % d).strip() for d in (dev, other)]
    # ... <nr groups> <first group>, then per group: service-time <nr
    # args> <args> <nr paths> <nr path args> <path> <path args>...
    groups = sh("dmsetup table " + mpath["wwid"]).split(" service-time ")
    first = groups[1].split() if len(groups) == 3 else []
    return ids[0] in first and ids[1] not in first


def test_failover_alua_standby(mpath):
    """A's group implicit only: with explicit ALUA, scsi_dh_alua would
    bring it back to Active/Optimized by SET TARGET PORT GROUPS as soon as
    dm-multipath initialises A's path group."""
    a, b = mpath["a"], mpath["b"]
    wr(mpath["ga"] + "alua_access_type", "1")
    p = fio.verify_start([mpath["map"]], "32M", 240)
    with killed_on_failure(p):
        io_flows(mpath["dm"], "on the map")
        wr(mpath["ga"] + "alua_access_state", "2")
        # A's priority drops (Standby), B's group takes the I/O
        wait_for("A in Standby", lambda: paths_state()[a][2] != "50")
        wait_for("B's group first", lambda: map_prefers(mpath, b, a))
        ca = io_count(a)
        # what was in flight on A may still complete (iodepth 8); a round
        # robin over both would have given A as much as B
        io_flows(b, "on B, A in Standby", n=400)
        assert io_count(a) - ca < 10, "I/O still on A"
        assert rd(mpath["ga"] + "alua_access_state").strip() == "2"
        wr(mpath["ga"] + "alua_access_state", "0")
        wait_for("A back", lambda: paths_state()[a][2] == "50")
        io_flows(mpath["dm"], "on the map, A back")
    fio.verify_stop(p)


def test_unlink_path_under_io(mpath):
    b = mpath["b"]
    p = fio.verify_start([mpath["map"]], "32M", 240)
    with killed_on_failure(p):
        io_flows(mpath["dm"], "on the map")
        tcmxlib.unlink_lun(mpath["ta"] + "/lun/lun_0")
        wait_for("A gone", lambda: mpath["a"] not in paths_state())
        io_flows(b, "on B, A gone")
    fio.verify_stop(p)
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
