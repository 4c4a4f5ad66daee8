# SPDX-License-Identifier: GPL-2.0
"""INQUIRY of a ramdisk LUN, field by field: the standard data with
sg_inq and raw, the VPD pages with sg_vpd and raw."""
import os
import re

from tcmxlib import (MiB, STACK, disk, field, link_lun, mk_rd, mk_target, rd,
                     sg_raw, tool, wr)


def raw_vpd(dev, page):
    st, sense, data = sg_raw(dev, [0x12, 1, page, 0, 0xfc, 0], rlen=252)
    assert st == "Good" and sense is None, (page, st, sense)
    assert data[1] == page
    assert len(data) == 4 + (data[2] << 8 | data[3])
    return data


def test_sg_inq(scsi_lun):
    t = tool("sg_inq", scsi_lun["dev"])
    assert field(t, "PQual") == "0"
    assert field(t, "PDT") == "0"
    assert field(t, "RMB") == "0"
    assert int(field(t, "version"), 16) >= 5          # SPC-3 or later
    assert field(t, "Resp_data_format") == "2"
    assert field(t, "CmdQue") == "1"
    so = scsi_lun["so"]
    assert re.search(r"Vendor identification: %s\s*$" %
                     rd(so + "/wwn/vendor_id").strip(), t, re.M)
    assert re.search(r"Vendor identification: LIO-ORG\s*$", t, re.M)
    assert re.search(r"Product identification: %s\s*$" %
                     rd(so + "/wwn/product_id").strip(), t, re.M)
    assert re.search(r"Product revision level: %s\s*$" %
                     rd(so + "/wwn/revision").strip(), t, re.M)
    # standard data straight: additional length covers 36 bytes at least
    st, sense, data = sg_raw(scsi_lun["dev"], [0x12, 0, 0, 0, 96, 0], rlen=96)
    assert st == "Good" and data[4] + 5 >= 36 and data[0] == 0


def test_vpd_supported_and_serial(scsi_lun):
    t = tool("sg_vpd", "-p", "0x00", scsi_lun["dev"])
    for name in ("Supported VPD pages", "Unit serial number",
                 "Device identification", "Block limits",
                 "Block device characteristics",
                 "Logical block provisioning"):
        assert name in t, t
    pages = list(raw_vpd(scsi_lun["dev"], 0)[4:])
    assert pages == sorted(pages)
    assert {0x00, 0x80, 0x83, 0xb0, 0xb1, 0xb2} <= set(pages)
    t = tool("sg_vpd", "-p", "0x80", scsi_lun["dev"])
    assert re.search(r"Unit serial number: 5e1a1-0000-4000-8000-000000000001"
                     r"\s*$", t, re.M), t
    assert raw_vpd(scsi_lun["dev"], 0x80)[4:].rstrip(b"\0 ") == \
        b"5e1a1-0000-4000-8000-000000000001"


def test_vpd_device_identification(scsi_lun):
    t = tool("sg_vpd", "-p", "0x83", scsi_lun["dev"])
    naa = re.search(r"Addressed logical unit:\s*\n\s*designator type: NAA,"
                    r"\s+code set: Binary\s*\n\s*0x(6[0-9a-f]{31})\s*$", t,
                    re.M)
    assert naa, t
    company = int(rd(scsi_lun["so"] + "/wwn/company_id"), 16)
    assert int(naa.group(1)[1:7], 16) == company == 0x001405
    # the same designator, raw: an NAA (type 3) LU designator of 16 bytes
    data = raw_vpd(scsi_lun["dev"], 0x83)
    i, naas = 4, []
    while i + 4 <= len(data):
        dlen = data[i + 3]
        if data[i + 1] & 0x0f == 3 and data[i + 1] & 0x30 == 0:
            naas.append(data[i + 4:i + 4 + dlen].hex())
        i += 4 + dlen
    assert i == len(data)
    assert naas == [naa.group(1)]
    # distinct LUNs have distinct NAA designators
    other = tool("sg_vpd", "-p", "0x83", disk(scsi_lun["tpg"], 1))
    assert re.search(r"NAA,.*\n\s*0x(6[0-9a-f]{31})", other).group(1) != \
        naa.group(1)


def test_vpd_block_pages(scsi_lun):
    b0 = raw_vpd(scsi_lun["dev"], 0xb0)
    assert b0[0] == 0 and b0[3] in (0x10, 0x3c)
    maxlen = int.from_bytes(b0[8:12], "big")
    assert maxlen == 0 or maxlen >= 8
    b1 = raw_vpd(scsi_lun["dev"], 0xb1)
    assert b1[3] == 0x3c
    assert int.from_bytes(b1[4:6], "big") == 1       # non-rotating medium
    b2 = raw_vpd(scsi_lun["dev"], 0xb2)
    assert b2[3] >= 4
    # UNMAP / WRITE SAME with UNMAP: tcmx's rd is thin provisioned by
    # default (test_scsi_thin.py), the in-tree one claims neither
    assert b2[5] & 0xe0 == (0xe0 if STACK == "tcmx" else 0)
    t = tool("sg_vpd", "-p", "0xb1", scsi_lun["dev"])
    assert "Non-rotating medium" in t, t


def test_optimal_transfer_length_sets_io_opt(stack):
    """The Block Limits page's OPTIMAL TRANSFER LENGTH becomes the disk's
    io_opt: twice it is the readahead, and mkfs takes it as the RAID stripe
    width. A ramdisk LUN's default gives none (tcmx reports 0, the in-tree
    a length sd discards); optimal_sectors set below the maximum transfer
    length, before the LUN is linked, is what the disk gets."""
    tpg = mk_target()
    plain, tuned = mk_rd("o0", 64 * MiB), mk_rd("o1", 64 * MiB)
    wr(tuned + "/attrib/optimal_sectors", "256")
    link_lun(tpg, 0, plain)
    link_lun(tpg, 1, tuned)
    for n, blocks, ra_kb in ((0, 0, 128), (1, 256, 256)):
        dev = disk(tpg, n)
        q = "/sys/block/%s/queue/" % os.path.basename(dev)
        if STACK == "tcmx" or blocks:
            b0 = raw_vpd(dev, 0xb0)
            assert int.from_bytes(b0[12:16], "big") == blocks, b0[8:16]
        assert int(rd(q + "optimal_io_size")) == blocks * 512, n
        assert int(rd(q + "read_ahead_kb")) == ra_kb, n
