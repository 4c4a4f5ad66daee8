# SPDX-License-Identifier: GPL-2.0
"""Persistent reservations and SPC-2 RESERVE/RELEASE across two I_T
nexuses to one logical unit: two loopback targets (two hosts, two
initiator ports) linking the same ramdisk, driven over SG_IO with sd kept
off (so that no one else takes the unit attentions).  Registration,
WRITE EXCLUSIVE - REGISTRANTS ONLY and its conflicts, PREEMPT and the
unit attentions it leaves, RELEASE, CLEAR, RESERVE(6)/RELEASE(6), the
pr/ files, sg_persist, and libiscsi's PR and Reserve6 suites."""
import os

import pytest

import tcmxlib
from tcmxlib import MiB, rd, wr

pytestmark = pytest.mark.tcmx_only

GOOD, CHECK, CONFLICT = 0x00, 0x02, 0x18
AUTOPROBE = "/sys/bus/scsi/drivers_autoprobe"
TUR = [0, 0, 0, 0, 0, 0]
READ10 = [0x28, 0, 0, 0, 0, 8, 0, 0, 1, 0]
WRITE10 = [0x2a, 0, 0, 0, 0, 8, 0, 0, 1, 0]
WE, EA, WE_RO = 1, 3, 5
REG_PREEMPTED = (0x6, 0x2a, 0x05)
RES_PREEMPTED = (0x6, 0x2a, 0x03)
RES_RELEASED = (0x6, 0x2a, 0x04)


def sgcmd(sg, cdb, din=0, dout=None):
    fd = os.open(sg, os.O_RDWR)
    try:
        st, sense, data, _ = tcmxlib.sgio(fd, cdb, din, dout)
    finally:
        os.close(fd)
    return st, sense, data


def tur_all(sg):
    """TEST UNIT READY until GOOD: the unit attentions, in order."""
    seen = []
    for _ in range(10):
        st, sense, _ = sgcmd(sg, TUR)
        if st == GOOD:
            return seen
        assert st == CHECK, st
        seen.append(tcmxlib.kcq(sense))
    raise AssertionError("unit attentions do not stop: %s" % seen)


def prin(sg, sa, alloc=1024):
    st, sense, data = sgcmd(sg, [0x5e, sa, 0, 0, 0, 0, 0, alloc >> 8,
                                 alloc & 0xff, 0], din=alloc)
    assert st == GOOD, (st, sense.hex())
    return data


def prout(sg, sa, key=0, sa_key=0, type_=0, flags=0, plen=24):
    param = key.to_bytes(8, "big") + sa_key.to_bytes(8, "big") + \
        bytes(4) + bytes([flags, 0, 0, 0])
    param = (param + bytes(max(0, plen - 24)))[:plen]
    st, sense, _ = sgcmd(sg, [0x5f, sa, type_, 0, 0, 0, 0, 0, plen, 0],
                         dout=param)
    return st, tcmxlib.kcq(sense)


def keys(*ks):
    return b"".join(k.to_bytes(8, "big") for k in ks)


def gen(n):
    return n.to_bytes(4, "big")


def reservation(g, key, type_):
    return gen(g) + (16).to_bytes(4, "big") + key.to_bytes(8, "big") + \
        bytes(5) + bytes([type_, 0, 0])


@pytest.fixture
def two(stack):
    """One 16 MiB ramdisk behind two loopback targets: its pr/ path and
    the two /dev/sgN, A and B, their power-on unit attentions taken."""
    wr(AUTOPROBE, "0")
    try:
        so = tcmxlib.mk_rd("pr0", 16 * MiB)
        ta, tb = tcmxlib.mk_target(), tcmxlib.mk_target()
        tcmxlib.link_lun(ta, 0, so)
        tcmxlib.link_lun(tb, 0, so)
        d = dict(so=so, pr=so + "/pr/", ta=ta, tb=tb,
                 a=tcmxlib.sgdev(ta, 0), b=tcmxlib.sgdev(tb, 0),
                 na=rd(ta + "/nexus").strip(), nb=rd(tb + "/nexus").strip())
        tur_all(d["a"])
        tur_all(d["b"])
        yield d
    finally:
        wr(AUTOPROBE, "1")


