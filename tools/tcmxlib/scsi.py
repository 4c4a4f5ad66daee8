# SPDX-License-Identifier: GPL-2.0
"""SCSI commands: SG_IO by ioctl, sg3_utils, unit attentions."""
import ctypes
import fcntl
import os
import re

from .host import run
from .sense import CHECK, GOOD, kcq


def be(v, n):
    """v as n big-endian bytes, a list (what does not fit is dropped)."""
    return list((v & ((1 << (8 * n)) - 1)).to_bytes(n, "big"))


def rw_cdb(op, lba, n, b1=0):
    """A READ/WRITE/VERIFY-style CDB (LBA and transfer length) of the
    size of op's group: 10 bytes (groups 1, 2), 12 (group 5), 16 (4)."""
    size = {1: 10, 2: 10, 5: 12, 4: 16}[op >> 5]
    if size == 10:
        return [op, b1] + be(lba, 4) + [0] + be(n, 2) + [0]
    if size == 12:
        return [op, b1] + be(lba, 4) + be(n, 4) + [0, 0]
    return [op, b1] + be(lba, 8) + be(n, 4) + [0, 0]


def caw_cdb(lba, n, b1=0):
    """COMPARE AND WRITE of n blocks at lba (byte 1: b1)."""
    return [0x89, b1] + be(lba, 8) + [0, 0, 0, n, 0, 0]


