# SPDX-License-Identifier: GPL-2.0
"""LUN masking over iSCSI (tcmxlib.iscsi): one TPG with three LUNs, two
initiator names with ACLs mapping different ones. libiscsi's iscsi-ls
(REPORT LUNS) and iscsi-inq (the unit serial number) as each name, and
open-iscsi logged in as both at once (two ifaces of one iscsid): each
reaches only its own LUNs, under its own LUN numbers; a name without an
ACL cannot log in; a write-protected mapping refuses writes with DATA
PROTECT, WRITE PROTECTED (07/27/00) and the disk shows read-only, while
the same LU through a writable mapping takes them. In demo mode
(generate_node_acls) a name without an ACL reaches every LUN, read-only
while demo_mode_write_protect is 1.

On the tcmx stack they skip while tcmx_iscsi.ko is not built.
"""
import os
import re

import pytest

import tcmxlib
from tcmxlib import MiB, iscsi, run

WHY = iscsi.missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=str(WHY))

INI_C = "iqn.2026-12.test.tcmx:initiator-c"
INI_D = "iqn.2026-12.test.tcmx:initiator-d"


@pytest.fixture
def tgt(stack):
    """LUNs 0, 1, 2 (16 MiB each, serials lu0-..., lu1-..., lu2-...).
    INI_A: lun_0 -> LUN 0, lun_1 -> LUN 1 write-protected;
    INI_B: lun_0 -> LUN 2, lun_3 -> LUN 1 (writable)."""
    iscsi.load()
    t = iscsi.target()
    tpg = iscsi.tpg(t, 1)
    serials = []
    for n in range(3):
        _, so = iscsi.rd_lun(tpg, n, 16 * MiB, name="lu%d" % n)
        serials.append(tcmxlib.rd(so + "/wwn/vpd_unit_serial").strip()
                       .split(":")[-1].strip())
    iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0), (1, 1)], write_protect=(1,))
    iscsi.acl(tpg, iscsi.INI_B, maps=[(0, 2), (3, 1)])
    iscsi.enable(tpg)
    yield dict(iqn=os.path.basename(t), tpg=tpg, serials=serials)
    iscsi.unload()


def ls_luns(ini):
    """The LUNs iscsi-ls (REPORT LUNS) lists for initiator name ini. It
    leaves out a LUN whose TEST UNIT READY fails, as with the unit
    attention a new mapping leaves (REPORTED LUNS DATA HAS CHANGED): the
    next run sees it."""
    for _ in range(3):
        p = run(["iscsi-ls", "-i", ini, "-s", "iscsi://%s" % iscsi.ADDR1],
                check=False, timeout=60)
        if "UNIT_ATTENTION" not in p.stdout + p.stderr:
            break
    return sorted(int(n) for n in re.findall(r"Lun:(\d+)", p.stdout)), p


def serial(ini, iqn, lun):
    p = run(["iscsi-inq", "-i", ini, "-e", "1", "-c", "128",
             "iscsi://%s/%s/%d" % (iscsi.ADDR1, iqn, lun)], check=False,
            timeout=60)
    m = re.search(r"Unit Serial Number:\[(.*)\]", p.stdout)
    return m.group(1).strip() if m else p


def test_report_luns_per_initiator(tgt):
    got, p = ls_luns(iscsi.INI_A)
    assert got == [0, 1], p.stdout + p.stderr
    got, p = ls_luns(iscsi.INI_B)
    assert got == [0, 3], p.stdout + p.stderr
    iqn, ser = tgt["iqn"], tgt["serials"]
    assert serial(iscsi.INI_A, iqn, 0) == ser[0]
    assert serial(iscsi.INI_A, iqn, 1) == ser[1]
    assert serial(iscsi.INI_B, iqn, 0) == ser[2]
    assert serial(iscsi.INI_B, iqn, 3) == ser[1]
    # a LUN number the initiator has no mapping for is not there: ILLEGAL
    # REQUEST, LOGICAL UNIT NOT SUPPORTED (05/25/00)
    p = serial(iscsi.INI_B, iqn, 1)
    assert not isinstance(p, str), "INI_B reached its unmapped LUN 1"
    assert "LOGICAL_UNIT_NOT_SUPPORTED" in p.stdout + p.stderr, \
        p.stdout + p.stderr


def test_unknown_initiator_cannot_log_in(tgt):
    got, p = ls_luns(INI_C)
    assert got == [], p.stdout + p.stderr
    p = serial(INI_C, tgt["iqn"], 0)
    assert not isinstance(p, str), "an initiator without an ACL got in"


