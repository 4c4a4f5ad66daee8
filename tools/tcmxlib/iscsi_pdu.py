# SPDX-License-Identifier: GPL-2.0
"""A raw iSCSI initiator over one TCP socket (RFC 7143, no open-iscsi):
PDUs built and parsed by hand, so that tests can send what no initiator
sends (continued login PDUs, a non-zero TSIH) and the PDU fuzzer
(tcmxlib.iscsi_fuzz, tools/fuzz-iscsi) can send malformed ones.

Imported by name: `from tcmxlib import iscsi_pdu`.

bhs()          a 48-byte Basic Header Segment from its fields
crc32c()       the iSCSI digest (CRC32C), as sent: 4 bytes little-endian
kv(), parse_kv() key=value text, both ways
Pdu            a received PDU: op, flags, bhs, data; be32() of a field
Conn           a connection: send()/send_raw(), recv() (None once the
               target closed), login() (no CHAP; a LoginError carries a
               refusal's status), scsi() (a command with its Data-In,
               Data-Out on R2T, status and sense), tur(), nop(), logout(),
               settle() (what the target did after a PDU: "reject",
               "closed", "answered" or "stuck")
"""
import socket
import struct
import time

OP_NOOP_OUT, OP_SCSI_CMD, OP_TMF, OP_LOGIN, OP_TEXT = 0x00, 0x01, 0x02, \
    0x03, 0x04
OP_DATA_OUT, OP_LOGOUT, OP_SNACK = 0x05, 0x06, 0x10
OP_NOOP_IN, OP_SCSI_RSP, OP_TMF_RSP, OP_LOGIN_RSP = 0x20, 0x21, 0x22, 0x23
OP_TEXT_RSP, OP_DATA_IN, OP_LOGOUT_RSP, OP_R2T = 0x24, 0x25, 0x26, 0x31
OP_ASYNC, OP_REJECT = 0x32, 0x3f
IMMEDIATE = 0x40
F_FINAL, F_READ, F_WRITE = 0x80, 0x40, 0x20
LOGIN_T, LOGIN_C = 0x80, 0x40
RESERVED = 0xffffffff
ISID = bytes.fromhex("80123456789a")
# what the initiator declares and asks for in the operational stage
OP_KEYS = {
    "HeaderDigest": "None", "DataDigest": "None",
    "MaxRecvDataSegmentLength": "65536", "ImmediateData": "Yes",
    "InitialR2T": "Yes", "MaxBurstLength": "262144",
    "FirstBurstLength": "65536", "MaxOutstandingR2T": "1",
    "ErrorRecoveryLevel": "0", "MaxConnections": "1",
    "DefaultTime2Wait": "2", "DefaultTime2Retain": "0",
    "DataPDUInOrder": "Yes", "DataSequenceInOrder": "Yes",
    "IFMarker": "No", "OFMarker": "No",
}


def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82f63b78 if c & 1 else c >> 1
        t.append(c)
    return t


_CRC = _crc_table()


def crc32c(data):
    """The digest of data as it goes on the wire (4 bytes)."""
    c = 0xffffffff
    for b in data:
        c = _CRC[(c ^ b) & 0xff] ^ (c >> 8)
    return struct.pack("<I", c ^ 0xffffffff)


def pad4(n):
    return -n & 3


def bhs(op, flags=0, b2=0, b3=0, ahs_words=0, dlen=0, lun=b"\0" * 8,
        itt=0, f20=0, f24=0, f28=0, f32=0, f36=0, f40=0, f44=0, cdb=None):
    """A BHS: byte 0 op (with IMMEDIATE or'ed in by the caller), byte 1
    flags, bytes 2-3, TotalAHSLength, DataSegmentLength, bytes 8-15 (LUN,
    or ISID and TSIH), ITT, then the 32-bit words at 20..44 (or a CDB at
    32..47)."""
    h = struct.pack(">BBBBB", op, flags, b2, b3, ahs_words)
    h += dlen.to_bytes(3, "big") + bytes(lun)[:8].ljust(8, b"\0")
    h += struct.pack(">IIIIIIII", itt & RESERVED, f20 & RESERVED,
                     f24 & RESERVED, f28 & RESERVED, f32 & RESERVED,
                     f36 & RESERVED, f40 & RESERVED, f44 & RESERVED)
    if cdb is not None:
        h = h[:32] + bytes(cdb)[:16].ljust(16, b"\0")
    return h


