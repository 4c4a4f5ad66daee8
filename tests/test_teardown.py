# SPDX-License-Identifier: GPL-2.0
"""Teardown in every order configfs allows, rmmod refused while a LUN
is linked, then rmmod of the whole stack."""
import errno
import glob
import os
import subprocess
import threading
import time

import pytest

from tcmxlib import (BACKEND_MOD, CORE_MOD, FABRIC_MOD, GOOD, LOAD, LOOP,
                     MiB, T, Kmsg, disk, err_of, hctl, link_lun, load, mk_rd,
                     mk_target, modules, rd, run, scsi_present, sgio, sha,
                     tur, unlink_lun, unload, wr)
from tcmxlib import fill


def host_of(tpg):
    return "/sys/class/scsi_host/host" + rd(tpg + "/address").split(":")[0]


def gone(tpg, luns, host):
    for h in luns:
        assert not os.path.exists("/sys/class/scsi_device/" + h), h
    assert not os.path.exists(host), host


def test_lun_first(stack):
    so = mk_rd("r0", 16 * MiB)
    tpg = mk_target()
    lun = link_lun(tpg, 0, so)
    disk(tpg, 0)
    h, host = hctl(tpg, 0), host_of(tpg)
    unlink_lun(lun)
    os.rmdir(tpg)
    os.rmdir(os.path.dirname(tpg))
    gone(tpg, [h], host)
    os.rmdir(so)
    os.rmdir(os.path.dirname(so))
    assert not glob.glob(T + "/core/rd_mcp_*")


def test_backstore_first(stack):
    """Unlink, remove the device and its HBA, then the fabric side."""
    so = mk_rd("r0", 16 * MiB)
    tpg = mk_target()
    lun = link_lun(tpg, 0, so)
    dev = disk(tpg, 0)
    h, host = hctl(tpg, 0), host_of(tpg)
    alias = [e for e in os.listdir(lun) if os.path.islink(lun + "/" + e)][0]
    os.unlink(lun + "/" + alias)
    assert not os.path.exists(dev)
    os.rmdir(so)
    os.rmdir(os.path.dirname(so))
    # the empty LUN dir and the TPG are still usable: relink a new device
    so2 = mk_rd("r1", 32 * MiB)
    os.symlink(so2, lun + "/x")
    dev = disk(tpg, 0)
    assert int(rd("/sys/block/%s/size" % os.path.basename(dev))) * 512 == \
        32 * MiB
    os.unlink(lun + "/x")
    os.rmdir(so2)
    os.rmdir(os.path.dirname(so2))
    os.rmdir(lun)
    os.rmdir(tpg)
    os.rmdir(os.path.dirname(tpg))
    gone(tpg, [h], host)


def test_shared_device_two_tpgs(stack):
    """One device behind two TPGs of one WWN and a second WWN."""
    so = mk_rd("r0", 16 * MiB)
    t1 = mk_target(tag=1)
    wwn = os.path.basename(os.path.dirname(t1))
    t2 = "%s/%s/tpgt_2" % (LOOP, wwn)
    os.mkdir(t2)
    run("echo -n naa.5001405%s > %s/nexus" % ("abcdef012", t2))
    t3 = mk_target()
    luns = [link_lun(t, i, so) for t, i in ((t1, 0), (t2, 4), (t3, 2))]
    devs = [disk(t1, 0), disk(t2, 4), disk(t3, 2)]
    assert hctl(t2, 4).split(":")[2] == "2"
    run("printf shared | dd of=%s bs=512 oflag=direct conv=sync status=none"
        % devs[0])
    for d in devs:
        p = run("dd if=%s bs=512 count=1 iflag=direct status=none | "
                "head -c 6" % d)
        assert p.stdout == "shared", d
    # drop the TPGs in the middle first
    unlink_lun(luns[1])
    os.rmdir(t2)
    assert "Status: ACTIVATED" in rd(so + "/info")
    assert scsi_present(t1, 0) and not os.path.exists(devs[1])
    unlink_lun(luns[2])
    os.rmdir(t3)
    os.rmdir(os.path.dirname(t3))
    assert "Status: ACTIVATED" in rd(so + "/info")
    unlink_lun(luns[0])
    assert "Status: DEACTIVATED" in rd(so + "/info")
    os.rmdir(t1)
    os.rmdir(os.path.dirname(t1))


def test_many_luns_reverse(stack):
    tpg = mk_target()
    sos = [mk_rd("r%d" % i, 4 * MiB) for i in range(6)]
    luns = [link_lun(tpg, i * 3, so) for i, so in enumerate(sos)]
    hs = [hctl(tpg, i * 3) for i in range(6)]
    for i in range(6):
        disk(tpg, i * 3)
    host = host_of(tpg)
    for lun in reversed(luns[::2]):
        unlink_lun(lun)
    for so in sos[::2]:
        os.rmdir(so)
    for i in (1, 3, 5):
        tur(disk(tpg, i * 3))
    for lun in luns[1::2]:
        unlink_lun(lun)
    os.rmdir(tpg)
    os.rmdir(os.path.dirname(tpg))
    gone(tpg, hs, host)


