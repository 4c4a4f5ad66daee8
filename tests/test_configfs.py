# SPDX-License-Identifier: GPL-2.0
"""The configfs tree by plain writes: a LUN made and removed the way
rtslib does it, the tree's contents, modes and formats, and the error
paths of bad configfs writes."""
import errno
import os
import re
import secrets
import stat

import pytest

from tcmxlib import (BAD_SD, GiB, LOOP, MiB, PAGE, T, Kmsg, disk, err_of,
                     hctl, link_lun, mk_rd, mk_target, new_wwn, rd, run,
                     scsi_present, sd_attached, tur, unlink_lun, wr)


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_shell_flow(stack, dmesg):
    """targetcli's create flow done by shell writes: a clean sdX."""
    so = mk_rd("r0", GiB)
    info = rd(so + "/info")
    assert re.search(r"Status: DEACTIVATED", info)
    tpg = mk_target("naa.5001405000000001")
    assert scsi_present(tpg, 0) is False
    lun = link_lun(tpg, 0, so)
    dev = disk(tpg, 0)
    assert "Status: ACTIVATED" in rd(so + "/info")
    name = os.path.basename(dev)
    with open("/sys/block/%s/size" % name) as f:
        assert int(f.read()) * 512 == GiB
    # the sd driver attached it cleanly
    sdmsg = sd_attached(dmesg, dev)
    sdmsg += [l for l in dmesg.lines() if hctl(tpg, 0) in l]
    bad = [l for l in sdmsg if BAD_SD.search(l)]
    assert not bad, bad
    # data goes through the page cache too
    run("printf 'hello tcmx' | dd of=%s bs=512 seek=7 conv=fsync "
        "status=none" % dev)
    run("echo 3 > /proc/sys/vm/drop_caches")
    p = run("dd if=%s bs=512 skip=7 count=1 status=none | head -c 10" % dev)
    assert p.stdout == "hello tcmx"
    unlink_lun(lun)
    assert not scsi_present(tpg, 0)
    assert not os.path.exists(dev)
    assert "Status: DEACTIVATED" in rd(so + "/info")


