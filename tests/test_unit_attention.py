# SPDX-License-Identifier: GPL-2.0
"""Unit attentions per I_T nexus and LUN, over SG_IO with sd kept off the
LUNs (the scsi bus's drivers_autoprobe off: only sg attaches), so that no
one else consumes them: POWER ON, RESET, OR BUS DEVICE RESET OCCURRED for
a new LUN and after LUN, target, bus and host resets (sg_reset); REPORTED
LUNS DATA HAS CHANGED for the TPG's other LUNs when a LUN comes or goes;
their order; REQUEST SENSE reporting and clearing; INQUIRY and REPORT
LUNS not reporting; emulate_ua_intlck_ctrl 0, 1 and 2."""

import pytest

import tcmxlib
from tcmxlib import MiB, rd, run, wr
from tcmxlib import CHECK, GOOD, LUNS_CHANGED, MODE_CHANGED, POWER_ON, kcq

pytestmark = pytest.mark.tcmx_only

TUR = [0, 0, 0, 0, 0, 0]


def tur_all(sg):
    """TEST UNIT READY until GOOD: the unit attentions, in order."""
    seen = []
    for _ in range(10):
        st, sense, _ = tcmxlib.sgcmd(sg, TUR)
        if st == GOOD:
            return seen
        assert st == CHECK, st
        seen.append(kcq(sense))
    raise AssertionError("unit attentions do not stop: %s" % seen)


def ua_sense(code):
    """Fixed-format sense data of a unit attention, as sent: 18 bytes."""
    return bytes([0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, code[1],
                  code[2], 0, 0, 0, 0])


@pytest.fixture
def bare(stack):
    """A target with sd kept off: yields a function that links a new
    16 MiB ramdisk as LUN n of a TPG and returns its /dev/sgN."""
    n_so = [0]

    def add(tpg, n, so=None, intlck=None):
        if so is None:
            so = tcmxlib.mk_rd("u%d" % n_so[0], 16 * MiB)
            n_so[0] += 1
        if intlck is not None:
            wr(so + "/attrib/emulate_ua_intlck_ctrl", str(intlck))
        tcmxlib.link_lun(tpg, n, so)
        return tcmxlib.sgdev(tpg, n)

    with tcmxlib.sd_off():
        yield add


def test_new_lun_power_on_then_luns_changed(bare):
    tpg = tcmxlib.mk_target()
    sg0 = bare(tpg, 0)
    st, sense, _ = tcmxlib.sgcmd(sg0, TUR)
    assert st == CHECK and sense == ua_sense(POWER_ON), sense.hex()
    assert tur_all(sg0) == []
    # another LUN: it has its power on; LUN 0 sees the inventory change
    sg1 = bare(tpg, 1)
    assert tur_all(sg1) == [POWER_ON]
    st, sense, _ = tcmxlib.sgcmd(sg0, TUR)
    assert st == CHECK and sense == ua_sense(LUNS_CHANGED), sense.hex()
    assert tur_all(sg0) == []
    # and when a LUN goes
    tcmxlib.unlink_lun(tpg + "/lun/lun_1")
    assert tur_all(sg0) == [LUNS_CHANGED]


def test_order_and_dedup(bare):
    """Several pending: 29h first, then the others in the order they
    came; the same one twice is one."""
    wwn = tcmxlib.new_wwn()
    t1 = tcmxlib.mk_target(wwn, tag=1)
    t2 = tcmxlib.mk_target(wwn, tag=2)
    sg0 = bare(t1, 0)
    so = tcmxlib.mk_rd("shared", 16 * MiB)
    sga = bare(t1, 1, so)            # 29/00 here, 3F/0E on LUN 0
    sgb = bare(t2, 0, so)            # the same device, another nexus
    assert tur_all(sgb) == [POWER_ON]
    # MODE SELECT on sgb: WCE=1 -> 2A/01 for sga (behind its 29/00)
    page = bytes([0x08, 0x12, 0x04]) + bytes(17)
    st, sense, _ = tcmxlib.sgcmd(sgb, [0x15, 0x10, 0, 0, 24, 0],
                         dout=bytes(4) + page)
    assert st == GOOD, sense.hex()
    bare(t1, 2)                      # 3F/0E for LUNs 0 and 1 of t1
    tcmxlib.unlink_lun(t1 + "/lun/lun_2")    # again: no second one
    assert tur_all(sga) == [POWER_ON, MODE_CHANGED, LUNS_CHANGED]
    assert tur_all(sg0) == [POWER_ON, LUNS_CHANGED]
    assert tur_all(sgb) == []