class SgIoHdr(ctypes.Structure):
    _fields_ = [("interface_id", ctypes.c_int),
                ("dxfer_direction", ctypes.c_int),
                ("cmd_len", ctypes.c_ubyte), ("mx_sb_len", ctypes.c_ubyte),
                ("iovec_count", ctypes.c_ushort),
                ("dxfer_len", ctypes.c_uint), ("dxferp", ctypes.c_void_p),
                ("cmdp", ctypes.c_void_p), ("sbp", ctypes.c_void_p),
                ("timeout", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("pack_id", ctypes.c_int), ("usr_ptr", ctypes.c_void_p),
                ("status", ctypes.c_ubyte), ("masked_status", ctypes.c_ubyte),
                ("msg_status", ctypes.c_ubyte), ("sb_len_wr", ctypes.c_ubyte),
                ("host_status", ctypes.c_ushort),
                ("driver_status", ctypes.c_ushort),
                ("resid", ctypes.c_int), ("duration", ctypes.c_uint),
                ("info", ctypes.c_uint)]


SG_IO = 0x2285
SG_DXFER_NONE, SG_DXFER_TO_DEV, SG_DXFER_FROM_DEV = -1, -2, -3


def sg_io(fd, cdb, direction=SG_DXFER_NONE, addr=None, length=0,
          timeout_ms=60000):
    """One SG_IO of cdb on fd with the data buffer at address addr (length
    bytes, moved as direction says: SG_DXFER_*); returns (status, sense
    bytes, hdr). The sense buffer has room for 96 bytes."""
    cdb_buf = ctypes.create_string_buffer(bytes(cdb), len(cdb))
    sense = ctypes.create_string_buffer(96)
    h = SgIoHdr(interface_id=ord("S"), cmd_len=len(cdb), mx_sb_len=96,
                cmdp=ctypes.addressof(cdb_buf), sbp=ctypes.addressof(sense),
                timeout=timeout_ms, dxfer_direction=direction,
                dxfer_len=length, dxferp=addr)
    fcntl.ioctl(fd, SG_IO, h)
    return h.status, sense.raw[:h.sb_len_wr], h


def sgio(fd, cdb, din=0, dout=None, timeout_ms=60000):
    """One SG_IO: data-out bytes dout, or din bytes of data-in, or no
    data; returns (status, sense bytes, data-in bytes, hdr)."""
    if dout is not None:
        buf = ctypes.create_string_buffer(bytes(dout), len(dout))
        d, n = SG_DXFER_TO_DEV, len(dout)
    elif din:
        buf = ctypes.create_string_buffer(din)
        d, n = SG_DXFER_FROM_DEV, din
    else:
        buf, d, n = None, SG_DXFER_NONE, 0
    addr = None if buf is None else ctypes.addressof(buf)
    st, sense, h = sg_io(fd, cdb, d, addr, n, timeout_ms)
    data = buf.raw[:din - h.resid] if din else b""
    return st, sense, data, h


def sgcmd(path, cdb, din=0, dout=None):
    """sgio() on a device node opened for the one command: (status, sense,
    data-in)."""
    fd = os.open(path, os.O_RDWR)
    try:
        st, sense, data, _ = sgio(fd, cdb, din, dout)
    finally:
        os.close(fd)
    return st, sense, data


def cmd(dev, cdb, din=0, dout=None):
    """One command on dev, a device path (opened for the command) or an
    open file descriptor: (status, sense bytes, data-in bytes)."""
    if isinstance(dev, int):
        return sgio(dev, cdb, din, dout)[:3]
    return sgcmd(dev, cdb, din, dout)


def good(dev, cdb, din=0, dout=None):
    """The command (see cmd()) ends in GOOD; returns its data-in."""
    st, sense, data = cmd(dev, cdb, din, dout)
    assert st == GOOD, (bytes(cdb).hex(), st, sense.hex())
    return data


def check(dev, cdb, want, din=0, dout=None):
    """The command (see cmd()) ends in CHECK CONDITION with (key, asc,
    ascq) want; returns its sense bytes."""
    st, sense, _ = cmd(dev, cdb, din, dout)
    assert st == CHECK and kcq(sense) == want, \
        (bytes(cdb).hex(), st, sense.hex())
    return sense


def write_read_block(dev, lba, fill):
    """WRITE(10) one 512-byte block of byte fill at lba of dev, READ(10)
    it back: both GOOD without sense, the block as written."""
    data = bytes([fill]) * 512
    w = [0x2a, 0] + be(lba, 4) + [0, 0, 1, 0]
    st, sense, _ = cmd(dev, w, dout=data)
    assert (st, sense) == (GOOD, b"")
    st, sense, got = cmd(dev, [0x28] + w[1:], din=512)
    assert (st, sense, got) == (GOOD, b"", data)


def prin(dev, sa, alloc=1024):
    """PERSISTENT RESERVE IN, service action sa, that must end GOOD: its
    data-in."""
    return good(dev, [0x5e, sa, 0, 0, 0, 0, 0, alloc >> 8, alloc & 0xff, 0],
                din=alloc)


def prout(dev, sa, key=0, sa_key=0, type_=0, flags=0, plen=24):
    """PERSISTENT RESERVE OUT, service action sa, with the basic parameter
    list (reservation key, service action key, flags: APTPL, ALL_TG_PT,
    SPEC_I_PT), cut or padded to plen bytes: (status, (key, asc, ascq) or
    None)."""
    param = key.to_bytes(8, "big") + sa_key.to_bytes(8, "big") + \
        bytes(4) + bytes([flags, 0, 0, 0])
    param = (param + bytes(max(0, plen - 24)))[:plen]
    st, sense, _ = cmd(dev, [0x5f, sa, type_, 0, 0, 0, 0, 0, plen, 0],
                       dout=param)
    return st, kcq(sense)


def unit_attentions(sg, tries=10):
    """TEST UNIT READY over SG_IO until it is not a unit attention: the
    (key, asc, ascq) of those it consumed, and how it ended (None for
    GOOD, else the other sense's triple)."""
    seen = []
    for _ in range(tries):
        st, sense, _ = sgcmd(sg, [0, 0, 0, 0, 0, 0])
        k = kcq(sense) if st == 0x02 else None
        assert st in (0x00, 0x02), (sg, st)
        if not k or k[0] != 0x6:
            return seen, k
        seen.append(k)
    raise AssertionError("%s: unit attentions do not stop: %s" % (sg, seen))


def ua_clear(sg):
    """unit_attentions() that must end in GOOD: the attentions consumed."""
    seen, last = unit_attentions(sg)
    assert last is None, (sg, seen, last)
    return seen



def vpd83_ports(sg):
    """{designator type: value} of VPD 0x83's relative target port (4) and
    target port group (5) designators."""
    st, sense, data = sgcmd(sg, [0x12, 1, 0x83, 0, 255, 0], din=255)
    assert st == 0, sense
    at, out = 4, {}
    while at + 8 <= len(data):
        kind, ln = data[at + 1] & 0x0f, data[at + 3]
        if kind in (4, 5):
            out[kind] = int.from_bytes(data[at + 6:at + 8], "big")
        at += 4 + ln
    return out



def sg_raw(dev, cdb, rlen=0, data=None):
    """Run sg_raw; returns (status text, (key, asc, ascq) or None, data)."""
    args = ["sg_raw", "-v"]
    out = "/tmp/sg_raw.out"
    if rlen:
        args += ["-r", str(rlen), "-o", out]
    if data is not None:
        with open("/tmp/sg_raw.in", "wb") as f:
            f.write(data)
        args += ["-s", str(len(data)), "-i", "/tmp/sg_raw.in"]
    if os.path.exists(out):
        os.unlink(out)
    p = run(args + [dev] + ["%02x" % b for b in cdb], check=False,
            timeout=120)
    text = p.stdout + p.stderr
    m = re.search(r"SCSI Status: (.+?)\s*$", text, re.M)
    assert m, text
    sense = None
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if "Raw sense data" in ln:
            hx = []
            for h in lines[i + 1:]:
                if not re.fullmatch(r"\s+(?:[0-9a-f]{2}\s*)+", h):
                    break
                hx += h.split()
            sense = kcq(bytes.fromhex("".join(hx)))
            break
    got = b""
    if rlen and os.path.exists(out):
        with open(out, "rb") as f:
            got = f.read()
    return m.group(1), sense, got


def tool(*args):
    """Run an sg3_utils (or other) tool that must succeed; its output."""
    p = run(list(args), timeout=120)
    return p.stdout + p.stderr


def field(text, name):
    """The value after "name=" or "name:" in a tool's output."""
    m = re.search(r"\b%s[=:]\s*(\S+)" % re.escape(name), text)
    assert m, "%s not in:\n%s" % (name, text)
    return m.group(1)


def tur(dev, tries=4):
    """TEST UNIT READY until GOOD, consuming unit attentions (such as
    REPORTED LUNS DATA HAS CHANGED after another LUN came or went)."""
    for _ in range(tries):
        st, sense, _ = sg_raw(dev, [0, 0, 0, 0, 0, 0])
        if st == "Good":
            return
        assert sense and sense[0] == 6, (dev, st, sense)
    raise AssertionError("%s: unit attentions do not stop" % dev)