def write_one(sg, lba=0):
    """WRITE(10) of one block through SG_IO: (status, (key, asc, ascq))."""
    st, sense, _ = tcmxlib.sgcmd(sg, tcmxlib.rw_cdb(0x2a, lba, 1),
                                 dout=bytes(range(256)) * 2)
    return st, tcmxlib.kcq(sense)


def vpd_serial(sg):
    """The unit serial number (VPD page 0x80) through SG_IO."""
    st, sense, data = tcmxlib.sgcmd(sg, [0x12, 1, 0x80, 0, 255, 0], din=255)
    assert st == tcmxlib.GOOD, tcmxlib.sense_name(tcmxlib.kcq(sense))
    return data[4:4 + data[3]].split(b"\0")[0].decode().strip()


def test_two_initiators_each_see_their_own(tgt):
    iqn, ser = tgt["iqn"], tgt["serials"]
    with iscsi.Initiator(iscsi.INI_A) as ini:
        ini.iface("ia", iscsi.INI_A)
        ini.iface("ib", iscsi.INI_B)
        ini.discover(iscsi.ADDR1, ifaces=("ia", "ib"))
        sa = ini.login(iqn, iscsi.ADDR1, iface="ia")
        sb = ini.login(iqn, iscsi.ADDR1, iface="ib")
        assert sa["initiator"] == iscsi.INI_A
        assert sb["initiator"] == iscsi.INI_B
        la, lb = iscsi.luns(sa, 2), iscsi.luns(sb, 2)
        assert sorted(la) == [0, 1] and sorted(lb) == [0, 3], (la, lb)

        assert vpd_serial(la[0][1]) == ser[0]
        assert vpd_serial(la[1][1]) == ser[1]
        assert vpd_serial(lb[0][1]) == ser[2]
        assert vpd_serial(lb[3][1]) == ser[1]

        # LUN 1: write-protected through A's mapping, writable through B's
        tcmxlib.ua_clear(la[1][1])
        tcmxlib.ua_clear(lb[3][1])
        st, kcq = write_one(la[1][1])
        assert (st, kcq) == (tcmxlib.CHECK, tcmxlib.WRITE_PROTECT), \
            (st, tcmxlib.sense_name(kcq))
        assert tcmxlib.rd("/sys/block/%s/ro" % os.path.basename(
            la[1][0])).strip() == "1"
        st, kcq = write_one(lb[3][1])
        assert st == tcmxlib.GOOD, tcmxlib.sense_name(kcq)
        # A's LUN 0 and B's LUN 0 are two LUs: a write to one leaves the
        # other
        tcmxlib.fill(la[0][0], "lun-of-a", MiB)
        tcmxlib.fill(lb[0][0], "lun-of-b", MiB)
        assert tcmxlib.sha(la[0][0], 0, MiB) != tcmxlib.sha(lb[0][0], 0, MiB)
        st, kcq = write_one(la[0][1])
        assert st == tcmxlib.GOOD, tcmxlib.sense_name(kcq)


def test_demo_mode(tgt):
    """generate_node_acls: a name without an ACL logs in and reaches
    every LUN of the TPG under its own number, write-protected while
    demo_mode_write_protect is 1 (the in-tree default), writable for a
    name that first logs in once it is 0; the TPG's dynamic_sessions
    names it meanwhile. The names with an ACL keep their own mappings."""
    tpg = tgt["tpg"]
    iscsi.demo_mode(tpg, write_protect=1)
    got, p = ls_luns(INI_C)
    assert got == [0, 1, 2], p.stdout + p.stderr
    got, p = ls_luns(iscsi.INI_A)
    assert got == [0, 1], p.stdout + p.stderr
    for name, wp in ((INI_C, 1), (INI_D, 0)):
        tcmxlib.wr(tpg + "/attrib/demo_mode_write_protect", str(wp))
        with iscsi.Initiator(name) as ini:
            ini.discover(iscsi.ADDR1)
            s = ini.login(tgt["iqn"], iscsi.ADDR1)
            luns = iscsi.luns(s, 3)
            assert sorted(luns) == [0, 1, 2]
            assert vpd_serial(luns[2][1]) == tgt["serials"][2]
            assert name in tcmxlib.rd(tpg + "/dynamic_sessions")
            tcmxlib.ua_clear(luns[0][1])
            st, kcq = write_one(luns[0][1])
            if wp:
                assert (st, kcq) == (tcmxlib.CHECK, tcmxlib.WRITE_PROTECT), \
                    (st, tcmxlib.sense_name(kcq))
            else:
                assert st == tcmxlib.GOOD, tcmxlib.sense_name(kcq)