def test_register_reserve_preempt_release_clear(two):
    a, b, pr = two["a"], two["b"], two["pr"]
    assert prin(a, 0) == gen(0) + bytes(4)
    assert prin(a, 1) == gen(0) + bytes(4)
    assert rd(pr + "res_pr_registered_i_pts") == \
        "SPC-3 PR Registrations:\nNone\n"
    # a wrong key from an unregistered nexus
    assert prout(a, 0, key=0x99, sa_key=0xa) == (CONFLICT, None)
    assert prout(a, 0, sa_key=0xa) == (GOOD, None)
    for sg in (a, b):
        assert prin(sg, 0) == gen(1) + (8).to_bytes(4, "big") + keys(0xa)
    # READ KEYS truncated: the length field says what there is
    assert prin(b, 0, alloc=10) == gen(1) + (8).to_bytes(4, "big") + bytes(2)
    # RESERVE needs a registration and its key; does not count
    assert prout(b, 1, key=0xa, type_=WE_RO) == (CONFLICT, None)
    assert prout(a, 1, key=0xb, type_=WE_RO) == (CONFLICT, None)
    assert prout(a, 1, key=0xa, type_=WE_RO) == (GOOD, None)
    assert prout(a, 1, key=0xa, type_=WE_RO) == (GOOD, None)
    assert prout(a, 1, key=0xa, type_=EA) == (CONFLICT, None)
    for sg in (a, b):
        assert prin(sg, 1) == reservation(1, 0xa, WE_RO)
    assert rd(pr + "res_pr_type") == \
        "SPC-3 Reservation Type: Write Exclusive Access, Registrants Only\n"
    assert rd(pr + "res_holder") == \
        "SPC-3 Reservation: loopback Initiator: %s\n" % two["na"]
    assert rd(pr + "res_pr_all_tgt_pts") == \
        "SPC-3 Reservation: Single Target Port registration\n"
    assert rd(pr + "res_type") == "SPC3_PERSISTENT_RESERVATIONS\n"
    # B, unregistered: reads pass, writes conflict (no sense data)
    st, sense, data = sgcmd(b, READ10, din=512)
    assert st == GOOD and len(data) == 512
    st, sense, _ = sgcmd(b, WRITE10, dout=bytes(512))
    assert (st, sense) == (CONFLICT, b"")
    st, sense, _ = sgcmd(a, WRITE10, dout=b"\xa5" * 512)
    assert st == GOOD, sense.hex()
    # registered, B may write (registrants only)
    assert prout(b, 6, sa_key=0xb) == (GOOD, None)
    assert prin(a, 0) == gen(2) + (16).to_bytes(4, "big") + keys(0xa, 0xb)
    st, sense, _ = sgcmd(b, WRITE10, dout=b"\x5a" * 512)
    assert st == GOOD, sense.hex()
    # B preempts A: A's registration and reservation go, as WRITE EXCLUSIVE
    assert prout(b, 4, key=0xb, sa_key=0xa, type_=WE) == (GOOD, None)
    assert tur_all(a) == [REG_PREEMPTED]
    assert tur_all(b) == []
    for sg in (a, b):
        assert prin(sg, 0) == gen(3) + (8).to_bytes(4, "big") + keys(0xb)
        assert prin(sg, 1) == reservation(3, 0xb, WE)
    st, sense, _ = sgcmd(a, WRITE10, dout=bytes(512))
    assert (st, sense) == (CONFLICT, b"")
    st, _, data = sgcmd(a, READ10, din=512)
    assert st == GOOD and data == b"\x5a" * 512
    # A, unregistered, may not release or clear
    assert prout(a, 2, key=0xb, type_=WE) == (CONFLICT, None)
    assert prout(a, 3, key=0xb) == (CONFLICT, None)
    # the pr/ files
    assert rd(pr + "res_pr_generation") == "0x00000003\n"
    assert rd(pr + "res_pr_type") == \
        "SPC-3 Reservation Type: Write Exclusive Access\n"
    assert rd(pr + "res_holder") == \
        "SPC-3 Reservation: loopback Initiator: %s\n" % two["nb"]
    assert rd(pr + "res_pr_registered_i_pts") == \
        "SPC-3 PR Registrations:\nloopback Node: %s Key: " \
        "0x000000000000000b PRgen: 0x00000001\n" % two["nb"]
    text = rd(pr + "res_pr_holder_tg_port").split("\n")
    wwn_b = os.path.basename(os.path.dirname(two["tb"]))
    assert text[0] == "SPC-3 Reservation: loopback Target Node " \
        "Endpoint: %s" % wwn_b
    assert text[1].startswith("SPC-3 Reservation: Relative Port "
                              "Identifier Tag: ") and \
        text[1].endswith(" loopback Portal Group Tag: 1 loopback "
                         "Logical Unit: 0"), text
    # RELEASE with the wrong type, then the right one
    assert prout(b, 2, key=0xb, type_=EA) == (CHECK, (0x5, 0x26, 0x04))
    assert prout(b, 2, key=0xb, type_=WE) == (GOOD, None)
    assert prin(a, 1) == gen(3) + bytes(4)
    assert rd(pr + "res_holder") == "No SPC-3 Reservation holder\n"
    st, sense, _ = sgcmd(a, WRITE10, dout=bytes(512))
    assert st == GOOD, sense.hex()
    # CLEAR: everything goes, the others hear RESERVATIONS PREEMPTED
    assert prout(a, 0, sa_key=0xc) == (GOOD, None)
    assert prout(a, 1, key=0xc, type_=EA) == (GOOD, None)
    st, sense, _ = sgcmd(b, READ10, din=512)
    assert (st, sense) == (CONFLICT, b"")
    assert prout(b, 3, key=0xb) == (GOOD, None)
    assert tur_all(a) == [RES_PREEMPTED]
    assert prin(a, 0) == gen(5) + bytes(4)
    assert prin(a, 1) == gen(5) + bytes(4)
    assert rd(pr + "res_pr_registered_i_pts") == \
        "SPC-3 PR Registrations:\nNone\n"


