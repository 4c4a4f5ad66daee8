# SPDX-License-Identifier: GPL-2.0
"""Opcodes and CDB fields, byte by byte over SG_IO: the data direction a
command allows; REPORT SUPPORTED OPERATION CODES (SPC-4 6.35) checked
against what each opcode really does; reserved CDB bits answered with the
sense-key-specific field pointer; REQUEST SENSE with nothing pending;
REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS.

Commands go to a scratch LUN of the test's own (some reported commands
write or change state), in one process, many per test."""
import ctypes
import mmap
import os
import re

import pytest

from tcmxlib import (ILLEGAL_OPCODE, INVALID_FIELD, MiB, SG_DXFER_FROM_DEV,
                     SG_DXFER_TO_DEV, disk, kcq, link_lun, mk_rd, mk_target,
                     sg_io, sgdev, sgio, tool, tur)
from tcmxlib import CHECK, GOOD, be

UNIT_ATTENTION = 0x6
BLOCK = 512
ALLOC = 4096
# a known pattern no command answers with
PATTERN = bytes((i * 37 + 11) & 0xff for i in range(ALLOC))

# CDB length of each opcode group (SPC-4 4.2.5.1); groups 3, 6 and 7 have
# none (0x7e/0x7f are variable length, 0xc0-0xff vendor specific)
GROUP_LEN = {0: 6, 1: 10, 2: 10, 4: 16, 5: 12}
# opcodes whose commands move data to the initiator: sent with a 4 KiB
# data-in buffer (with an all-zero CDB most of them ask for no data)
DATA_IN = {0x03, 0x08, 0x12, 0x1a, 0x1c, 0x25, 0x28, 0x37, 0x3c, 0x3e,
           0x4d, 0x5a, 0x5e, 0x84, 0x86, 0x88, 0x8c, 0x9b, 0x9e, 0xa0,
           0xa2, 0xa3, 0xa8, 0xab, 0xb7}
# (opcode, service action or None): what REPORT SUPPORTED OPERATION CODES
# must list at least
REQUIRED = {
    (0x00, None): "TEST UNIT READY",
    (0x03, None): "REQUEST SENSE",
    (0x12, None): "INQUIRY",
    (0x1a, None): "MODE SENSE(6)",
    (0x5a, None): "MODE SENSE(10)",
    (0x25, None): "READ CAPACITY(10)",
    (0x9e, 0x10): "READ CAPACITY(16)",
    (0xa0, None): "REPORT LUNS",
    (0xa3, 0x0a): "REPORT TARGET PORT GROUPS",
    (0xa3, 0x0c): "REPORT SUPPORTED OPERATION CODES",
    (0xa3, 0x0d): "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS",
    (0x08, None): "READ(6)",
    (0x0a, None): "WRITE(6)",
    (0x28, None): "READ(10)",
    (0x2a, None): "WRITE(10)",
    (0xa8, None): "READ(12)",
    (0xaa, None): "WRITE(12)",
    (0x88, None): "READ(16)",
    (0x8a, None): "WRITE(16)",
    (0x35, None): "SYNCHRONIZE CACHE(10)",
    (0x91, None): "SYNCHRONIZE CACHE(16)",
    (0x2f, None): "VERIFY(10)",
    (0x8f, None): "VERIFY(16)",
    (0x1b, None): "START STOP UNIT",
}
# CDB bits these commands have fields in (SPC-4, SBC-3): their CDB USAGE
# DATA must mark them used
USED = {
    (0x03, None): {1: 0x01, 4: 0xff},
    (0x12, None): {1: 0x01, 2: 0xff, 3: 0xff, 4: 0xff},
    (0x1a, None): {2: 0xff, 4: 0xff},
    (0x28, None): {2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 7: 0xff, 8: 0xff},
    (0x2a, None): {2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 7: 0xff, 8: 0xff},
    (0x88, None): {i: 0xff for i in range(2, 14)},
    (0x8a, None): {i: 0xff for i in range(2, 14)},
    (0x9e, 0x10): {10: 0xff, 11: 0xff, 12: 0xff, 13: 0xff},
    (0xa0, None): {2: 0xff, 6: 0xff, 7: 0xff, 8: 0xff, 9: 0xff},
    (0xa3, 0x0c): {2: 0x87, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff,
                   8: 0xff, 9: 0xff},
}


