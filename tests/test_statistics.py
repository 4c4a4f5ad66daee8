# SPDX-License-Identifier: GPL-2.0
"""The statistics/ directories of a device and of a LUN: the in-tree file
names and formats, counters driven by known I/O, -ENODEV while a LUN is not
linked, and device counters that never go backwards.  Runs on both stacks
(TCMX_TEST_STACK=lio validates it)."""
import errno
import os
import re
import stat

from tcmxlib import (MiB, disk, err_of, link_lun, mk_rd, mk_target,
                    rd, run)

DEV_TABLES = {
    "scsi_dev": "inst indx role ports",
    "scsi_tgt_dev": "inst indx num_lus status non_access_lus resets "
                    "aborts_complete aborts_no_task",
    "scsi_lu": "inst dev indx lun lu_name vend prod rev dev_type status "
               "state_bit num_cmds read_mbytes write_mbytes resets full_stat "
               "hs_num_cmds creation_time",
}
LUN_TABLES = {
    "scsi_port": "inst dev indx role busy_count",
    "scsi_tgt_port": "inst dev indx name port_index in_cmds write_mbytes "
                     "read_mbytes hs_in_cmds",
    "scsi_transport": "inst device indx dev_name proto_id",
}
NUM = re.compile(r"\d+\n")


def check_tree(base, tables):
    st = base + "/statistics"
    assert sorted(os.listdir(st)) == sorted(tables)
    for t, files in tables.items():
        assert sorted(os.listdir(st + "/" + t)) == sorted(files.split()), t
        for f in files.split():
            m = stat.S_IMODE(os.stat("%s/%s/%s" % (st, t, f)).st_mode)
            assert m == 0o444, (t, f, oct(m))
    # nothing can be made in statistics/ (in-tree: ENOSYS) nor in a table
    assert err_of(os.mkdir, st + "/x") == errno.ENOSYS
    assert not os.path.exists(st + "/x")
    assert err_of(os.mkdir, st + "/" + sorted(tables)[0] + "/x") == \
        errno.EPERM


def serial_of(so):
    return rd(so + "/wwn/vpd_unit_serial").split(":", 1)[1].strip()


def dev_stat(so, table, f):
    return rd("%s/statistics/%s/%s" % (so, table, f))


def lun_stat(lun, table, f):
    return rd("%s/statistics/%s/%s" % (lun, table, f))


def dev_counts(so):
    return tuple(int(dev_stat(so, "scsi_lu", f)) for f in
                 ("num_cmds", "read_mbytes", "write_mbytes"))


def lun_counts(lun):
    return tuple(int(lun_stat(lun, "scsi_tgt_port", f)) for f in
                 ("in_cmds", "read_mbytes", "write_mbytes"))


def settle():
    run("udevadm settle", check=False)


def dd(args):
    run("dd %s status=none" % args)