def test_registrants_only_release_tells_the_others(two):
    a, b = two["a"], two["b"]
    assert prout(a, 0, sa_key=1) == (GOOD, None)
    assert prout(b, 0, sa_key=2) == (GOOD, None)
    assert prout(a, 1, key=1, type_=WE_RO) == (GOOD, None)
    assert prout(a, 2, key=1, type_=WE_RO) == (GOOD, None)
    assert tur_all(b) == [RES_RELEASED]
    assert tur_all(a) == []
    # unregistering the holder of a registrants-only one releases it too
    assert prout(a, 1, key=1, type_=6) == (GOOD, None)
    assert prout(a, 0, key=1, sa_key=0) == (GOOD, None)
    assert tur_all(b) == [RES_RELEASED]
    assert prin(b, 1) == gen(3) + bytes(4)
    assert prin(b, 0) == gen(3) + (8).to_bytes(4, "big") + keys(2)
    assert prout(b, 3, key=2) == (GOOD, None)


def test_capabilities_and_refused_fields(two):
    a = two["a"]
    # CRH, TMV, the six types; no SIP_C, ATP_C, PTPL_C
    assert prin(a, 2) == bytes([0, 8, 0x10, 0x80, 0xea, 0x01, 0, 0])
    st, sense, _ = sgcmd(a, [0x5e, 4, 0, 0, 0, 0, 0, 0, 8, 0], din=8)
    assert st == CHECK and tcmxlib.kcq(sense) == (0x5, 0x24, 0x00)
    assert prout(a, 0, sa_key=1, plen=23) == (CHECK, (0x5, 0x1a, 0x00))
    assert prout(a, 0, sa_key=1, plen=28) == (CHECK, (0x5, 0x1a, 0x00))
    for flags in (0x01, 0x04, 0x08):    # APTPL, ALL_TG_PT, SPEC_I_PT
        assert prout(a, 0, sa_key=1, flags=flags) == \
            (CHECK, (0x5, 0x26, 0x00))
    # service action 8: none; REGISTER AND MOVE from an unregistered nexus
    assert prout(a, 8, sa_key=1) == (CHECK, (0x5, 0x24, 0x00))
    assert prout(a, 7, sa_key=1) == (CONFLICT, None)
    assert prout(a, 0, sa_key=1) == (GOOD, None)
    assert prout(a, 1, key=1, type_=2) == (CHECK, (0x5, 0x24, 0x00))
    assert prout(a, 1, key=1, type_=0x11) == (CHECK, (0x5, 0x24, 0x00))
    assert prout(a, 4, key=1, sa_key=0, type_=WE) == \
        (CHECK, (0x5, 0x26, 0x00))
    assert prout(a, 0, key=1, sa_key=0) == (GOOD, None)
    # READ FULL STATUS: the key, R_HOLDER, type, RTPI, a TransportID
    assert prout(a, 0, sa_key=7) == (GOOD, None)
    assert prout(a, 1, key=7, type_=EA) == (GOOD, None)
    data = prin(a, 3)
    assert data[:4] == gen(3) and data[8:16] == keys(7)
    assert data[8 + 12] == 0x01 and data[8 + 13] == EA
    tid_len = int.from_bytes(data[8 + 20:8 + 24], "big")
    assert int.from_bytes(data[4:8], "big") == 24 + tid_len == 48
    # a SAS address TransportID from the naa. port name
    assert data[32] == 0x06 and data[36:44] == \
        bytes.fromhex(two["na"][4:20])
    assert prout(a, 3, key=7) == (GOOD, None)


