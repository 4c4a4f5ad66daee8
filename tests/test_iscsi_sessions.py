# SPDX-License-Identifier: GPL-2.0
"""open-iscsi against the iSCSI fabric over 127.0.0.1 (tcmxlib.iscsi):
SendTargets lists the enabled TPGs' portals; a session's disk takes fio
--verify (4k random and 128k sequential) and an ext4 with bonnie++ on
it; a LUN RESET (sg_reset -d) ends without escalating and I/O goes on;
a logout leaves no session on either side; a connection cut under I/O
(ss -K) is logged in again with the same ISID, the target reinstates the
session, and no data is lost.

Through a raw socket (tcmxlib.iscsi_pdu): a login key list continued over
PDUs (C=1), and logins with a non-zero TSIH (a second connection to a
session, connection reinstatement, an unknown TSIH), answered as in-tree
at MaxConnections=1.

On the tcmx stack they skip while tcmx_iscsi.ko is not built.
"""
import os
import time

import pytest

import tcmxlib
from tcmxlib import MiB, fio, iscsi, iscsi_pdu, run

WHY = iscsi.missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=str(WHY))


@pytest.fixture
def tgt(stack):
    """A target with TPG 1 on 127.0.0.1:3260: LUN 0 (256 MiB) mapped
    to INI_A through an ACL, TPG 2 on 127.0.0.2:3260 (not enabled)."""
    iscsi.load()
    t = iscsi.target()
    tpg = iscsi.tpg(t, 1, portals=(iscsi.ADDR1,))
    _, so = iscsi.rd_lun(tpg, 0, 256 * MiB)
    acl = iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0)])
    tpg2 = iscsi.tpg(t, 2, portals=(iscsi.ADDR2,))
    iscsi.enable(tpg)
    yield dict(iqn=os.path.basename(t), tpg=tpg, tpg2=tpg2, acl=acl, so=so)
    iscsi.unload()


@pytest.fixture
def ini(tgt):
    with iscsi.Initiator(iscsi.INI_A) as i:
        yield i


@pytest.fixture
def sess(tgt, ini):
    """INI_A logged in to TPG 1; its LUN 0: dict(s=session, dev, sg)."""
    ini.discover(iscsi.ADDR1)
    s = ini.login(tgt["iqn"], iscsi.ADDR1)
    dev, sg = iscsi.luns(s, 1)[0]
    tcmxlib.tur(dev)
    return dict(s=s, dev=dev, sg=sg)


def test_sendtargets_lists_enabled_portals(tgt, ini):
    iqn = tgt["iqn"]
    assert ini.discover(iscsi.ADDR1) == [("127.0.0.1:3260", 1, iqn)]
    iscsi.enable(tgt["tpg2"])
    got = sorted(ini.discover(iscsi.ADDR1))
    assert got == [("127.0.0.1:3260", 1, iqn), ("127.0.0.2:3260", 2, iqn)]
    # asked through the other portal, the same answer
    assert sorted(ini.discover(iscsi.ADDR2)) == got
    iscsi.enable(tgt["tpg2"], False)
    assert ini.discover(iscsi.ADDR1) == [("127.0.0.1:3260", 1, iqn)]


def test_login_reaches_the_mapped_lun(tgt, sess):
    s = sess["s"]
    assert s["state"] == "LOGGED_IN" and s["target"] == tgt["iqn"]
    assert s["tpgt"] == 1 and s["initiator"] == iscsi.INI_A
    size = int(tcmxlib.rd("/sys/block/%s/size" %
                          os.path.basename(sess["dev"])))
    assert size * 512 == 256 * MiB
    info = iscsi.session_info(tgt["acl"])
    assert info["sid"] is not None and info["state"] == "LOGGED_IN", \
        info["text"]
    assert "InitiatorName: " + iscsi.INI_A in info["text"]