def test_fabric_dir(stack):
    tpg = mk_target()
    assert err_of(os.rmdir, LOOP) in (errno.ENOTEMPTY, errno.EBUSY)
    os.rmdir(tpg)
    os.rmdir(os.path.dirname(tpg))
    os.rmdir(LOOP)
    assert not os.path.exists(LOOP)
    os.mkdir(LOOP)
    assert "version" in os.listdir(LOOP)
    tpg = mk_target()
    so = mk_rd("r0", 4 * MiB)
    link_lun(tpg, 0, so)
    disk(tpg, 0)


def pattern_4m(i):
    """sha256 of LUN i's 4 MiB pattern ("lun<i>" lines)."""
    return run("yes lun%d | head -c %d | sha256sum"
               % (i, 4 * MiB)).stdout.split()[0]


def test_lun_lookup_paths_and_unlink_under_io(stack):
    """LUNs 0..255 are found in the TPG's array, higher ones in its xarray:
    data written to each reads back from the same LUN only; then a LUN is
    unlinked while fio runs on it and on another, which keeps its data."""
    tpg = mk_target()
    ids = (0, 255, 256, 300)
    sos = [mk_rd("r%d" % i, 8 * MiB) for i in ids]
    luns = [link_lun(tpg, i, so) for i, so in zip(ids, sos)]
    devs = [disk(tpg, i) for i in ids]
    for i, dev in zip(ids, devs):
        fill(dev, "lun%d" % i, 4 * MiB)
    for i, dev in zip(ids, devs):
        assert sha(dev, 0, 4 * MiB) == pattern_4m(i), "LUN %d" % i
    fio = subprocess.Popen(
        ["fio", "--name=u", "--filename=%s:%s" % (devs[2], devs[3]),
         "--ioengine=libaio", "--direct=1", "--rw=randrw", "--bs=4k",
         "--iodepth=32", "--offset=4M", "--time_based", "--runtime=60",
         "--continue_on_error=all"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        assert fio.poll() is None
        unlink_lun(luns[3])
        assert not os.path.exists(devs[3])
    finally:
        fio.kill()
        fio.wait(timeout=60)
    for i, dev in zip(ids[:3], devs[:3]):
        assert sha(dev, 0, 4 * MiB) == pattern_4m(i), \
            "LUN %d after the unlink" % i


def test_rmmod_refused_then_unload_all():
    load()
    k = Kmsg()
    so = mk_rd("r0", 16 * MiB)
    tpg = mk_target()
    link_lun(tpg, 0, so)
    dev = disk(tpg, 0)
    run("printf alive | dd of=%s bs=512 oflag=direct conv=sync status=none"
        % dev)
    for m in {FABRIC_MOD, BACKEND_MOD, CORE_MOD}:
        p = run(["rmmod", m], check=False)
        assert p.returncode != 0, "rmmod %s with a linked LUN" % m
        assert m in modules()
    p = run("dd if=%s bs=512 count=1 iflag=direct status=none | head -c 5"
            % dev)
    assert p.stdout == "alive"
    unload()
    left = modules()
    for m in LOAD:
        assert m not in left
    assert not os.path.exists(T)
    assert not glob.glob("/sys/class/scsi_host/*/proc_name") or all(
        "loop" not in rd(p) for p in glob.glob(
            "/sys/class/scsi_host/*/proc_name"))
    bad = k.bad()
    k.close()
    assert not bad, bad


def test_unlink_under_user_rescans_leaves_no_disk(stack, dmesg):
    """Rescans of the host (echo "- - -" > scan, as a user or udev may
    run) while a LUN is unlinked: none brings the LUN back as a disk
    between the fabric's removal of its device and its unpublishing, so
    once the unlink returns no scsi_device of it is left, whatever the
    rescans that follow; the LUN that stays is untouched. Bounded: 6
    rounds, each rescan loop at most 30 s."""
    tpg = mk_target()
    keep = link_lun(tpg, 0, mk_rd("keep", 16 * MiB))
    tur(disk(tpg, 0))
    scan = host_of(tpg) + "/scan"
    h3 = "/sys/class/scsi_device/" + hctl(tpg, 3)
    for i in range(6):
        so = mk_rd("r%d" % i, 4 * MiB)
        lun = link_lun(tpg, 3, so)
        tur(disk(tpg, 3))
        stop = threading.Event()
        scans = [0]

        def rescan():
            end = time.time() + 30
            while not stop.is_set() and time.time() < end:
                with open(scan, "w") as f:
                    f.write("- - -\n")
                scans[0] += 1

        t = threading.Thread(target=rescan)
        t.start()
        time.sleep(0.05 * (i % 3))
        unlink_lun(lun)
        assert not os.path.exists(h3), (i, scans[0])
        time.sleep(0.2)
        stop.set()
        t.join(60)
        assert not t.is_alive() and scans[0] > 0
        with open(scan, "w") as f:
            f.write("- - -\n")
        assert not os.path.exists(h3), (i, scans[0])
        assert not glob.glob("/sys/class/scsi_device/%s/device/block/*"
                             % hctl(tpg, 3))
        os.rmdir(so)
        os.rmdir(os.path.dirname(so))
    assert scsi_present(tpg, 0)
    tur(disk(tpg, 0))
    assert os.path.isdir(keep)
    assert not [ln for ln in dmesg.read().splitlines()
                if "tcmx" in ln and "WARN" in ln]


WRITE10 = [0x2a, 0, 0, 0, 0, 8, 0, 0, 1, 0]


@pytest.mark.tcmx_only
def test_unlink_of_a_draining_lun_leaves_configfs_free(stack, dmesg):
    """While a LUN is being unlinked and a write delayed 20 s
    (inject/delay_write_us: its data lands at once, its completion comes
    20 s later, and task management cannot cut that short) keeps it from
    draining, the rest of configfs goes on: a device is made,
    a LUN made and linked on another target, a LUN file of that target
    read, a LUN directory made beside the draining one, all within seconds;
    meanwhile the rmdir of the LUN's TPG and of its device are refused
    (ENOTEMPTY, EBUSY), and a second unlink of the link (which the VFS
    holds back while the first runs) finds nothing (ENOENT).  The unlink
    returns once the delayed write completed (GOOD); then everything is
    removed and the modules unload (the guard)."""
    tpg = mk_target()
    so = mk_rd("held", 16 * MiB)
    lun = link_lun(tpg, 0, so)
    # another WWN: another loopback host, whose scans do not wait for the
    # removal of the draining LUN's disk
    other = mk_target()
    other0 = link_lun(other, 0, mk_rd("other", 16 * MiB))
    dev = disk(tpg, 0)
    tur(dev)
    tur(disk(other, 0))
    run("udevadm settle", check=False)
    alias = [e for e in os.listdir(lun) if os.path.islink(lun + "/" + e)][0]
    done, seen = {}, {}

    def write():
        fd = os.open(dev, os.O_RDWR)
        try:
            st = sgio(fd, WRITE10, dout=b"\xaa" * 512, timeout_ms=120000)[0]
        finally:
            os.close(fd)
        done["write"] = (time.monotonic(), st)

    def unlink():
        os.unlink(lun + "/" + alias)
        done["unlink"] = time.monotonic()

    def unlink_again():
        done["again"] = err_of(os.unlink, lun + "/" + alias)

    threads = [threading.Thread(target=f)
               for f in (write, unlink, unlink_again)]
    # the delay is the write's own once it is in: 0 after it, for the rest
    wr(so + "/inject/delay_write_us", "20000000")
    try:
        threads[0].start()
        time.sleep(2)
        wr(so + "/inject/delay_write_us", "0")
        seen["delayed"] = rd(so + "/inject/counters")
        threads[1].start()
        time.sleep(2)
        t0 = time.monotonic()
        new = mk_rd("new", 16 * MiB)
        other1 = link_lun(other, 1, new)
        seen["alua"] = rd(other0 + "/alua_tg_pt_gp")
        os.mkdir(tpg + "/lun/lun_1")
        seen["took"] = time.monotonic() - t0
        seen["rmdir_tpg"] = err_of(os.rmdir, tpg)
        seen["rmdir_dev"] = err_of(os.rmdir, so)
        threads[2].start()
        time.sleep(0.5)
        seen["pending"] = sorted(done)
    finally:
        wr(so + "/inject/delay_write_us", "0")
        for t in threads:
            if t.ident:
                t.join(120)
    assert "delayed 1\n" in seen["delayed"], seen["delayed"]
    assert seen["pending"] == [], "the delayed write or the unlink ended " \
        "early"
    assert seen["took"] < 5, "configfs waited %.1f s for the unlink" % \
        seen["took"]
    assert seen["alua"].startswith("TG Port Alias: default_tg_pt_gp\n")
    assert (seen["rmdir_tpg"], seen["rmdir_dev"], done.get("again")) == \
        (errno.ENOTEMPTY, errno.EBUSY, errno.ENOENT)
    assert done["write"][1] == GOOD
    assert done["unlink"] >= done["write"][0] - 1, \
        "the unlink returned before the delayed write completed"
    assert not scsi_present(tpg, 0) and not os.path.exists(dev)
    tur(disk(other, 1))
    os.rmdir(tpg + "/lun/lun_1")
    unlink_lun(lun)
    unlink_lun(other1)
    os.rmdir(so)
    os.rmdir(os.path.dirname(so))
