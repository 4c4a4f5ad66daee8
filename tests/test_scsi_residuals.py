# SPDX-License-Identifier: GPL-2.0
"""Residuals over SG_IO: the residual the initiator gets is exactly the part
of its buffer that was not moved, whether the command succeeds or fails.

  underflow  buffer longer than the CDB's transfer length: GOOD, the extra
             bytes are the residual, nothing beyond the transfer is written
  overflow   buffer shorter: a READ fills the buffer (residual 0); a write
             is refused with 05/0E/03 before anything moves
  failure    a command refused before any transfer reports its whole buffer
             as the residual; a write that fails part way reports what it
             wrote

The loopback has no way to tell "more was asked" (SG_IO's resid is only
what was not moved), so an overflowing write is refused here; over iSCSI,
whose fabric reports the overflow residual, it writes its whole blocks
(test_iscsi_libiscsi.py, iSCSIResiduals).
"""
import ctypes
import os

import pytest

import tcmxlib
from tcmxlib import (MiB, SG_DXFER_FROM_DEV, SG_DXFER_NONE, SG_DXFER_TO_DEV,
                     SPACE_ALLOC_FAILED, kcq, sg_io)
from tcmxlib import INVALID_FIELD, INVALID_IU_FIELD, LBA_RANGE, rw_cdb

BS = 512
READ10, READ16, WRITE10, WRITE16 = 0x28, 0x88, 0x2a, 0x8a


def io(fd, c, buflen, data=None):
    """One SG_IO with a buffer of exactly buflen bytes (data-out: data,
    padded with 0xa5); returns (status, (key, asc, ascq) or None, resid,
    the buffer's first buflen - resid bytes after the command). (sgfd copies
    its whole bounce buffer back, so bytes past those are stale, not the
    caller's.)"""
    write = c[0] in (WRITE10, WRITE16)
    fill = b"\xa5" if write else b"\x5a"
    raw = (data or b"") + fill * (buflen - len(data or b""))
    buf = ctypes.create_string_buffer(raw, max(buflen, 1))
    if not buflen:
        d = SG_DXFER_NONE
    else:
        d = SG_DXFER_TO_DEV if write else SG_DXFER_FROM_DEV
    st, sense, h = sg_io(fd, c, d, ctypes.addressof(buf) if buflen else None,
                         buflen)
    assert h.host_status == 0, h.host_status
    return st, kcq(sense), h.resid, buf.raw[:buflen - h.resid]


