# SPDX-License-Identifier: GPL-2.0
"""Issue 3: the SCSI commands of a ramdisk LUN, field by field, with the
sg3_utils tools; unknown opcodes and bad fields with sg_raw."""
import os
import re

import pytest

from lunlib import (GiB, ILLEGAL_OPCODE, INVALID_FIELD, LBA_RANGE, MiB, STACK,
                    Kmsg, clean, disk, hctl, link_lun, load_stack, mk_rd,
                    mk_target, rd, run, sg_raw, sgdev, tur, wr)

SIZE = GiB
BLOCKS = SIZE // 512


@pytest.fixture
def lun():
    """LUNs 0, 1 and 7 on one TPG; the tests use LUN 0.  (Function
    scope: conftest unloads every module after each test.)"""
    load_stack()
    clean()
    k = Kmsg()
    tpg = mk_target()
    so = mk_rd("s0", SIZE, serial="5e1a1-0000-4000-8000-000000000001")
    link_lun(tpg, 0, so)
    link_lun(tpg, 1, mk_rd("s1", 16 * MiB))
    link_lun(tpg, 7, mk_rd("s7", 16 * MiB))
    d = dict(tpg=tpg, so=so, dev=disk(tpg, 0), sg=sgdev(tpg, 0))
    for i in (0, 1, 7):
        tur(disk(tpg, i))
    yield d
    clean()
    bad = k.bad()
    assert not bad, "kernel said:\n" + "\n".join(bad)


def field(text, name):
    m = re.search(r"\b%s[=:]\s*(\S+)" % re.escape(name), text)
    assert m, "%s not in:\n%s" % (name, text)
    return m.group(1)


def tool(*args):
    p = run(list(args), timeout=120)
    return p.stdout + p.stderr


def raw_vpd(dev, page):
    st, sense, data = sg_raw(dev, [0x12, 1, page, 0, 0xfc, 0], rlen=252)
    assert st == "Good" and sense is None, (page, st, sense)
    assert data[1] == page
    assert len(data) == 4 + (data[2] << 8 | data[3])
    return data


def test_sg_inq(lun):
    t = tool("sg_inq", lun["dev"])
    assert field(t, "PQual") == "0"
    assert field(t, "PDT") == "0"
    assert field(t, "RMB") == "0"
    assert int(field(t, "version"), 16) >= 5          # SPC-3 or later
    assert field(t, "Resp_data_format") == "2"
    assert field(t, "CmdQue") == "1"
    so = lun["so"]
    assert re.search(r"Vendor identification: %s\s*$" %
                     rd(so + "/wwn/vendor_id").strip(), t, re.M)
    assert re.search(r"Vendor identification: LIO-ORG\s*$", t, re.M)
    assert re.search(r"Product identification: %s\s*$" %
                     rd(so + "/wwn/product_id").strip(), t, re.M)
    assert re.search(r"Product revision level: %s\s*$" %
                     rd(so + "/wwn/revision").strip(), t, re.M)
    # standard data straight: additional length covers 36 bytes at least
    st, sense, data = sg_raw(lun["dev"], [0x12, 0, 0, 0, 96, 0], rlen=96)
    assert st == "Good" and data[4] + 5 >= 36 and data[0] == 0


def test_vpd_supported_and_serial(lun):
    t = tool("sg_vpd", "-p", "0x00", lun["dev"])
    for name in ("Supported VPD pages", "Unit serial number",
                 "Device identification", "Block limits",
                 "Block device characteristics",
                 "Logical block provisioning"):
        assert name in t, t
    pages = list(raw_vpd(lun["dev"], 0)[4:])
    assert pages == sorted(pages)
    assert {0x00, 0x80, 0x83, 0xb0, 0xb1, 0xb2} <= set(pages)
    t = tool("sg_vpd", "-p", "0x80", lun["dev"])
    assert re.search(r"Unit serial number: 5e1a1-0000-4000-8000-000000000001"
                     r"\s*$", t, re.M), t
    assert raw_vpd(lun["dev"], 0x80)[4:].rstrip(b"\0 ") == \
        b"5e1a1-0000-4000-8000-000000000001"


def test_vpd_device_identification(lun):
    t = tool("sg_vpd", "-p", "0x83", lun["dev"])
    naa = re.search(r"Addressed logical unit:\s*\n\s*designator type: NAA,"
                    r"\s+code set: Binary\s*\n\s*0x(6[0-9a-f]{31})\s*$", t,
                    re.M)
    assert naa, t
    company = int(rd(lun["so"] + "/wwn/company_id"), 16)
    assert int(naa.group(1)[1:7], 16) == company == 0x001405
    # the same designator, raw: an NAA (type 3) LU designator of 16 bytes
    data = raw_vpd(lun["dev"], 0x83)
    i, naas = 4, []
    while i + 4 <= len(data):
        dlen = data[i + 3]
        if data[i + 1] & 0x0f == 3 and data[i + 1] & 0x30 == 0:
            naas.append(data[i + 4:i + 4 + dlen].hex())
        i += 4 + dlen
    assert i == len(data)
    assert naas == [naa.group(1)]
    # distinct LUNs have distinct NAA designators
    other = tool("sg_vpd", "-p", "0x83", disk(lun["tpg"], 1))
    assert re.search(r"NAA,.*\n\s*0x(6[0-9a-f]{31})", other).group(1) != \
        naa.group(1)


