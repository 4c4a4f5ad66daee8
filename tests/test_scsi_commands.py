# SPDX-License-Identifier: GPL-2.0
"""The SCSI commands of a ramdisk LUN other than INQUIRY, field by field,
with the sg3_utils tools: READ CAPACITY, MODE SENSE, REPORT LUNS, TEST
UNIT READY, REQUEST SENSE, SYNCHRONIZE CACHE, START STOP UNIT, READ and
WRITE of every size; unknown opcodes, bad fields and LBAs out of range
with sg_raw."""
import os
import re

import pytest

from tcmxlib import (STACK, GiB, ILLEGAL_OPCODE, INVALID_FIELD, LBA_RANGE,
                     field, run, sg_raw, sgcmd, sgio, tool, tur, wr,
                     write_read_block)

SIZE = GiB          # the scsi_lun fixture's LUN 0
BLOCKS = SIZE // 512


def test_sg_readcap(scsi_lun):
    t = tool("sg_readcap", "-l", scsi_lun["dev"])
    assert field(t, "Last LBA") == str(BLOCKS - 1)
    assert field(t, "Number of logical blocks") == str(BLOCKS)
    assert field(t, "Logical block length") == "512"
    assert field(t, "prot_en") == "0,"
    # tcmx's rd is thin provisioned by default (test_scsi_thin.py)
    assert field(t, "lbpme") == ("1," if STACK == "tcmx" else "0,")
    assert "Device size: %d bytes" % SIZE in t
    t = tool("sg_readcap", scsi_lun["dev"])
    assert field(t, "Last LBA") == str(BLOCKS - 1)
    assert field(t, "Logical block length") == "512"


def modes(dev, *args):
    t = tool("sg_modes", *args, dev)
    assert field(t, "WP") == "0,"
    assert field(t, "Block descriptor length") == "8"
    desc = re.search(r"block descriptors:\s*\n.*\n\s*00\s+((?:[0-9a-f]{2}\s)+)",
                     t)
    assert desc and desc.group(1).split()[-3:] == ["00", "02", "00"], t
    return t


def page_bytes(t, title):
    """The bytes sg_modes dumps under its ">> <title>" heading."""
    lines = t.splitlines()
    i = [n for n, l in enumerate(lines) if l.startswith(">> " + title)]
    assert i, t
    hx = []
    for l in lines[i[0] + 1:]:
        m = re.fullmatch(r"\s+[0-9a-f]+\s+((?:[0-9a-f]{2}\s*)+)", l)
        if not m:
            break
        hx += m.group(1).split()
    return bytes.fromhex("".join(hx))


def test_sg_modes(scsi_lun):
    dev = scsi_lun["dev"]
    for args in (("-p", "8"), ("-6", "-p", "8")):
        t = modes(dev, *args)
        assert "Caching" in t
        c = page_bytes(t, "Caching")
        assert c[:2] == b"\x08\x12" and len(c) == 20
        assert c[2] & 0x04 == 0                     # WCE = emulate_write_cache
        assert c[2] & 0x01 == 0                     # RCD: read cache on
    for args in (("-p", "0xa"), ("-6", "-p", "0xa")):
        t = modes(dev, *args)
        c = page_bytes(t, "Control")
        assert c[:2] == b"\x0a\x0a" and len(c) == 12
        assert c[2] & 0x04 == 0                     # D_SENSE: fixed format
    t = modes(dev, "-a")
    assert "Caching" in t and "Control" in t
    a = scsi_lun["so"] + "/attrib/emulate_write_cache"
    wr(a, "1")
    try:
        assert page_bytes(modes(dev, "-p", "8"), "Caching")[2] & 0x04 == 0x04
    finally:
        wr(a, "0")
    assert page_bytes(modes(dev, "-p", "8"), "Caching")[2] & 0x04 == 0


def test_sg_luns(scsi_lun):
    t = tool("sg_luns", scsi_lun["dev"])
    assert "Lun list length = 24" in t, t
    ids = re.findall(r"^\s+([0-9a-f]{16})\s*$", t, re.M)
    assert sorted(ids) == ["0000000000000000", "0001000000000000",
                           "0007000000000000"], t