def pattern(lba, blocks, tag):
    """Distinct bytes per block: tag, then the LBA, repeated."""
    return b"".join((bytes([tag]) + (lba + i).to_bytes(7, "big")) * (BS // 8)
                    for i in range(blocks))


def put(fd, lba, blocks, tag):
    data = pattern(lba, blocks, tag)
    assert io(fd, rw_cdb(WRITE16, lba, blocks), len(data), data)[:3] == \
        (0, None, 0)
    return data


def get(fd, lba, blocks):
    st, sense, resid, data = io(fd, rw_cdb(READ16, lba, blocks), blocks * BS)
    assert (st, sense, resid) == (0, None, 0)
    return data


@pytest.mark.parametrize("op", [READ10, READ16], ids=["read10", "read16"])
def test_read_exact_and_underflow(sgfd, op):
    want = put(sgfd, 100, 3, 0x31)
    assert io(sgfd, rw_cdb(op, 100, 3), 3 * BS) == (0, None, 0, want)
    # 2 blocks into a 3-block buffer: GOOD, one block of residual
    assert io(sgfd, rw_cdb(op, 100, 2), 3 * BS) == (0, None, BS, want[:2 * BS])
    st, sense, resid, data = io(sgfd, rw_cdb(op, 100, 1), 10000)
    assert (st, sense, resid) == (0, None, 10000 - BS)
    assert data[:BS] == want[:BS]


@pytest.mark.tcmx_only
@pytest.mark.parametrize("op", [READ10, READ16], ids=["read10", "read16"])
def test_read_overflow_moves_what_fits(sgfd, op):
    """The in-tree tcm_loop refuses any overflow with 05/24/00."""
    want = put(sgfd, 200, 2, 0x32)
    # 2 blocks into a 1-block buffer, then into 200 bytes: GOOD, the
    # buffer full, residual 0 (nothing of the buffer left unmoved)
    assert io(sgfd, rw_cdb(op, 200, 2), BS) == (0, None, 0, want[:BS])
    assert io(sgfd, rw_cdb(op, 200, 2), 200) == (0, None, 0, want[:200])
    assert io(sgfd, rw_cdb(op, 200, 1), 700) == (0, None, 700 - BS, want[:BS])
    # no buffer: GOOD, nothing moved
    assert io(sgfd, rw_cdb(op, 200, 1), 0)[:3] == (0, None, 0)


@pytest.mark.tcmx_only
@pytest.mark.parametrize("op", [WRITE10, WRITE16],
                         ids=["write10", "write16"])
def test_write_underflow_writes_the_cdb_length(sgfd, op):
    """The in-tree LIO refuses a WRITE whose buffer differs."""
    old = put(sgfd, 300, 3, 0x33)
    new = pattern(300, 3, 0x43)
    st, sense, resid, _ = io(sgfd, rw_cdb(op, 300, 2), 3 * BS, new)
    assert (st, sense, resid) == (0, None, BS)
    assert get(sgfd, 300, 3) == new[:2 * BS] + old[2 * BS:]
    st, sense, resid, _ = io(sgfd, rw_cdb(op, 300, 1), 10000, new)
    assert (st, sense, resid) == (0, None, 10000 - BS)
    assert get(sgfd, 300, 3) == new[:2 * BS] + old[2 * BS:]


@pytest.mark.tcmx_only
@pytest.mark.parametrize("op", [WRITE10, WRITE16],
                         ids=["write10", "write16"])
def test_write_overflow_refused_nothing_moved(sgfd, op):
    old = put(sgfd, 400, 2, 0x34)
    new = pattern(400, 2, 0x44)
    for buflen in (BS, 200, 2 * BS - 1, 0):
        st, sense, resid, _ = io(sgfd, rw_cdb(op, 400, 2), buflen,
                                 new[:buflen])
        assert (st, sense, resid) == (2, INVALID_IU_FIELD, buflen), buflen
    assert get(sgfd, 400, 2) == old


@pytest.mark.tcmx_only
@pytest.mark.parametrize("op", [READ10, READ16, WRITE10, WRITE16],
                         ids=["read10", "read16", "write10", "write16"])
def test_refused_before_transfer_whole_buffer_is_residual(sgfd, op):
    """The in-tree LIO reports a residual of 0 on these (or the buffer's
    excess only): as if the data had moved."""
    nb = tcmxlib.GiB // BS
    write = op in (WRITE10, WRITE16)
    data = pattern(0, 8, 0x45) if write else None
    # out of range, exact and longer buffers
    for blocks, buflen in ((2, 2 * BS), (2, 4096), (8, 4096)):
        st, sense, resid, _ = io(sgfd, rw_cdb(op, nb - 1, blocks), buflen,
                                 data and data[:buflen])
        assert (st, sense, resid) == (2, LBA_RANGE, buflen), \
            (blocks, buflen)
    # an invalid CDB field (RDPROTECT/WRPROTECT without protection)
    c = rw_cdb(op, 0, 2)
    c[1] = 0x20
    st, sense, resid, _ = io(sgfd, c, 3 * BS, data and data[:3 * BS])
    assert (st, sense, resid) == (2, INVALID_FIELD, 3 * BS)


@pytest.mark.tcmx_only
def test_failed_write_reports_what_it_wrote(tcmx_modules, dmesg):
    """A WRITE that runs out of ramdisk memory part way: 07/27/07 and a
    residual of exactly the bytes it did not write; those before are on
    the medium."""
    tcmxlib.unload("tcmx_loop", "tcmx_rd")
    tcmxlib.run(["modprobe", "tcmx_rd", "min_avail_pct=50"])
    tcmxlib.load("tcmx_loop")
    so = tcmxlib.mk_rd("r0", 64 * MiB)
    tpg = tcmxlib.mk_target()
    tcmxlib.link_lun(tpg, 0, so)
    tcmxlib.disk(tpg, 0)
    fd = os.open(tcmxlib.sgdev(tpg, 0), os.O_RDWR)
    hog = None
    try:
        put(fd, 0, 8, 0x36)              # page 0 exists: no allocation
        new = pattern(0, 24, 0x46)       # pages 0, 1, 2
        # push available memory below the floor (50% of RAM)
        floor = tcmxlib.meminfo("MemTotal") // 2
        need = tcmxlib.meminfo() - floor + 128 * MiB
        if need > 0:
            hog = bytearray(need)
            for off in range(0, need, 4096):
                hog[off] = 1
        assert tcmxlib.meminfo() < floor
        st, sense, resid, _ = io(fd, rw_cdb(WRITE16, 0, 24), 24 * BS, new)
        assert (st, sense) == (2, SPACE_ALLOC_FAILED)
        assert resid == 16 * BS, resid   # page 0 written, pages 1-2 not
        hog = None
        assert get(fd, 0, 24) == new[:8 * BS] + bytes(16 * BS)
    finally:
        hog = None
        os.close(fd)
    assert any("SPACE ALLOCATION FAILED" in ln for ln in dmesg.lines())
