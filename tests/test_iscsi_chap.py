# SPDX-License-Identifier: GPL-2.0
"""CHAP at login, open-iscsi against the iSCSI fabric (tcmxlib.iscsi):
one-way with MD5, SHA-256 and open-iscsi's default list, a wrong secret
and no CHAP at all refused; mutual, with the initiator refusing a target
that answers with the wrong secret; discovery sessions under
enforce_discovery_auth, with the right, a wrong and no secret. Every
refusal leaves no session, and the right secret logs in afterwards.

On the tcmx stack they skip while tcmx_iscsi.ko is not built.
"""
import os
import subprocess

import pytest

import tcmxlib
from tcmxlib import MiB, iscsi

WHY = iscsi.missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=str(WHY))

USER, SECRET = "ini-a-user", "ini-a-secret-0123"
TUSER, TSECRET = "target-user", "target-secret-987"
# open-iscsi's exit status for an authentication failure
AUTH_FAILED = 24


@pytest.fixture
def tgt(stack):
    """TPG 1 on 127.0.0.1:3260, LUN 0 mapped to INI_A, CHAP required:
    the ACL's one-way secret USER/SECRET, its mutual one TUSER/TSECRET
    (used when the initiator asks for it)."""
    iscsi.load()
    t = iscsi.target()
    tpg = iscsi.tpg(t, 1)
    iscsi.rd_lun(tpg, 0, 16 * MiB)
    acl = iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0)])
    iscsi.acl_chap(acl, USER, SECRET, TUSER, TSECRET)
    iscsi.enable(tpg)
    yield dict(iqn=os.path.basename(t), tpg=tpg, acl=acl)
    iscsi.unload()


@pytest.fixture
def ini(tgt):
    with iscsi.Initiator(iscsi.INI_A) as i:
        i.discover(iscsi.ADDR1)
        yield i


def refused(ini, iqn, status=None):
    """A login to iqn fails (with that iscsiadm status) and leaves no
    session."""
    p = ini.login(iqn, iscsi.ADDR1, check=False)
    assert isinstance(p, subprocess.CompletedProcess), \
        "login succeeded: %s" % p
    assert p.returncode != 0
    if status is not None:
        assert p.returncode == status, p.stdout + p.stderr
    assert iscsi.sessions() == []


def logs_in(ini, iqn):
    s = ini.login(iqn, iscsi.ADDR1)
    dev, _ = iscsi.luns(s, 1)[0]
    tcmxlib.tur(dev)
    ini.logout(s)
    assert iscsi.sessions() == []


@pytest.mark.parametrize("algs", ["MD5", "SHA256", None])
def test_one_way_chap(tgt, ini, algs):
    iqn = tgt["iqn"]
    ini.chap(iqn, iscsi.ADDR1, USER, SECRET)
    if algs:
        ini.node_set(iqn, iscsi.ADDR1, "node.session.auth.chap_algs", algs)
    logs_in(ini, iqn)


def test_one_way_chap_wrong_secret(tgt, ini):
    iqn = tgt["iqn"]
    ini.chap(iqn, iscsi.ADDR1, USER, "not-the-secret-00")
    refused(ini, iqn, AUTH_FAILED)
    ini.chap(iqn, iscsi.ADDR1, "someone-else", SECRET)
    refused(ini, iqn, AUTH_FAILED)
    ini.chap(iqn, iscsi.ADDR1, USER, SECRET)
    logs_in(ini, iqn)


def test_no_chap_when_required(tgt, ini):
    refused(ini, tgt["iqn"])


@pytest.mark.parametrize("algs", ["MD5", None])
def test_mutual_chap(tgt, ini, algs):
    iqn = tgt["iqn"]
    ini.chap(iqn, iscsi.ADDR1, USER, SECRET, TUSER, TSECRET)
    if algs:
        ini.node_set(iqn, iscsi.ADDR1, "node.session.auth.chap_algs", algs)
    logs_in(ini, iqn)


def test_mutual_chap_target_wrong_secret(tgt, ini):
    """The target answers the initiator's challenge with its own secret;
    an initiator that expects another one refuses the target."""
    iqn = tgt["iqn"]
    ini.chap(iqn, iscsi.ADDR1, USER, SECRET, TUSER, "expected-other-01")
    refused(ini, iqn)
    ini.chap(iqn, iscsi.ADDR1, USER, SECRET, TUSER, TSECRET)
    logs_in(ini, iqn)


def test_discovery_auth(tgt):
    """enforce_discovery_auth: SendTargets only after CHAP (one-way, then
    mutual), a wrong or no secret gets no list."""
    iqn = tgt["iqn"]
    iscsi.discovery_auth(True, USER, SECRET)
    with iscsi.Initiator(iscsi.INI_A) as ini:
        p = ini.discover(iscsi.ADDR1, check=False)
        assert not isinstance(p, list), "discovery without CHAP: %s" % p
        ini.discoverydb_chap(iscsi.ADDR1, USER, "not-the-secret-00")
        p = ini.discoverydb(iscsi.ADDR1, check=False)
        assert not isinstance(p, list), "discovery, wrong secret: %s" % p
        ini.discoverydb_chap(iscsi.ADDR1, USER, SECRET)
        assert ini.discoverydb(iscsi.ADDR1) == [("127.0.0.1:3260", 1, iqn)]
    iscsi.discovery_auth(True, USER, SECRET, TUSER, TSECRET)
    with iscsi.Initiator(iscsi.INI_A) as ini:
        ini.discoverydb_chap(iscsi.ADDR1, USER, SECRET, TUSER, TSECRET)
        assert ini.discoverydb(iscsi.ADDR1) == [("127.0.0.1:3260", 1, iqn)]
    iscsi.discovery_auth(False, "NULL", "NULL", "NULL", "NULL")
    with iscsi.Initiator(iscsi.INI_A) as ini:
        assert ini.discover(iscsi.ADDR1) == [("127.0.0.1:3260", 1, iqn)]