def test_request_sense_and_exempt_commands(bare):
    tpg = tcmxlib.mk_target()
    sg0 = bare(tpg, 0)
    bare(tpg, 1)                     # LUN 0: 29/00, then 3F/0E
    # INQUIRY and REPORT LUNS neither report nor clear one
    st, _, data = tcmxlib.sgcmd(sg0, [0x12, 0, 0, 0, 96, 0], din=96)
    assert st == GOOD and data[0] == 0 and len(data) == 96
    st, _, data = tcmxlib.sgcmd(sg0, [0xa0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
                        din=256)
    assert st == GOOD and data[:4] == bytes([0, 0, 0, 16])
    # REQUEST SENSE returns the first as its data and clears it
    st, _, data = tcmxlib.sgcmd(sg0, [0x03, 0, 0, 0, 252, 0], din=252)
    assert st == GOOD and data == ua_sense(POWER_ON), data.hex()
    # descriptor format on request
    st, _, data = tcmxlib.sgcmd(sg0, [0x03, 1, 0, 0, 252, 0], din=252)
    assert st == GOOD and data == bytes([0x72, 0x06, 0x3f, 0x0e, 0, 0, 0,
                                         0]), data.hex()
    st, _, data = tcmxlib.sgcmd(sg0, [0x03, 0, 0, 0, 252, 0], din=252)
    assert st == GOOD and data[2] == 0 and data[12:14] == b"\0\0"
    assert tur_all(sg0) == []


@pytest.mark.parametrize("intlck", [1, 2])
def test_interlock_reports_without_clearing(bare, intlck):
    tpg = tcmxlib.mk_target()
    so = tcmxlib.mk_rd("i0", 16 * MiB)
    sg0 = bare(tpg, 0, so, intlck=intlck)
    assert rd(so + "/attrib/emulate_ua_intlck_ctrl").strip() == str(intlck)
    for cdb in (TUR, TUR, [0x1a, 0x08, 0x0a, 0, 255, 0]):
        st, sense, _ = tcmxlib.sgcmd(sg0, cdb, din=255 if cdb[0] else 0)
        assert st == CHECK and sense == ua_sense(POWER_ON), sense.hex()
    # only REQUEST SENSE clears it
    st, _, data = tcmxlib.sgcmd(sg0, [0x03, 0, 0, 0, 18, 0], din=18)
    assert data == ua_sense(POWER_ON)
    # the control page says UA_INTLCK_CTRL 10b / 11b
    st, _, data = tcmxlib.sgcmd(sg0, [0x1a, 0x08, 0x0a, 0, 255, 0], din=255)
    assert st == GOOD and data[8] == {1: 0x20, 2: 0x30}[intlck]
    st, _, _ = tcmxlib.sgcmd(sg0, TUR)
    assert st == GOOD


def test_interlock_clear_default(bare):
    tpg = tcmxlib.mk_target()
    sg0 = bare(tpg, 0)
    st, _, data = tcmxlib.sgcmd(sg0, [0x1a, 0x08, 0x0a, 0, 255, 0], din=255)
    assert st == CHECK                      # it reports the 29/00
    st, _, data = tcmxlib.sgcmd(sg0, [0x1a, 0x08, 0x0a, 0, 255, 0], din=255)
    assert st == GOOD and data[8] == 0x00
    st, _, _ = tcmxlib.sgcmd(sg0, TUR)
    assert st == GOOD


@pytest.mark.parametrize("how", ["-d", "-t", "-b", "-H"])
def test_resets(bare, how):
    """A LUN reset: that LUN (29/03); a target reset: the LUNs of its TPG;
    bus and host resets: every LUN of the host (29/00)."""
    wwn = tcmxlib.new_wwn()
    t1 = tcmxlib.mk_target(wwn, tag=1)
    t2 = tcmxlib.mk_target(wwn, tag=2)
    sg0 = bare(t1, 0)
    sg1 = bare(t1, 1)
    sg2 = bare(t2, 0)
    for sg in (sg0, sg1, sg2):
        tur_all(sg)
    run(["sg_reset", how, sg0])
    want = {"-d": (1, 0, 0), "-t": (1, 1, 0), "-b": (1, 1, 1),
            "-H": (1, 1, 1)}[how]
    # a LUN reset: BUS DEVICE RESET FUNCTION OCCURRED (SAM-5, in-tree)
    code = (0x6, 0x29, 0x03) if how == "-d" else POWER_ON
    for sg, w in zip((sg0, sg1, sg2), want):
        assert tur_all(sg) == [code] * w, (sg, how)