def test_tree_and_modes(stack):
    """Files of the contract exist with the in-tree modes and formats."""
    so = mk_rd("r0", 64 * MiB)
    tpg = mk_target()
    lun = link_lun(tpg, 0, so, alias="a1b2c3d4e5")
    assert mode(T + "/version") == 0o444
    # in-tree: "Target Engine Core ConfigFS Infrastructure v5.0 on
    # Linux/x86_64 on <release>"; rtslib never reads it
    assert re.fullmatch(r".+ on Linux/\S+ on %s\n" % re.escape(
        os.uname().release), rd(T + "/version"))
    assert mode(T + "/dbroot") == 0o644
    assert rd(T + "/dbroot").strip() in ("/etc/rtslib-fb-target",
                                         "/etc/target", "/var/target")
    for f, m in (("control", 0o200), ("enable", 0o644), ("info", 0o444),
                 ("udev_path", 0o644), ("alias", 0o644)):
        assert mode(so + "/" + f) == m, f
    assert rd(so + "/enable").strip() == "1"
    assert rd(so + "/udev_path").strip() == ""
    a = so + "/attrib/"
    rw = ("emulate_model_alias emulate_dpo emulate_fua_write emulate_fua_read "
          "emulate_write_cache emulate_ua_intlck_ctrl emulate_tas emulate_tpu "
          "emulate_tpws emulate_caw emulate_3pc emulate_pr pi_prot_type "
          "pi_prot_format pi_prot_verify enforce_pr_isids is_nonrot "
          "emulate_rest_reord force_pr_aptpl block_size optimal_sectors "
          "queue_depth max_unmap_lba_count max_unmap_block_desc_count "
          "unmap_granularity unmap_granularity_alignment unmap_zeroes_data "
          "max_write_same_len alua_support pgr_support").split()
    for f in rw:
        assert mode(a + f) == 0o644, f
        assert re.fullmatch(r"\d+\n", rd(a + f)), f
    for f in "hw_block_size hw_max_sectors hw_queue_depth".split():
        assert mode(a + f) == 0o444, f
    assert rd(a + "block_size") == "512\n"
    assert rd(a + "hw_block_size") == "512\n"
    assert rd(a + "is_nonrot") == "1\n"
    assert rd(a + "emulate_write_cache") == "0\n"
    w = so + "/wwn/"
    assert rd(w + "vendor_id").strip() == "LIO-ORG"
    assert rd(w + "revision").strip() == "4.0"
    assert rd(w + "product_id").strip() == "RAMDISK-MCP"
    assert re.fullmatch(r"T10 VPD Unit Serial Number: r0-[0-9a-f]{16}\n",
                        rd(w + "vpd_unit_serial"))
    g = so + "/alua/default_tg_pt_gp/"
    assert os.listdir(so + "/alua") == ["default_tg_pt_gp"]
    assert rd(g + "tg_pt_gp_id").strip() == "0"
    assert rd(g + "alua_access_state").strip() == "0"
    assert rd(g + "alua_access_status").strip() == "None"
    assert rd(g + "alua_access_type").strip() == "Implicit and Explicit"
    assert rd(g + "nonop_delay_msecs").strip() == "100"
    for f in ("alua_write_metadata preferred trans_delay_msecs "
              "implicit_trans_secs alua_support_offline alua_support_standby "
              "alua_support_transitioning alua_support_active_nonoptimized "
              "alua_support_unavailable alua_support_active_optimized").split():
        assert mode(g + f) == 0o644, f
        int(rd(g + f))
    assert rd(so + "/pr/res_type").strip() == "SPC3_PERSISTENT_RESERVATIONS"
    assert mode(so + "/pr/res_type") == 0o444
    # fabric side
    assert mode(tpg + "/nexus") == 0o644
    assert re.fullmatch(r"naa\.5001405[0-9a-f]{9}\n", rd(tpg + "/nexus"))
    assert rd(tpg + "/transport_status").strip() == "online"
    assert mode(tpg + "/address") == 0o444
    assert re.fullmatch(r"\d+:0:1\n", rd(tpg + "/address"))
    assert rd(tpg + "/attrib/fabric_prot_type").strip() == "0"
    assert mode(tpg + "/attrib/fabric_prot_type") == 0o644
    assert os.listdir(tpg + "/lun") == ["lun_0"]
    assert os.path.realpath(lun + "/a1b2c3d4e5") == so
    first = rd(lun + "/alua_tg_pt_gp").splitlines()[0]
    assert first.split(":")[1].strip() == "default_tg_pt_gp"
    for e in os.listdir(LOOP):
        assert e.startswith("naa.") or e in (
            "version", "lio_version", "discovery_auth", "cpus_allowed_list"), e
    assert rd(g + "members").strip("\0\n ") == \
        "loopback/%s/tpgt_1/lun_0" % os.path.basename(os.path.dirname(tpg))