def test_sg_turs_requests_sync_start(scsi_lun):
    dev = scsi_lun["dev"]
    tur(dev)
    assert run(["sg_turs", dev]).returncode == 0
    t = tool("sg_requests", dev)
    assert re.search(r"Sense key: No Sense", t), t
    run(["sg_sync", dev])
    run(["sg_sync", "--16", dev])
    st, sense, _ = sg_raw(dev, [0x1b, 1, 0, 0, 1, 0])   # START, IMMED
    assert (st, sense) == ("Good", None)
    st, sense, _ = sg_raw(dev, [0x35] + [0] * 9)
    assert (st, sense) == ("Good", None)
    st, sense, _ = sg_raw(dev, [0x91] + [0] * 15)
    assert (st, sense) == ("Good", None)


def test_read_write_all_sizes(scsi_lun):
    """WRITE(6/10/12/16) then READ(6/10/12/16) of the same blocks."""
    dev = scsi_lun["dev"]
    pat = {lba: bytes([(lba * 7 + i) & 0xff for i in range(512)])
           for lba in (3, 4, 5, 6)}
    w = {3: [0x0a, 0, 0, 3, 1, 0],
         4: [0x2a, 0, 0, 0, 0, 4, 0, 0, 1, 0],
         5: [0xaa, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0],
         6: [0x8a, 0] + list((6).to_bytes(8, "big")) + [0, 0, 0, 1, 0, 0]}
    for lba, cdb in w.items():
        st, sense, _ = sg_raw(dev, cdb, data=pat[lba])
        assert (st, sense) == ("Good", None), cdb
    r = [lambda l: [0x08, 0, 0, l, 1, 0],
         lambda l: [0x28, 0, 0, 0, 0, l, 0, 0, 1, 0],
         lambda l: [0xa8, 0, 0, 0, 0, l, 0, 0, 0, 1, 0, 0],
         lambda l: [0x88, 0] + list(l.to_bytes(8, "big")) + [0, 0, 0, 1, 0, 0]]
    for mk in r:
        for lba in pat:
            st, sense, data = sg_raw(dev, mk(lba), rlen=512)
            assert (st, sense) == ("Good", None)
            assert data == pat[lba], (mk(lba), lba)
    # multi-block READ(16) across the four
    st, sense, data = sg_raw(dev, [0x88, 0] + list((3).to_bytes(8, "big"))
                             + [0, 0, 0, 4, 0, 0], rlen=2048)
    assert data == b"".join(pat[l] for l in (3, 4, 5, 6))
    # the last block is addressable, one past it is not
    last = BLOCKS - 1
    st, sense, data = sg_raw(dev, [0x88, 0] + list(last.to_bytes(8, "big"))
                             + [0, 0, 0, 1, 0, 0], rlen=512)
    assert (st, sense, data) == ("Good", None, bytes(512))