# what undoes a command sent with an all-zero CDB: STOP (START STOP
# UNIT), RESERVE(6), RESERVE(10) (a reservation makes PERSISTENT RESERVE
# commands answer RESERVATION CONFLICT)
UNDO = {0x1b: [0x1b, 0, 0, 0, 0x01, 0],
        0x16: [0x17, 0, 0, 0, 0, 0],
        0x56: [0x57] + [0] * 9}


def be16(b):
    return int.from_bytes(b[:2], "big")


def name(op, sa):
    return REQUIRED.get((op, sa), "%02x" % op + ("/%02x" % sa
                                                 if sa is not None else ""))


@pytest.fixture
def scratch(stack):
    """A 64 MiB LUN of this test: dev, sg (its /dev/sdX and /dev/sgN),
    fd (the sg device, open), blk (the disk, open)."""
    tpg = mk_target()
    link_lun(tpg, 0, mk_rd("op0", 64 * MiB))
    d = dict(dev=disk(tpg, 0), sg=sgdev(tpg, 0))
    tur(d["dev"])
    d["fd"] = os.open(d["sg"], os.O_RDWR)
    d["blk"] = os.open(d["dev"], os.O_RDWR)
    yield d
    os.close(d["blk"])
    os.close(d["fd"])


def unit_attention(st, sense):
    return st == CHECK and bool(sense) and \
        kcq(sense)[0] == UNIT_ATTENTION


def cmd(fd, cdb, din=0, dout=None):
    """sgio(), sent again while the LUN answers UNIT ATTENTION."""
    for _ in range(5):
        st, sense, data, h = sgio(fd, cdb, din=din, dout=dout)
        if not unit_attention(st, sense):
            return st, sense, data, h
    raise AssertionError("unit attentions do not stop: %s" % bytes(cdb).hex())


def io(fd, cdb, direction, addr, length):
    """sg_io() on a caller's buffer, sent again on UNIT ATTENTION."""
    for _ in range(5):
        st, sense, h = sg_io(fd, cdb, direction, addr, length)
        if not unit_attention(st, sense):
            return st, sense, h
    raise AssertionError("unit attentions do not stop: %s" % bytes(cdb).hex())


def send(fd, op, cdb):
    """A command as the consistency checks send it: a 4 KiB data-in buffer
    for data-in opcodes, no buffer otherwise. Returns (status, sense)."""
    st, sense, _, _ = cmd(fd, cdb, din=ALLOC if op in DATA_IN else 0)
    return st, sense


class PageBuf:
    """Anonymous mmap'd memory, so page-aligned: SG_IO on the disk maps
    these pages for the command instead of copying them."""

    def __init__(self, fill=PATTERN):
        self.m = mmap.mmap(-1, len(fill))
        self.m[:] = fill
        self._c = ctypes.c_char.from_buffer(self.m)
        self.addr = ctypes.addressof(self._c)

    def bytes(self):
        return bytes(self.m)

    def close(self):
        del self._c
        self.m.close()


# ---------------------------------------------------------- data direction
DATA_IN_CDBS = {
    "INQUIRY": [0x12, 0, 0] + be(ALLOC, 2) + [0],
    "READ CAPACITY(10)": [0x25] + [0] * 9,
    "READ CAPACITY(16)": [0x9e, 0x10] + [0] * 8 + be(ALLOC, 4) + [0, 0],
    "MODE SENSE(6)": [0x1a, 0, 0x3f, 0, 0xff, 0],
    "MODE SENSE(10)": [0x5a, 0, 0x3f, 0, 0, 0, 0] + be(ALLOC, 2) + [0],
    "REPORT LUNS": [0xa0] + [0] * 5 + be(ALLOC, 4) + [0, 0],
}


