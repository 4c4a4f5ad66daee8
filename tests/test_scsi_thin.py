# SPDX-License-Identifier: GPL-2.0
"""Thin provisioning on tcmx_rd (target/lbp.c): what READ CAPACITY(16) and
the VPD pages B0/B1/B2 report, the emulate_tpu/emulate_tpws attributes,
UNMAP, WRITE SAME(10/16), GET LBA STATUS, FORMAT UNIT and SANITIZE byte by
byte over SG_IO and with sg3_utils, memory given back to the machine
(blkdiscard, fstrim on ext4 mounted with -o discard, mkfs.ext4), UNMAP and
WRITE SAME racing with verified I/O. libiscsi's suites for them (Unmap,
WriteSame10/16, GetLBAStatus, Sanitize, ReadCapacity16) run in
tests/test_conformance.py, in ALL, on the same kind of LUN (64 MiB rd).

The in-tree rd_mcp has no UNMAP (or WRITE SAME with UNMAP, GET LBA STATUS,
SANITIZE): every test here is tcmx_only."""
import os
import re
import struct
import threading
import time

import pytest

from tcmxlib import (MiB, PAGE, disk, kcq, link_lun, mem_free_to_use,
                     mk_rd, mk_target, rd, run, sgdev, sgio, tool, wr)
from tcmxlib import (CHECK, GOOD, ILLEGAL_OPCODE, INVALID_FIELD,
                     INVALID_PARAM, LBA_RANGE, PARAM_LEN, good)
import tcmxlib
from tcmxlib.sense import COMMAND_ABORTED, NOT_READY_SANITIZE

TASK_ABORTED = 0x40
DEVICE_RESET = (0x6, 0x29, 0x03)

pytestmark = pytest.mark.tcmx_only

BS = 512


def figure(text):
    """A measured figure: printed, and kept in the VM's /out."""
    print(text)
    if os.path.ismount("/out"):
        with open("/out/thin-figures.txt", "a") as f:
            f.write(text + "\n")


class Lun:
    """A thin rd LUN: its device paths and an open /dev/sgN."""

    def __init__(self, tpg, n, size, name):
        self.so = mk_rd(name, size)
        link_lun(tpg, n, self.so)
        self.dev = disk(tpg, n)
        self.sg = sgdev(tpg, n)
        self.fd = os.open(self.sg, os.O_RDWR)
        self.blocks = size // BS
        self.sysblk = "/sys/block/" + os.path.basename(self.dev)

    def attr(self, name, value=None):
        if value is None:
            return rd(self.so + "/attrib/" + name).strip()
        wr(self.so + "/attrib/" + name, str(value))
        return None

    def pages(self):
        """rd's data pages in use (<dev>/info)."""
        m = re.search(r"Pages used: (\d+)", rd(self.so + "/info"))
        assert m, rd(self.so + "/info")
        return int(m.group(1))

    def cmd(self, cdb, din=0, dout=None):
        st, sense, data, _ = sgio(self.fd, bytes(cdb), din=din, dout=dout)
        return st, sense, data

    def good(self, cdb, din=0, dout=None):
        return good(self.fd, cdb, din, dout)

    def check(self, cdb, want, din=0, dout=None, field=None, info=None):
        """CHECK CONDITION with sense want (key, asc, ascq); field: the
        sense-key specific bytes 15-17 of the fixed-format sense; info:
        the INFORMATION field (VALID set), else none."""
        st, sense, data = self.cmd(cdb, din, dout)
        assert st == CHECK, (bytes(cdb).hex(), st)
        assert kcq(sense) == want, sense.hex()
        if info is None:
            assert sense[0] == 0x70, sense.hex()
        else:
            assert sense[0] == 0xf0, sense.hex()
            assert sense[3:7] == struct.pack(">I", info), sense.hex()
        if field is not None:
            assert sense[15:18] == bytes(field), sense.hex()
        else:
            assert not sense[15] & 0x80, sense.hex()
        assert data == b"", data
        return sense

    def write(self, lba, data):
        n = len(data) // BS
        self.good(b"\x8a\x00" + struct.pack(">QI", lba, n) + b"\x00\x00",
                  dout=data)

    def read(self, lba, n):
        return self.good(b"\x88\x00" + struct.pack(">QI", lba, n) +
                         b"\x00\x00", din=n * BS)

    def lba_status(self, lba, alloc=1024):
        """GET LBA STATUS: (parameter data length, [(lba, n, status)])."""
        data = self.good(b"\x9e\x12" + struct.pack(">QI", lba, alloc) +
                         b"\x00\x00", din=alloc)
        descs = [struct.unpack(">QIB", data[i:i + 13])
                 for i in range(8, len(data) - 15, 16)]
        return struct.unpack(">I", data[:4])[0], descs

    def close(self):
        os.close(self.fd)


