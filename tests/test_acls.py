# SPDX-License-Identifier: GPL-2.0
"""Node ACLs and LUN masking on the loopback: tpgt_N/acls/<initiator>/
lun_M mapped to the TPG's LUNs.  An initiator with an ACL reaches only its
mapped LUNs, under their mapped numbers, write-protected where the mapping
says so; without one it reaches every LUN of the TPG (demo mode).

The tests that look through a rescan of the target id (rescan_target(),
so that they would also hold where disks do not follow the mappings) are
tcmx-only: the in-tree tcm_loop cannot go through them.  Its host has
max_lun 0, so a scan never reaches LUN 5; it counts a LUN's port down on
unlink only if that LUN's disk exists, and then refuses to drop the nexus
forever; and an ACL removed under a live loopback nexus waits for the
session, which tcm_loop never closes (a hung rmdir)."""
import errno
import os
import re

from tcmxlib import (CHECK, COPY_ABORTED, GOOD, LOOP, WRITE_PROTECT, check,
                     err_of, good, link_lun, mk_rd, mk_target, new_wwn, rd,
                     run, sgdev, tur, unlink_lun, wr, write_read_block)
from tcmxlib.configfs import (map_lun, mk_acl, rescan_target, rm_acl,
                              target_sdevs)
import pytest

MiB = 1 << 20


def read_block(sg, lba=0):
    return good(sg, [0x28, 0, 0, 0, 0, lba, 0, 0, 1, 0], din=512)


def report_luns(sg):
    data = good(sg, [0xa0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0], din=1024)
    n = int.from_bytes(data[0:4], "big") // 8
    return [int.from_bytes(data[8 + 8 * i:10 + 8 * i], "big")
            for i in range(n)]


def patterned(*fills):
    """One ramdisk per fill byte, block 0 written with it through a demo
    mode target (LUN i for the i-th); returns the device paths."""
    sos = [mk_rd("acl%d" % i, 16 * MiB) for i in range(len(fills))]
    tb = mk_target()
    for i, so in enumerate(sos):
        link_lun(tb, i, so)
    for i, fill in enumerate(fills):
        sg = sgdev(tb, i)
        tur(sg)
        write_read_block(sg, 0, fill)
    return sos


def masked_target(sos, maps):
    """A TPG with LUN i -> sos[i] for each i in sos (a dict), an ACL for
    its initiator mapping (m, l) for each of maps, made before the nexus
    so that the in-tree session starts on that ACL.  Returns (tpg, acl)."""
    tpg = "%s/%s/tpgt_1" % (LOOP, new_wwn())
    os.makedirs(tpg)
    for i, so in sos.items():
        link_lun(tpg, i, so)
    init = new_wwn()
    acl = mk_acl(tpg, init, maps)
    wr(tpg + "/nexus", init)
    return tpg, acl


def unlink_devices(lun):
    """Remove the device symlinks of a TPG's LUN, leaving its directory."""
    for e in os.listdir(lun):
        if os.path.islink(os.path.join(lun, e)):
            os.unlink(os.path.join(lun, e))


def drop_nexus_and_acl(tpg, acl):
    """Unlink the LUNs, drop the nexus, remove the ACL: the order both
    stacks take.  The in-tree loopback counts a linked LUN down only when it
    finds the LUN's SCSI device (under the TPG's LUN number) as it is
    unlinked, and refuses to drop the nexus while the count is not 0; an ACL
    removed under a live nexus waits for it forever.  So every LUN is first
    mapped under its own number and scanned, then unlinked, then unmapped
    (configfs keeps a LUN directory while a mapping links to it)."""
    for e in os.listdir(acl):
        if e.startswith("lun_"):
            unlink_lun(os.path.join(acl, e))
    luns = [tpg + "/lun/" + e for e in os.listdir(tpg + "/lun")]
    for lun in luns:
        map_lun(acl, int(lun.rsplit("_", 1)[1]), lun)
    rescan_target(tpg)
    for lun in luns:
        unlink_devices(lun)
    for e in os.listdir(acl):
        if e.startswith("lun_"):
            unlink_lun(os.path.join(acl, e))
    for lun in luns:
        os.rmdir(lun)
    wr(tpg + "/nexus", "NULL")
    rm_acl(acl)