@pytest.mark.tcmx_only
def test_data_in_commands_refuse_a_data_out_buffer(scratch):
    """Each sent with DATA-OUT (the in-tree LIO answers into the pages of
    the caller's data-out buffer): CHECK CONDITION 05/24/00, the buffer
    byte for byte as it was."""
    got = {}
    for what, cdb in DATA_IN_CDBS.items():
        buf = PageBuf()
        try:
            st, sense, _ = io(scratch["blk"], cdb, SG_DXFER_TO_DEV, buf.addr,
                              ALLOC)
            got[what] = (st, kcq(sense), buf.bytes() == PATTERN)
        finally:
            buf.close()
    assert got == {w: (CHECK, INVALID_FIELD, True)
                   for w in DATA_IN_CDBS}


@pytest.mark.tcmx_only
def test_read_write_refuse_the_wrong_direction(scratch):
    """READ(10) of one block with a DATA-OUT buffer, WRITE(10) of one
    block with a DATA-IN buffer: 05/24/00; neither the buffer nor the
    block changes."""
    fd, lba = scratch["fd"], 10
    old = bytes((i * 13 + 5) & 0xff for i in range(BLOCK))
    read10 = [0x28, 0] + be(lba, 4) + [0, 0, 1, 0]
    write10 = [0x2a, 0] + be(lba, 4) + [0, 0, 1, 0]
    st, sense, _, _ = cmd(fd, write10, dout=old)
    assert (st, sense) == (GOOD, b"")
    buf = PageBuf()
    try:
        st, sense, _ = io(scratch["blk"], read10, SG_DXFER_TO_DEV, buf.addr,
                          BLOCK)
        assert (st, kcq(sense)) == (CHECK, INVALID_FIELD)
        assert buf.bytes() == PATTERN
        st, sense, _ = io(scratch["blk"], write10, SG_DXFER_FROM_DEV,
                          buf.addr, BLOCK)
        assert (st, kcq(sense)) == (CHECK, INVALID_FIELD)
    finally:
        buf.close()
    st, sense, data, _ = cmd(fd, read10, din=BLOCK)
    assert (st, sense) == (GOOD, b"")
    assert data == old


# ------------------------------------------- REPORT SUPPORTED OPERATION CODES
def rsoc_cdb(options=0, op=0, sa=0, rctd=False, alloc=8192):
    return [0xa3, 0x0c, (0x80 if rctd else 0) | options, op] + be(sa, 2) + \
        be(alloc, 4) + [0, 0]


def all_commands(fd, rctd=False):
    """REPORTING OPTIONS 000: [(opcode, service action or None, CDB
    length)], in the order reported, each descriptor's format checked."""
    st, sense, data, _ = cmd(fd, rsoc_cdb(rctd=rctd), din=8192)
    assert (st, sense) == (GOOD, b""), kcq(sense)
    length = int.from_bytes(data[:4], "big")
    assert len(data) == 4 + length < 8192, (len(data), length)
    size = 20 if rctd else 8
    assert length and length % size == 0, length
    cmds = []
    for off in range(4, len(data), size):
        d = data[off:off + size]
        servactv, ctdp = d[5] & 0x01, d[5] >> 1 & 1
        assert d[1] == 0 and d[4] == 0 and d[5] & 0xfc == 0, d.hex()
        assert ctdp == rctd, d.hex()
        if not servactv:
            assert be16(d[2:4]) == 0, d.hex()
        if rctd:        # command timeouts descriptor
            assert be16(d[8:10]) == 0x000a, d.hex()
        cmds.append((d[0], be16(d[2:4]) if servactv else None,
                     be16(d[6:8])))
    return cmds


def one_command(fd, options, op, sa=0):
    """REPORTING OPTIONS 001/010/011: (status, SUPPORT field, CDB USAGE
    DATA) when GOOD, else (status, (key, asc, ascq), None)."""
    st, sense, data, _ = cmd(fd, rsoc_cdb(options, op, sa, alloc=512),
                             din=512)
    if st != GOOD:
        return st, kcq(sense), None
    assert data[0] == 0 and data[1] & 0x80 == 0, data[:4].hex()   # no CTDP
    size = be16(data[2:4])
    assert len(data) == 4 + size, data.hex()
    return st, data[1] & 0x07, data[4:]


