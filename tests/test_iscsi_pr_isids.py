# SPDX-License-Identifier: GPL-2.0
"""enforce_pr_isids over two iSCSI sessions of one initiator name (two
ISIDs, two I_T nexuses to one LUN): with it on (the
default), PERSISTENT RESERVE OUT REGISTER with SPEC_I_PT from an iSCSI
initiator port refuses a TransportID without ISID (INVALID FIELD IN
PARAMETER LIST) and registers nothing, while one with the ISID (its hex
in either case) registers that session alone; with it off, a TransportID
without ISID registers every session of the name.

tcmx only: on 6.1 the in-tree passed every assertion here (its refusal
with 05/26/00 included), but its SPEC_I_PT leaks configfs dependencies
and se_dev_entry references (core_scsi3_decode_spec_i_port(): the
failure path never drops those the sender's own registration took, the
entry of its list having no dest_se_deve), so the teardown after it
either hangs in core_disable_device_list_for_node() (after the refusal)
or cannot remove the ACL (without it): the stack is unusable after.

On the tcmx stack they skip while tcmx_iscsi.ko is not built.
"""
import os

import pytest

import tcmxlib
from tcmxlib import (CHECK, GOOD, INVALID_PARAM, MiB, RES_PREEMPTED, iscsi,
                     kcq, prin, prout, rd, sgcmd, wr)

WHY = iscsi.missing()
pytestmark = [pytest.mark.skipif(WHY is not None, reason=str(WHY)),
              pytest.mark.tcmx_only]

SPEC_I_PT = 0x08


def iscsi_tid(name, isid=None):
    """An iSCSI TransportID: the name alone (format 00b, every ISID of
    it) or with ",i,0x" and the ISID (format 01b)."""
    n = name.encode() + (b",i,0x" + isid.encode() if isid else b"") + b"\0"
    n += bytes(-len(n) % 4)
    return bytes([0x45 if isid else 0x05, 0]) + \
        len(n).to_bytes(2, "big") + n


def register_tids(sg, sa_key, tids):
    """REGISTER with SPEC_I_PT and these TransportIDs: (status, kcq)."""
    tl = b"".join(tids)
    param = bytes(8) + sa_key.to_bytes(8, "big") + bytes(4) + \
        bytes([SPEC_I_PT, 0, 0, 0]) + len(tl).to_bytes(4, "big") + tl
    st, sense, _ = sgcmd(sg, [0x5f, 0, 0, 0, 0, 0, 0, 0, len(param), 0],
                         dout=param)
    return st, kcq(sense)


def read_keys(sg):
    d = prin(sg, 0)
    return sorted(int.from_bytes(d[i:i + 8], "big")
                  for i in range(8, 8 + int.from_bytes(d[4:8], "big"), 8))


def full_status_tids(sg):
    """READ FULL STATUS: [(key, TransportID)]."""
    d, out, off = prin(sg, 3), [], 8
    while off < 8 + int.from_bytes(d[4:8], "big"):
        tl = int.from_bytes(d[off + 20:off + 24], "big")
        out.append((int.from_bytes(d[off:off + 8], "big"),
                    d[off + 24:off + 24 + tl]))
        off += 24 + tl
    return out


@pytest.fixture
def one_name_two_sessions(stack):
    """LUN 0 (a ramdisk) of one iSCSI TPG, mapped by INI_A's node ACL;
    two sessions of INI_A (two ifaces of one iscsid: two ISIDs), sd kept
    off, their power-on unit attentions taken: {a1, a2: /dev/sgN, so}."""
    iscsi.load()
    try:
        t = iscsi.target()
        tpg = iscsi.tpg(t, 1)
        _, so = iscsi.rd_lun(tpg, 0, 16 * MiB, name="isids")
        iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0)])
        iscsi.enable(tpg)
        iqn = os.path.basename(t)
        with tcmxlib.sd_off(), iscsi.Initiator(iscsi.INI_A) as ini:
            ini.iface("i1", iscsi.INI_A)
            ini.iface("i2", iscsi.INI_A)
            ini.discover(iscsi.ADDR1, ifaces=("i1", "i2"))
            a1 = iscsi.session_sg(ini.login(iqn, iscsi.ADDR1, iface="i1"))
            a2 = iscsi.session_sg(ini.login(iqn, iscsi.ADDR1, iface="i2"))
            tcmxlib.ua_clear(a1)
            tcmxlib.ua_clear(a2)
            yield dict(a1=a1, a2=a2, so=so)
    finally:
        iscsi.unload()


def test_spec_i_pt_transport_ids_with_and_without_isid(one_name_two_sessions):
    d = one_name_two_sessions
    a1, a2, so = d["a1"], d["a2"], d["so"]
    assert rd(so + "/attrib/enforce_pr_isids").strip() == "1"
    # on: a TransportID without ISID is refused, nothing registered
    assert register_tids(a1, 0xa, [iscsi_tid(iscsi.INI_A)]) == \
        (CHECK, INVALID_PARAM)
    assert read_keys(a1) == []

    # a2's own TransportID, from READ FULL STATUS: the name and its ISID
    assert prout(a2, 0, sa_key=0xb) == (GOOD, None)
    [(key, tid2)] = full_status_tids(a1)
    assert key == 0xb
    assert tid2[0] == 0x45, tid2
    name, isid2 = tid2[4:].rstrip(b"\0").decode().split(",i,0x")
    assert name == iscsi.INI_A and len(isid2) == 12, tid2
    assert prout(a2, 0, key=0xb) == (GOOD, None)
    assert read_keys(a1) == []

    # a1 registers a2 by it (ISID in upper case): a2 alone, each its own
    assert register_tids(a1, 0xa, [iscsi_tid(iscsi.INI_A, isid2.upper())]) \
        == (GOOD, None)
    assert read_keys(a1) == [0xa, 0xa]
    tids = [t for _, t in full_status_tids(a2)]
    assert len(tids) == 2 and tids[0] != tids[1] and \
        all(t[0] == 0x45 for t in tids), tids
    # the ISID as the session has it, in lower case
    assert sum((",i,0x" + isid2.lower()).encode() in t for t in tids) == 1, \
        tids
    # a2 is registered with the key a1 gave it: it changes it
    assert prout(a2, 0, key=0xa, sa_key=0xc) == (GOOD, None)
    assert read_keys(a1) == [0xa, 0xc]
    assert prout(a1, 3, key=0xa) == (GOOD, None)  # CLEAR
    # a2 lost its registration (the in-tree keeps the unit attention
    # per initiator name and LUN: either session may take it)
    assert tcmxlib.ua_clear(a1) + tcmxlib.ua_clear(a2) == [RES_PREEMPTED]
    assert read_keys(a1) == []

    # off: a TransportID without ISID registers every session of the name
    wr(so + "/attrib/enforce_pr_isids", "0")
    assert register_tids(a1, 0xd, [iscsi_tid(iscsi.INI_A)]) == (GOOD, None)
    assert prout(a2, 0, key=0xd, sa_key=0xe) == (GOOD, None)
    assert 0xe in read_keys(a1)
    assert prout(a2, 3, key=0xe) == (GOOD, None)  # CLEAR
    tcmxlib.ua_clear(a1)
    tcmxlib.ua_clear(a2)
    assert read_keys(a1) == []
