# SPDX-License-Identifier: GPL-2.0
"""Copy offload: EXTENDED COPY (LID1) and RECEIVE COPY RESULTS, driven by
sg_xcopy, by hand over SG_IO, and by libiscsi's ExtendedCopy and
ReceiveCopyResults suites; the 3PC bit and VPD page 8Fh."""
import mmap
import os
import re
import shutil
import struct
import threading
import time

import pytest

import tcmxlib
from tcmxlib import MiB
from tcmxlib import (CHECK, CONFLICT, COPY_ABORTED, GOOD, ILLEGAL_OPCODE,
                     INVALID_FIELD, INVALID_PARAM, PARAM_LEN,
                     TOO_MANY_CSCD, TOO_MANY_SEG, UNSUPP_CSCD, kcq)


def naa_of(sg):
    """The NAA designator of VPD page 83h, 16 bytes."""
    fd = os.open(sg, os.O_RDWR)
    try:
        st, _, data, _ = tcmxlib.sgio(fd, [0x12, 1, 0x83, 0, 255, 0],
                                      din=255)
    finally:
        os.close(fd)
    assert st == 0
    off = 4
    while off < len(data):
        if data[off + 1] & 0x3f == 0x03 and data[off + 3] == 16:
            return data[off + 4:off + 20]
        off += 4 + data[off + 3]
    raise AssertionError("no NAA designator: " + data.hex())


def cscd(naa):
    """An identification CSCD descriptor for a 512-byte-block disk."""
    return (bytes([0xe4, 0, 0, 0, 0x01, 0x03, 0, 16]) + naa + bytes(4) +
            bytes([0, 0, 2, 0]))


def seg(si, di, nolb, slba, dlba):
    return struct.pack(">BBHHHHHQQ", 0x02, 0, 0x18, si, di, 0, nolb,
                       slba, dlba)


def plist(cscds, segs, list_id=0, usage=3):
    c, s = b"".join(cscds), b"".join(segs)
    return (struct.pack(">BBHIII", list_id, usage << 3, len(c), 0, len(s),
                        0) + c + s)


def xcopy(fd, data):
    cdb = [0x83, 0] + [0] * 8 + list(struct.pack(">I", len(data))) + [0, 0]
    st, sense, _, _ = tcmxlib.sgio(fd, cdb, dout=data)
    return st, kcq(sense)


def rcr(fd, sa, list_id=0, alloc=1024):
    cdb = [0x84, sa, list_id] + [0] * 7 + list(struct.pack(">I", alloc)) \
        + [0, 0]
    st, sense, data, _ = tcmxlib.sgio(fd, cdb, din=alloc)
    return st, kcq(sense), data


def fill_bytes(off_mib, mib, seed):
    """mib MiB of a seeded pattern, as it reads at off_mib MiB."""
    return b"".join(struct.pack(">QQ", seed, i) * (MiB // 16)
                    for i in range(off_mib, off_mib + mib))


def fill(dev, off_mib, mib, seed):
    """Write mib MiB of a seeded pattern at off_mib; returns the bytes."""
    data = fill_bytes(off_mib, mib, seed)
    with open(dev, "r+b", buffering=0) as f:
        f.seek(off_mib * MiB)
        f.write(data)
        os.fsync(f.fileno())
    return data


def read_direct(dev, off, length):
    """length bytes at off, from the LU itself (no page cache)."""
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, length)
        os.preadv(fd, [buf], off)
        return bytes(buf)
    finally:
        os.close(fd)


@pytest.fixture
def two_luns(stack):
    """Two 80 MiB ramdisks, LUNs 0 and 1 of one TPG."""
    tpg, sos = tcmxlib.setup_luns(2, 80 * MiB)
    d = [tcmxlib.disk(tpg, i) for i in (0, 1)]
    for dev in d:
        tcmxlib.tur(dev)
    return dict(tpg=tpg, sos=sos, dev=d,
                sg=[tcmxlib.sgdev(tpg, i) for i in (0, 1)])