def test_statistics_formats(stack):
    """File names, modes and the static fields' formats, both tables."""
    so = mk_rd("r0", 64 * MiB)
    check_tree(so, DEV_TABLES)
    # a device no LUN exports
    assert dev_stat(so, "scsi_dev", "ports") == "0\n"
    assert dev_stat(so, "scsi_tgt_dev", "status") == "deactivated"
    assert dev_stat(so, "scsi_tgt_dev", "non_access_lus") == "1\n"
    assert dev_stat(so, "scsi_lu", "status") == "notavailable\n"

    tpg = mk_target()
    wwn = os.path.basename(os.path.dirname(tpg))
    lun = link_lun(tpg, 0, so)
    disk(tpg, 0)
    check_tree(lun, LUN_TABLES)

    inst = dev_stat(so, "scsi_dev", "inst")
    indx = dev_stat(so, "scsi_dev", "indx")
    assert NUM.fullmatch(inst) and NUM.fullmatch(indx)
    assert dev_stat(so, "scsi_dev", "role") == "Target\n"
    assert dev_stat(so, "scsi_dev", "ports") == "1\n"

    t = "scsi_tgt_dev"
    assert dev_stat(so, t, "inst") == inst
    assert dev_stat(so, t, "indx") == indx
    assert dev_stat(so, t, "num_lus") == "1\n"
    assert dev_stat(so, t, "status") == "activated"      # no newline
    assert dev_stat(so, t, "non_access_lus") == "0\n"
    for f in ("resets", "aborts_complete", "aborts_no_task"):
        assert NUM.fullmatch(dev_stat(so, t, f)), f

    t = "scsi_lu"
    assert dev_stat(so, t, "inst") == inst
    assert dev_stat(so, t, "dev") == indx
    assert dev_stat(so, t, "indx") == "1\n"
    assert dev_stat(so, t, "lun") == "0\n"
    assert dev_stat(so, t, "lu_name") == serial_of(so) + "\n"
    w = so + "/wwn/"
    assert dev_stat(so, t, "vend") == "%-8s\n" % rd(w + "vendor_id").strip()
    assert dev_stat(so, t, "vend") == "LIO-ORG \n"
    assert dev_stat(so, t, "prod") == "%-16s\n" % rd(w + "product_id").strip()
    assert dev_stat(so, t, "rev") == "%-4s\n" % rd(w + "revision").strip()
    assert dev_stat(so, t, "dev_type") == "0\n"
    assert dev_stat(so, t, "status") == "available\n"
    assert dev_stat(so, t, "state_bit") == "exposed\n"
    for f in ("num_cmds", "read_mbytes", "write_mbytes", "resets",
              "creation_time"):
        assert NUM.fullmatch(dev_stat(so, t, f)), f
    assert dev_stat(so, t, "full_stat") == "0\n"
    assert dev_stat(so, t, "hs_num_cmds") == "0\n"

    t = "scsi_port"
    rtpi = lun_stat(lun, t, "indx")
    assert NUM.fullmatch(rtpi) and int(rtpi) >= 1
    assert lun_stat(lun, t, "inst") == inst
    assert lun_stat(lun, t, "dev") == indx
    assert lun_stat(lun, t, "role") == "Device" + indx
    assert lun_stat(lun, t, "busy_count") == "0\n"

    t = "scsi_tgt_port"
    assert lun_stat(lun, t, "inst") == inst
    assert lun_stat(lun, t, "dev") == indx
    assert lun_stat(lun, t, "indx") == rtpi
    assert lun_stat(lun, t, "name") == "loopbackPort#" + rtpi
    assert lun_stat(lun, t, "port_index") == "%s+t+1\n" % wwn
    for f in ("in_cmds", "write_mbytes", "read_mbytes"):
        assert NUM.fullmatch(lun_stat(lun, t, f)), f
    assert lun_stat(lun, t, "hs_in_cmds") == "0\n"

    t = "scsi_transport"
    assert lun_stat(lun, t, "inst") == inst
    assert lun_stat(lun, t, "device") == "scsiTransportloopback\n"
    assert lun_stat(lun, t, "indx") == "1\n"
    assert lun_stat(lun, t, "dev_name") == "%s+%s\n" % (wwn, serial_of(so))
    assert lun_stat(lun, t, "proto_id") == "6\n"         # SAS

    # a second device has its own index; a second LUN its own RTPI
    so2 = mk_rd("r1", 16 * MiB)
    assert dev_stat(so2, "scsi_dev", "indx") != indx
    lun1 = link_lun(tpg, 1, so)
    disk(tpg, 1)
    assert lun_stat(lun1, "scsi_port", "indx") != rtpi
    assert dev_stat(so, "scsi_dev", "ports") == "2\n"