def test_spc2_reserve_release(two):
    a, b, pr = two["a"], two["b"], two["pr"]
    st, sense, _ = sgcmd(a, [0x16, 0, 0, 0, 0, 0])
    assert st == GOOD, sense.hex()
    assert rd(pr + "res_type") == "SPC2_RESERVATIONS\n"
    assert rd(pr + "res_holder") == \
        "SPC-2 Reservation: loopback Initiator: %s\n" % two["na"]
    for cdb, din in ((TUR, 0), (READ10, 512), ([0x16, 0, 0, 0, 0, 0], 0),
                     ([0x5e, 0, 0, 0, 0, 0, 0, 0, 8, 0], 8)):
        st, sense, _ = sgcmd(b, cdb, din=din)
        assert (st, sense) == (CONFLICT, b""), cdb
    st, _, data = sgcmd(b, [0x12, 0, 0, 0, 36, 0], din=36)
    assert st == GOOD and len(data) == 36
    assert prout(b, 0, sa_key=1) == (CONFLICT, None)
    # RELEASE by a non-holder: GOOD, and nothing released
    assert sgcmd(b, [0x17, 0, 0, 0, 0, 0])[0] == GOOD
    assert sgcmd(b, TUR)[0] == CONFLICT
    st, sense, _ = sgcmd(a, WRITE10, dout=bytes(512))
    assert st == GOOD, sense.hex()
    assert sgcmd(a, [0x16, 0, 0, 0, 0, 0])[0] == GOOD
    assert sgcmd(a, [0x17, 0, 0, 0, 0, 0])[0] == GOOD
    assert sgcmd(b, TUR)[0] == GOOD
    assert rd(pr + "res_type") == "SPC3_PERSISTENT_RESERVATIONS\n"
    assert rd(pr + "res_holder") == "No SPC-3 Reservation holder\n"
    # RESERVE(10) likewise; not while a PR registration exists
    assert sgcmd(b, [0x56] + [0] * 9)[0] == GOOD
    assert sgcmd(a, TUR)[0] == CONFLICT
    assert sgcmd(b, [0x57] + [0] * 9)[0] == GOOD
    assert prout(b, 0, sa_key=5) == (GOOD, None)
    st, sense, _ = sgcmd(a, [0x16, 0, 0, 0, 0, 0])
    assert (st, sense) == (CONFLICT, b"")
    assert sgcmd(b, [0x16, 0, 0, 0, 0, 0])[0] == CONFLICT
    assert prout(b, 0, key=5, sa_key=0) == (GOOD, None)
    # third-party reservations are not supported
    st, sense, _ = sgcmd(a, [0x16, 0x10, 0, 0, 0, 0])
    assert st == CHECK and tcmxlib.kcq(sense) == (0x5, 0x24, 0x00)


def test_unlink_drops_registration_and_reservation(two):
    a, b = two["a"], two["b"]
    assert prout(b, 0, sa_key=9) == (GOOD, None)
    assert prout(b, 1, key=9, type_=EA) == (GOOD, None)
    assert sgcmd(a, TUR)[0] == GOOD          # TEST UNIT READY is allowed
    assert sgcmd(a, READ10, din=512)[0] == CONFLICT
    tcmxlib.unlink_lun(two["tb"] + "/lun/lun_0")
    assert prin(a, 0) == gen(1) + bytes(4)
    assert prin(a, 1) == gen(1) + bytes(4)
    assert sgcmd(a, READ10, din=512)[0] == GOOD