def test_info_format(stack):
    """info: the keys rtslib parses, nullio and page counts exact."""
    so = mk_rd("r0", 256 * MiB)
    nul = mk_rd("n0", 16 * MiB, nullio=True)
    flat = " ".join(rd(so + "/info").split())
    assert re.search(r"Status: DEACTIVATED", flat)
    assert re.search(r"PAGES/PAGE_SIZE: %d\*%d" % (256 * MiB // PAGE, PAGE),
                     flat)
    assert re.findall(r"nullio: ([^: ]+)", flat)[-1] == "0"
    flat = " ".join(rd(nul + "/info").split())
    assert re.findall(r"nullio: ([^: ]+)", flat)[-1] == "1"
    assert re.findall(r"PAGES/PAGE_SIZE: ([^: ]+)", flat)[-1] == \
        "%d*%d" % (16 * MiB // PAGE, PAGE)


def test_scsi_host_per_wwn_target_per_tpg(stack):
    so = [mk_rd("r%d" % i, 16 * MiB) for i in range(3)]
    t1 = mk_target()
    t2 = mk_target()
    link_lun(t1, 0, so[0])
    link_lun(t1, 5, so[1])
    link_lun(t2, 0, so[2])
    h1, h2 = hctl(t1, 0), hctl(t2, 0)
    assert h1.split(":")[0] != h2.split(":")[0]
    assert h1.split(":")[1:] == ["0", "1", "0"]
    assert hctl(t1, 5).split(":")[0] == h1.split(":")[0]
    disk(t1, 0), disk(t1, 5), disk(t2, 0)


def test_nexus_lifecycle(stack):
    """nexus: set by the write, NULL refused while linked, dropped with
    the TPG (the SCSI devices go away)."""
    so = mk_rd("r0", 16 * MiB)
    wwn = new_wwn()
    tpg = "%s/%s/tpgt_1" % (LOOP, wwn)
    os.makedirs(tpg)
    assert err_of(rd, tpg + "/nexus") == errno.ENODEV or \
        rd(tpg + "/nexus").strip() == ""
    n = new_wwn()
    wr(tpg + "/nexus", n)
    assert rd(tpg + "/nexus").strip() == n
    assert err_of(wr, tpg + "/nexus", new_wwn()) == errno.EEXIST
    lun = link_lun(tpg, 0, so)
    disk(tpg, 0)
    assert err_of(wr, tpg + "/nexus", "NULL") == errno.EPERM
    assert rd(tpg + "/nexus").strip() == n
    h = hctl(tpg, 0)
    unlink_lun(lun)
    os.rmdir(tpg)           # no NULL write: the fabric drops the nexus
    assert not os.path.exists("/sys/class/scsi_device/" + h)
    os.rmdir("%s/%s" % (LOOP, wwn))


def test_transport_status(stack):
    so = mk_rd("r0", 16 * MiB)
    tpg = mk_target()
    link_lun(tpg, 0, so)
    dev = disk(tpg, 0)
    wr(tpg + "/transport_status", "offline")
    assert rd(tpg + "/transport_status").strip() == "offline"
    wr(tpg + "/transport_status", "online")
    assert rd(tpg + "/transport_status").strip() == "online"
    tur(dev)
    # only the two words, with at most a trailing newline
    for bad in ("onlinex", "offline2", "on", "offline\n\n"):
        assert err_of(wr, tpg + "/transport_status", bad) == errno.EINVAL, bad
        assert rd(tpg + "/transport_status").strip() == "online"
    tur(dev)


@pytest.mark.parametrize("kind", ["naa", "fc", "iqn"])
def test_wwn_kinds(stack, kind):
    """tcm_loop's three port name kinds: the WWN's kind is the nexus's."""
    hexa = secrets.token_hex(8)
    wwn, nexus, other = {
        "naa": ("naa.5001405" + hexa[:9], "naa.5001405" + hexa[7:16],
                "fc.5001405000000001"),
        "fc": ("fc.5001405" + hexa[:9], "fc.5001406" + hexa[:9],
               "naa.5001405000000001"),
        "iqn": ("iqn.2003-01.org.example:t" + hexa,
                "iqn.2003-01.org.example:i" + hexa, "naa.5001405000000001"),
    }[kind]
    tpg = "%s/%s/tpgt_1" % (LOOP, wwn)
    os.makedirs(tpg)
    assert err_of(wr, tpg + "/nexus", other) == errno.EINVAL
    wr(tpg + "/nexus", nexus)
    # in-tree shows an fc. name without its prefix
    assert rd(tpg + "/nexus").strip() in (nexus, nexus.split("fc.")[-1])
    so = mk_rd("r0", 16 * MiB)
    link_lun(tpg, 0, so)
    tur(disk(tpg, 0))


@pytest.mark.tcmx_only
def test_bad_wwn_names(stack):
    os.makedirs(LOOP, exist_ok=True)
    for bad in ("naa.123", "naa.50014050000000zz", "fc.12", "iqn.",
                "iqn.a b", "eui.0123456789abcdef", "xyz"):
        assert err_of(os.mkdir, LOOP + "/" + bad) == errno.EINVAL, bad
        assert not os.path.exists(LOOP + "/" + bad)


# ---------------------------------------------------------- error paths
def state(path):
    """What a device looks like from configfs: must not change on a
    refused write."""
    return {f: rd(path + "/" + f) for f in ("info", "enable")}


def test_bad_control_writes(stack):
    hba = T + "/core/rd_mcp_0"
    os.makedirs(hba + "/r0")
    so = hba + "/r0"
    # enable before rd_pages
    assert err_of(wr, so + "/enable", "1\n") == errno.EINVAL
    assert rd(so + "/enable").strip() == "0"
    assert err_of(wr, so + "/enable", "2\n") != 0
    wr(so + "/control", "rd_pages=4096")
    wr(so + "/enable", "1\n")
    before = state(so)
    assert err_of(wr, so + "/enable", "1\n") == errno.EEXIST
    assert state(so) == before


@pytest.mark.tcmx_only
def test_bad_control_tokens(stack):
    """In-tree ignores these silently; the project demands an errno."""
    os.makedirs(T + "/core/rd_mcp_0/r0")
    so = T + "/core/rd_mcp_0/r0"
    k = Kmsg()
    for bad in ("rd_pages=abc", "rd_pages=", "rd_pages=-5",
                "rd_pages=99999999999999999999", "rd_nullio=x",
                "rd_overcommit=z"):
        assert err_of(wr, so + "/control", bad) in (
            errno.EINVAL, errno.ERANGE), bad
        assert err_of(wr, so + "/enable", "1\n") == errno.EINVAL, bad
    assert len([l for l in k.lines() if "tcmx" in l]) >= 6, k.lines()
    wr(so + "/control", "rd_pages=256")
    wr(so + "/enable", "1\n")
    before = state(so)
    # control after enable is refused and changes nothing
    assert err_of(wr, so + "/control", "rd_pages=512") != 0
    assert state(so) == before


def test_bad_attrib_writes(stack):
    so = mk_rd("r0", 16 * MiB)
    a = so + "/attrib/"
    for bad in ("3", "0", "513", "abc", "-512"):
        assert err_of(wr, a + "block_size", bad) == errno.EINVAL, bad
        assert rd(a + "block_size") == "512\n"
    assert err_of(wr, a + "hw_block_size", "4096") in (errno.EACCES,
                                                       errno.EPERM)
    wr(a + "block_size", "4096")
    assert rd(a + "block_size") == "4096\n"
    wr(a + "block_size", "512")
    tpg = mk_target()
    link_lun(tpg, 0, so)
    disk(tpg, 0)
    assert err_of(wr, a + "block_size", "4096") in (errno.EINVAL,
                                                    errno.EBUSY)
    assert rd(a + "block_size") == "512\n"
    serial = rd(so + "/wwn/vpd_unit_serial")
    # in-tree refuses it with EINVAL, tcmx with EBUSY like block_size
    assert err_of(wr, so + "/wwn/vpd_unit_serial", "other\n") == \
        (errno.EBUSY if stack == "tcmx" else errno.EINVAL)
    assert rd(so + "/wwn/vpd_unit_serial") == serial


def test_bad_fabric_writes(stack):
    so = mk_rd("r0", 16 * MiB)
    os.makedirs(T + "/core/rd_mcp_9/off")    # never enabled
    wwn = new_wwn()
    tpg = "%s/%s/tpgt_1" % (LOOP, wwn)
    os.makedirs(tpg)
    # nexus with a wrong prefix
    for bad in ("iqn.2003-01.org.x:y", "fc.5001405000000001", "xyz"):
        assert err_of(wr, tpg + "/nexus", bad) == errno.EINVAL, bad
    assert err_of(rd, tpg + "/nexus") == errno.ENODEV or \
        rd(tpg + "/nexus").strip() == ""
    wr(tpg + "/nexus", new_wwn())
    # bad LUN and TPG names
    for bad in ("lun_x", "lun_", "foo_1"):
        assert err_of(os.mkdir, tpg + "/lun/" + bad) != 0, bad
    assert os.listdir(tpg + "/lun") == []
    lun = tpg + "/lun/lun_0"
    os.mkdir(lun)
    # link to a non-device, to an HBA, to an unconfigured device
    for src in (LOOP, T + "/core/rd_mcp_0", T + "/core"):
        assert err_of(os.symlink, src, lun + "/bad") != 0, src
    assert err_of(os.symlink, T + "/core/rd_mcp_9/off", lun + "/bad") == \
        errno.ENODEV
    assert os.listdir(lun) == [] or all(
        not os.path.islink(os.path.join(lun, e)) for e in os.listdir(lun))
    assert not scsi_present(tpg, 0)
    os.symlink(so, lun + "/good")
    disk(tpg, 0)
    # a second link into the same LUN
    so2 = mk_rd("r1", 16 * MiB)
    assert err_of(os.symlink, so2, lun + "/again") == errno.EEXIST
    assert [e for e in os.listdir(lun) if os.path.islink(lun + "/" + e)] == \
        ["good"]
    # bad WWN names
    for bad in ("foo", "eui.0123456789abcdef", "x" * 300):
        assert err_of(os.mkdir, LOOP + "/" + bad) != 0, bad
    assert err_of(os.mkdir, "%s/%s/tpgt_x" % (LOOP, wwn)) != 0
    assert err_of(os.mkdir, "%s/%s/tpgt_99999" % (LOOP, wwn)) != 0


@pytest.mark.tcmx_only
def test_only_canonical_indexes(stack):
    """lun_07 or lun_+7 would be a second directory for lun_7's index, so
    that one LUN hides the other: only the canonical spelling is made,
    each refusal with one kernel log line; tpgt_ names likewise."""
    tpg = mk_target()
    os.mkdir(tpg + "/lun/lun_7")
    for bad in ("lun_07", "lun_+7", "lun_ 7", "lun_7 ", "lun_0x7", "lun_"):
        k = Kmsg()
        assert err_of(os.mkdir, tpg + "/lun/" + bad) == errno.EINVAL, bad
        lines = [ln for ln in k.lines() if "tcmx_core" in ln]
        assert len(lines) == 1 and "without leading zeros" in lines[0], \
            (bad, lines)
        k.close()
    assert os.listdir(tpg + "/lun") == ["lun_7"]
    os.mkdir(tpg + "/lun/lun_0")
    assert sorted(os.listdir(tpg + "/lun")) == ["lun_0", "lun_7"]
    wwn = os.path.dirname(tpg)
    assert err_of(os.mkdir, wwn + "/tpgt_01") == errno.EINVAL
    assert sorted(os.listdir(wwn)) == ["fabric_statistics", "param",
                                       "tpgt_1"]
    for n in ("lun_0", "lun_7"):
        os.rmdir(tpg + "/lun/" + n)


@pytest.mark.tcmx_only
def test_bad_lun_index_and_iscsi(stack):
    """lun_99999 is refused (rtslib allows 0..65535); the iscsi dir
    exists with discovery_auth, takes an iqn. target and refuses a name
    that is none, each refusal said."""
    tpg = mk_target()
    k = Kmsg()
    assert err_of(os.mkdir, tpg + "/lun/lun_99999") != 0
    assert err_of(os.mkdir, tpg + "/lun/lun_65536") != 0
    os.mkdir(tpg + "/lun/lun_65535")
    assert os.listdir(tpg + "/lun") == ["lun_65535"]
    os.rmdir(tpg + "/lun/lun_65535")
    isc = T + "/iscsi"
    if not os.path.isdir(isc):
        os.mkdir(isc)
    d = isc + "/discovery_auth/"
    assert rd(d + "enforce_discovery_auth").strip() == "0"
    for f in ("userid", "password", "userid_mutual", "password_mutual"):
        assert mode(d + f) == (0o600 if f.startswith("password") else 0o644)
        wr(d + f, "NULL")
    wr(d + "enforce_discovery_auth", "0")
    os.mkdir(isc + "/iqn.2003-01.org.example:t1")
    assert os.path.isdir(isc + "/iqn.2003-01.org.example:t1/fabric_statistics")
    os.rmdir(isc + "/iqn.2003-01.org.example:t1")
    for bad in ("IQN.2003-01.org.example:t1", "iqn.x" + "y" * 219,
                "foo.bar"):
        assert err_of(os.mkdir, isc + "/" + bad) == errno.EINVAL, bad
        assert not os.path.exists(isc + "/" + bad)
    assert len(k.lines()) >= 5, k.lines()


def test_rmdir_refusals(stack):
    """configfs refuses removing what is still in use; state intact."""
    so = mk_rd("r0", 16 * MiB)
    tpg = mk_target()
    lun = link_lun(tpg, 0, so)
    disk(tpg, 0)
    hba = os.path.dirname(so)
    wwn = os.path.dirname(tpg)
    assert err_of(os.rmdir, so) == errno.EBUSY
    assert err_of(os.rmdir, hba) == errno.ENOTEMPTY
    assert err_of(os.rmdir, lun) == errno.ENOTEMPTY
    assert err_of(os.rmdir, tpg) == errno.ENOTEMPTY
    assert err_of(os.rmdir, wwn) == errno.ENOTEMPTY
    assert err_of(os.rmdir, so + "/alua/default_tg_pt_gp") != 0
    assert err_of(os.rmdir, so + "/attrib") != 0
    assert scsi_present(tpg, 0)
    tur(disk(tpg, 0))
    assert "Status: ACTIVATED" in rd(so + "/info")
