# SPDX-License-Identifier: GPL-2.0
"""The iSCSI MIB counters under fabric_statistics/ (RFC 4544, as the
in-tree counts them), driven by open-iscsi over 127.0.0.1: a login
refused for want of an ACL counts as an authorization failure, with the
initiator's name and address; one with the wrong CHAP secret as an
authentication failure; a good one as an accept and a session; the
session's iscsi_sess_stats count its command and response PDUs and its
data both ways, and read nothing once it is gone; a logout counts as a
normal one.  iscsi_tgt_attr/last_fail_type holds the last failure's
iscsiTgtLoginFailType (RFC 4544: 4 authorize, 5 authenticate, 6
negotiate).

The in-tree counts a failed login of a new session twice: once for its
cause, then again as a negotiation failure when it drops the connection
(iscsi_target_login_sess_out()), so its login_fails grows by two and
last_fail_type reads 6 whatever the cause; tcmx counts it once, by cause
(FAIL_COUNTS).  The in-tree refuses a login for want of an ACL before it
has the login's keys, so its fail_intr_name says "Unknown" then
(REFUSED_NAME); tcmx names the initiator.

On the tcmx stack they skip while tcmx_iscsi.ko is not built.
"""
import os

import pytest

import tcmxlib
from tcmxlib import MiB, iscsi, run

WHY = iscsi.missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=str(WHY))

USER, SECRET = "ini-a-user", "ini-a-secret-0123"

AUTHORIZE, AUTHENTICATE, NEGOTIATE = "4", "5", "6"
# {stack: (failures counted per failed login, the cause's last_fail_type
# or None: always NEGOTIATE)}
FAIL_COUNTS = {"tcmx": (1, None), "lio": (2, NEGOTIATE)}
# {stack: fail_intr_name after a login refused for want of an ACL (None:
# the initiator's name)}
REFUSED_NAME = {"tcmx": None, "lio": "Unknown"}


def stat(path):
    return tcmxlib.rd(path).strip()


def counters(tgt, group):
    d = os.path.join(tgt, "fabric_statistics", group)
    return {f: stat(os.path.join(d, f)) for f in os.listdir(d)}


def fails_after(n, cause):
    """login_fails and last_fail_type after n failed logins, the last one
    for cause, on this stack."""
    per, last = FAIL_COUNTS[tcmxlib.STACK]
    return {"login_fails": str(n * per), "last_fail_type": last or cause}


def negotiate_fails_after(n):
    """iscsi_login_stats/negotiate_fails after n failed logins, none of
    them in negotiation, on this stack."""
    return str(n * (FAIL_COUNTS[tcmxlib.STACK][0] - 1))


def test_login_session_and_logout_counters(stack):
    iscsi.load()
    t = iscsi.target()
    iqn = os.path.basename(t)
    tpg = iscsi.tpg(t, 1)
    iscsi.rd_lun(tpg, 0, 16 * MiB)
    acl = iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0)])
    iscsi.enable(tpg)
    sess_stats = os.path.join(acl, "fabric_statistics", "iscsi_sess_stats")
    try:
        login = counters(t, "iscsi_login_stats")
        assert {k: login[k] for k in ("accepts", "authorize_fails",
                                      "authenticate_fails")} == \
            {"accepts": "0", "authorize_fails": "0",
             "authenticate_fails": "0"}, login
        assert counters(t, "iscsi_instance")["sessions"] == "0"
        assert stat(os.path.join(sess_stats, "cmd_pdus")) == ""
        assert counters(t, "iscsi_tgt_attr")["last_fail_type"] == "0"

        # no ACL for INI_B: refused, not authorized (0x0202)
        with iscsi.Initiator(iscsi.INI_B) as ini:
            ini.discover(iscsi.ADDR1)
            assert not isinstance(ini.login(iqn, check=False), dict)
        login = counters(t, "iscsi_login_stats")
        assert login["authorize_fails"] == "1" and login["accepts"] == "0"
        assert login["negotiate_fails"] == negotiate_fails_after(1), login
        attr = counters(t, "iscsi_tgt_attr")
        assert {k: attr[k] for k in ("login_fails", "last_fail_type")} == \
            fails_after(1, AUTHORIZE), attr
        assert attr["fail_intr_name"] == \
            (REFUSED_NAME[tcmxlib.STACK] or iscsi.INI_B), attr
        assert attr["fail_intr_addr_type"] == "ipv4"
        assert attr["fail_intr_addr"] == iscsi.ADDR1, attr
        assert int(attr["last_fail_time"]) > 0

        with iscsi.Initiator(iscsi.INI_A) as ini:
            ini.discover(iscsi.ADDR1)
            # the ACL wants CHAP now, the initiator has the wrong secret
            iscsi.acl_chap(acl, USER, SECRET)
            tcmxlib.wr(os.path.join(tpg, "attrib", "authentication"), "1")
            ini.chap(iqn, iscsi.ADDR1, USER, SECRET[::-1])
            assert not isinstance(ini.login(iqn, check=False), dict)
            login = counters(t, "iscsi_login_stats")
            assert login["authenticate_fails"] == "1", login
            assert login["authorize_fails"] == "1", login
            assert login["negotiate_fails"] == negotiate_fails_after(2), \
                login
            attr = counters(t, "iscsi_tgt_attr")
            assert {k: attr[k] for k in ("login_fails",
                                         "last_fail_type")} == \
                fails_after(2, AUTHENTICATE), attr
            assert attr["fail_intr_name"] == iscsi.INI_A, attr

            ini.chap(iqn, iscsi.ADDR1, USER, SECRET)
            s = ini.login(iqn)
            login = counters(t, "iscsi_login_stats")
            assert login["accepts"] == "1", login
            # a good login leaves the last failure as it was
            attr = counters(t, "iscsi_tgt_attr")
            assert attr["last_fail_type"] == \
                fails_after(2, AUTHENTICATE)["last_fail_type"], attr
            assert counters(t, "iscsi_instance")["sessions"] == "1"
            dev, _ = iscsi.luns(s, 1)[0]
            before = {f: int(stat(os.path.join(sess_stats, f)))
                      for f in ("cmd_pdus", "rsp_pdus", "txdata_octs",
                                "rxdata_octs")}
            # 1 MiB commands: past any immediate data (which the
            # in-tree leaves out of rxdata_octs), their data in Data-Out
            run("dd if=/dev/urandom of=%s bs=1M count=2 oflag=direct" % dev)
            run("dd if=%s of=/dev/null bs=1M count=2 iflag=direct" % dev)
            after = {f: int(stat(os.path.join(sess_stats, f)))
                     for f in before}
            assert after["cmd_pdus"] - before["cmd_pdus"] >= 4, after
            assert after["rsp_pdus"] - before["rsp_pdus"] >= 2, after
            assert after["rxdata_octs"] - before["rxdata_octs"] >= MiB, after
            assert after["txdata_octs"] - before["txdata_octs"] >= \
                2 * MiB, after
            assert stat(os.path.join(sess_stats, "node")) == "1"
            ini.logout(s)
        assert counters(t, "iscsi_logout_stats")["normal_logouts"] == "1"
        assert counters(t, "iscsi_instance")["sessions"] == "0"
        assert stat(os.path.join(sess_stats, "cmd_pdus")) == ""
    finally:
        iscsi.unload()