@pytest.fixture
def thin(stack):
    """A 64 MiB thin rd LUN 0 (and a factory for more on its TPG)."""
    tpg = mk_target()
    luns = []

    def make(size, n):
        lun = Lun(tpg, n, size, "t%d" % n)
        luns.append(lun)
        return lun

    lun = make(64 * MiB, 0)
    lun.make = make
    yield lun
    for x in luns:
        x.close()


def unmap_list(descs, bd_len=None):
    body = b"".join(struct.pack(">QI4x", lba, n) for lba, n in descs)
    bd_len = len(body) if bd_len is None else bd_len
    return struct.pack(">HH4x", 6 + len(body), bd_len) + body


def unmap_cdb(length, byte1=0):
    return bytes([0x42, byte1, 0, 0, 0, 0, 0]) + struct.pack(">H", length) \
        + b"\x00"


def ws10(lba, n, byte1=0):
    return bytes([0x41, byte1]) + struct.pack(">IBHB", lba, 0, n, 0)


def ws16(lba, n, byte1=0):
    return bytes([0x93, byte1]) + struct.pack(">QIBB", lba, n, 0, 0)


def test_capacity_and_vpd_report_thin_provisioning(thin):
    rc = thin.good(b"\x9e\x10" + b"\x00" * 8 + struct.pack(">I", 32) +
                   b"\x00\x00", din=32)
    assert rc[:16] == struct.pack(">QI", thin.blocks - 1, BS) + \
        b"\x00\x03\xc0\x00"            # LBPPBE 3 (a page), LBPME, LBPRZ
    b2 = thin.good(b"\x12\x01\xb2\x00\xff\x00", din=255)
    assert b2 == bytes([0, 0xb2, 0, 4, 0, 0xe4, 0x02, 0])
    b0 = thin.good(b"\x12\x01\xb0\x00\xff\x00", din=255)
    assert len(b0) == 64 and b0[:4] == bytes([0, 0xb0, 0, 0x3c])
    assert b0[4] == 0                  # WSNZ 0: 0 blocks reaches the end
    assert b0[20:44] == struct.pack(">IIIIQ", 0x100000, 256, 1, 0, 0xffff)
    # atomic: max transfer 2048 blocks, alignment 1, granularity 1
    assert b0[44:56] == struct.pack(">III", 2048, 1, 1)
    b1 = thin.good(b"\x12\x01\xb1\x00\xff\x00", din=255)
    assert b1[7] == 0x50               # WABEREQ, WACEREQ 01b
    out = tool("sg_readcap", "-l", thin.sg)
    assert "lbpme=1, lbprz=1" in out, out
    # rd stores a page as one unit: 8 blocks of 512 per physical block
    assert "Logical blocks per physical block exponent=3" in out, out
    assert rd(thin.sysblk + "/queue/physical_block_size").strip() == "4096"
    out = tool("sg_vpd", "-p", "lbpv", thin.sg)
    for line in ("(LBPU): 1", "(LBPWS): 1", "(LBPWS10): 1", "(LBPRZ): 1",
                 "thin provisioned"):
        assert line in out, out
    # what sd made of it: UNMAP for discard, WRITE SAME(16)+UNMAP zeroing
    sdisk = os.path.realpath(thin.sysblk + "/device") + "/scsi_disk"
    sdisk += "/" + os.listdir(sdisk)[0]
    assert rd(sdisk + "/provisioning_mode").strip() == "unmap"
    assert rd(sdisk + "/zeroing_mode").strip() == "writesame_16_unmap"
    assert int(rd(thin.sysblk + "/queue/discard_max_bytes")) == \
        0x100000 * BS
    assert int(rd(thin.sysblk + "/queue/write_zeroes_max_bytes")) > 0
    assert rd(thin.sysblk + "/queue/discard_zeroes_data").strip() == "0"