@pytest.mark.tcmx_only  # tcm_loop cannot: see the module's docstring
def test_acl_maps_one_lun(stack):
    """An ACL mapping only lun_5 as LUN 0: one disk, lun_5's data; REPORT
    LUNS lists LUN 0 alone, and LUN 5 makes no device."""
    so0, so5 = patterned(0x11, 0x55)
    tpg, acl = masked_target({0: so0, 5: so5}, [(0, 5)])
    try:
        h = rescan_target(tpg)
        assert [x.rsplit(":", 1)[1] for x in h] == ["0"], h
        sg = sgdev(tpg, 0)
        tur(sg)
        assert read_block(sg) == bytes([0x55]) * 512
        assert report_luns(sg) == [0]
        # LUN 5 is not one of this initiator's: the scan of it finds none
        assert rescan_target(tpg, "5") == []
        assert [x.rsplit(":", 1)[1] for x in rescan_target(tpg)] == ["0"]
    finally:
        drop_nexus_and_acl(tpg, acl)


@pytest.mark.tcmx_only  # tcm_loop cannot: see the module's docstring
def test_acl_write_protect(stack):
    """write_protect=1 on the mapping: WRITE fails 07/27/00 and the data
    stays; back to 0, writes work."""
    (so,) = patterned(0x22)
    tpg, acl = masked_target({3: so}, [(0, 3)])
    try:
        rescan_target(tpg)
        sg = sgdev(tpg, 0)
        tur(sg)
        wp = acl + "/lun_0/write_protect"
        assert rd(wp).strip() == "0"
        wr(wp, "1")
        assert rd(wp).strip() == "1"
        check(sg, [0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0], WRITE_PROTECT,
              dout=bytes([0x99]) * 512)
        assert read_block(sg) == bytes([0x22]) * 512
        # MODE SENSE's device-specific parameter says so (WP, bit 7)
        assert good(sg, [0x1a, 0, 0x3f, 0, 255, 0], din=255)[2] & 0x80
        wr(wp, "0")
        assert not good(sg, [0x1a, 0, 0x3f, 0, 255, 0], din=255)[2] & 0x80
        write_read_block(sg, 0, 0x33)
    finally:
        drop_nexus_and_acl(tpg, acl)


@pytest.mark.tcmx_only  # tcm_loop cannot: see the module's docstring
def test_acl_removed_demo_mode(stack):
    """Without the ACL the initiator is back in demo mode: every LUN of
    the TPG under its own number."""
    so0, so5 = patterned(0x11, 0x55)
    tpg, acl = masked_target({0: so0, 5: so5}, [(0, 5)])
    drop_nexus_and_acl(tpg, acl)
    assert not os.path.exists(acl)
    link_lun(tpg, 0, so0)
    link_lun(tpg, 5, so5)
    wr(tpg + "/nexus", new_wwn())
    h = rescan_target(tpg)
    assert [x.rsplit(":", 1)[1] for x in h] == ["0", "5"], h
    sg = sgdev(tpg, 0)
    tur(sg)
    assert read_block(sg) == bytes([0x11]) * 512
    assert report_luns(sg) == [0, 5]


def test_acl_tree(stack):
    """What acls/<initiator>/ and a mapped lun_M hold."""
    (so,) = patterned(0x44)
    tpg = mk_target()
    lun = link_lun(tpg, 2, so)
    acl = mk_acl(tpg, new_wwn())
    try:
        for d in ("attrib", "auth", "param"):
            assert os.path.isdir(os.path.join(acl, d)), d
        m = map_lun(acl, 7, lun, alias="alias1")
        assert "write_protect" in os.listdir(m)
        assert os.path.islink(m + "/alias1")
        assert os.path.realpath(m + "/alias1") == os.path.realpath(lun)
        assert rd(m + "/write_protect").strip() == "0"
    finally:
        for e in os.listdir(acl):
            if e.startswith("lun_"):
                unlink_lun(os.path.join(acl, e))
        unlink_lun(lun)
        wr(tpg + "/nexus", "NULL")
        os.rmdir(acl)


@pytest.mark.tcmx_only
def test_acl_bad_names_and_links(stack, dmesg):
    """Bad ACL and mapped LUN names, links to what is not a LUN of the
    TPG, a second link, bad write_protect values: errno and one log line
    each."""
    (so,) = patterned(0x44)
    tpg, other = mk_target(), mk_target()
    lun = link_lun(tpg, 0, so)
    olun = link_lun(other, 0, so)
    for bad in ("iqn.a b", "naa.\t1"):
        assert err_of(os.mkdir, tpg + "/acls/" + bad) == errno.EINVAL, bad
    acl = mk_acl(tpg, new_wwn())
    for bad in ("lun_x", "lun_", "lun_07", "lun_65536", "foo_1"):
        assert err_of(os.mkdir, acl + "/" + bad) == errno.EINVAL, bad
    m = acl + "/lun_1"
    os.mkdir(m)
    for src in (so, olun, tpg + "/lun"):
        assert err_of(os.symlink, src, m + "/bad") == errno.EINVAL, src
    os.symlink(lun, m + "/good")
    assert err_of(os.symlink, lun, m + "/second") == errno.EEXIST
    for bad in ("2", "x", "-1"):
        assert err_of(wr, m + "/write_protect", bad) == errno.EINVAL, bad
    assert rd(m + "/write_protect").strip() == "0"
    assert "is not an initiator port name" in dmesg.read()
    assert "is not one of tpgt_" in dmesg.read()
    unlink_lun(m)
    rm_acl(acl)