def base_cdb(op, sa, length):
    """A CDB of length bytes, zero but for the opcode and service action."""
    cdb = [0] * length
    cdb[0] = op
    if sa is not None:
        if op == 0x7f:
            cdb[8:10] = be(sa, 2)
        else:
            assert sa < 0x20, (op, sa)
            cdb[1] = sa
    return cdb


@pytest.mark.tcmx_only
def test_rsoc_all_commands(scratch):
    """The list: well-formed, no duplicates, the commands a Linux
    initiator uses, CDB lengths of their opcode groups; RCTD=1 gives the
    same list with timeouts descriptors; a short allocation length
    truncates, COMMAND DATA LENGTH staying the full length."""
    fd = scratch["fd"]
    cmds = all_commands(fd)
    keys = [(op, sa) for op, sa, _ in cmds]
    assert len(set(keys)) == len(keys), keys
    wrong = [(name(op, sa), n) for op, sa, n in cmds
             if op >> 5 in GROUP_LEN and n != GROUP_LEN[op >> 5]]
    assert not wrong, wrong
    # an opcode has service actions or has not
    sa_ops = {op for op, sa, _ in cmds if sa is not None}
    assert not [op for op, sa, _ in cmds if sa is None and op in sa_ops]
    assert all_commands(fd, rctd=True) == cmds
    st, sense, full, _ = cmd(fd, rsoc_cdb(), din=8192)
    assert st == GOOD
    for alloc in (0, 2, 4, 5, 13, len(full) - 1):
        st, sense, data, _ = cmd(fd, rsoc_cdb(alloc=alloc), din=8192)
        assert (st, sense, data) == (GOOD, b"", full[:alloc]), alloc
    st, sense, data, _ = cmd(fd, rsoc_cdb(rctd=True, alloc=30), din=8192)
    assert (st, len(data)) == (GOOD, 30)
    assert int.from_bytes(data[:4], "big") == 20 * len(cmds)
    missing = [REQUIRED[k] for k in REQUIRED if k not in keys]
    assert not missing, missing


@pytest.mark.tcmx_only
def test_rsoc_one_command(scratch):
    """Each listed command asked alone agrees with the list (SUPPORT 011b,
    same CDB size, usage byte 0 the opcode, the service action in byte 1);
    the wrong reporting option for it is 05/24/00; an opcode not listed,
    or a service action not listed, is SUPPORT 001b with no usage data."""
    fd = scratch["fd"]
    cmds = all_commands(fd)
    listed = {(op, sa): n for op, sa, n in cmds}
    ops = {op for op, _, _ in cmds}
    sa_ops = {op for op, sa, _ in cmds if sa is not None}
    bad = []

    def check(what, got, want):
        if got != want:
            bad.append("%s: %s, want %s" % (what, got, want))

    for (op, sa), n in listed.items():
        what = name(op, sa)
        if sa is None:
            asks = [(1, 0), (1, 5), (3, 0), (3, 5)]      # SA ignored
            check(what + " option 010", one_command(fd, 2, op),
                  (CHECK, INVALID_FIELD, None))
        else:
            asks = [(2, sa), (3, sa)]
            check(what + " option 001", one_command(fd, 1, op, sa),
                  (CHECK, INVALID_FIELD, None))
        for options, rsa in asks:
            st, support, usage = one_command(fd, options, op, rsa)
            check("%s option %d sa %d" % (what, options, rsa),
                  (st, support), (GOOD, 3))
            if usage is None:
                continue
            check(what + " usage length", len(usage), n)
            check(what + " usage byte 0", usage[:1], bytes([op]))
            if sa is not None and op != 0x7f:
                check(what + " usage SA", usage[1] & 0x1f, sa)
            elif sa is not None:
                check(what + " usage SA", be16(usage[8:10]), sa)
            for i, bits in USED.get((op, sa), {}).items():
                check("%s usage byte %d" % (what, i),
                      usage[i] & bits, bits)
    for op in range(256):
        if op not in ops:
            check("%02x option 001" % op, one_command(fd, 1, op),
                  (GOOD, 1, b""))
    for op in sorted(sa_ops - {0x7f}):
        for sa in range(0x20):
            if (op, sa) not in listed:
                check("%02x/%02x option 010" % (op, sa),
                      one_command(fd, 2, op, sa), (GOOD, 1, b""))
    assert not bad, "%d wrong:\n%s" % (len(bad), "\n".join(bad[:40]))