def kv(pairs):
    """key=value text: a dict or a list of pairs, each NUL-terminated."""
    items = pairs.items() if isinstance(pairs, dict) else pairs
    return b"".join(("%s=%s" % (k, v)).encode() + b"\0" for k, v in items)


def parse_kv(data):
    out = {}
    for item in data.split(b"\0"):
        if b"=" in item:
            k, _, v = item.partition(b"=")
            out[k.decode(errors="replace")] = v.decode(errors="replace")
    return out


class Pdu:
    def __init__(self, hdr, data):
        self.bhs = hdr
        self.op = hdr[0] & 0x3f
        self.flags = hdr[1]
        self.data = data

    def be32(self, off):
        return struct.unpack(">I", self.bhs[off:off + 4])[0]

    @property
    def itt(self):
        return self.be32(16)

    def __repr__(self):
        return "Pdu(op=0x%02x flags=0x%02x dlen=%d)" % (self.op, self.flags,
                                                        len(self.data))


class LoginError(Exception):
    """A Login Response with a non-zero status: .status (class << 8 |
    detail), .pdu."""

    def __init__(self, pdu):
        self.pdu = pdu
        self.status = pdu.bhs[36] << 8 | pdu.bhs[37]
        super().__init__("login refused: 0x%04x" % self.status)