def fio_verify(dev, rw, bs, size, offset=0):
    """fio writing then verifying (crc32c) size bytes of dev from offset;
    fails on any I/O or verify error."""
    p = run(["fio", "--name=v", "--filename=" + dev, "--ioengine=libaio",
             "--direct=1", "--rw=" + rw, "--bs=" + bs, "--iodepth=16",
             "--size=" + size, "--offset=%d" % offset, "--verify=crc32c",
             "--do_verify=1", "--verify_fatal=1", "--output-format=terse"],
            check=False, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    f = p.stdout.strip().splitlines()[-1].split(";")
    # terse v3: field 5 is the job's error, 6 KiB read, 47 KiB written
    assert f[4] == "0" and int(f[5]) > 0 and int(f[46]) > 0, p.stdout


def test_fio_verify_4k_random(sess):
    fio_verify(sess["dev"], "randwrite", "4k", "32M")
    fio_verify(sess["dev"], "randrw", "4k", "16M", offset=64 * MiB)


def test_fio_verify_128k_sequential(sess):
    fio_verify(sess["dev"], "write", "128k", "64M", offset=128 * MiB)


def test_ext4_and_bonnie(sess, tmp_path):
    dev = sess["dev"]
    run(["mkfs.ext4", "-q", "-F", dev], timeout=300)
    mnt = str(tmp_path / "mnt")
    os.mkdir(mnt)
    run(["mount", dev, mnt])
    try:
        p = run(["bonnie++", "-d", mnt, "-s", "64", "-r", "32", "-n", "1",
                 "-u", "root", "-x", "1", "-q"], check=False,
                timeout=2700 if tcmxlib.DEBUG_KERNEL else 900)
        assert p.returncode == 0, p.stdout + p.stderr
    finally:
        run(["umount", mnt], check=False)
    # the filesystem bonnie++ left is whole
    p = run(["e2fsck", "-f", "-n", dev], check=False)
    assert p.returncode == 0, p.stdout + p.stderr


def test_lun_reset_then_io(tgt, sess, dmesg):
    before = iscsi.session_info(tgt["acl"])
    tcmxlib.fill(sess["dev"], "before-reset", 4 * MiB)
    want = tcmxlib.sha(sess["dev"], 0, 4 * MiB)
    run(["sg_reset", "-d", sess["sg"]])
    # the LUN RESET did it: no escalation to a target reset or a new
    # session (the initiator escalates when the TMF fails)
    after = iscsi.session_info(tgt["acl"])
    assert after["sid"] == before["sid"], (before, after)
    assert iscsi.session(sess["s"]["sid"])["state"] == "LOGGED_IN"
    log = dmesg.read()
    assert "target reset" not in log.lower(), log
    tcmxlib.tur(sess["dev"])
    assert tcmxlib.sha(sess["dev"], 0, 4 * MiB) == want
    fio_verify(sess["dev"], "randwrite", "4k", "8M", offset=32 * MiB)


def test_logout_leaves_no_session(tgt, ini, sess):
    dev = os.path.basename(sess["dev"])
    ini.logout(sess["s"])
    assert iscsi.sessions() == []
    assert not os.path.exists("/sys/block/" + dev)
    text = iscsi.session_info(tgt["acl"])["text"]
    assert text.startswith("No active iSCSI Session"), text
    # and the target takes the next login
    s = ini.login(tgt["iqn"], iscsi.ADDR1)
    assert iscsi.luns(s, 1)


def test_killed_connection_is_reinstated(tgt, sess, dmesg):
    """ss -K aborts the initiator's socket (the target reads a reset);
    iscsid logs in again with the session's ISID and TSIH 0, which the
    target takes as a reinstatement: a new target session, the same
    initiator session and disk, fio's data verified across it."""
    why = iscsi.sockets_killable()
    if why is not None:
        pytest.skip(why)
    dev = sess["dev"]
    tcmxlib.fill(dev, "kept-across", 8 * MiB)
    want = tcmxlib.sha(dev, 0, 8 * MiB)
    before = iscsi.session_info(tgt["acl"])
    p = fio.verify_start([dev], size="16M", runtime=240,
                         offset=64 * MiB)
    try:
        # past fio's first verify backlog (64 writes)
        iscsi.io_flows(dev, "before the cut", n=300)
        killed = iscsi.kill_connections()
        assert killed, "ss -K found no connection to kill"
        # the initiator saw the connection fail, then logged in again
        iscsi.wait_kmsg(dmesg, "detected conn error")
        iscsi.wait_state(sess["s"]["sid"], "LOGGED_IN", timeout=60)
        iscsi.io_flows(dev, "after the login", n=300)
    except BaseException:
        p.kill()
        p.wait()
        raise
    fio.verify_stop(p)
    assert "detected conn error" in dmesg.read()
    after = iscsi.session_info(tgt["acl"])
    assert after["sid"] is not None and after["sid"] != before["sid"], \
        (before, after)
    assert after["isid"] == before["isid"], (before, after)
    assert iscsi.sessions()[0]["sid"] == sess["s"]["sid"]
    assert tcmxlib.sha(dev, 0, 8 * MiB) == want


# ------------------------------------------------------------ raw logins
# status class << 8 | detail of a refused Login Response
LOGIN_INIT_ERR, LOGIN_ISID_ERROR, LOGIN_NO_SESSION = 0x0200, 0x0206, 0x020a


def raw_session(tgt, isid=iscsi_pdu.ISID, cid=0):
    """INI_A logged in to TPG 1 over a raw socket, TEST UNIT READY
    GOOD: the Conn (its .tsih the target's)."""
    c = iscsi_pdu.Conn(iscsi.ADDR1, iscsi.PORT)
    c.isid, c.cid = isid, cid
    try:
        c.login(iscsi.INI_A, tgt["iqn"])
        assert c.tsih, "no TSIH in the last Login Response"
        assert c.tur() == 0
    except BaseException:
        c.close()
        raise
    return c


def refused_with(c, status, **kw):
    """c's login as INI_A is refused with status."""
    with pytest.raises(iscsi_pdu.LoginError) as e:
        c.login(iscsi.INI_A, **kw)
    assert e.value.status == status, "0x%04x" % e.value.status


def await_pdu(c, op, itt, timeout=20):
    """The next PDU of c with opcode op and ITT itt, NOP-In pings
    answered on the way; fails on the connection's end or after
    timeout seconds."""
    end = time.monotonic() + timeout
    while True:
        p = c.answer(max(0.1, end - time.monotonic()))
        if p == "stuck":
            raise AssertionError("no op 0x%02x in %d s" % (op, timeout))
        assert p != "closed", "the connection ended waiting for op 0x%02x" % op
        if p.op == iscsi_pdu.OP_NOOP_IN and p.be32(20) != iscsi_pdu.RESERVED:
            c.nop_answer(p)
        elif p.op == op and p.itt == itt:
            return p
        assert time.monotonic() < end, "no op 0x%02x in %d s" % (op, timeout)


@pytest.mark.tcmx_only
def test_lun_reset_aborts_the_other_session_stuck_command(tgt):
    """SAM-5 5.6 over iSCSI: a LOGICAL UNIT RESET ends the tasks of every
    I_T nexus of the unit. Session B's READ is held by inject/fault stuck
    (nothing but task management completes it); session A resets the
    LUN: A's TMF Response says Function complete and B's READ comes back
    at once with TASK ABORTED (attrib/emulate_tas 1, the default); both
    sessions then hear the reset's unit attention, and B reads again."""
    inj = tgt["so"] + "/inject/"
    read = bytes([0x28, 0, 0, 0, 0, 8, 0, 0, 1, 0])
    a = raw_session(tgt)
    b = raw_session(tgt, isid=bytes.fromhex("80123456789b"))
    try:
        tcmxlib.wr(inj + "counters", "0")
        tcmxlib.wr(inj + "fault", "stuck 1")
        b.send(b._scsi_hdr(read, 512, 0, 0, 0))
        held = b.itt
        deadline = time.monotonic() + 10
        while "stuck 1\n" not in tcmxlib.rd(inj + "counters"):
            assert time.monotonic() < deadline, tcmxlib.rd(inj + "counters")
            time.sleep(0.1)
        tcmxlib.wr(inj + "fault", "none")
        with pytest.raises(AssertionError, match="no op 0x21 in 2 s"):
            await_pdu(b, iscsi_pdu.OP_SCSI_RSP, held, timeout=2)
        itt = a.next_itt()
        a.send(iscsi_pdu.bhs(iscsi_pdu.OP_TMF | iscsi_pdu.IMMEDIATE,
                             0x80 | 5, 0, 0, 0, 0, bytes(8), itt,
                             iscsi_pdu.RESERVED, a.cmdsn, a.exp_statsn))
        reset = time.monotonic()
        p = await_pdu(a, iscsi_pdu.OP_TMF_RSP, itt)
        assert p.bhs[2] == 0, "TMF response %d" % p.bhs[2]
        p = await_pdu(b, iscsi_pdu.OP_SCSI_RSP, held)
        assert time.monotonic() - reset < 10
        assert p.bhs[3] == 0x40, "status 0x%02x" % p.bhs[3]     # TASK ABORTED
        for c in (a, b):
            st, _, sense = c.scsi(bytes(6))
            assert st == 2 and tcmxlib.kcq(sense) == (6, 0x29, 3), \
                (st, sense.hex())
        st, data, _ = b.scsi(read, 512)
        assert st == 0 and len(data) == 512
        assert "stuck 1\n" in tcmxlib.rd(inj + "counters")
    finally:
        tcmxlib.wr(inj + "fault", "none")
        a.close()
        b.close()


@pytest.mark.tcmx_only
def test_login_keys_continued_over_pdus(tgt):
    """Each stage's key list split over Login Requests with C=1, in the
    middle of a key and of a value: every continued PDU is answered with
    an empty Login Response (C=0, T=0, status 0), the last one with the
    whole list negotiated. (The in-tree reads each PDU's keys alone.)"""
    iqn = tgt["iqn"]
    sec = iscsi_pdu.kv([("InitiatorName", iscsi.INI_A), ("TargetName", iqn),
                        ("SessionType", "Normal"), ("AuthMethod", "None")])
    ops = iscsi_pdu.kv(iscsi_pdu.OP_KEYS)
    cut = ops.index(b"MaxRecvDataSegmentLength=") + 27   # "65|536"
    with iscsi_pdu.Conn(iscsi.ADDR1) as c:
        for csg, nsg, parts in ((0, 1, (sec[:9], sec[9:40], sec[40:])),
                                (1, 3, (ops[:cut], ops[cut:]))):
            for part in parts[:-1]:
                p = c.login_step(part, csg, nsg, transit=False, cont=True)
                assert not p.data and not p.flags & 0xc0, p
                assert (p.flags >> 2) & 3 == csg, p
            p = c.login_step(parts[-1], csg, nsg)
            assert p.flags & iscsi_pdu.LOGIN_T and p.flags & 3 == nsg, p
        assert c.keys["AuthMethod"] == "None", c.keys
        assert c.keys["TargetPortalGroupTag"] == "1", c.keys
        # keys from both sides of the cut were answered
        for k in ("HeaderDigest", "ImmediateData", "OFMarker"):
            assert k in c.keys, (k, c.keys)
        c.max_xmit = int(c.keys.get("MaxRecvDataSegmentLength", "8192"))
        assert c.tur() == 0
        # a READ of 64 KiB: Data-In up to the 65536 declared across the cut
        st, data, _ = c.scsi(bytes([0x28, 0, 0, 0, 0, 0, 0, 0, 128, 0]),
                             read_len=65536)
        assert st == 0 and len(data) == 65536


@pytest.mark.tcmx_only
def test_login_continued_past_8k_closes(tgt):
    """A continued key list may grow to 8192 bytes (the in-tree's login
    buffer); past it the connection ends without an answer."""
    first = iscsi_pdu.kv([("InitiatorName", iscsi.INI_A),
                          ("TargetName", tgt["iqn"])])
    pad = b"X-com.example.pad=" + b"y" * 1000 + b"\0"
    with iscsi_pdu.Conn(iscsi.ADDR1) as c:
        sent = 0
        for part in [first] + [pad] * 7:
            p = c.login_step(part, 0, 1, transit=False, cont=True)
            assert not p.data, p
            sent += len(part)
        assert sent + len(pad) > 8192
        assert c.login_pdu(pad, 0, 1, transit=False, cont=True) is None
    raw_session(tgt).close()


def test_login_continue_with_transit_refused(tgt):
    """C=1 with T=1 is a protocol error: 0x0200."""
    text = iscsi_pdu.kv([("InitiatorName", iscsi.INI_A),
                         ("TargetName", tgt["iqn"]), ("AuthMethod", "None")])
    with iscsi_pdu.Conn(iscsi.ADDR1) as c:
        p = c.login_pdu(text, 0, 1, transit=True, cont=True)
        assert p is not None and p.op == iscsi_pdu.OP_LOGIN_RSP, p
        assert p.bhs[36] << 8 | p.bhs[37] == LOGIN_INIT_ERR, p.bhs.hex()


def test_login_unknown_tsih_refused(tgt):
    """A TSIH that names no session: 0x020a, session does not exist."""
    with iscsi_pdu.Conn(iscsi.ADDR1) as c:
        refused_with(c, LOGIN_NO_SESSION, target=tgt["iqn"], tsih=0x4242)
    with raw_session(tgt) as lead:
        # the TSIH of a live session, but another ISID
        with iscsi_pdu.Conn(iscsi.ADDR1) as c:
            c.isid = bytes.fromhex("800000000042")
            refused_with(c, LOGIN_NO_SESSION, target=tgt["iqn"],
                         tsih=lead.tsih)
        assert lead.tur() == 0


def test_second_connection_beyond_maxconnections(tgt):
    """A new CID with the TSIH and ISID of a live session would be its
    second connection: 0x0206 once authenticated, and the session goes
    on."""
    with raw_session(tgt) as lead:
        with iscsi_pdu.Conn(iscsi.ADDR1) as c:
            c.isid, c.cid = lead.isid, 1
            refused_with(c, LOGIN_ISID_ERROR, target=tgt["iqn"],
                         tsih=lead.tsih)
        assert lead.tur() == 0
        assert iscsi.session_info(tgt["acl"])["sid"] is not None


@pytest.mark.tcmx_only
def test_connection_reinstatement_ends_the_session(tgt):
    """The CID of the session's own connection with its TSIH and ISID:
    that connection is closed (connection reinstatement, which at
    ErrorRecoveryLevel 0 ends the session), the login refused with
    0x0206; a new session (TSIH 0) logs in. (The in-tree answers the
    same when its MaxConnections check runs before the old connection's
    teardown drops the count, which it races with: not run on it.)"""
    with raw_session(tgt) as lead:
        with iscsi_pdu.Conn(iscsi.ADDR1) as c:
            c.isid, c.cid = lead.isid, lead.cid
            refused_with(c, LOGIN_ISID_ERROR, target=tgt["iqn"],
                         tsih=lead.tsih)
        assert lead.settle(timeout=15) == "closed"
    with raw_session(tgt) as again:
        assert again.tur() == 0