@pytest.mark.tcmx_only
def test_rsoc_matches_what_opcodes_do(scratch):
    """Every listed command, sent with its CDB length and zero fields, is
    not 05/20/00 INVALID COMMAND OPERATION CODE; every opcode not listed
    is; a service action not listed for an opcode that has some is
    05/24/00 INVALID FIELD IN CDB."""
    fd = scratch["fd"]
    cmds = all_commands(fd)
    listed = {(op, sa) for op, sa, _ in cmds}
    ops = {op for op, _, _ in cmds}
    bad = []
    for op, sa, n in cmds:
        st, sense = send(fd, op, base_cdb(op, sa, n))
        if st == CHECK and kcq(sense) == ILLEGAL_OPCODE:
            bad.append("%s listed, but: 05/20/00" % name(op, sa))
        if op in UNDO:          # leave the LUN as it was for the next
            cmd(fd, UNDO[op])
    for op in range(256):
        if op in ops:
            continue
        st, sense = send(fd, op, [op] + [0] * (GROUP_LEN.get(op >> 5, 10)
                                               - 1))
        if (st, kcq(sense)) != (CHECK, ILLEGAL_OPCODE):
            bad.append("%02x not listed, but: status %d, %s"
                       % (op, st, kcq(sense)))
    for op, n in sorted({(op, n) for op, sa, n in cmds
                         if sa is not None and op != 0x7f}):
        for sa in range(0x20):
            if (op, sa) in listed:
                continue
            st, sense = send(fd, op, base_cdb(op, sa, n))
            if (st, kcq(sense)) != (CHECK, INVALID_FIELD):
                bad.append("%02x/%02x not listed, but: status %d, %s"
                           % (op, sa, st, kcq(sense)))
    assert not bad, "%d wrong:\n%s" % (len(bad), "\n".join(bad[:40]))


@pytest.mark.tcmx_only
def test_sg_opcodes_and_tmf(scratch):
    """sg_opcodes reads the same list as the raw command; --tmf and REPORT
    SUPPORTED TASK MANAGEMENT FUNCTIONS show ABORT TASK and LOGICAL UNIT
    RESET."""
    t = tool("sg_opcodes", scratch["sg"])
    # opcode, (service action,) CDB size, (sg3_utils 1.46: RWCDLP,CDLP,) name
    assert re.search(r"^\s*12\s+6\s+(?:\S+\s+)?Inquiry\s*$", t, re.M), t
    assert "Report supported operation codes" in t, t
    t = tool("sg_opcodes", "--tmf", scratch["sg"])
    assert re.search(r"^\s*Abort task\s*$", t, re.M | re.I), t
    assert re.search(r"^\s*Logical unit reset\s*$", t, re.M | re.I), t
    st, sense, data, _ = cmd(scratch["fd"], [0xa3, 0x0d, 0, 0, 0, 0] +
                             be(4, 4) + [0, 0], din=4)
    assert (st, sense) == (GOOD, b"")
    assert data[0] & 0x88 == 0x88, data.hex()      # ATS, LURS


# ------------------------------------------ reserved bits, field pointer
def field_pointer_wrong(st, sense, byte, bit):
    """None if sense is CHECK CONDITION 05/24/00 in fixed format with a
    valid sense-key-specific field pointer to the CDB's byte and bit;
    otherwise what is wrong."""
    if st != CHECK or len(sense) < 18:
        return "status %d, sense %s" % (st, sense.hex())
    if sense[0] & 0x7f != 0x70 or kcq(sense) != INVALID_FIELD or \
            sense[7] < 10:
        return "sense %s" % sense[:18].hex()
    # SKSV, C/D (the CDB), BPV, BIT POINTER; FIELD POINTER
    if sense[15] != 0xc8 | bit or be16(sense[16:18]) != byte:
        return "sense-key specific %s" % sense[15:18].hex()
    return None