class Conn:
    """One TCP connection to addr:port; a context manager (closes)."""

    def __init__(self, addr="127.0.0.1", port=3260, timeout=10):
        self.sock = socket.create_connection((addr, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.hd = self.dd = False       # digests, once negotiated
        self.itt = 0x1000
        self.cmdsn = 1
        self.exp_statsn = 0
        self.tsih = 0
        self.isid = ISID
        self.cid = 0
        self.keys = {}                  # what the target answered
        self.max_xmit = 8192            # the target's MaxRecvDSL

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def next_itt(self):
        self.itt = (self.itt + 1) & 0x7fffffff
        return self.itt

    # --- the wire
    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, hdr, data=b"", ahs=b"", bad_hd=False, bad_dd=False):
        """A PDU: hdr's DataSegmentLength and TotalAHSLength are the
        caller's; digests added when negotiated (bad_*: a wrong one)."""
        out = hdr + ahs
        if self.hd:
            d = crc32c(out)
            out += bytes(b ^ 0xff for b in d) if bad_hd else d
        body = data + b"\0" * pad4(len(data))
        out += body
        if self.dd and data:
            d = crc32c(body)
            out += bytes(b ^ 0xff for b in d) if bad_dd else d
        self.sock.sendall(out)

    def _recv_n(self, n):
        buf = b""
        while len(buf) < n:
            b = self.sock.recv(n - len(buf))
            if not b:
                return None
            buf += b
        return buf

    def recv(self, timeout=None):
        """The next PDU, or None when the target closed (or reset) the
        connection; socket.timeout when nothing came in time."""
        self.sock.settimeout(timeout or self.timeout)
        try:
            hdr = self._recv_n(48)
            if hdr is None:
                return None
            extra = hdr[4] * 4 + (4 if self.hd else 0)
            if extra and self._recv_n(extra) is None:
                return None
            dlen = int.from_bytes(hdr[5:8], "big")
            n = dlen + pad4(dlen) + (4 if self.dd and dlen else 0)
            data = self._recv_n(n) if n else b""
            if data is None:
                return None
        except (ConnectionResetError, BrokenPipeError):
            return None
        pdu = Pdu(hdr, data[:dlen])
        if pdu.op in (OP_NOOP_IN, OP_SCSI_RSP, OP_TMF_RSP, OP_LOGIN_RSP,
                      OP_TEXT_RSP, OP_LOGOUT_RSP, OP_REJECT, OP_ASYNC) or \
                (pdu.op == OP_DATA_IN and pdu.flags & 1):
            self.exp_statsn = (pdu.be32(24) + 1) & RESERVED
        return pdu

    def answer(self, timeout=None):
        """The next PDU, or what came instead: "stuck" (nothing in
        timeout seconds) or "closed" (the end, or an error)."""
        try:
            p = self.recv(timeout)
        except socket.timeout:
            return "stuck"
        except OSError:
            return "closed"
        return "closed" if p is None else p

    # --- login
    def login_pdu(self, data, csg, nsg, transit=True, cont=False, itt=None,
                  tsih=None):
        """One Login Request; the Login Response (a Pdu) or None."""
        flags = csg << 2 | nsg | (LOGIN_T if transit else 0) | \
            (LOGIN_C if cont else 0)
        lun = self.isid + (self.tsih if tsih is None else tsih).to_bytes(
            2, "big")
        h = bhs(OP_LOGIN | IMMEDIATE, flags, 0, 0, 0, len(data), lun,
                self.itt if itt is None else itt, self.cid << 16,
                self.cmdsn, self.exp_statsn)
        self.send(h, data)
        return self.recv()

    def login_step(self, data, csg, nsg, **kw):
        """login_pdu() that raises LoginError on a refusal or a close."""
        p = self.login_pdu(data, csg, nsg, **kw)
        if p is None:
            raise ConnectionError("the target closed the connection")
        if p.op != OP_LOGIN_RSP:
            raise ConnectionError("not a Login Response: %r" % p)
        if p.bhs[36]:
            raise LoginError(p)
        self.keys.update(parse_kv(p.data))
        return p

    def login(self, initiator, target=None, keys=None, digest=False,
              tsih=0):
        """Log in: the security stage (AuthMethod=None), then the
        operational one with OP_KEYS (updated with keys; digest: CRC32C
        both ways), until the target goes to the full feature phase.
        Returns the target's keys."""
        self.tsih = tsih
        first = [("InitiatorName", initiator)]
        if target:
            first += [("TargetName", target), ("SessionType", "Normal")]
        else:
            first += [("SessionType", "Discovery")]
        first += [("AuthMethod", "None")]
        p = self.login_step(kv(first), 0, 1)
        for _ in range(8):
            if p.flags & LOGIN_T:
                break
            p = self.login_step(b"", 0, 1)
        want = dict(OP_KEYS, **(keys or {}))
        if digest:
            want.update(HeaderDigest="CRC32C", DataDigest="CRC32C")
        p = self.login_step(kv(want), 1, 3)
        for _ in range(8):
            if p.flags & LOGIN_T and p.flags & 3 == 3:
                break
            p = self.login_step(b"", 1, 3)
        else:
            raise ConnectionError("no transit to the full feature phase")
        self.tsih = int.from_bytes(p.bhs[14:16], "big")
        self.hd = self.keys.get("HeaderDigest") == "CRC32C"
        self.dd = self.keys.get("DataDigest") == "CRC32C"
        self.max_xmit = int(self.keys.get("MaxRecvDataSegmentLength",
                                          "8192"))
        return self.keys

    # --- full feature phase
    def _scsi_hdr(self, cdb, read_len, write_len, lun, imm_len):
        flags = F_FINAL | (F_READ if read_len else 0) | \
            (F_WRITE if write_len else 0) | 1       # SIMPLE
        h = bhs(OP_SCSI_CMD, flags, 0, 0, 0, imm_len,
                bytes([0, lun, 0, 0, 0, 0, 0, 0]), self.next_itt(),
                read_len or write_len, self.cmdsn, self.exp_statsn,
                cdb=cdb)
        self.cmdsn = (self.cmdsn + 1) & RESERVED
        return h

    def _data_out(self, itt, ttt, data, off, length, lun):
        sn = 0
        end = off + length
        while off < end:
            n = min(end - off, self.max_xmit)
            h = bhs(OP_DATA_OUT, F_FINAL if off + n == end else 0, 0, 0, 0,
                    n, bytes([0, lun, 0, 0, 0, 0, 0, 0]), itt, ttt, 0,
                    self.exp_statsn, 0, sn, off)
            self.send(h, data[off:off + n])
            off += n
            sn += 1

    def scsi(self, cdb, read_len=0, write=b"", lun=0, timeout=None):
        """A SCSI command: (status, data read, sense); ConnectionError
        when the connection ends first."""
        imm = write[:min(len(write), self.max_xmit,
                         int(self.keys.get("FirstBurstLength", "65536")))]
        if self.keys.get("ImmediateData", "Yes") != "Yes":
            imm = b""
        self.send(self._scsi_hdr(cdb, read_len, len(write), lun, len(imm)),
                  imm)
        itt = self.itt
        buf = bytearray(read_len)
        while True:
            p = self.recv(timeout)
            if p is None:
                raise ConnectionError("connection closed during a command")
            if p.op == OP_NOOP_IN and p.be32(20) != RESERVED:
                self.nop_answer(p)
                continue
            if p.itt != itt:
                if p.op == OP_REJECT:
                    raise ConnectionError("command rejected: %r" % p)
                continue
            if p.op == OP_R2T:
                self._data_out(itt, p.be32(20), write, p.be32(40),
                               p.be32(44), lun)
            elif p.op == OP_DATA_IN:
                off = p.be32(40)
                buf[off:off + len(p.data)] = p.data
                if p.flags & 1:
                    return p.bhs[3], bytes(buf), b""
            elif p.op == OP_SCSI_RSP:
                sense = p.data[2:2 + int.from_bytes(p.data[:2], "big")] \
                    if len(p.data) >= 2 else b""
                return p.bhs[3], bytes(buf), sense

    def tur(self, tries=4):
        """TEST UNIT READY until GOOD (the first may report a unit
        attention); the last status."""
        st = None
        for _ in range(tries):
            st, _, _ = self.scsi(bytes(6))
            if st == 0:
                break
        return st

    def nop_answer(self, p):
        """The answer to the target's NOP-In ping."""
        h = bhs(OP_NOOP_OUT | IMMEDIATE, F_FINAL, 0, 0, 0, 0, p.bhs[8:16],
                RESERVED, p.be32(20), self.cmdsn, self.exp_statsn)
        self.send(h)

    def nop(self, itt=None):
        """Send an immediate NOP-Out ping; returns its ITT."""
        itt = self.next_itt() if itt is None else itt
        h = bhs(OP_NOOP_OUT | IMMEDIATE, F_FINAL, 0, 0, 0, 0, b"\0" * 8,
                itt, RESERVED, self.cmdsn, self.exp_statsn)
        self.send(h)
        return itt

    def logout(self):
        h = bhs(OP_LOGOUT | IMMEDIATE, F_FINAL, 0, 0, 0, 0, b"\0" * 8,
                self.next_itt(), self.cid << 16, self.cmdsn, self.exp_statsn)
        self.send(h)
        return self.recv()

    def settle(self, timeout=5, ping=True):
        """What the target did with what was sent: a NOP-Out ping after
        it (ping), then the PDUs until a Reject ("reject"), the close
        ("closed") or the ping's answer ("answered"); nothing in timeout
        seconds with the connection open: "stuck"."""
        try:
            itt = self.nop() if ping else None
        except OSError:
            return "closed"
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return "stuck"
            p = self.answer(left)
            if isinstance(p, str):
                return p
            if p.op == OP_REJECT:
                return "reject"
            if p.op == OP_NOOP_IN and itt is not None and p.itt == itt:
                return "answered"
            if p.op == OP_NOOP_IN and p.be32(20) != RESERVED:
                try:
                    self.nop_answer(p)
                except OSError:
                    return "closed"
