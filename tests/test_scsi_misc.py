# SPDX-License-Identifier: GPL-2.0
"""Further primary commands: REPORT TIMESTAMP, PREVENT ALLOW MEDIUM
REMOVAL, READ/WRITE BUFFER with the echo buffer, VPD page 86h; libiscsi's
Inquiry and PreventAllow suites."""
import os
import re
import time

import pytest

import tcmxlib
from tcmxlib import COMMAND_SEQUENCE, INVALID_FIELD, kcq


@pytest.mark.tcmx_only
def test_report_timestamp(sgfd):
    before = int(time.time() * 1000)
    st, sense, data, _ = tcmxlib.sgio(
        sgfd, [0xa3, 0x0f, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0], din=255)
    after = int(time.time() * 1000)
    assert st == 0 and len(data) == 12, (st, sense)
    assert data[:4] == bytes([0, 10, 0x03, 0]) and data[10:] == bytes(2)
    ms = int.from_bytes(data[4:10], "big")
    assert before <= ms <= after, (before, ms, after)
    # allocation length 4: the header only
    st, _, data, _ = tcmxlib.sgio(
        sgfd, [0xa3, 0x0f, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0], din=255)
    assert st == 0 and data == bytes([0, 10, 0x03, 0])


@pytest.mark.tcmx_only
def test_prevent_allow_medium_removal(sgfd):
    st, sense, _, _ = tcmxlib.sgio(sgfd, [0x1e, 0, 0, 0, 0, 0])
    assert (st, sense) == (0, b"")
    for prevent in (1, 2, 3):
        st, sense, _, _ = tcmxlib.sgio(sgfd, [0x1e, 0, 0, 0, prevent, 0])
        assert st == 2 and kcq(sense) == INVALID_FIELD
        assert sense[15:18] == bytes([0xc9, 0, 4]), sense.hex()


@pytest.mark.tcmx_only
def test_echo_buffer(sgfd):
    rd = [0x3c, 0x0a, 0, 0, 0, 0, 0, 0x10, 0x00, 0]
    # nothing written yet
    st, sense, _, _ = tcmxlib.sgio(sgfd, rd, din=4096)
    assert st == 2 and kcq(sense) == COMMAND_SEQUENCE
    # the descriptor: EBOS 0, 4096 bytes
    st, _, data, _ = tcmxlib.sgio(sgfd, [0x3c, 0x0b, 0, 0, 0, 0, 0, 0, 4, 0],
                                  din=4)
    assert st == 0 and data == bytes([0, 0, 0x10, 0x00])
    pattern = os.urandom(4096)
    st, sense, _, _ = tcmxlib.sgio(
        sgfd, [0x3b, 0x0a, 0, 0, 0, 0, 0, 0x10, 0x00, 0], dout=pattern)
    assert (st, sense) == (0, b"")
    st, _, data, _ = tcmxlib.sgio(sgfd, rd, din=4096)
    assert st == 0 and data == pattern
    # a shorter one replaces it; reads are clipped
    st, _, _, _ = tcmxlib.sgio(
        sgfd, [0x3b, 0x0a, 0, 0, 0, 0, 0, 0, 100, 0], dout=pattern[:100])
    assert st == 0
    st, _, data, h = tcmxlib.sgio(sgfd, rd, din=4096)
    assert st == 0 and data == pattern[:100] and h.resid == 4096 - 100
    st, _, data, _ = tcmxlib.sgio(
        sgfd, [0x3c, 0x0a, 0, 0, 0, 0, 0, 0, 10, 0], din=10)
    assert data == pattern[:10]
    # over the capacity; modes other than echo
    st, sense, _, _ = tcmxlib.sgio(
        sgfd, [0x3b, 0x0a, 0, 0, 0, 0, 0, 0x10, 0x01, 0],
        dout=pattern + b"x")
    assert kcq(sense) == INVALID_FIELD
    for mode in (0x00, 0x02, 0x03):
        st, sense, _, _ = tcmxlib.sgio(
            sgfd, [0x3c, mode, 0, 0, 0, 0, 0, 0, 4, 0], din=4)
        assert kcq(sense) == INVALID_FIELD
        assert sense[15:18] == bytes([0xcc, 0, 1]), sense.hex()
    st, sense, _, _ = tcmxlib.sgio(
        sgfd, [0x3b, 0x05, 0, 0, 0, 0, 0, 0, 4, 0], dout=b"abcd")
    assert kcq(sense) == INVALID_FIELD


def test_vpd_extended_inquiry(sgfd, scsi_lun):
    st, _, data, _ = tcmxlib.sgio(sgfd, [0x12, 1, 0x86, 0, 255, 0], din=255)
    assert st == 0 and len(data) == 64
    assert data[:4] == bytes([0, 0x86, 0, 0x3c])
    assert data[5] == 0x07                      # HEADSUP ORDSUP SIMPSUP
    wce = int(tcmxlib.rd(scsi_lun["so"] + "/attrib/emulate_write_cache"))
    assert data[6] == wce                       # V_SUP
    text = tcmxlib.tool("sg_vpd", "--page=ei", scsi_lun["sg"])
    assert re.search(r"HEADSUP=1 ORDSUP=1 SIMPSUP=1", text), text


@pytest.mark.tcmx_only
@pytest.mark.parametrize("suite", ["Inquiry", "PreventAllow"])
def test_libiscsi_suites(scsi_lun, suite):
    """No failure; PreventAllow skips throughout (not removable)."""
    out, tests = tcmxlib.iscsi_test_cu(scsi_lun["sg"], suite)
    results = {r for _, r in tests}
    assert tests and results <= {"passed", "skipped"}, out
    if suite == "PreventAllow":
        assert results == {"skipped"}, out