@pytest.mark.tcmx_only
def test_acl_follows_live_nexus(stack):
    """On tcmx the disks follow the nexus's map as it changes: an ACL
    made after the nexus hides the LUNs, a mapping shows one under its
    mapped number, removing the ACL brings demo mode back, all without a
    rescan."""
    so0, so5 = patterned(0x11, 0x55)
    tpg = mk_target()
    lun0 = link_lun(tpg, 0, so0)
    link_lun(tpg, 5, so5)
    assert [x.rsplit(":", 1)[1] for x in target_sdevs(tpg)] == ["0", "5"]
    acl = mk_acl(tpg, rd(tpg + "/nexus").strip())
    assert target_sdevs(tpg) == []
    # the nexus stays while a LUN of the TPG is linked, mapped or not
    assert err_of(wr, tpg + "/nexus", "NULL") == errno.EPERM
    m = map_lun(acl, 3, lun0)
    assert [x.rsplit(":", 1)[1] for x in target_sdevs(tpg)] == ["3"]
    sg = sgdev(tpg, 3)
    tur(sg)
    assert read_block(sg) == bytes([0x11]) * 512
    assert report_luns(sg) == [3]
    unlink_lun(m)
    assert target_sdevs(tpg) == []
    rm_acl(acl)
    assert [x.rsplit(":", 1)[1] for x in target_sdevs(tpg)] == ["0", "5"]


@pytest.mark.tcmx_only  # tcm_loop cannot: see the module's docstring
def test_xcopy_confined_to_acl_map(stack):
    """EXTENDED COPY resolves its CSCDs through the initiator's map: a LUN
    of the TPG that its ACL does not map is out of reach (0A/0D/02, its
    blocks untouched), and a write-protected mapping refuses the copy's
    writes but not its reads."""
    from test_scsi_xcopy import cscd, naa_of, plist, seg, xcopy
    so_a, so_b = patterned(0x1a, 0x1b)
    tpg, acl = masked_target({0: so_a, 1: so_b}, [(0, 0)])
    try:
        # B's designator, as another initiator could learn it
        tb = mk_target()
        link_lun(tb, 0, so_b)
        naa_b = naa_of(sgdev(tb, 0))
        tur(sgdev(tb, 0))
        rescan_target(tpg)
        sg = sgdev(tpg, 0)
        tur(sg)
        naa_a = naa_of(sg)
        fd = os.open(sg, os.O_RDWR)
        try:
            to_b = plist([cscd(naa_a), cscd(naa_b)], [seg(0, 1, 1, 0, 0)])
            assert xcopy(fd, to_b) == (CHECK, COPY_ABORTED)
        finally:
            os.close(fd)
        assert read_block(sgdev(tb, 0)) == bytes([0x1b]) * 512
        # mapped, but write-protected: B is a source, not a destination
        m = map_lun(acl, 1, tpg + "/lun/lun_1")
        wr(m + "/write_protect", "1")
        tur(sg)     # REPORTED LUNS DATA HAS CHANGED
        fd = os.open(sg, os.O_RDWR)
        try:
            assert xcopy(fd, to_b) == (CHECK, COPY_ABORTED)
            from_b = plist([cscd(naa_b), cscd(naa_a)], [seg(0, 1, 1, 0, 0)])
            assert xcopy(fd, from_b) == (GOOD, None)
        finally:
            os.close(fd)
        assert read_block(sgdev(tb, 0)) == bytes([0x1b]) * 512
        assert read_block(sg) == bytes([0x1b]) * 512
    finally:
        drop_nexus_and_acl(tpg, acl)


AUTH_INTR = ("inst dev port indx dev_or_port intr_name map_indx att_count "
             "num_cmds read_mbytes write_mbytes hs_num_cmds creation_time "
             "row_status").split()
ATT_INTR_PORT = "inst dev port indx port_auth_indx port_ident".split()
SESSION_FILES = ("indx", "port_ident")   # scsi_att_intr_port's, no mapping


def mapped_stat(m, table, f):
    return rd("%s/statistics/%s/%s" % (m, table, f))


