# SPDX-License-Identifier: GPL-2.0
"""The integrity commands of a ramdisk LUN, byte by byte over SG_IO, with
sg_raw and the sg3_utils tools: VERIFY(10/12/16) with BYTCHK 0, 1 and 3,
WRITE AND VERIFY(10/12/16), COMPARE AND WRITE (alone, racing with itself
from several processes, and beside fio's verified writes), ORWRITE(16),
WRITE ATOMIC(16), PRE-FETCH(10/16) and READ DEFECT DATA(10/12)."""
import os
import subprocess

import pytest

from tcmxlib import (GiB, INVALID_FIELD, LBA_RANGE, MISCOMPARE, be,
                     caw_cdb, kcq, run, rw_cdb, sg_raw, sgio)

BLOCKS = GiB // 512     # the scsi_lun fixture's LUN 0


def pattern(seed, nblocks):
    return bytes((seed * 31 + i * 7 + (i >> 9)) & 0xff
                 for i in range(nblocks * 512))


class Sg:
    """An open /dev/sgN: cmd() returns (status, (key, asc, ascq) or None,
    raw sense, data-in, residual)."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)

    def close(self):
        os.close(self.fd)

    def cmd(self, cdb, din=0, dout=None):
        st, sense, data, h = sgio(self.fd, cdb, din=din, dout=dout)
        return st, kcq(sense), sense, data, h.resid

    def write(self, lba, data):
        st, kcq, _, _, _ = self.cmd(rw_cdb(0x8a, lba, len(data) // 512),
                                    dout=data)
        assert (st, kcq) == (0, None), kcq

    def read(self, lba, nblocks):
        st, kcq, _, data, _ = self.cmd(rw_cdb(0x88, lba, nblocks),
                                       din=nblocks * 512)
        assert (st, kcq) == (0, None), kcq
        return data


@pytest.fixture
def sg(scsi_lun):
    s = Sg(scsi_lun["sg"])
    yield s
    s.close()


def good(r):
    assert r[0] == 0 and r[1] is None, r[:3]


def check(r, kcq):
    assert r[0] == 2 and r[1] == kcq, r[:3]


def miscompare_at(r, offset):
    """CHECK CONDITION, MISCOMPARE, fixed format with VALID and the
    INFORMATION field the offset of the first differing byte."""
    st, kcq, sense = r[:3]
    assert st == 2 and kcq == MISCOMPARE, r[:3]
    assert sense[0] == 0xf0, sense.hex()          # VALID, current, fixed
    assert sense[3:7] == bytes(be(offset, 4)), sense.hex()
    assert sense[7] == 10 and len(sense) == 18, sense.hex()


def test_verify_bytchk(sg):
    """VERIFY(10/12/16): BYTCHK 0 checks the range only, 1 compares the
    data-out buffer with the blocks, 3 one block with each of them; 2 and
    VRPROTECT are refused."""
    data = pattern(1, 8)
    sg.write(100, data)
    bad = bytearray(data)
    bad[777] ^= 0x5a
    bad = bytes(bad)
    for op in (0x2f, 0xaf, 0x8f):
        good(sg.cmd(rw_cdb(op, 100, 8)))
        good(sg.cmd(rw_cdb(op, 100, 8, 0x02), dout=data))
        # DPO is allowed
        good(sg.cmd(rw_cdb(op, 100, 8, 0x12), dout=data))
        miscompare_at(sg.cmd(rw_cdb(op, 100, 8, 0x02), dout=bad), 777)
        # BYTCHK 0 with a buffer: nothing compared
        r = sg.cmd(rw_cdb(op, 100, 8), dout=bad)
        good(r)
        assert r[4] == len(bad)
        check(sg.cmd(rw_cdb(op, 100, 8, 0x04), dout=data), INVALID_FIELD)
        check(sg.cmd(rw_cdb(op, 100, 8, 0x22), dout=data), INVALID_FIELD)
        # the buffer must hold the range
        check(sg.cmd(rw_cdb(op, 100, 8, 0x02), dout=data[:-512]), INVALID_FIELD)
        check(sg.cmd(rw_cdb(op, 100, 8, 0x02)), INVALID_FIELD)
        check(sg.cmd(rw_cdb(op, BLOCKS - 4, 8)), LBA_RANGE)
    # BYTCHK 3: one block against each of the range
    one = pattern(2, 1)
    sg.write(200, one * 6)
    good(sg.cmd(rw_cdb(0x2f, 200, 6, 0x06), dout=one))
    r = sg.cmd(rw_cdb(0x2f, 200, 6, 0x06), dout=one * 2)
    good(r)
    assert r[4] == 512
    sg.write(203, bytes(one[:100]) + bytes([one[100] ^ 0xff]) +
             bytes(one[101:]))
    miscompare_at(sg.cmd(rw_cdb(0x8f, 200, 6, 0x06), dout=one), 3 * 512 + 100)
    check(sg.cmd(rw_cdb(0x2f, 200, 6, 0x06), dout=one[:256]), INVALID_FIELD)
    # the medium is untouched by all of it
    assert sg.read(100, 8) == data


def test_sg_verify_tool(scsi_lun, tmp_path):
    """sg_verify with a data-out buffer: exit 0 on a match, 14 (miscompare)
    on a mismatch."""
    dev = scsi_lun["dev"]
    data = pattern(3, 4)
    st, sense, _ = sg_raw(dev, rw_cdb(0x2a, 40, 4), data=data)
    assert (st, sense) == ("Good", None)
    f = tmp_path / "v.bin"
    f.write_bytes(data)
    run(["sg_verify", "--lba=40", "--count=4", "--ndo=2048",
         "--in=%s" % f, dev])
    f.write_bytes(data[:1000] + b"\x00" + data[1001:])
    p = run(["sg_verify", "--lba=40", "--count=4", "--ndo=2048",
             "--in=%s" % f, dev], check=False)
    assert p.returncode == 14, p.stdout + p.stderr


def test_write_and_verify(sg):
    """WRITE AND VERIFY(10/12/16) write the blocks (BYTCHK 0 or 1) and
    nothing else."""
    sg.write(299, bytes(512 * 6))
    for i, op in enumerate((0x2e, 0xae, 0x8e)):
        data = pattern(10 + i, 4)
        good(sg.cmd(rw_cdb(op, 300, 4, 0x02 if i != 1 else 0x10), dout=data))
        assert sg.read(299, 6) == bytes(512) + data + bytes(512)
        # BYTCHK 2/3 reserved; WRPROTECT; short buffer; past the end
        check(sg.cmd(rw_cdb(op, 300, 4, 0x04), dout=data), INVALID_FIELD)
        check(sg.cmd(rw_cdb(op, 300, 4, 0x20), dout=data), INVALID_FIELD)
        check(sg.cmd(rw_cdb(op, 300, 4), dout=data[:-1]), INVALID_FIELD)
        check(sg.cmd(rw_cdb(op, BLOCKS - 1, 2), dout=data[:1024]), LBA_RANGE)
        assert sg.read(300, 4) == data
    # a longer buffer: GOOD, the rest is residual
    data = pattern(20, 2)
    r = sg.cmd(rw_cdb(0x2e, 300, 2, 0x02), dout=data + bytes(512))
    good(r)
    assert r[4] == 512
    assert sg.read(300, 2) == data


def test_compare_and_write(sg):
    """COMPARE AND WRITE: written only if the first half matches; a
    MISCOMPARE names the first differing byte and changes nothing."""
    old, new = pattern(30, 3), pattern(31, 3)
    sg.write(500, old)
    good(sg.cmd(caw_cdb(500, 3), dout=old + new))
    assert sg.read(500, 3) == new
    # now the compare half is stale: byte 0 differs first
    miscompare_at(sg.cmd(caw_cdb(500, 3), dout=old + pattern(32, 3)),
                  next(i for i in range(1536) if old[i] != new[i]))
    assert sg.read(500, 3) == new
    stale = bytearray(new)
    stale[1300] ^= 1
    miscompare_at(sg.cmd(caw_cdb(500, 3, 0x18), dout=bytes(stale) + old), 1300)
    assert sg.read(500, 3) == new
    # the data-out buffer is exactly twice the blocks
    check(sg.cmd(caw_cdb(500, 3), dout=new + old[:1024]), INVALID_FIELD)
    check(sg.cmd(caw_cdb(500, 1), dout=new + old), INVALID_FIELD)
    check(sg.cmd(caw_cdb(BLOCKS - 1, 2), dout=bytes(2048)), LBA_RANGE)
    check(sg.cmd(caw_cdb(500, 3, 0x20), dout=new + old), INVALID_FIELD)
    # 0 blocks: nothing to do
    good(sg.cmd(caw_cdb(500, 0)))
    assert sg.read(500, 3) == new


def test_sg_compare_and_write_tool(scsi_lun, tmp_path):
    """sg_compare_and_write: exit 0 and the block written; 14 on a
    miscompare."""
    dev = scsi_lun["dev"]
    old, new = pattern(40, 1), pattern(41, 1)
    st, sense, _ = sg_raw(dev, rw_cdb(0x2a, 60, 1), data=old)
    assert (st, sense) == ("Good", None)
    f = tmp_path / "caw.bin"
    f.write_bytes(old + new)
    run(["sg_compare_and_write", "--in=%s" % f, "--lba=60", "--num=1", dev])
    st, sense, data = sg_raw(dev, rw_cdb(0x28, 60, 1), rlen=512)
    assert data == new
    p = run(["sg_compare_and_write", "--in=%s" % f, "--lba=60", "--num=1",
             dev], check=False)
    assert p.returncode == 14, p.stdout + p.stderr


def _incrementer(path, lba, count, wfd):
    """Child: @count compare-and-swap increments of the counter in block
    @lba, retrying on MISCOMPARE; reports GOODs and miscompares."""
    s = Sg(path)
    goods = misses = 0
    try:
        while goods < count and misses < 100 * count:
            cur = s.read(lba, 1)
            v = int.from_bytes(cur[:8], "big")
            nxt = (v + 1).to_bytes(8, "big") + cur[8:]
            r = s.cmd(caw_cdb(lba, 1), dout=cur + nxt)
            if r[0] == 0 and r[1] is None:
                goods += 1
            elif r[1] == MISCOMPARE:
                misses += 1
            else:
                break
    finally:
        os.write(wfd, b"%d %d\n" % (goods, misses))
        os._exit(0)


def _caw_race(path, lba, procs, count):
    """@procs processes incrementing block @lba: (GOODs, miscompares)."""
    rfd, wfd = os.pipe()
    pids = []
    for _ in range(procs):
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            _incrementer(path, lba, count, wfd)
        pids.append(pid)
    os.close(wfd)
    for pid in pids:
        os.waitpid(pid, 0)
    with os.fdopen(rfd) as f:
        rows = [tuple(map(int, ln.split())) for ln in f.read().split("\n")
                if ln]
    assert len(rows) == procs, rows
    return sum(g for g, _ in rows), sum(m for _, m in rows)


def test_caw_concurrent_increments(sg, scsi_lun):
    """4 processes x 50 compare-and-swap increments of one counter: the
    counter ends at the number of GOOD completions, every one of them."""
    sg.write(7, bytes(512))
    goods, misses = _caw_race(scsi_lun["sg"], 7, 4, 50)
    print("CAW race: %d GOOD, %d MISCOMPARE" % (goods, misses))
    assert goods == 200
    assert int.from_bytes(sg.read(7, 1)[:8], "big") == goods


def test_caw_beside_fio_verify(sg, scsi_lun):
    """COMPARE AND WRITE increments racing fio's verified random writes to
    other blocks: both stay correct."""
    dev = scsi_lun["dev"]
    sg.write(3, bytes(512))
    fio = subprocess.Popen(
        ["fio", "--name=v", "--filename=" + dev, "--offset=1M",
         "--size=16M", "--rw=randwrite", "--bs=4k", "--direct=1",
         "--ioengine=libaio", "--iodepth=16", "--verify=crc32c",
         "--verify_fatal=1", "--do_verify=1", "--output-format=terse"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    goods, misses = _caw_race(scsi_lun["sg"], 3, 2, 50)
    out, _ = fio.communicate(timeout=600)
    assert fio.returncode == 0, out
    assert goods == 100
    assert int.from_bytes(sg.read(3, 1)[:8], "big") == goods
    # what fio wrote outside its range did not touch the counter's block
    assert sg.read(3, 1)[8:] == bytes(504)


def test_orwrite(sg):
    """ORWRITE(16): the medium becomes medium OR data-out."""
    base = pattern(50, 4)
    sg.write(700, base)
    mask = pattern(51, 4)
    good(sg.cmd(rw_cdb(0x8b, 700, 4), dout=mask))
    assert sg.read(700, 4) == bytes(a | b for a, b in zip(base, mask))
    good(sg.cmd(rw_cdb(0x8b, 700, 4, 0x18), dout=b"\xff" * 2048))
    assert sg.read(699, 6) == bytes(512) + b"\xff" * 2048 + bytes(512)
    check(sg.cmd(rw_cdb(0x8b, 700, 4, 0x20), dout=mask), INVALID_FIELD)
    check(sg.cmd(rw_cdb(0x8b, 700, 4), dout=mask[:-512]), INVALID_FIELD)
    check(sg.cmd(rw_cdb(0x8b, BLOCKS - 2, 4), dout=mask), LBA_RANGE)
    good(sg.cmd(rw_cdb(0x8b, 700, 0)))


def watomic(lba, n, boundary=0, b1=0):
    return [0x9c, b1] + be(lba, 8) + be(boundary, 2) + be(n, 2) + [0, 0]


def test_write_atomic(sg):
    """WRITE ATOMIC(16): written like WRITE(16) up to 1 MiB (2048 blocks);
    more, or an atomic boundary, is an invalid field."""
    data = pattern(60, 3)
    good(sg.cmd(watomic(900, 3, b1=0x08), dout=data))
    assert sg.read(900, 3) == data
    big = pattern(61, 2048)
    good(sg.cmd(watomic(4096, 2048), dout=big))
    assert sg.read(4096, 2048) == big
    check(sg.cmd(watomic(4096, 2049), dout=big + bytes(512)),
          INVALID_FIELD)
    check(sg.cmd(watomic(900, 3, boundary=1), dout=data), INVALID_FIELD)
    check(sg.cmd(watomic(900, 3, b1=0x20), dout=data), INVALID_FIELD)
    check(sg.cmd(watomic(BLOCKS - 1, 2), dout=data[:1024]), LBA_RANGE)
    check(sg.cmd(watomic(900, 3), dout=data[:1000]), INVALID_FIELD)
    assert sg.read(900, 3) == data


def test_prefetch(sg):
    """PRE-FETCH(10/16): GOOD over the range, with or without IMMED."""
    for b1 in (0, 0x02):
        good(sg.cmd([0x34, b1] + be(0, 4) + [0] + be(256, 2) + [0]))
        good(sg.cmd([0x90, b1] + be(BLOCKS - 8, 8) + be(8, 4) + [0, 0]))
    check(sg.cmd([0x34, 0] + be(BLOCKS, 4) + [0] + be(1, 2) + [0]),
          LBA_RANGE)
    check(sg.cmd([0x90, 0] + be(BLOCKS - 1, 8) + be(2, 4) + [0, 0]),
          LBA_RANGE)
    check(sg.cmd([0x34, 0x01] + be(0, 4) + [0] + be(1, 2) + [0]),
          INVALID_FIELD)


def test_read_defect_data(sg):
    """READ DEFECT DATA(10/12): an empty list, the header echoing the
    lists and format asked for, cut at the allocation length."""
    for req in (0x00, 0x08, 0x10, 0x18, 0x1b, 0x1d):
        r = sg.cmd([0x37, 0, req, 0, 0, 0, 0] + be(64, 2) + [0], din=64)
        good(r)
        assert r[3] == bytes([0, req, 0, 0]), r[3].hex()
        r = sg.cmd([0xb7, req] + be(0, 4) + be(64, 4) + [0, 0], din=64)
        good(r)
        assert r[3] == bytes([0, req, 0, 0, 0, 0, 0, 0]), r[3].hex()
    r = sg.cmd([0x37, 0, 0x18, 0, 0, 0, 0] + be(2, 2) + [0], din=64)
    good(r)
    assert r[3] == bytes([0, 0x18])
    check(sg.cmd([0x37, 0, 0x01, 0, 0, 0, 0] + be(64, 2) + [0], din=64),
          INVALID_FIELD)
    check(sg.cmd([0xb7, 0x07] + be(0, 4) + be(64, 4) + [0, 0], din=64),
          INVALID_FIELD)


def test_rsoc_lists_integrity_rows(scsi_lun):
    """REPORT SUPPORTED OPERATION CODES lists each new command with the
    usage data the rows define."""
    for op, n in ((0x2f, 10), (0xaf, 12), (0x8f, 16), (0x2e, 10),
                  (0xae, 12), (0x8e, 16), (0x89, 16), (0x8b, 16),
                  (0x9c, 16), (0x34, 10), (0x90, 16), (0x37, 10),
                  (0xb7, 12)):
        st, sense, data = sg_raw(scsi_lun["dev"],
                                 [0xa3, 0x0c, 0x01, op, 0, 0, 0, 0, 0, 64,
                                  0, 0], rlen=64)
        assert (st, sense) == ("Good", None)
        assert data[1] == 3 and data[2:4] == bytes(be(n, 2)), (op, data)
        assert data[4] == op, (op, data)
    st, sense, data = sg_raw(scsi_lun["dev"],
                             [0xa3, 0x0c, 0x01, 0x89, 0, 0, 0, 0, 0, 64,
                              0, 0], rlen=64)
    assert (st, sense) == ("Good", None)
    assert data == bytes([0, 3, 0, 16, 0x89, 0x18] + [0xff] * 8 +
                         [0, 0, 0, 0xff, 0x1f, 0])