UNKNOWN = [[0x02, 0, 0, 0, 0, 0],
           [0xe5, 0, 0, 0, 0, 0],
           [0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
           [0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0],
           [0x22, 0, 0, 0, 0, 0, 0, 0, 0, 0]]


def test_unknown_opcodes(scsi_lun):
    got = {}
    for cdb in UNKNOWN:
        st, sense, _ = sg_raw(scsi_lun["dev"], cdb)
        got["%02x" % cdb[0]] = (st, sense)
    assert got == {"%02x" % c[0]: ("Check Condition", ILLEGAL_OPCODE)
                   for c in UNKNOWN}
    run(["sg_turs", scsi_lun["dev"]])       # and the LUN still answers


BAD_FIELDS = {
    "inquiry page code without EVPD": ([0x12, 0x00, 0x80, 0, 36, 0], 36),
    "unsupported VPD page 0x99": ([0x12, 0x01, 0x99, 0, 252, 0], 252),
    "MODE SENSE(6) page 0x3e": ([0x1a, 0, 0x3e, 0, 252, 0], 252),
    "MODE SENSE(10) page 0x3e": ([0x5a, 0, 0x3e, 0, 0, 0, 0, 0, 252, 0],
                                 252),
    "START STOP reserved power condition": ([0x1b, 1, 0, 0, 0xf1, 0], 0),
    "READ CAPACITY(10) LBA without PMI": ([0x25, 0, 0, 0, 0, 1, 0, 0, 0, 0],
                                          8),
}


def test_invalid_fields(scsi_lun):
    got = {}
    for what, (cdb, rlen) in BAD_FIELDS.items():
        st, sense, _ = sg_raw(scsi_lun["dev"], cdb, rlen=rlen)
        got[what] = (st, sense)
    assert got == {w: ("Check Condition", INVALID_FIELD) for w in BAD_FIELDS}


def test_lba_out_of_range(scsi_lun):
    dev = scsi_lun["dev"]
    for cdb, rlen, data in (
            ([0x28, 0] + list(BLOCKS.to_bytes(4, "big")) + [0, 0, 1, 0],
             512, None),
            ([0x88, 0] + list((BLOCKS - 1).to_bytes(8, "big"))
             + [0, 0, 0, 2, 0, 0], 1024, None),
            ([0x8a, 0] + list((1 << 40).to_bytes(8, "big"))
             + [0, 0, 0, 1, 0, 0], 0, bytes(512))):
        st, sense, _ = sg_raw(dev, cdb, rlen=rlen, data=data)
        assert (st, sense) == ("Check Condition", LBA_RANGE), cdb


def var_cdb(sa, tail=b""):
    """A 32-byte variable-length CDB (opcode 7Fh, additional CDB length
    18h) of service action sa."""
    cdb = bytearray(32)
    cdb[0], cdb[7] = 0x7f, 0x18
    cdb[8:10] = sa.to_bytes(2, "big")
    cdb[10:10 + len(tail)] = tail
    return bytes(cdb)


def fixed_sense_kcq(sense):
    """Fixed-format sense bytes 0, 2 (key), 12 (ASC), 13 (ASCQ)."""
    assert len(sense) >= 14, sense.hex()
    return sense[0] & 0x7f, sense[2] & 0x0f, sense[12], sense[13]


@pytest.mark.tcmx_only          # in-tree LIO runs READ(32)/WRITE(32)
def test_variable_length_cdbs_invalid_opcode(scsi_lun):
    """A 32-byte CDB reaches the target (no host error from the midlayer):
    variable-length commands it has no row for, READ(32) and WRITE(32)
    included, get 05/20/00 INVALID COMMAND OPERATION CODE."""
    dev, sg = scsi_lun["dev"], scsi_lun["sg"]
    read32 = var_cdb(0x0009, bytes(10) + (1).to_bytes(4, "big"))
    write32 = var_cdb(0x000b, bytes(10) + (1).to_bytes(4, "big"))
    for what, node in (("sd", dev), ("sg", sg)):
        fd = os.open(node, os.O_RDWR)
        try:
            for cdb, din, dout in ((read32, 512, None),
                                   (write32, 0, bytes(512)),
                                   (var_cdb(0xfff0), 0, None)):
                st, sense, _, h = sgio(fd, cdb, din=din, dout=dout)
                # no host error: the target answered
                assert (h.host_status, st) == (0, 0x02), (what, cdb.hex())
                assert fixed_sense_kcq(sense) == (0x70, 0x05, 0x20, 0x00), \
                    (what, cdb.hex(), sense.hex())
        finally:
            os.close(fd)
    # sg_raw sends the 32 bytes too
    st, sense, _ = sg_raw(dev, list(read32), rlen=512)
    assert (st, sense) == ("Check Condition", ILLEGAL_OPCODE)
    # the LUN still serves I/O
    write_read_block(sg, 9, 0xa5)
    run(["sg_turs", dev])


@pytest.mark.tcmx_only          # in-tree LIO reads the CDB by its opcode
def test_cdb_length_disagrees_with_opcode(scsi_lun):
    """A CDB shorter than its opcode's group, or a fixed-length one carried
    in more than 16 bytes: 05/0E/03 INVALID FIELD IN COMMAND INFORMATION
    UNIT, nothing moved; padded to 16 bytes it runs."""
    sg = scsi_lun["sg"]
    write_read_block(sg, 11, 0x3c)
    read10 = [0x28, 0, 0, 0, 0, 11, 0, 0, 1, 0]
    for cdb in (read10[:6], read10 + [0] * 22,
                [0x88] + [0] * 11):                 # READ(16) in 12 bytes
        st, sense, data = sgcmd(sg, cdb, din=512)
        assert (st, fixed_sense_kcq(sense), data) == \
            (0x02, (0x70, 0x05, 0x0e, 0x03), b""), bytes(cdb).hex()
    st, sense, data = sgcmd(sg, read10 + [0] * 6, din=512)
    assert (st, sense, data) == (0, b"", bytes([0x3c]) * 512)