def test_vpd_block_pages(lun):
    b0 = raw_vpd(lun["dev"], 0xb0)
    assert b0[0] == 0 and b0[3] in (0x10, 0x3c)
    maxlen = int.from_bytes(b0[8:12], "big")
    assert maxlen == 0 or maxlen >= 8
    b1 = raw_vpd(lun["dev"], 0xb1)
    assert b1[3] == 0x3c
    assert int.from_bytes(b1[4:6], "big") == 1       # non-rotating medium
    b2 = raw_vpd(lun["dev"], 0xb2)
    assert b2[3] >= 4
    assert b2[5] & 0xe0 == 0          # no UNMAP / WRITE SAME claimed
    t = tool("sg_vpd", "-p", "0xb1", lun["dev"])
    assert "Non-rotating medium" in t, t


def test_sg_readcap(lun):
    t = tool("sg_readcap", "-l", lun["dev"])
    assert field(t, "Last LBA") == str(BLOCKS - 1)
    assert field(t, "Number of logical blocks") == str(BLOCKS)
    assert field(t, "Logical block length") == "512"
    assert field(t, "prot_en") == "0,"
    assert field(t, "lbpme") == "0,"
    assert "Device size: %d bytes" % SIZE in t
    t = tool("sg_readcap", lun["dev"])
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


def test_sg_modes(lun):
    dev = lun["dev"]
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
    a = lun["so"] + "/attrib/emulate_write_cache"
    wr(a, "1")
    try:
        assert page_bytes(modes(dev, "-p", "8"), "Caching")[2] & 0x04 == 0x04
    finally:
        wr(a, "0")
    assert page_bytes(modes(dev, "-p", "8"), "Caching")[2] & 0x04 == 0


def test_sg_luns(lun):
    t = tool("sg_luns", lun["dev"])
    assert "Lun list length = 24" in t, t
    ids = re.findall(r"^\s+([0-9a-f]{16})\s*$", t, re.M)
    assert sorted(ids) == ["0000000000000000", "0001000000000000",
                           "0007000000000000"], t


def test_sg_turs_requests_sync_start(lun):
    dev = lun["dev"]
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


def test_read_write_all_sizes(lun):
    """WRITE(6/10/12/16) then READ(6/10/12/16) of the same blocks."""
    dev = lun["dev"]
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


def test_unknown_opcodes(lun):
    got = {}
    for cdb in UNKNOWN:
        st, sense, _ = sg_raw(lun["dev"], cdb)
        got["%02x" % cdb[0]] = (st, sense)
    assert got == {"%02x" % c[0]: ("Check Condition", ILLEGAL_OPCODE)
                   for c in UNKNOWN}
    run(["sg_turs", lun["dev"]])       # and the LUN still answers


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


def test_invalid_fields(lun):
    got = {}
    for what, (cdb, rlen) in BAD_FIELDS.items():
        st, sense, _ = sg_raw(lun["dev"], cdb, rlen=rlen)
        got[what] = (st, sense)
    assert got == {w: ("Check Condition", INVALID_FIELD) for w in BAD_FIELDS}


def test_lba_out_of_range(lun):
    dev = lun["dev"]
    for cdb, rlen, data in (
            ([0x28, 0] + list(BLOCKS.to_bytes(4, "big")) + [0, 0, 1, 0],
             512, None),
            ([0x88, 0] + list((BLOCKS - 1).to_bytes(8, "big"))
             + [0, 0, 0, 2, 0, 0], 1024, None),
            ([0x8a, 0] + list((1 << 40).to_bytes(8, "big"))
             + [0, 0, 0, 1, 0, 0], 0, bytes(512))):
        st, sense, _ = sg_raw(dev, cdb, rlen=rlen, data=data)
        assert (st, sense) == ("Check Condition", LBA_RANGE), cdb


def test_queue_depths_from_params(lun):
    """The host and the LUN use tcmx_loop's can_queue and cmd_per_lun."""
    def num(path):
        return int(rd(path).strip())
    if STACK != "tcmx":
        pytest.skip("tcmx_loop parameters")
    params = "/sys/module/tcmx_loop/parameters/"
    h = hctl(lun["tpg"], 0)
    sdev = "/sys/class/scsi_device/%s/device/" % h
    host = "host" + h.split(":")[0]
    assert num("/sys/class/scsi_host/%s/can_queue" % host) == \
        num(params + "can_queue")
    assert num(sdev + "queue_depth") == num(params + "cmd_per_lun")
    # one blk-mq hardware queue per CPU
    blk = os.path.basename(lun["dev"])
    assert len(os.listdir("/sys/block/%s/mq" % blk)) == os.cpu_count()
