# SPDX-License-Identifier: GPL-2.0
"""Device attribute rules (target/dev_attrib.h, struct tcmx_cfs_attr):
a refused write returns one errno (EINVAL for a bad value, EBUSY for a
change while a LUN exports the device), says exactly one dmesg line that
names the device and the file, and leaves the value as it was."""
import errno
import os

import pytest

from tcmxlib import (MiB, Kmsg, T, disk, err_of, link_lun, mk_rd,
                    mk_target, rd, wr)


def refused(so, f, value, err):
    """Write value to so/f: errno err, one line naming r0 and f, f as it
    was."""
    before = rd(so + "/" + f)
    k = Kmsg()
    assert err_of(wr, so + "/" + f, value) == err, (f, value)
    assert rd(so + "/" + f) == before, (f, value)
    said = [ln for ln in k.lines() if "tcmx_core: " in ln]
    assert len(said) == 1, (f, value, said)
    assert "r0: " in said[0] and f in said[0], (f, value, said)


@pytest.mark.tcmx_only
def test_busy_while_exported(stack):
    """In-tree LIO says EINVAL here; tcmx says EBUSY everywhere."""
    so = mk_rd("r0", 16 * MiB)
    tpg = mk_target()
    link_lun(tpg, 0, so)
    disk(tpg, 0)
    for f, value in (("wwn/vendor_id", "OTHER\n"),
                     ("wwn/product_id", "P"),
                     ("wwn/revision", "9.9"),
                     ("wwn/vpd_unit_serial", "other\n"),
                     ("wwn/company_id", "0x123456"),
                     ("attrib/block_size", "4096"),
                     ("attrib/queue_depth", "1"),
                     ("attrib/emulate_model_alias", "1")):
        refused(so, f, value, errno.EBUSY)
    # rewriting the value it has is no change: rtslib's restore does it
    wr(so + "/attrib/block_size", "512\n")
    # attributes the fast path does not cache may change
    wr(so + "/attrib/emulate_write_cache", "1")
    assert rd(so + "/attrib/emulate_write_cache") == "1\n"


@pytest.mark.tcmx_only
def test_bad_values(stack):
    so = mk_rd("r0", 16 * MiB)
    for f, value in (("attrib/block_size", "1000"),
                     ("attrib/block_size", "8192"),
                     ("attrib/emulate_tas", "2"),
                     ("attrib/emulate_dpo", "yes"),
                     ("attrib/queue_depth", "0"),
                     ("attrib/queue_depth", "100000"),
                     ("attrib/pi_prot_type", "1"),
                     ("attrib/alua_support", "0"),
                     ("wwn/vendor_id", "TOO-LONG-VENDOR"),
                     ("wwn/vendor_id", "a\tb"),
                     ("wwn/product_id", "nul\0inside"),
                     ("wwn/vpd_unit_serial", "x" * 254),
                     ("wwn/company_id", "0x1000000"),
                     ("udev_path", "x" * 256),
                     ("alias", "a\0b")):
        refused(so, f, value, errno.EINVAL)
    g = "alua/default_tg_pt_gp/"
    for f, value in ((g + "alua_access_type", "4"),
                     (g + "alua_access_status", "3"),
                     (g + "alua_support_offline", "2"),
                     (g + "nonop_delay_msecs", "10001"),
                     (g + "preferred", "-1"),
                     (g + "alua_access_state", "5")):
        refused(so, f, value, errno.EINVAL)
    # clamped, not refused: LIO's saved value on any backend
    wr(so + "/attrib/optimal_sectors", "4294967288")
    assert rd(so + "/attrib/optimal_sectors") == \
        rd(so + "/attrib/hw_max_sectors")


@pytest.mark.tcmx_only
def test_text_and_group_fields(stack):
    """The shapes of fields one mechanism serves: stripped text, bits,
    numbers shown by name, u8 and u32 numbers."""
    so = mk_rd("r0", 16 * MiB)
    w = so + "/wwn/"
    wr(w + "vendor_id", "  ACME \n")
    assert rd(w + "vendor_id") == "ACME\n"
    wr(w + "vpd_unit_serial", "abc\n")
    assert rd(w + "vpd_unit_serial") == "T10 VPD Unit Serial Number: abc\n"
    wr(so + "/udev_path", " /dev/x \n")       # one newline dropped, no more
    assert rd(so + "/udev_path") == " /dev/x \n"
    wr(so + "/attrib/emulate_model_alias", "1")
    assert rd(w + "product_id") == "r0\n"
    wr(so + "/attrib/emulate_model_alias", "0")
    assert rd(w + "product_id") == "RAMDISK-MCP\n"
    os.mkdir(so + "/alua/g1")
    g = so + "/alua/g1/"
    wr(g + "tg_pt_gp_id", "7")
    assert rd(g + "tg_pt_gp_id") == "7\n"
    assert rd(g + "alua_support_offline") == "0\n"
    wr(g + "alua_support_offline", "1")
    assert rd(g + "alua_support_offline") == "1\n"
    assert rd(g + "alua_support_standby") == "1\n"
    wr(g + "alua_support_standby", "0\n")
    assert rd(g + "alua_support_standby") == "0\n"
    assert rd(g + "alua_support_offline") == "1\n"
    wr(g + "alua_access_type", "1")
    assert rd(g + "alua_access_type") == "Implicit\n"
    wr(g + "alua_access_status", "1")
    assert rd(g + "alua_access_status") == "Altered by Explicit STPG\n"
    wr(g + "alua_access_state", "14")
    assert rd(g + "alua_access_state") == "14\n"
    assert rd(g + "alua_access_status") == "Altered by Implicit ALUA\n"
    wr(g + "preferred", "1")
    wr(g + "trans_delay_msecs", "30000")
    assert rd(g + "preferred") == "1\n"
    assert rd(g + "trans_delay_msecs") == "30000\n"
    os.rmdir(so + "/alua/g1")