def test_emulate_tpu_tpws_switch_provisioning(thin, dmesg):
    assert thin.attr("emulate_tpu") == "1" and \
        thin.attr("emulate_tpws") == "1"
    assert thin.attr("unmap_zeroes_data") == "1"
    thin.attr("emulate_tpu", 0)
    thin.attr("emulate_tpws", 0)
    rc = thin.good(b"\x9e\x10" + b"\x00" * 8 + struct.pack(">I", 32) +
                   b"\x00\x00", din=32)
    assert rc[14] == 0
    assert thin.good(b"\x12\x01\xb2\x00\xff\x00", din=255) == \
        bytes([0, 0xb2, 0, 4, 0, 0, 0, 0])
    b0 = thin.good(b"\x12\x01\xb0\x00\xff\x00", din=255)
    assert b0[20:36] == bytes(16)      # no UNMAP limits without UNMAP
    # UNMAP refused, WRITE SAME with UNMAP refused at byte 1 bit 3
    thin.check(unmap_cdb(24), ILLEGAL_OPCODE, dout=unmap_list([(0, 8)]))
    thin.check(ws10(0, 8, 0x08), INVALID_FIELD, dout=bytes(BS),
               field=(0xcb, 0, 1))
    thin.check(ws16(0, 8, 0x08), INVALID_FIELD, dout=bytes(BS),
               field=(0xcb, 0, 1))
    # a fully provisioned LUN reports everything mapped
    assert thin.lba_status(0) == (20, [(0, thin.blocks, 0)])
    # WRITE SAME without UNMAP still writes
    thin.good(ws10(3, 2), dout=b"\x77" * BS)
    assert thin.read(3, 2) == b"\x77" * 2 * BS
    with pytest.raises(OSError):
        thin.attr("emulate_tpu", 2)
    thin.attr("emulate_tpu", 1)
    thin.attr("emulate_tpws", 1)
    assert thin.good(b"\x12\x01\xb2\x00\xff\x00", din=255)[5] == 0xe4


def test_unmap_frees_blocks_and_checks_its_list(thin):
    thin.write(0, b"\xab" * 2048 * BS)
    assert thin.pages() == 2048 * BS // PAGE
    # sg_unmap: 1024 blocks at 0, 3 blocks at 2040 (part of a page)
    tool("sg_unmap", "--force", "--lba=0,2040", "--num=1024,3", thin.sg)
    data = thin.read(0, 2048)
    assert data[:1024 * BS] == bytes(1024 * BS)
    assert data[1024 * BS:2040 * BS] == b"\xab" * 1016 * BS
    assert data[2040 * BS:2043 * BS] == bytes(3 * BS)
    assert data[2043 * BS:] == b"\xab" * 5 * BS
    assert thin.pages() == 1024 * BS // PAGE
    out = tool("sg_get_lba_status", "--maxlen=56", "--brief", thin.sg)
    got = [tuple(int(x, 0) for x in ln.split())
           for ln in out.splitlines() if ln.startswith("0x")]
    assert got == [(0, 0x400, 1, 0), (0x400, 0x400, 0, 0),
                   (0x800, thin.blocks - 0x800, 1, 0)], out
    # parameter list length 0: nothing; 1..7: too short for the header
    thin.good(unmap_cdb(0))
    thin.check(unmap_cdb(7), PARAM_LEN, dout=bytes(7))
    # ANCHOR: 05/24/00 at byte 1 bit 0 (SKSV, C/D, BPV)
    thin.check(unmap_cdb(24, 0x01), INVALID_FIELD,
               dout=unmap_list([(1024, 8)]), field=(0xc8, 0, 1))
    # a descriptor beyond the capacity fails the whole list
    # (INFORMATION: the descriptor's LBA)
    lst = unmap_list([(1024, 8), (thin.blocks - 4, 5)])
    thin.check(unmap_cdb(len(lst)), LBA_RANGE, dout=lst,
               info=thin.blocks - 4)
    assert thin.read(1024, 8) == b"\xab" * 8 * BS
    # a 0-block descriptor at the end is fine; the header alone too
    lst = unmap_list([(thin.blocks, 0)])
    thin.good(unmap_cdb(len(lst)), dout=lst)
    thin.good(unmap_cdb(8), dout=unmap_list([]))
    # over MAXIMUM UNMAP LBA COUNT (all descriptors together): 05/26/00
    # pointing at the NUMBER OF LOGICAL BLOCKS that crosses it (byte 32)
    thin.attr("max_unmap_lba_count", 16)
    thin.attr("max_unmap_block_desc_count", 2)
    b0 = thin.good(b"\x12\x01\xb0\x00\xff\x00", din=255)
    assert b0[20:28] == struct.pack(">II", 16, 2)
    lst = unmap_list([(1024, 10), (1100, 10)])
    thin.check(unmap_cdb(len(lst)), INVALID_PARAM, dout=lst,
               field=(0x80, 0, 32))
    # over MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT: at BLOCK DESCRIPTOR DATA
    lst = unmap_list([(1024, 1), (1025, 1), (1026, 1)])
    thin.check(unmap_cdb(len(lst)), INVALID_PARAM, dout=lst,
               field=(0x80, 0, 2))
    assert thin.read(1024, 8) == b"\xab" * 8 * BS
    # BLOCK DESCRIPTOR DATA LENGTH cuts the list to two
    lst = unmap_list([(1024, 8), (1032, 8), (1040, 8)], bd_len=32)
    thin.good(unmap_cdb(len(lst)), dout=lst)
    assert thin.read(1024, 24) == bytes(16 * BS) + b"\xab" * 8 * BS
    assert thin.pages() == 1024 * BS // PAGE - 2