def test_emulate_pr_off(two):
    a = two["a"]
    try:
        wr(two["so"] + "/attrib/emulate_pr", "0")
    except OSError:
        pytest.skip("emulate_pr cannot change while exported")
    try:
        for cdb, din in (([0x5e, 0, 0, 0, 0, 0, 0, 0, 8, 0], 8),
                         ([0x16, 0, 0, 0, 0, 0], 0),
                         ([0x17, 0, 0, 0, 0, 0], 0)):
            st, sense, _ = sgcmd(a, cdb, din=din)
            assert st == CHECK and tcmxlib.kcq(sense) == (0x5, 0x20, 0), cdb
        assert prout(a, 0, sa_key=1) == (CHECK, (0x5, 0x20, 0x00))
        assert rd(two["pr"] + "res_type") == "SPC_RESERVATIONS_DISABLED\n"
    finally:
        wr(two["so"] + "/attrib/emulate_pr", "1")


def test_register_and_move(two):
    """A's reservation moves to B's nexus (TransportID of B's initiator
    port, B's relative target port) with sg_persist; UNREG moves it back
    and drops B's registration."""
    a, b, nb = two["a"], two["b"], two["nb"]

    def persist(dev, *args):
        return tcmxlib.run(["sg_persist", "-n"] + list(args) + [dev])

    persist(a, "--out", "--register", "--param-sark=0xa1")
    persist(a, "--out", "--reserve", "--param-rk=0xa1", "--prout-type=1")
    persist(a, "--out", "--register-move", "--param-rk=0xa1",
            "--param-sark=0xb2", "--prout-type=1",
            "--relative-target-port=%d" % tcmxlib.vpd83_ports(b)[4],
            "--transport-id=sas," + nb[4:20])
    for dev in (a, b):
        out = persist(dev, "--in", "--read-reservation").stdout
        assert "Key=0xb2" in out and "Write Exclusive" in out, out
        out = persist(dev, "--in", "--read-keys").stdout
        assert "0xa1" in out and "0xb2" in out, out
    assert sgcmd(b, WRITE10, dout=bytes(512))[0] == GOOD
    assert sgcmd(a, WRITE10, dout=bytes(512))[0] == CONFLICT
    # a TransportID that names no nexus behind that port: 05/26/00
    p = tcmxlib.run(["sg_persist", "-n", "--out", "--register-move",
                     "--param-rk=0xb2", "--param-sark=0xc3",
                     "--prout-type=1", "--relative-target-port=%d" %
                     tcmxlib.vpd83_ports(a)[4],
                     "--transport-id=sas,5001405000000000", b], check=False)
    assert p.returncode != 0, p
    persist(b, "--out", "--register-move", "--param-rk=0xb2",
            "--param-sark=0xc3", "--prout-type=1", "--unreg",
            "--relative-target-port=%d" % tcmxlib.vpd83_ports(a)[4],
            "--transport-id=sas," + two["na"][4:20])
    out = persist(b, "--in", "--read-keys").stdout
    assert "0xa1" in out and "0xb2" not in out, out
    out = persist(b, "--in", "--read-reservation").stdout
    assert "Key=0xa1" in out, out
    persist(a, "--out", "--clear", "--param-rk=0xa1")


def test_sg_persist(two):
    a, b = two["a"], two["b"]
    tcmxlib.run(["sg_persist", "--out", "--register", "--param-sark=0x1234",
                 a])
    out = tcmxlib.run(["sg_persist", "--in", "--read-keys", b]).stdout
    assert "PR generation=0x1" in out and "0x1234" in out, out
    tcmxlib.run(["sg_persist", "--out", "--reserve", "--param-rk=0x1234",
                 "--prout-type=1", a])
    out = tcmxlib.run(["sg_persist", "--in", "--read-reservation", b]).stdout
    assert "Key=0x1234" in out and "Write Exclusive" in out, out
    p = tcmxlib.run(["sg_persist", "--out", "--register",
                     "--param-sark=0x1", "--param-rk=0x5", b], check=False)
    assert p.returncode != 0 and "onflict" in p.stdout + p.stderr, p
    tcmxlib.run(["sg_persist", "--out", "--clear", "--param-rk=0x1234", a])


SUITES = ("PrinReadKeys", "PrinReportCapabilities", "PrinServiceactionRange",
          "ProutClear", "ProutPreempt", "ProutRegister", "ProutReserve",
          "Reserve6")


@pytest.mark.parametrize("suite", SUITES)
def test_libiscsi(two, suite):
    out, tests = tcmxlib.iscsi_test_cu(two["a"], suite)
    assert tests, out
    failed = [t for t, r in tests if r not in ("passed", "skipped")]
    assert not failed, out
    print(suite, tests)