def test_sg_xcopy_64mib_between_luns(two_luns, run):
    src, dst = two_luns["dev"]
    sgs, sgd = two_luns["sg"]
    want = fill(src, 0, 64, 0x5eed)
    fill(dst, 0, 80, 0)
    p = run(["sg_xcopy", "if=" + sgs, "of=" + sgd, "bs=512",
             "count=%d" % (64 * MiB // 512)], timeout=600)
    assert "131072 blocks" in p.stdout + p.stderr, p.stdout + p.stderr
    got = read_direct(dst, 0, 80 * MiB)
    assert got[:64 * MiB] == want
    assert got[64 * MiB:] == fill_bytes(64, 16, 0)


def test_sg_xcopy_on_source_and_within_a_lun(two_luns, run):
    src, dst = two_luns["dev"]
    sgs, sgd = two_luns["sg"]
    want = fill(src, 0, 8, 0xabc)
    fill(dst, 0, 16, 1)
    # sent to the source LU this time, at an offset
    run(["sg_xcopy", "--on_src", "if=" + sgs, "of=" + sgd, "bs=512",
         "count=%d" % (8 * MiB // 512), "seek=%d" % (4 * MiB // 512)])
    assert read_direct(dst, 4 * MiB, 8 * MiB) == want
    assert read_direct(dst, 0, 4 * MiB) == fill_bytes(0, 4, 1)
    # one LU to itself, overlapping upwards by 1 MiB
    run(["sg_xcopy", "if=" + sgs, "of=" + sgs, "bs=512",
         "count=%d" % (8 * MiB // 512), "seek=%d" % (1 * MiB // 512)])
    assert read_direct(src, MiB, 8 * MiB) == want


@pytest.mark.skipif(not shutil.which("ddpt"), reason="no ddpt")
def test_ddpt_xcopy(two_luns, run):
    src, dst = two_luns["dev"]
    sgs, sgd = two_luns["sg"]
    want = fill(src, 0, 16, 0xdd)
    fill(dst, 0, 20, 2)
    run(["ddpt", "if=" + sgs, "of=" + sgd, "bs=512",
         "count=%d" % (16 * MiB // 512), "oflag=xcopy"], timeout=600)
    assert read_direct(dst, 0, 20 * MiB) == want + fill_bytes(16, 4, 2)


def test_sg_copy_results_operating_parameters(scsi_lun):
    text = tcmxlib.tool("sg_copy_results", "--params", scsi_lun["sg"])
    for line in ("Maximum target descriptor count: 2",
                 "Maximum segment descriptor count: 1",
                 "Maximum descriptor list length: 1024 bytes",
                 "Maximum segment length: 268435456 bytes"):
        assert line in text, text


@pytest.mark.tcmx_only
def test_xcopy_list_id_and_errors(stack):
    """A copy from LUN 0 to LUN 1 sent to LUN 0, its COPY STATUS, and the
    sense of each kind of bad parameter list."""
    tpg, sos = tcmxlib.setup_luns(3, 16 * MiB)
    devs = [tcmxlib.disk(tpg, i) for i in range(3)]
    for dev in devs:
        tcmxlib.tur(dev)
    sgs = [tcmxlib.sgdev(tpg, i) for i in range(3)]
    naas = [naa_of(s) for s in sgs]
    want = fill(devs[0], 0, 2, 0x77)
    fd = os.open(sgs[0], os.O_RDWR)
    try:
        st, sense = xcopy(fd, plist([cscd(naas[0]), cscd(naas[1])],
                                    [seg(0, 1, 4096, 0, 2048)], 5, 0))
        assert (st, sense) == (0, None)
        st, sense, data = rcr(fd, 0x00, 5)
        assert st == 0 and data == bytes([0, 0, 0, 8, 0x01, 0, 1, 0,
                                          0, 0x20, 0, 0])
        st, sense, _ = rcr(fd, 0x00, 5)
        assert sense == INVALID_FIELD
        good = [cscd(naas[0]), cscd(naas[1])]
        cases = [
            (plist(good * 2, [seg(0, 1, 1, 0, 0)]), TOO_MANY_CSCD),
            (plist(good, [seg(0, 1, 1, 0, 0)] * 2), TOO_MANY_SEG),
            (plist([b"\xe0" + good[0][1:]], [seg(0, 0, 1, 0, 0)]),
             UNSUPP_CSCD),
            (plist(good, [seg(0, 1, 1, 0, 0)])[:-1], PARAM_LEN),
            (plist(good, [seg(0, 1, 1, 0, 0)])[:15], PARAM_LEN),
            (plist([cscd(bytes([0x60]) + bytes(15))],
                   [seg(0, 0, 1, 0, 0)]), COPY_ABORTED),
            (plist(good, [seg(0, 2, 1, 0, 0)]), COPY_ABORTED),
            (plist(good, [seg(0, 1, 2, 0, 32767)]), COPY_ABORTED),
            (plist(good, [seg(0, 1, 1, 0, 0)], 1, 3), INVALID_PARAM),
        ]
        for data, want_sense in cases:
            assert xcopy(fd, data)[1] == want_sense, data.hex()
    finally:
        os.close(fd)
    got = read_direct(devs[1], MiB, 2 * MiB)
    assert got == want
    # the LU copied to has not been touched by the failed copies
    assert read_direct(devs[1], 0, 512) == bytes(512)


def test_inquiry_3pc_and_vpd_8f(scsi_lun, run, stack):
    text = tcmxlib.tool("sg_inq", scsi_lun["sg"])
    assert re.search(r"3PC=1", text), text
    if stack != "tcmx":     # the in-tree 6.1 has no VPD page 8Fh
        return
    raw = tcmxlib.tool("sg_vpd", "--page=0x8f", "--hex", scsi_lun["sg"])
    text = tcmxlib.tool("sg_vpd", "--page=tpc", scsi_lun["sg"])
    assert "Supported commands" in text and "Parameter data" in text, text
    assert re.search(r"Maximum CSCD descriptor count: 2", text, re.I), text
    assert re.search(r"Maximum segment descriptor count: 1", text, re.I), \
        text
    assert "8f" in raw
    pages = tcmxlib.tool("sg_vpd", "--page=0", scsi_lun["sg"])
    assert "Extended inquiry data" in pages, pages
    assert "Third party copy" in pages, pages


@pytest.mark.tcmx_only
@pytest.mark.parametrize("suite", ["ExtendedCopy", "ReceiveCopyResults"])
def test_libiscsi_copy_suites(stack, suite):
    tpg, sos = tcmxlib.setup_luns(1, 64 * MiB)
    tcmxlib.tur(tcmxlib.disk(tpg, 0))
    out, tests = tcmxlib.iscsi_test_cu(tcmxlib.sgdev(tpg, 0), suite)
    assert tests, out
    assert all(r == "passed" for _, r in tests), out


# ---- two devices behind two targets -------------------------------------

BS = 512
DBROOT = "/etc/rtslib-fb-target"


def read16(fd, lba, n):
    st, sense, data, _ = tcmxlib.sgio(fd, [0x88, 0] + tcmxlib.be(lba, 8) +
                                      tcmxlib.be(n, 4) + [0, 0],
                                      din=n * BS)
    assert (st, sense) == (0, b""), (st, sense.hex())
    return data


def write16(fd, lba, data):
    st, sense, _, _ = tcmxlib.sgio(fd, [0x8a, 0] + tcmxlib.be(lba, 8) +
                                   tcmxlib.be(len(data) // BS, 4) + [0, 0],
                                   dout=data)
    return st, kcq(sense)


def blockfill(byte, n):
    return bytes([byte]) * (n * BS)


@pytest.fixture
def two_targets(stack):
    """Device 1 behind target 1, device 2 behind target 2 (LUN 0 each),
    each with 8 blocks of its own byte at LBA 0; only /dev/sgN (sd off).
    A dict: so1, so2, t1, t2, a, b (/dev/sgN of target 1's and target
    2's LUN 0), fa, fb (those open), naa1, naa2.  dbroot has a pr/
    directory: the in-tree stack writes its APTPL file on every
    reservation change, and fails the command if it cannot."""
    tcmxlib.wr(tcmxlib.T + "/dbroot", DBROOT)
    os.makedirs(DBROOT + "/pr", exist_ok=True)
    with tcmxlib.sd_off():
        so1 = tcmxlib.mk_rd("xc1", 16 * MiB)
        so2 = tcmxlib.mk_rd("xc2", 16 * MiB)
        t1, t2 = tcmxlib.mk_target(), tcmxlib.mk_target()
        tcmxlib.link_lun(t1, 0, so1)
        tcmxlib.link_lun(t2, 0, so2)
        d = dict(so1=so1, so2=so2, t1=t1, t2=t2, a=tcmxlib.sgdev(t1, 0),
                 b=tcmxlib.sgdev(t2, 0))
        tcmxlib.ua_clear(d["a"])
        tcmxlib.ua_clear(d["b"])
        d["fa"] = os.open(d["a"], os.O_RDWR)
        d["fb"] = os.open(d["b"], os.O_RDWR)
        try:
            d["naa1"], d["naa2"] = naa_of(d["a"]), naa_of(d["b"])
            assert write16(d["fa"], 0, blockfill(0x11, 8)) == (0, None)
            assert write16(d["fb"], 0, blockfill(0x22, 8)) == (0, None)
            yield d
        finally:
            os.close(d["fa"])
            os.close(d["fb"])


def copy_1_2(d, si, di, slba, dlba, fd=None, n=8):
    """EXTENDED COPY of n blocks, CSCD 0 device 1 and CSCD 1 device 2,
    from CSCD si to CSCD di, sent to fd (target 1's LUN 0)."""
    return xcopy(d["fa"] if fd is None else fd,
                 plist([cscd(d["naa1"]), cscd(d["naa2"])],
                       [seg(si, di, n, slba, dlba)]))


def test_xcopy_only_reaches_the_nexus_luns(two_targets):
    """Through target 1, device 2 (behind target 2 only) can be neither
    read nor written by a copy; a copy within device 1 works."""
    d = two_targets
    assert copy_1_2(d, 1, 0, 0, 16) == (CHECK, COPY_ABORTED)
    assert copy_1_2(d, 0, 1, 0, 16) == (CHECK, COPY_ABORTED)
    assert read16(d["fb"], 0, 32) == blockfill(0x22, 8) + blockfill(0, 24)
    assert read16(d["fa"], 16, 8) == blockfill(0, 8)
    st = xcopy(d["fa"], plist([cscd(d["naa1"]), cscd(d["naa1"])],
                              [seg(0, 1, 8, 0, 16)]))
    assert st == (GOOD, None)
    assert read16(d["fa"], 0, 24) == blockfill(0x11, 8) + blockfill(0, 8) \
        + blockfill(0x11, 8)


def test_xcopy_receiving_lu_is_source_or_destination(two_targets):
    """Device 2 mapped to target 1 as LUN 1: a copy between LUN 0 and
    LUN 1 works sent to either, but not sent to a third LUN of the
    nexus that is neither."""
    d = two_targets
    with tcmxlib.sd_off():
        tcmxlib.link_lun(d["t1"], 1, d["so2"])
        so3 = tcmxlib.mk_rd("xc3", 16 * MiB)
        tcmxlib.link_lun(d["t1"], 2, so3)
        a2, a3 = tcmxlib.sgdev(d["t1"], 1), tcmxlib.sgdev(d["t1"], 2)
        for sg in (d["a"], a2, a3):
            tcmxlib.ua_clear(sg)
    f3 = os.open(a3, os.O_RDWR)
    try:
        assert copy_1_2(d, 0, 1, 0, 16, fd=f3) == (CHECK, COPY_ABORTED)
        assert read16(d["fb"], 16, 8) == blockfill(0, 8)
    finally:
        os.close(f3)
    assert copy_1_2(d, 0, 1, 0, 16) == (GOOD, None)
    assert read16(d["fb"], 16, 8) == blockfill(0x11, 8)
    f2 = os.open(a2, os.O_RDWR)
    try:
        assert copy_1_2(d, 1, 0, 0, 32, fd=f2) == (GOOD, None)
    finally:
        os.close(f2)
    assert read16(d["fa"], 32, 8) == blockfill(0x22, 8)


def test_xcopy_remote_side_passes_reservation_and_3pc(two_targets, stack):
    """Device 2 mapped to target 1 too (LUN 1), reserved by target 2's
    nexus: target 1's copy may read it under Write Exclusive but not
    write it, nor read it under Exclusive Access; with emulate_3pc=0 on
    device 2 it is no copy target at all."""
    d = two_targets
    with tcmxlib.sd_off():
        tcmxlib.link_lun(d["t1"], 1, d["so2"])
        a2 = tcmxlib.sgdev(d["t1"], 1)
        tcmxlib.ua_clear(d["a"])
        tcmxlib.ua_clear(a2)
    fb = d["fb"]
    assert tcmxlib.prout(fb, 0, sa_key=0xb) == (GOOD, None)
    assert tcmxlib.prout(fb, 1, key=0xb, type_=1) == (GOOD, None)   # WE
    # what a WRITE from target 1 gets, and what the copy must get too
    st, _, _ = tcmxlib.cmd(a2, [0x8a, 0] + tcmxlib.be(16, 8) +
                           tcmxlib.be(1, 4) + [0, 0], dout=bytes(BS))
    assert st == CONFLICT
    st = copy_1_2(d, 0, 1, 0, 16)
    assert st[0] != GOOD
    if stack == "tcmx":     # as in-tree's copies that fail midway
        assert st == (CHECK, COPY_ABORTED)
    assert read16(fb, 16, 8) == blockfill(0, 8)
    assert copy_1_2(d, 1, 0, 0, 16) == (GOOD, None)
    assert read16(d["fa"], 16, 8) == blockfill(0x22, 8)
    assert tcmxlib.prout(fb, 2, key=0xb, type_=1) == (GOOD, None)   # release
    assert tcmxlib.prout(fb, 1, key=0xb, type_=3) == (GOOD, None)   # EA
    st = copy_1_2(d, 1, 0, 0, 24)
    assert st[0] != GOOD
    if stack == "tcmx":
        assert st == (CHECK, COPY_ABORTED)
    assert read16(d["fa"], 24, 8) == blockfill(0, 8)
    assert tcmxlib.prout(fb, 2, key=0xb, type_=3) == (GOOD, None)
    tcmxlib.ua_clear(a2)
    tcmxlib.wr(d["so2"] + "/attrib/emulate_3pc", "0")
    assert copy_1_2(d, 0, 1, 0, 16) == (CHECK, COPY_ABORTED)
    assert read16(fb, 16, 8) == blockfill(0, 8)
    tcmxlib.wr(d["so2"] + "/attrib/emulate_3pc", "1")
    assert copy_1_2(d, 0, 1, 0, 16) == (GOOD, None)
    assert read16(fb, 16, 8) == blockfill(0x11, 8)


def read_all(fd, blocks):
    return b"".join(read16(fd, lba, 2048) for lba in range(0, blocks, 2048))


@pytest.mark.tcmx_only
def test_xcopy_fenced_by_preempt_and_abort(two_targets):
    """A 16 MiB copy from device 1 to device 2 through target 1's LUN 1,
    registered to device 2 under Write Exclusive - Registrants Only; target
    2 preempts it with PREEMPT AND ABORT meanwhile: once that completed,
    nothing more of the copy lands on device 2.  Tried until the preempt
    was sent before the copy had ended."""
    d = two_targets
    blocks = 16 * MiB // BS
    with tcmxlib.sd_off():
        tcmxlib.link_lun(d["t1"], 1, d["so2"])
        a2 = tcmxlib.sgdev(d["t1"], 1)
        tcmxlib.ua_clear(d["a"])
        tcmxlib.ua_clear(a2)
    fb = d["fb"]
    for attempt in range(5):
        if attempt:
            assert tcmxlib.prout(fb, 3, key=0xb) == (GOOD, None)   # CLEAR
            tcmxlib.unit_attentions(a2)
        for lba in range(0, blocks, 2048):
            assert write16(fb, lba, blockfill(0x22, 2048)) == (GOOD, None)
        assert tcmxlib.prout(a2, 0, sa_key=0xa) == (GOOD, None)
        assert tcmxlib.prout(fb, 0, sa_key=0xb) == (GOOD, None)
        assert tcmxlib.prout(a2, 1, key=0xa, type_=5) == (GOOD, None)
        result = []

        def copy():
            result.append(copy_1_2(d, 0, 1, 0, 0, n=blocks - 1))
            result.append(time.monotonic())
        copier = threading.Thread(target=copy)
        copier.start()
        time.sleep(0.001 * attempt)
        sent = time.monotonic()
        st = tcmxlib.prout(fb, 5, key=0xb, sa_key=0xa, type_=5)
        assert st == (GOOD, None)
        after_preempt = read_all(fb, blocks)
        copier.join(120)
        assert not copier.is_alive()
        assert result[0] in ((GOOD, None), (CHECK, COPY_ABORTED)), result
        print("copy: %s, %d of %d blocks copied when the preempt completed,"
              " preempt sent %.3fs before the copy ended" % (
                  result[0], after_preempt.count(bytes(BS)), blocks,
                  result[1] - sent))
        assert read_all(fb, blocks) == after_preempt
        if sent < result[1]:
            return
    pytest.fail("every copy ended before the preempt was sent")

def caw(fd, lba, old, new):
    cdb = [0x89, 0] + tcmxlib.be(lba, 8) + [0, 0, 0, 1, 0, 0]
    st, sense, _, _ = tcmxlib.sgio(fd, cdb, dout=old + new)
    return st, kcq(sense)


def rsoc_one(fd, opcode, sa=None):
    """REPORT SUPPORTED OPERATION CODES for one command: its SUPPORT."""
    opts = 1 if sa is None else 2
    cdb = [0xa3, 0x0c, opts, opcode] + tcmxlib.be(sa or 0, 2) + \
        tcmxlib.be(64, 4) + [0, 0]
    st, sense, data, _ = tcmxlib.sgio(fd, cdb, din=64)
    assert st == 0, sense.hex()
    return data[1] & 0x07


def test_emulate_3pc_and_caw_off_refuse_their_commands(two_targets, stack):
    """emulate_3pc=0: EXTENDED COPY is an unsupported opcode, INQUIRY
    clears 3PC; emulate_caw=0: COMPARE AND WRITE is, and the block
    limits page reports no COMPARE AND WRITE length; back on, both
    work again."""
    d = two_targets
    fa, so1 = d["fa"], d["so1"]
    inline = plist([cscd(d["naa1"]), cscd(d["naa1"])], [seg(0, 1, 8, 0, 16)])
    tcmxlib.wr(so1 + "/attrib/emulate_3pc", "0")
    tcmxlib.wr(so1 + "/attrib/emulate_caw", "0")
    st, _, inq, _ = tcmxlib.sgio(fa, [0x12, 0, 0, 0, 96, 0], din=96)
    assert st == 0 and not inq[5] & 0x08, inq[:8].hex()
    assert xcopy(fa, inline) == (CHECK, ILLEGAL_OPCODE)
    assert read16(fa, 16, 8) == blockfill(0, 8)
    one = blockfill(0x11, 1)
    assert caw(fa, 0, one, blockfill(0x33, 1)) == (CHECK, ILLEGAL_OPCODE)
    assert read16(fa, 0, 1) == one
    st, _, b0, _ = tcmxlib.sgio(fa, [0x12, 1, 0xb0, 0, 64, 0], din=64)
    assert st == 0 and b0[5] == 0, b0[:8].hex()
    if stack == "tcmx":     # the in-tree 6.1 reports every opcode
        assert rsoc_one(fa, 0x83, 0) == 1       # not supported
        assert rsoc_one(fa, 0x89) == 1
        assert rsoc_one(fa, 0x84, 3) == 3       # RECEIVE COPY RESULTS
    tcmxlib.wr(so1 + "/attrib/emulate_3pc", "1")
    tcmxlib.wr(so1 + "/attrib/emulate_caw", "1")
    st, _, inq, _ = tcmxlib.sgio(fa, [0x12, 0, 0, 0, 96, 0], din=96)
    assert st == 0 and inq[5] & 0x08
    assert xcopy(fa, inline) == (GOOD, None)
    assert read16(fa, 16, 8) == blockfill(0x11, 8)
    assert caw(fa, 0, one, blockfill(0x33, 1)) == (GOOD, None)
    if stack == "tcmx":
        assert rsoc_one(fa, 0x83, 0) == 3
        assert rsoc_one(fa, 0x89) == 3