def mapped_counts(m):
    return tuple(int(mapped_stat(m, "scsi_auth_intr", f))
                 for f in ("num_cmds", "read_mbytes", "write_mbytes"))


def test_acl_mapped_lun_statistics(stack):
    """acls/<initiator>/lun_M/statistics/: scsi_auth_intr/ and
    scsi_att_intr_port/ with the in-tree files, modes and formats; the
    mapping's command and MiB counters grow with I/O through it (2 MiB
    read, 3 MiB written); ENODEV while the mapping reaches no linked LUN
    (the session's fields excepted), and for those once the nexus is
    gone.  Both stacks."""
    import stat
    (so,) = patterned(0x66)
    tpg, acl = masked_target({0: so}, [(0, 0)])
    init = os.path.basename(acl)
    m, spare = acl + "/lun_0", acl + "/lun_1"
    os.mkdir(spare)                             # a mapping with no link
    done = False
    try:
        st = m + "/statistics"
        assert sorted(os.listdir(st)) == ["scsi_att_intr_port",
                                          "scsi_auth_intr"]
        for t, files in (("scsi_auth_intr", AUTH_INTR),
                         ("scsi_att_intr_port", ATT_INTR_PORT)):
            assert sorted(os.listdir(st + "/" + t)) == sorted(files), t
            for f in files:
                mode = stat.S_IMODE(os.stat("%s/%s/%s" % (st, t, f)).st_mode)
                assert mode == 0o444, (t, f, oct(mode))
        assert err_of(os.mkdir, st + "/x") == errno.ENOSYS
        assert err_of(os.mkdir, st + "/scsi_auth_intr/x") == errno.EPERM

        rescan_target(tpg)    # LUN 0: tcm_loop scans no other
        sg = sgdev(tpg, 0)
        tur(sg)
        indx = rd(so + "/statistics/scsi_dev/indx")
        a = "scsi_auth_intr"
        fields = {f: mapped_stat(m, a, f) for f in AUTH_INTR}
        for f in ("num_cmds", "read_mbytes", "write_mbytes",
                  "creation_time", "indx"):
            assert re.fullmatch(r"\d+\n", fields[f]), (f, fields[f])
        assert {f: fields[f] for f in ("inst", "dev", "port", "dev_or_port",
                                       "intr_name", "map_indx", "att_count",
                                       "hs_num_cmds", "row_status")} == {
            "inst": "1\n", "dev": indx, "port": "1\n", "dev_or_port": "1\n",
            "intr_name": init + "\n", "map_indx": "0\n", "att_count": "1\n",
            "hs_num_cmds": "0\n", "row_status": "Ready\n"}
        p = "scsi_att_intr_port"
        assert {f: mapped_stat(m, p, f) for f in ATT_INTR_PORT} == {
            "inst": "1\n", "dev": indx, "port": "1\n", "indx": "1\n",
            "port_auth_indx": fields["indx"],
            "port_ident": init + "+i+\n"}

        run("udevadm settle", check=False)
        c0 = mapped_counts(m)
        for i in range(16):             # 128 KiB (256 blocks) at LBA i * 256
            good(sg, [0x28, 0, 0, 0, i, 0, 0, 1, 0, 0], din=128 * 1024)
        c1 = mapped_counts(m)
        for i in range(24):             # at LBA 4096 + i * 256
            good(sg, [0x2a, 0, 0, 0, 16 + i, 0, 0, 1, 0, 0],
                 dout=bytes(128 * 1024))
        c2 = mapped_counts(m)
        assert c1[0] - c0[0] >= 16 and 2 <= c1[1] - c0[1] <= 3, (c0, c1)
        assert c2[0] - c1[0] >= 24 and c2[2] - c1[2] == 3, (c1, c2)

        # the mapping with no link: the session's fields only
        for t, files in ((a, AUTH_INTR), (p, ATT_INTR_PORT)):
            for f in files:
                want = 0 if (t, f) in ((p, "indx"), (p, "port_ident")) \
                    else errno.ENODEV
                assert err_of(mapped_stat, spare, t, f) == want, (t, f)
        # the TPG's LUN unlinked: no mapping reaches it any more
        unlink_devices(tpg + "/lun/lun_0")
        for f in AUTH_INTR:
            assert err_of(mapped_stat, m, a, f) == errno.ENODEV, f
        unlink_lun(m)
        os.rmdir(tpg + "/lun/lun_0")
        wr(tpg + "/nexus", "NULL")
        for f in SESSION_FILES:
            assert err_of(mapped_stat, spare, p, f) == errno.ENODEV, f
        done = True
    finally:
        if not done:
            drop_nexus_and_acl(tpg, acl)
        else:
            rm_acl(acl)