@pytest.mark.tcmx_only
def test_reserved_cdb_bits(scratch):
    """For every listed command, each CDB bit its usage data marks unused
    (control byte included), set alone: 05/24/00 pointing at that byte
    and bit."""
    fd = scratch["fd"]
    bad, sent = [], 0
    for op, sa, n in all_commands(fd):
        st, support, usage = one_command(fd, 1 if sa is None else 2, op,
                                         sa or 0)
        assert (st, support, usage and len(usage)) == (GOOD, 3, n), \
            name(op, sa)
        base = base_cdb(op, sa, n)
        for i in range(1, n):
            for b in range(8):
                if usage[i] >> b & 1:
                    continue
                if sa is not None and (i == 1 and b < 5 if op != 0x7f
                                       else i in (8, 9)):
                    continue        # the service action field
                cdb = list(base)
                cdb[i] |= 1 << b
                st, sense = send(fd, op, cdb)
                sent += 1
                why = field_pointer_wrong(st, sense, i, b)
                if why:
                    bad.append("%s byte %d bit %d: %s"
                               % (name(op, sa), i, b, why))
    assert sent >= 100, sent
    assert not bad, "%d of %d wrong:\n%s" % (len(bad), sent,
                                             "\n".join(bad[:40]))


@pytest.mark.tcmx_only
def test_field_pointer_examples(scratch):
    """READ(10) with RDPROTECT=001b (no protection information) points at
    byte 1 bit 5; INQUIRY with CMDDT at byte 1 bit 1; the sense data fit
    in a 96-byte buffer, additional sense length at least 10."""
    fd = scratch["fd"]
    st, sense, _, _ = cmd(fd, [0x28, 0x20, 0, 0, 0, 0, 0, 0, 1, 0], din=BLOCK)
    assert field_pointer_wrong(st, sense, 1, 5) is None, sense.hex()
    st, sense, _, _ = cmd(fd, [0x12, 0x02, 0, 0, 36, 0], din=36)
    assert field_pointer_wrong(st, sense, 1, 1) is None, sense.hex()


# ------------------------------------------------------------ REQUEST SENSE
FIXED_NO_SENSE = bytes([0x70, 0, 0, 0, 0, 0, 0, 10]) + bytes(10)
DESC_NO_SENSE = bytes([0x72]) + bytes(7)


def test_request_sense_fixed(scratch):
    """Nothing pending, DESC=0: fixed format, NO SENSE, 00/00."""
    fd = scratch["fd"]
    st, sense, data, _ = cmd(fd, [0x03, 0, 0, 0, 18, 0], din=18)
    assert (st, sense, data) == (GOOD, b"", FIXED_NO_SENSE)
    st, sense, data, _ = cmd(fd, [0x03, 0, 0, 0, 252, 0], din=252)
    assert (st, sense) == (GOOD, b"")
    assert data[:18] == FIXED_NO_SENSE and not any(data[18:]), data.hex()


@pytest.mark.tcmx_only
def test_request_sense_lengths_and_descriptor_format(scratch):
    """Fixed format is 18 bytes whatever the allocation length allows;
    DESC=1: descriptor format, 8 bytes, NO SENSE, 00/00; a short
    allocation length truncates."""
    fd = scratch["fd"]
    st, sense, data, _ = cmd(fd, [0x03, 0, 0, 0, 252, 0], din=252)
    assert (st, sense, data) == (GOOD, b"", FIXED_NO_SENSE)
    st, sense, data, _ = cmd(fd, [0x03, 0x01, 0, 0, 252, 0], din=252)
    assert (st, sense, data) == (GOOD, b"", DESC_NO_SENSE)
    st, sense, data, _ = cmd(fd, [0x03, 0, 0, 0, 4, 0], din=252)
    assert (st, sense, data) == (GOOD, b"", FIXED_NO_SENSE[:4])
    st, sense, data, _ = cmd(fd, [0x03, 0x01, 0, 0, 4, 0], din=252)
    assert (st, sense, data) == (GOOD, b"", DESC_NO_SENSE[:4])