def said_once(k, who, f):
    """Exactly one tcmx_core line since k, naming who and f."""
    said = [ln for ln in k.lines() if "tcmx_core: " in ln]
    assert len(said) == 1, (f, said)
    assert who in said[0] and f in said[0], (f, said)


@pytest.mark.tcmx_only
def test_device_text_files(stack):
    """udev_path and alias: nothing shown while empty, one newline
    dropped, any byte but NUL."""
    so = mk_rd("r0", 16 * MiB)
    for f in ("udev_path", "alias"):
        assert rd(so + "/" + f) == ""
        wr(so + "/" + f, "x" * 255 + "\n")
        assert rd(so + "/" + f) == "x" * 255 + "\n"
        wr(so + "/" + f, "\ta b\n\n")
        assert rd(so + "/" + f) == "\ta b\n\n"
        wr(so + "/" + f, "\n")
        assert rd(so + "/" + f) == ""


def iscsi_said_once(k, f):
    """Exactly one tcmx_iscsi line since k, naming f."""
    said = [ln for ln in k.lines() if "tcmx_iscsi: " in ln]
    assert len(said) == 1, (f, said)
    assert f in said[0], (f, said)


@pytest.mark.tcmx_only
def test_iscsi_discovery_auth(stack):
    """tcmx_iscsi's discovery_auth/: modes (secrets 0600), "NULL" clears
    a string, 0/1 for enforce_discovery_auth, authenticate_target
    read-only and 1 only with both mutual credentials, 255 bytes at
    most, one line per refusal."""
    isc = T + "/iscsi"
    if not os.path.isdir(isc):
        os.mkdir(isc)
    d = isc + "/discovery_auth/"
    for f, m in (("enforce_discovery_auth", 0o644),
                 ("authenticate_target", 0o444),
                 ("userid", 0o644), ("password", 0o600),
                 ("userid_mutual", 0o644), ("password_mutual", 0o600)):
        assert os.stat(d + f).st_mode & 0o777 == m, f
    f = "enforce_discovery_auth"
    assert rd(d + f) == "0\n"
    wr(d + f, "1\n")
    assert rd(d + f) == "1\n"
    for value in ("2", "-1", "yes"):
        k = Kmsg()
        assert err_of(wr, d + f, value) == errno.EINVAL, (f, value)
        iscsi_said_once(k, "discovery_auth/" + f)
        assert rd(d + f) == "1\n"
    wr(d + f, "0")
    assert rd(d + f) == "0\n"
    assert rd(d + "authenticate_target") == "0\n"
    wr(d + "userid_mutual", "tu")
    assert rd(d + "authenticate_target") == "0\n"
    wr(d + "password_mutual", "tp")
    assert rd(d + "authenticate_target") == "1\n"
    wr(d + "userid_mutual", "NULL")
    assert rd(d + "authenticate_target") == "0\n"
    wr(d + "password_mutual", "NULL")
    for f in ("userid", "password", "userid_mutual", "password_mutual"):
        assert rd(d + f) == "\n"
        wr(d + f, " u s\n")
        assert rd(d + f) == " u s\n"
        wr(d + f, "y" * 255)
        for value in ("z" * 256, "a\0b"):
            k = Kmsg()
            assert err_of(wr, d + f, value) == errno.EINVAL, (f, value)
            iscsi_said_once(k, "discovery_auth/" + f)
            assert rd(d + f) == "y" * 255 + "\n"
        wr(d + f, "NULL\n")
        assert rd(d + f) == "\n"


@pytest.mark.tcmx_only
def test_lun_alua_tg_pt_gp_name(stack):
    """<lun>/alua_tg_pt_gp: the name with surrounding whitespace stripped;
    an unknown name is refused with one line."""
    so = mk_rd("r0", 16 * MiB)
    os.mkdir(so + "/alua/g1")
    wr(so + "/alua/g1/tg_pt_gp_id", "7")
    tpg = mk_target()
    lun = link_lun(tpg, 0, so)
    wr(lun + "/alua_tg_pt_gp", "  g1 \n")
    assert rd(lun + "/alua_tg_pt_gp").splitlines()[0].endswith("g1")
    k = Kmsg()
    assert err_of(wr, lun + "/alua_tg_pt_gp", "g") == errno.EINVAL
    said_once(k, "lun_0: ", "alua_tg_pt_gp")
    wr(lun + "/alua_tg_pt_gp", "NULL")
    assert "default_tg_pt_gp" in rd(lun + "/alua_tg_pt_gp")
    os.rmdir(so + "/alua/g1")