def test_write_same(thin, tmp_path):
    blk = tmp_path / "blk"
    blk.write_bytes(bytes(range(256)) * 2)
    zero = tmp_path / "zero"
    zero.write_bytes(bytes(BS))
    # replicated over the range
    tool("sg_write_same", "--in=%s" % blk, "--lba=100", "--num=50", thin.sg)
    data = thin.read(99, 52)
    assert data[:BS] == bytes(BS) and data[51 * BS:] == bytes(BS)
    assert data[BS:51 * BS] == blk.read_bytes() * 50
    # UNMAP with a non-zero block writes it
    tool("sg_write_same", "--16", "--unmap", "--in=%s" % blk, "--lba=0",
         "--num=16", thin.sg)
    assert thin.read(0, 16) == blk.read_bytes() * 16
    # UNMAP with zeroes deallocates: memory comes back
    thin.write(4096, b"\xcd" * 4096 * BS)
    before = thin.pages()
    tool("sg_write_same", "--10", "--unmap", "--in=%s" % zero, "--lba=4096",
         "--num=4096", thin.sg)
    assert thin.pages() == before - 4096 * BS // PAGE
    assert thin.read(4096, 4096) == bytes(4096 * BS)
    # deallocated up to the end: nothing beyond was ever written
    assert thin.lba_status(4096, 24)[1] == [(4096, thin.blocks - 4096, 1)]
    # NDOB (no data-out): zeroes, deallocated
    thin.write(8192, b"\xcd" * 64 * BS)
    tool("sg_write_same", "--16", "--ndob", "--lba=8192", "--num=64",
         thin.sg)
    assert thin.read(8192, 64) == bytes(64 * BS)
    assert thin.lba_status(8192, 24)[1][0][2] == 1
    # without UNMAP, zeroes are written (mapped)
    thin.good(ws16(9000, 8), dout=bytes(BS))
    assert thin.lba_status(9000, 24)[1][0][:3:2] == (9000, 0)
    # 0 blocks: up to the last LBA
    thin.good(ws16(thin.blocks - 8, 0), dout=b"\x5a" * BS)
    assert thin.read(thin.blocks - 9, 9) == bytes(BS) + b"\x5a" * 8 * BS
    # limited by max_write_same_len, 0-block form included: 05/24/00 at
    # NUMBER OF LOGICAL BLOCKS
    thin.attr("max_write_same_len", 64)
    b0 = thin.good(b"\x12\x01\xb0\x00\xff\x00", din=255)
    assert b0[36:44] == struct.pack(">Q", 64)
    thin.check(ws10(0, 65), INVALID_FIELD, dout=bytes(BS),
               field=(0xc0, 0, 7))
    thin.check(ws16(0, 0), INVALID_FIELD, dout=bytes(BS),
               field=(0xc0, 0, 10))
    thin.good(ws10(0, 64), dout=bytes(BS))
    # beyond the capacity
    thin.check(ws16(thin.blocks - 1, 2), LBA_RANGE, dout=bytes(BS))
    thin.check(ws16(thin.blocks + 1, 0), LBA_RANGE, dout=bytes(BS))
    # LBDATA, PBDATA, ANCHOR, WRPROTECT: at their bits of byte 1
    for byte1, bit in ((0x02, 1), (0x04, 2), (0x18, 4), (0x20, 5)):
        thin.check(ws10(0, 1, byte1), INVALID_FIELD, dout=bytes(BS),
                   field=(0xc8 | bit, 0, 1))
    thin.check(ws10(0, 1, 0x01), INVALID_FIELD, dout=bytes(BS),
               field=(0xc8, 0, 1))          # no NDOB in WRITE SAME(10)
    # data-out must be exactly one block
    thin.check(ws10(0, 1), INVALID_FIELD, dout=bytes(BS // 2))
    thin.check(ws10(0, 1), INVALID_FIELD, dout=bytes(2 * BS))
    thin.check(ws16(0, 1, 0x01), INVALID_FIELD, dout=bytes(BS))


def test_get_lba_status_extents(thin):
    thin.write(0, b"\x11" * 8 * BS)            # page 0
    thin.write(16, b"\x11" * 8 * BS)           # page 2
    data = thin.good(b"\x9e\x12" + struct.pack(">QI", 4, 1024) + b"\x00\x00",
                     din=1024)
    want = struct.pack(">I4x", 4 + 4 * 16)
    for lba, n, st in ((4, 4, 0), (8, 8, 1), (16, 8, 0),
                       (24, thin.blocks - 24, 1)):
        want += struct.pack(">QIB3x", lba, n, st)
    assert data == want
    # allocation length 16: one descriptor, truncated; the length whole
    data = thin.good(b"\x9e\x12" + struct.pack(">QI", 9, 16) + b"\x00\x00",
                     din=64)
    assert data == struct.pack(">I4xQ", 20, 9)
    # the last LBA; one past it
    assert thin.lba_status(thin.blocks - 1, 24) == \
        (20, [(thin.blocks - 1, 1, 1)])
    thin.check(b"\x9e\x12" + struct.pack(">QI", thin.blocks, 24) +
               b"\x00\x00", LBA_RANGE, din=24)
    out = tool("sg_get_lba_status", "--lba=4", "--maxlen=72", thin.sg)
    assert re.search(r"\[1\] LBA: 0x0+4\s+blocks:\s+4\s+mapped", out), out
    assert re.search(r"\[2\] LBA: 0x0+8\s+blocks:\s+8\s+deallocated",
                     out), out


def test_format_unit_deallocates_everything(thin):
    thin.write(0, b"\x22" * 1024 * BS)
    thin.write(thin.blocks - 8, b"\x22" * 8 * BS)
    thin.check(b"\x04\x10\x00\x00\x00\x00", INVALID_FIELD,
               field=(0xcc, 0, 1))           # FMTDATA: no parameter list
    assert thin.pages() == 1024 * BS // PAGE + 1
    thin.good(b"\x04\x00\x00\x00\x00\x00")
    assert thin.pages() == 0
    assert thin.read(0, 8) == bytes(8 * BS)
    assert thin.read(thin.blocks - 8, 8) == bytes(8 * BS)


def test_sanitize(thin, tmp_path):
    lun = thin.make(8 * MiB, 1)
    lun.write(0, b"\x33" * 64 * BS)
    tool("sg_sanitize", "--quick", "--wait", "--block", lun.sg)
    assert lun.pages() == 0 and lun.read(0, 64) == bytes(64 * BS)
    lun.write(0, b"\x33" * 64 * BS)
    tool("sg_sanitize", "--quick", "--wait", "--crypto", lun.sg)
    assert lun.pages() == 0 and lun.read(0, 64) == bytes(64 * BS)
    pat = tmp_path / "pat"
    pat.write_bytes(b"\xa5\x0f\xf0\x5a")
    tool("sg_sanitize", "--quick", "--wait", "--overwrite",
         "--pattern=%s" % pat,
         lun.sg)
    assert lun.read(0, 1) == b"\xa5\x0f\xf0\x5a" * (BS // 4)
    assert lun.read(lun.blocks - 1, 1) == b"\xa5\x0f\xf0\x5a" * (BS // 4)
    assert lun.pages() == 8 * MiB // PAGE
    # a pattern of zeroes: deallocated again; IMMED allowed
    param = b"\x01\x00\x00\x04" + bytes(4)
    lun.good(bytes([0x48, 0x81, 0, 0, 0, 0, 0, 0, 8, 0]), dout=param)
    assert lun.pages() == 0
    # EXIT FAILURE MODE: GOOD; other service actions 05/24/00 at byte 1
    lun.good(bytes([0x48, 0x1f, 0, 0, 0, 0, 0, 0, 0, 0]))
    for sa in (0x00, 0x04, 0x1e):
        lun.check(bytes([0x48, sa, 0, 0, 0, 0, 0, 0, 0, 0]), INVALID_FIELD,
                  field=(0xcc, 0, 1))
    # erase with a parameter list; overwrite lists of 4 and block + 5
    lun.check(bytes([0x48, 0x02, 0, 0, 0, 0, 0, 0, 8, 0]), INVALID_FIELD,
              dout=bytes(8), field=(0xcb, 0, 8))
    lun.check(bytes([0x48, 0x01, 0, 0, 0, 0, 0, 0, 4, 0]), INVALID_FIELD,
              dout=b"\x01\x00\x00\x00", field=(0xc0, 0, 7))
    lun.check(bytes([0x48, 0x01, 0, 0, 0, 0, 0, 0x02, 0x05, 0]),
              INVALID_FIELD, dout=bytes(BS + 5), field=(0xc0, 0, 7))
    # OWCOUNT 0; pattern length 0 or over the block: in the list
    lun.check(bytes([0x48, 0x01, 0, 0, 0, 0, 0, 0, 8, 0]), INVALID_PARAM,
              dout=b"\x00\x00\x00\x04\x01\x02\x03\x04", field=(0x8c, 0, 0))
    lun.check(bytes([0x48, 0x01, 0, 0, 0, 0, 0, 0, 8, 0]), INVALID_PARAM,
              dout=b"\x01\x00\x00\x00\x01\x02\x03\x04", field=(0x80, 0, 2))


def test_blkdiscard_gives_memory_back(thin):
    lun = thin.make(256 * MiB, 1)
    run("sync; echo 3 > /proc/sys/vm/drop_caches")
    base_pages, base_mem = lun.pages(), mem_free_to_use()
    assert base_pages == 0
    run("dd if=/dev/zero of=%s bs=1M count=256 oflag=direct status=none"
        % lun.dev)
    full, full_mem = lun.pages(), mem_free_to_use()
    assert full == 256 * MiB // PAGE
    assert base_mem - full_mem > 200 * MiB
    run("blkdiscard %s" % lun.dev)
    assert lun.pages() == 0
    run("sync; echo 3 > /proc/sys/vm/drop_caches")
    back = mem_free_to_use()
    figure("blkdiscard 256 MiB: MemAvailable %d MiB before the writes, "
           "%d MiB full (%d pages), %d MiB after blkdiscard (%d pages)"
           % (base_mem // MiB, full_mem // MiB, full, back // MiB,
              lun.pages()))
    assert abs(back - base_mem) < 24 * MiB
    assert lun.read(0, 8) == bytes(8 * BS)


def test_mkfs_and_fstrim_on_ext4_give_memory_back(thin, tmp_path):
    lun = thin.make(256 * MiB, 1)
    assert int(rd(lun.sysblk + "/queue/discard_max_bytes")) > 0
    assert int(rd(lun.sysblk + "/queue/write_zeroes_max_bytes")) > 0
    run("dd if=/dev/urandom of=%s bs=1M count=64 oflag=direct status=none"
        % lun.dev)
    assert lun.pages() == 64 * MiB // PAGE
    # mkfs.ext4 discards the device first (and zeroes with WRITE SAME)
    run("mkfs.ext4 -q -F %s" % lun.dev)
    after_mkfs = lun.pages()
    figure("mkfs.ext4 on 256 MiB after 64 MiB written: %d rd pages left"
           % after_mkfs)
    assert after_mkfs < 16 * MiB // PAGE
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    run("mount -o discard %s %s" % (lun.dev, mnt))
    try:
        base_mem = mem_free_to_use()
        run("dd if=/dev/urandom of=%s/f bs=1M count=96 conv=fsync "
            "status=none" % mnt)
        assert lun.pages() > after_mkfs + 90 * MiB // PAGE
        run("rm %s/f; sync" % mnt)
        run("fstrim -v %s" % mnt)
        run("sync; echo 3 > /proc/sys/vm/drop_caches")
        left = lun.pages()
        figure("ext4 -o discard: 96 MiB file written, removed, fstrim: "
               "%d rd pages left; MemAvailable %d MiB before, %d MiB after"
               % (left, base_mem // MiB, mem_free_to_use() // MiB))
        assert left < after_mkfs + 4 * MiB // PAGE
        assert mem_free_to_use() > base_mem - 16 * MiB
    finally:
        run("umount %s" % mnt)


def test_unmap_and_write_same_race_with_verified_io(thin):
    lun = thin.make(128 * MiB, 1)
    stop = threading.Event()
    errors = []
    fd = os.open(lun.sg, os.O_RDWR)

    def hammer():
        i = 0
        # blocks 65536..196607 (32..96 MiB): fio's second job and beyond
        try:
            while not stop.is_set():
                lba = 65536 + (i * 7919) % 120000
                n = 1 + (i * 31) % 4096
                if i % 3 == 0:
                    lst = unmap_list([(lba, n), (lba + 8192, 8)])
                    cdb = unmap_cdb(len(lst))
                    st, sense, _, _ = sgio(fd, cdb, dout=lst)
                elif i % 3 == 1:
                    st, sense, _, _ = sgio(fd, ws16(lba, n, 0x08),
                                           dout=bytes(BS))
                else:
                    st, sense, _, _ = sgio(fd, ws10(lba, min(n, 256)),
                                           dout=b"\x6b" * BS)
                if st != GOOD:
                    errors.append((i, st, sense.hex()))
                sgio(fd, b"\x9e\x12" + struct.pack(">QI", lba, 256) +
                     b"\x00\x00", din=256)
                i += 1
        except Exception as e:            # pragma: no cover - reported
            errors.append(repr(e))
        errors.append(("done", i))

    t = threading.Thread(target=hammer)
    t.start()
    try:
        p = run("fio --output-format=terse --name=verified "
                "--filename=%s --direct=1 --ioengine=libaio --iodepth=16 "
                "--bs=4k --rw=randwrite --offset=0 --size=32M "
                "--verify=crc32c --verify_backlog=256 --verify_fatal=1 "
                "--name=raced --filename=%s --direct=1 --ioengine=libaio "
                "--iodepth=16 --bs=4k --rw=randrw --offset=32M --size=32M "
                "--time_based --runtime=20" % (lun.dev, lun.dev),
                check=False, timeout=600)
    finally:
        stop.set()
        t.join()
        os.close(fd)
    assert p.returncode == 0, p.stdout + p.stderr
    assert errors[-1][0] == "done" and errors[-1][1] > 10, errors
    assert len(errors) == 1, errors[:10]
    # the verified region was never touched by the hammer
    assert lun.lba_status(0, 24)[1][0][2] == 0


def sanitize_ms(lun, value=None):
    path = lun.so + "/inject/sanitize_ms"
    if value is None:
        return int(rd(path))
    wr(path, str(value))
    return None


def until_ready(lun, limit):
    """TEST UNIT READY until GOOD (SANITIZE IN PROGRESS before); the
    seconds it took."""
    start = time.monotonic()
    while True:
        st, sense, _ = lun.cmd(b"\x00" * 6)
        if st == GOOD:
            return time.monotonic() - start
        assert st == CHECK and kcq(sense) == NOT_READY_SANITIZE, sense.hex()
        assert time.monotonic() - start < limit, "still sanitizing"
        time.sleep(0.2)


def test_sanitize_in_progress(thin):
    """inject/sanitize_ms: a SANITIZE lasts that long. Meanwhile every
    command but INQUIRY, REPORT LUNS and REQUEST SENSE gets NOT READY,
    SANITIZE IN PROGRESS (SBC-4 4.11.2), REQUEST SENSE reports it, and a
    second SANITIZE is refused; then the LUN is ready, its blocks zero.
    Without IMMED the command itself lasts as long."""
    lun = thin.make(8 * MiB, 2)
    assert sanitize_ms(lun) == 0
    for bad in ("abc", "-1", "3600001", "", "1.5"):
        with pytest.raises(OSError):
            sanitize_ms(lun, bad)
    assert sanitize_ms(lun) == 0
    lun.write(0, b"\x33" * 64 * BS)
    sanitize_ms(lun, 3000)
    start = time.monotonic()
    lun.good(bytes([0x48, 0x82, 0, 0, 0, 0, 0, 0, 0, 0]))  # BLOCK ERASE, IMMED
    assert time.monotonic() - start < 2.5
    lun.check(b"\x00" * 6, NOT_READY_SANITIZE)                   # TUR
    lun.check(b"\x28\x00" + struct.pack(">IxH", 0, 1) + b"\x00",
              NOT_READY_SANITIZE, din=BS)                        # READ(10)
    lun.check(b"\x2a\x00" + struct.pack(">IxH", 0, 1) + b"\x00",
              NOT_READY_SANITIZE, dout=bytes(BS))                # WRITE(10)
    lun.check(bytes([0x48, 0x82, 0, 0, 0, 0, 0, 0, 0, 0]),
              NOT_READY_SANITIZE)                                # again
    lun.good(b"\x12\x00\x00\x00\x60\x00", din=96)               # INQUIRY
    lun.good(b"\xa0" + bytes(5) + struct.pack(">I", 64) + b"\x00\x00",
             din=64)                                             # REPORT LUNS
    sense = lun.good(b"\x03\x00\x00\x00\x12\x00", din=18)       # REQUEST SENSE
    assert kcq(sense) == NOT_READY_SANITIZE, sense.hex()
    took = until_ready(lun, 60)
    assert 0.3 < took, took
    assert lun.read(0, 64) == bytes(64 * BS) and lun.pages() == 0
    sense = lun.good(b"\x03\x00\x00\x00\x12\x00", din=18)
    assert kcq(sense) == (0, 0, 0), sense.hex()
    # without IMMED: GOOD once the operation has ended
    start = time.monotonic()
    lun.good(bytes([0x48, 0x03, 0, 0, 0, 0, 0, 0, 0, 0]))  # CRYPTO ERASE
    assert time.monotonic() - start >= 2.9
    lun.good(b"\x00" * 6)
    sanitize_ms(lun, 0)
    lun.good(bytes([0x48, 0x02, 0, 0, 0, 0, 0, 0, 0, 0]))
    lun.good(b"\x00" * 6)


def held_sanitize(sg, tur):
    """A SANITIZE BLOCK ERASE without IMMED from sg, in a thread, once
    tur() (a TEST UNIT READY elsewhere: status, sense) says SANITIZE IN
    PROGRESS: (thread, done); done["result"] = (status, (key, asc, ascq),
    time) once it is back."""
    done = {}

    def sanitize():
        fd = os.open(sg, os.O_RDWR)
        try:
            st, sense, _, _ = sgio(fd, bytes([0x48, 0x02] + [0] * 8),
                                   timeout_ms=120000)
            done["result"] = (st, kcq(sense), time.monotonic())
        finally:
            os.close(fd)

    th = threading.Thread(target=sanitize)
    th.start()
    deadline = time.monotonic() + 20
    while True:
        st, sense = tur()
        if st == CHECK and kcq(sense) == NOT_READY_SANITIZE:
            break
        assert time.monotonic() < deadline, (st, sense.hex())
        time.sleep(0.1)
    assert "result" not in done
    return th, done


def test_sanitize_survives_a_reset_that_aborts_it(thin):
    """A LUN RESET (sg_reset -d) while a SANITIZE without IMMED waits for
    its operation's end: the command comes back at once, aborted, and the
    operation goes on: TEST UNIT READY says SANITIZE IN PROGRESS after the
    reset's unit attention, until its time is up."""
    lun = thin.make(8 * MiB, 2)
    sanitize_ms(lun, 30000)
    th, done = held_sanitize(lun.sg, lambda: lun.cmd(b"\x00" * 6)[:2])
    reset = time.monotonic()
    run(["sg_reset", "-d", lun.sg])
    th.join(20)
    assert not th.is_alive(), "the SANITIZE was not aborted by the reset"
    st, k, when = done["result"]
    assert when - reset < 15, when - reset
    assert st != GOOD, (st, k)
    # the reset's 29/xx first, then the operation, still going
    seen = []
    for _ in range(3):
        st, sense, _ = lun.cmd(b"\x00" * 6)
        seen.append(kcq(sense))
        if kcq(sense) == NOT_READY_SANITIZE:
            break
    assert seen[-1] == NOT_READY_SANITIZE, seen
    sanitize_ms(lun, 0)     # the one in progress keeps its end
    lun.check(b"\x00" * 6, NOT_READY_SANITIZE)


@pytest.mark.parametrize("tas", (1, 0))
def test_lun_reset_aborts_the_other_nexus_sanitize(stack, tas):
    """SAM-5 5.6: a LOGICAL UNIT RESET aborts the tasks of every I_T
    nexus of the unit. Nexus B's SANITIZE waits for its 30 s operation;
    nexus A resets the LUN (sg_reset -d): B's command comes back at once,
    with TASK ABORTED while the control page's TAS (emulate_tas) is 1,
    else ABORTED COMMAND; the operation goes on, and both nexuses get
    the reset's unit attention first."""
    with tcmxlib.sd_off():
        so = mk_rd("lr%d" % tas, 8 * MiB)
        wr(so + "/attrib/emulate_tas", str(tas))    # fixed once linked
        wr(so + "/inject/sanitize_ms", "30000")
        ta, tb = mk_target(), mk_target()
        link_lun(ta, 0, so)
        link_lun(tb, 0, so)
        two = {"a": sgdev(ta, 0), "b": sgdev(tb, 0)}
        tcmxlib.ua_clear(two["a"])
        tcmxlib.ua_clear(two["b"])
        fa = os.open(two["a"], os.O_RDWR)
        th, done = held_sanitize(two["b"],
                                 lambda: sgio(fa, b"\x00" * 6)[:2])
        try:
            reset = time.monotonic()
            run(["sg_reset", "-d", two["a"]])
            th.join(20)
            assert not th.is_alive(), "B's SANITIZE outlived A's LUN RESET"
            st, k, when = done["result"]
            assert when - reset < 15, when - reset
            if tas:
                assert st == TASK_ABORTED, (st, k)
            else:
                assert (st, k) == (CHECK, COMMAND_ABORTED), (st, k)
            fb = os.open(two["b"], os.O_RDWR)
            for fd in (fa, fb):
                st, sense, _, _ = sgio(fd, b"\x00" * 6)
                assert kcq(sense) == DEVICE_RESET, sense.hex()
                st, sense, _, _ = sgio(fd, b"\x00" * 6)
                assert kcq(sense) == NOT_READY_SANITIZE, sense.hex()
            os.close(fb)
        finally:
            th.join(60)
            os.close(fa)