def test_statistics_counters(stack):
    """Read 5 MiB and write 3 MiB in 1 MiB direct I/Os: mbytes deltas are
    exact, command deltas at least the number of I/Os, on the device and
    on the LUN."""
    so = mk_rd("r0", 64 * MiB)
    tpg = mk_target()
    lun = link_lun(tpg, 0, so)
    dev = disk(tpg, 0)
    settle()
    d0, l0 = dev_counts(so), lun_counts(lun)
    # reads first: udev may probe the disk once a writer closes it
    dd("if=%s of=/dev/null bs=1M count=5 skip=8 iflag=direct" % dev)
    d1, l1 = dev_counts(so), lun_counts(lun)
    for a, b in ((d0, d1), (l0, l1)):
        assert b[0] - a[0] >= 5, (a, b)
        assert b[1] - a[1] == 5, (a, b)
        assert b[2] == a[2], (a, b)
    dd("if=/dev/zero of=%s bs=1M count=3 seek=16 oflag=direct" % dev)
    d2, l2 = dev_counts(so), lun_counts(lun)
    for a, b in ((d1, d2), (l1, l2)):
        assert b[0] - a[0] >= 3, (a, b)
        assert b[2] - a[2] == 3, (a, b)
    # the device has counted at least what its one LUN counted
    assert all(x >= y for x, y in zip(d2, l2)), (d2, l2)


def test_statistics_unlinked_lun(stack):
    """Every file of an unlinked LUN's tables fails with ENODEV, before the
    first link and after an unlink; the device keeps its counts."""
    so = mk_rd("r0", 64 * MiB)
    tpg = mk_target()
    lun = tpg + "/lun/lun_0"
    os.mkdir(lun)

    def all_enodev():
        for t, files in LUN_TABLES.items():
            for f in files.split():
                p = "%s/statistics/%s/%s" % (lun, t, f)
                assert err_of(rd, p) == errno.ENODEV, p

    all_enodev()
    alias = "a1b2c3d4e5"
    os.symlink(so, lun + "/" + alias)
    dev = disk(tpg, 0)
    settle()
    dd("if=%s of=/dev/null bs=1M count=2 iflag=direct" % dev)
    before = dev_counts(so)
    assert before[1] >= 2
    assert lun_counts(lun)[1] >= 2
    os.unlink(lun + "/" + alias)
    all_enodev()
    after = dev_counts(so)
    assert all(x >= y for x, y in zip(after, before)), (before, after)
    assert dev_stat(so, "scsi_dev", "ports") == "0\n"
    assert dev_stat(so, "scsi_tgt_dev", "status") == "deactivated"

    # linked again: the device goes on from where it was
    os.symlink(so, lun + "/" + alias)
    dev = disk(tpg, 0)
    settle()
    dd("if=%s of=/dev/null bs=1M count=1 iflag=direct" % dev)
    again = dev_counts(so)
    assert again[0] > after[0] and again[1] >= after[1] + 1, (after, again)


def test_statistics_two_luns_one_device(stack):
    """A device exported by two LUNs counts both; unlinking one of them
    takes nothing away from the device."""
    so = mk_rd("r0", 64 * MiB)
    tpg = mk_target()
    luns = [link_lun(tpg, i, so) for i in (0, 1)]
    devs = [disk(tpg, i) for i in (0, 1)]
    settle()
    d0 = dev_counts(so)
    l0 = [lun_counts(lun) for lun in luns]
    dd("if=%s of=/dev/null bs=1M count=2 iflag=direct" % devs[0])
    dd("if=%s of=/dev/null bs=1M count=3 iflag=direct" % devs[1])
    d1 = dev_counts(so)
    l1 = [lun_counts(lun) for lun in luns]
    assert l1[0][1] - l0[0][1] == 2 and l1[1][1] - l0[1][1] == 3, (l0, l1)
    # the LUNs' remainders below 1 MiB add up on the device: small reads in
    # between (sd handling the "LUNs changed" unit attention) may carry it
    assert 5 <= d1[1] - d0[1] <= 6, (d0, d1)
    assert d1[0] - d0[0] >= sum(b[0] - a[0] for a, b in zip(l0, l1))
    for e in os.listdir(luns[1]):
        if os.path.islink(os.path.join(luns[1], e)):
            os.unlink(os.path.join(luns[1], e))
    d2 = dev_counts(so)
    assert all(x >= y for x, y in zip(d2, d1)), (d1, d2)
    assert d2[1] == d1[1], (d1, d2)
    assert dev_stat(so, "scsi_dev", "ports") == "1\n"
