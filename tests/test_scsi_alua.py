# SPDX-License-Identifier: GPL-2.0
"""ALUA across two loopback paths to one ramdisk (two I_T nexuses, two
target ports): VPD 0x83's port and group designators, REPORT TARGET PORT
GROUPS with every group and port, the access states enforced (Standby,
Unavailable, Offline, Transitioning) with the commands each still serves,
implicit transitions through configfs, explicit ones by SET TARGET PORT
GROUPS and what it refuses, ASYMMETRIC ACCESS STATE CHANGED to the other
nexus, INQUIRY DATA HAS CHANGED when a LUN changes group, and libiscsi's
MultipathIO suite over both paths."""
import os
import struct

import pytest

import tcmxlib
from tcmxlib import rd, wr
from tcmxlib import (ALUA_CHANGED, ILLEGAL_OPCODE,
                     INQUIRY_CHANGED, INVALID_PARAM, NOT_READY_OFFLINE,
                     NOT_READY_STANDBY, NOT_READY_TRANSITIONING,
                     NOT_READY_UNAVAILABLE, PARAM_LEN, check, good)

pytestmark = pytest.mark.tcmx_only

TUR = [0, 0, 0, 0, 0, 0]
READ10 = [0x28, 0, 0, 0, 0, 8, 0, 0, 1, 0]
WRITE10 = [0x2a, 0, 0, 0, 0, 8, 0, 0, 1, 0]
RC16 = [0x9e, 0x10] + [0] * 11 + [32, 0, 0]
MODE_SENSE6 = [0x1a, 0x08, 0x3f, 0, 255, 0]
REPORT_LUNS = [0xa0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
INQUIRY = [0x12, 0, 0, 0, 96, 0]
STATE_SENSE = {2: NOT_READY_STANDBY, 3: NOT_READY_UNAVAILABLE,
               14: NOT_READY_OFFLINE, 15: NOT_READY_TRANSITIONING}


def rtpg(sg, ext=False):
    """REPORT TARGET PORT GROUPS: [(state, supported, id, status,
    [rtpi...])], and the extended header's bytes 4-5."""
    data = good(sg, [0xa3, 0x2a if ext else 0x0a, 0, 0, 0, 0, 0, 0, 4, 0,
                     0, 0], din=1024)
    n = struct.unpack(">I", data[:4])[0] + 4
    assert n == len(data), data.hex()
    at, groups = (8 if ext else 4), []
    while at < n:
        d = data[at:at + 8]
        ports = [struct.unpack(">H", data[at + 8 + 4 * i + 2:
                                           at + 8 + 4 * i + 4])[0]
                 for i in range(d[7])]
        groups.append((d[0] & 0x0f, d[1], struct.unpack(">H", d[2:4])[0],
                       d[5], ports))
        at += 8 + 4 * d[7]
    return groups, (data[4:6] if ext else None)


def stpg(*descs):
    """SET TARGET PORT GROUPS of (state, group id) descriptors."""
    data = bytes(4) + b"".join(struct.pack(">BBH", s, 0, g)
                               for s, g in descs)
    return [0xa4, 0x0a, 0, 0, 0, 0] + list(struct.pack(">I", len(data))) + \
        [0, 0], data


@pytest.fixture
def paths(stack):
    """A 16 MiB ramdisk behind two loopback targets A and B (no sd: only
    /dev/sgN); B's LUN in group "b" (id 1), A's in default_tg_pt_gp."""
    with tcmxlib.sd_off():
        n = tcmxlib.two_nexuses("alua0")
        so, tb = n["so"], n["tb"]
        g = so + "/alua/b/"
        os.mkdir(g)
        wr(g + "tg_pt_gp_id", "1")
        wr(tb + "/lun/lun_0/alua_tg_pt_gp", "b")
        d = dict(so=so, g=g, dg=so + "/alua/default_tg_pt_gp/",
                 lb=tb + "/lun/lun_0", a=n["a"], b=n["b"])
        tcmxlib.unit_attentions(d["a"])
        tcmxlib.unit_attentions(d["b"])
        yield d


def test_rtpg_lists_every_group_and_port(paths):
    a, b = paths["a"], paths["b"]
    da, db = tcmxlib.vpd83_ports(a), tcmxlib.vpd83_ports(b)
    assert da[5] == 0 and db[5] == 1, (da, db)
    assert da[4] != db[4]
    # T_SUP U_SUP S_SUP AN_SUP AO_SUP: a new group's alua_support_*
    want = [(0, 0x8f, 0, 0, [da[4]]), (0, 0x8f, 1, 0, [db[4]])]
    for sg in (a, b):
        assert rtpg(sg)[0] == want
    wr(paths["dg"] + "implicit_trans_secs", "200")
    groups, hdr = rtpg(a, ext=True)
    assert hdr == bytes([0x10, 200]) and len(groups) == 2


def test_group_change_is_inquiry_data_changed(paths):
    """Moving B's LUN to another group changes its VPD 0x83: INQUIRY DATA
    HAS CHANGED to B alone."""
    a, b = paths["a"], paths["b"]
    wr(paths["lb"] + "/alua_tg_pt_gp", "default_tg_pt_gp")
    assert tcmxlib.unit_attentions(b) == ([INQUIRY_CHANGED], None)
    assert tcmxlib.unit_attentions(a) == ([], None)
    assert tcmxlib.vpd83_ports(b)[5] == 0
    wr(paths["lb"] + "/alua_tg_pt_gp", "b")
    assert tcmxlib.unit_attentions(b) == ([INQUIRY_CHANGED], None)
    assert tcmxlib.vpd83_ports(b)[5] == 1
    # the same group again changes nothing
    wr(paths["lb"] + "/alua_tg_pt_gp", "b")
    assert tcmxlib.unit_attentions(b) == ([], None)


@pytest.mark.parametrize("state", [2, 3, 14, 15])
def test_access_state_enforced(paths, state):
    a, b, g = paths["a"], paths["b"], paths["g"]
    wr(g + "alua_support_offline", "1")
    wr(g + "alua_access_state", str(state))
    assert rd(g + "alua_access_status").strip() == "Altered by Implicit ALUA"
    # both nexuses are told; A's port still serves
    assert tcmxlib.unit_attentions(a) == ([ALUA_CHANGED], None)
    good(a, READ10, din=512)
    seen, last = tcmxlib.unit_attentions(b)
    assert seen == [ALUA_CHANGED] and last == STATE_SENSE[state]
    check(b, READ10, STATE_SENSE[state], din=512)
    check(b, WRITE10, STATE_SENSE[state], dout=bytes(512))
    # what every state still answers
    good(b, INQUIRY, din=96)
    good(b, REPORT_LUNS, din=256)
    groups, _ = rtpg(b)
    assert groups[1][0] == state
    # Standby only: mode pages and READ CAPACITY(16)
    if state == 2:
        good(b, MODE_SENSE6, din=255)
        good(b, RC16, din=32)
    else:
        check(b, MODE_SENSE6, STATE_SENSE[state], din=255)
        check(b, RC16, STATE_SENSE[state], din=32)
    wr(g + "alua_access_state", "0")
    assert tcmxlib.unit_attentions(b) == ([ALUA_CHANGED], None)
    good(b, READ10, din=512)
    good(b, WRITE10, dout=bytes(512))


def test_set_target_port_groups(paths):
    a, b, g, dg = paths["a"], paths["b"], paths["g"], paths["dg"]
    # from A: B's group to Standby; A is not told, B is
    cdb, data = stpg((2, 1))
    good(a, cdb, dout=data)
    assert rd(g + "alua_access_state").strip() == "2"
    assert rd(g + "alua_access_status").strip() == "Altered by Explicit STPG"
    assert tcmxlib.unit_attentions(a) == ([], None)
    assert tcmxlib.unit_attentions(b) == ([ALUA_CHANGED], STATE_SENSE[2])
    # refused lists change nothing: an unknown group, a state that is not
    # an explicit one, a length that is not whole descriptors
    for descs in (((0, 9),), ((0, 1), (14, 0)), ((15, 1),)):
        cdb, data = stpg(*descs)
        check(a, cdb, INVALID_PARAM, dout=data)
    cdb, data = stpg((0, 1))
    cdb[9] = 6
    check(a, cdb, PARAM_LEN, dout=data[:6])
    assert rd(g + "alua_access_state").strip() == "2"
    assert rd(dg + "alua_access_state").strip() == "0"
    # a Standby port may ask too: B brings its group back
    cdb, data = stpg((0, 1))
    good(b, cdb, dout=data)
    assert tcmxlib.unit_attentions(a) == ([ALUA_CHANGED], None)
    assert tcmxlib.unit_attentions(b) == ([], None)
    good(b, READ10, din=512)
    # implicit-only groups: not by STPG
    wr(g + "alua_access_type", "1")
    cdb, data = stpg((2, 1))
    check(a, cdb, INVALID_PARAM, dout=data)
    wr(dg + "alua_access_type", "1")
    check(a, cdb, ILLEGAL_OPCODE, dout=data)
    assert rd(g + "alua_access_state").strip() == "0"


def test_tpgs_follows_alua_access_type(paths):
    for t, tpgs in ((0, 0), (1, 1), (2, 2), (3, 3)):
        wr(paths["dg"] + "alua_access_type", str(t))
        assert good(paths["a"], INQUIRY, din=96)[5] >> 4 & 3 == tpgs


def test_libiscsi_multipath_suite(paths):
    """MultipathIO with the second path as the second device."""
    p = tcmxlib.run(["timeout", "600", "iscsi-test-cu", "--dataloss", "-t",
                     "ALL.MultipathIO", paths["a"], paths["b"]],
                    check=False, timeout=700)
    out = p.stdout + p.stderr
    tests = tcmxlib.libiscsi_parse(out)
    print(out)
    assert tests, out
    res = {t: r for t, r, _ in tests}
    assert all(r in ("passed", "skipped") for r in res.values()), res
    assert res.get("Simple") == "passed", res
