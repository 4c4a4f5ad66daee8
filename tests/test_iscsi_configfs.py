# SPDX-License-Identifier: GPL-2.0
"""The iSCSI fabric's configfs tree, $T/iscsi (iscsi-configfs-contract.md):
what targetcli and rtslib make and read there, the defaults and ranges of
a TPG's attrib/ and param/ and of a node ACL's files, portals (IPv4,
[IPv6], one address per target), CHAP credentials, and saveconfig ->
clearconfig -> restoreconfig giving back the same JSON.  Everything but
the last test holds for the in-tree iscsi_target_mod too
(TCMX_TEST_STACK=lio).  No initiator logs in here: the files that show
sessions show none."""
import errno
import json
import os
import re
import shutil

import pytest

from tcmxlib import (STACK, T, Kmsg, err_of, link_lun, mk_rd, rd, tcli_ok,
                     tree_text, wr)
from tcmxlib.configfs import mk_acl
from tcmxlib.iscsi_cfs import (ACL_ATTRIB, ACL_PARAM, AUTH_FILES, ISCSI,
                               STAT_GROUPS, TPG_ATTRIB, TPG_PARAM,
                               ipv6_loopback, iscsi_dir, mk_iscsi_tpg)

MiB = 1 << 20
IQN = "iqn.2003-01.org.example.tcmx:cfs"
INI = "iqn.1994-05.com.example:ini1"
INI2 = "iqn.1994-05.com.example:ini2"
SAVE = "/tmp/iscsi-cfs"


def node(tree, name):
    """The line of targetcli `ls` for node name (first match)."""
    for ln in tree:
        if re.match(r"[ |]*o- %s \[" % re.escape(name), ln):
            return ln
    raise AssertionError("%s not in\n%s" % (name, "\n".join(tree)))


def refused(path, value, err=errno.EINVAL):
    """A write of value to path fails with err and leaves it as it was."""
    before = rd(path)
    assert err_of(wr, path, value) == err, (path, value)
    assert rd(path) == before, (path, value)


def chap(path):
    """A CHAP file as rtslib reads it: stripped, "NULL" is nothing."""
    s = rd(path).strip()
    return "" if s == "NULL" else s


def test_targetcli_create_flow(stack):
    """targetcli /iscsi create, luns, acls (with CHAP), portals, ls and
    sessions; the tree and files they leave."""
    cmds = ["/backstores/ramdisk create name=ir0 size=16M",
            "/iscsi create " + IQN,
            "/iscsi/%s/tpg1/luns create /backstores/ramdisk/ir0" % IQN,
            "/iscsi/%s/tpg1/acls create %s" % (IQN, INI),
            "/iscsi/%s/tpg1/acls/%s set auth userid=iu password=ip "
            "mutual_userid=tu mutual_password=tp" % (IQN, INI),
            "/iscsi/%s/tpg1/portals create 127.0.0.2 3261" % IQN,
            "ls",
            "sessions"]
    out = tcli_ok(*cmds)
    assert "Created target %s." % IQN in out[1]
    assert "Created TPG 1." in out[1]
    assert "Created default portal listening on all IPs (0.0.0.0), " \
        "port 3260." in out[1]
    assert "Created LUN 0." in out[2]
    assert "Created Node ACL for %s" % INI in out[3]
    assert "Created mapped LUN 0." in out[3]
    assert "Created network portal 127.0.0.2:3261." in out[5]
    tree = tree_text(out[6])
    assert node(tree, "iscsi").endswith("[Targets: 1]")
    assert node(tree, IQN).endswith("[TPGs: 1]")
    assert node(tree, "tpg1").endswith("[no-gen-acls, no-auth]")
    assert node(tree, "acls").endswith("[ACLs: 1]")
    assert "Mapped LUNs: 1" in node(tree, INI)
    assert node(tree, "mapped_lun0").endswith("[lun0 ramdisk/ir0 (rw)]")
    assert node(tree, "lun0").endswith("[ramdisk/ir0 (default_tg_pt_gp)]")
    assert node(tree, "portals").endswith("[Portals: 2]")
    assert node(tree, "0.0.0.0:3260").endswith("[OK]")
    assert node(tree, "127.0.0.2:3261").endswith("[OK]")
    assert "no open sessions" in out[7]
    # what it did in configfs
    tpg = "%s/%s/tpgt_1" % (ISCSI, IQN)
    assert rd(tpg + "/enable") == "1\n"
    assert rd(tpg + "/attrib/authentication") == "0\n"
    assert rd(tpg + "/param/AuthMethod") == "CHAP,None\n"
    assert sorted(os.listdir(tpg + "/np")) == ["0.0.0.0:3260",
                                               "127.0.0.2:3261"]
    acl = "%s/acls/%s" % (tpg, INI)
    [link] = [e for e in os.listdir(acl + "/lun_0")
              if os.path.islink(acl + "/lun_0/" + e)]
    assert os.path.realpath(acl + "/lun_0/" + link) == tpg + "/lun/lun_0"
    assert rd(acl + "/lun_0/write_protect").strip() == "0"
    assert rd(acl + "/cmdsn_depth") == "64\n"
    assert (chap(acl + "/auth/userid"), chap(acl + "/auth/password"),
            chap(acl + "/auth/userid_mutual"),
            chap(acl + "/auth/password_mutual")) == ("iu", "ip", "tu", "tp")
    assert rd(acl + "/auth/authenticate_target") == "1\n"
    assert rd(acl + "/info").startswith(
        "No active iSCSI Session for Initiator Endpoint: " + INI)


def test_tpg_defaults_ranges_and_portals(stack):
    """A new TPG's attrib/ and param/ have the in-tree defaults; values
    out of range are refused and change nothing; authentication
    rewrites AuthMethod; enable; portals IPv4 and [IPv6], junk refused,
    one address per target; the root, discovery_auth/ and
    fabric_statistics/ files."""
    iscsi_dir()
    for f in ("lio_version", "cpus_allowed_list"):
        assert os.path.isfile(ISCSI + "/" + f), f
    assert sorted(os.listdir(ISCSI + "/discovery_auth")) == sorted(
        AUTH_FILES + ("enforce_discovery_auth",))
    tpg = mk_iscsi_tpg(IQN)
    wwn = os.path.dirname(tpg)
    for g in STAT_GROUPS:
        assert os.path.isdir("%s/fabric_statistics/%s" % (wwn, g)), g
    assert int(rd(wwn + "/fabric_statistics/iscsi_instance/inst")) >= 0
    assert rd(tpg + "/enable") == "0\n"
    for d in ("attrib", "param", "auth", "np", "lun", "acls"):
        assert os.path.isdir(tpg + "/" + d), d
    assert sorted(os.listdir(tpg + "/auth")) == sorted(AUTH_FILES)
    got = {a: int(rd(tpg + "/attrib/" + a)) for a in TPG_ATTRIB}
    assert got == TPG_ATTRIB
    got = {p: rd(tpg + "/param/" + p).rstrip("\n") for p in TPG_PARAM}
    assert got == TPG_PARAM
    # attrib/: out of range
    a = tpg + "/attrib/"
    for f, bad in (("authentication", "2"), ("login_timeout", "4"),
                   ("login_timeout", "31"), ("netif_timeout", "1"),
                   ("netif_timeout", "16"), ("default_cmdsn_depth", "0"),
                   ("default_cmdsn_depth", "513"), ("default_erl", "3"),
                   ("generate_node_acls", "2"), ("fabric_prot_type", "2"),
                   ("demo_mode_write_protect", "abc")):
        refused(a + f, bad)
    wr(a + "default_cmdsn_depth", "512")
    assert rd(a + "default_cmdsn_depth") == "512\n"
    # authentication 0 lets None in, 1 takes it out
    wr(a + "authentication", "0")
    assert rd(tpg + "/param/AuthMethod") == "CHAP,None\n"
    wr(a + "authentication", "1")
    assert rd(tpg + "/param/AuthMethod") == "CHAP\n"
    # demo mode keeps its dynamic ACLs
    wr(a + "generate_node_acls", "1")
    assert rd(a + "cache_dynamic_acls") == "1\n"
    wr(a + "cache_dynamic_acls", "0")
    assert rd(a + "cache_dynamic_acls") == "1\n"
    wr(a + "generate_node_acls", "0")
    # param/: values of the key only
    p = tpg + "/param/"
    for f, bad in (("AuthMethod", "Foo"), ("HeaderDigest", "MD5"),
                   ("DataDigest", "CRC32C,MD5"), ("MaxConnections", "0"),
                   ("MaxConnections", "65536"),
                   ("MaxRecvDataSegmentLength", "511"),
                   ("MaxBurstLength", "16777216"), ("InitialR2T", "Maybe"),
                   ("ErrorRecoveryLevel", "3"), ("DefaultTime2Wait", "3601")):
        refused(p + f, bad + "\n")
    for f, good in (("HeaderDigest", "None"), ("TargetAlias", "tcmx test"),
                    ("MaxRecvDataSegmentLength", "65536"),
                    ("IFMarkInt", "2048~65535"), ("AuthMethod", "None"),
                    ("InitialR2T", "No")):
        wr(p + f, good + "\n")
        assert rd(p + f) == good + "\n", f
    # enabling with authentication 1 makes a lone None CHAP
    wr(tpg + "/enable", "1")
    assert rd(tpg + "/enable") == "1\n"
    assert rd(p + "AuthMethod") == "CHAP\n"
    refused(tpg + "/enable", "2")
    wr(tpg + "/enable", "0")
    assert rd(tpg + "/enable") == "0\n"
    # portals
    np = tpg + "/np/"
    os.mkdir(np + "127.0.0.1:3260")
    for f in ("iser", "cxgbit"):
        assert rd(np + "127.0.0.1:3260/" + f).strip() == "0"
        wr(np + "127.0.0.1:3260/" + f, "0")
    for bad in ("junk", "127.0.0.1", "300.0.0.1:3260", "127.0.0.1:70000",
                "[::1:3260", "[zz]:3260", "127.0.0.1:port"):
        assert err_of(os.mkdir, np + bad) == errno.EINVAL, bad
        assert not os.path.exists(np + bad)
    if ipv6_loopback():
        os.mkdir(np + "[::1]:3260")
        os.rmdir(np + "[::1]:3260")
    # a second TPG: not on the first one's address (the in-tree core
    # turns every refusal of a portal into EINVAL)
    tpg2 = mk_iscsi_tpg(IQN, 2)
    assert err_of(os.mkdir, tpg2 + "/np/127.0.0.1:3260") == \
        (errno.EINVAL if STACK == "lio" else errno.EEXIST)
    assert not os.path.exists(tpg2 + "/np/127.0.0.1:3260")
    os.mkdir(tpg2 + "/np/127.0.0.2:3260")
    assert os.listdir(tpg2 + "/np") == ["127.0.0.2:3260"]
    os.rmdir(tpg2 + "/np/127.0.0.2:3260")
    os.rmdir(np + "127.0.0.1:3260")
    # bad names
    assert err_of(os.mkdir, wwn + "/tpgt_x") == errno.EINVAL
    assert err_of(os.mkdir, ISCSI + "/iqn.2003-01.org.x:" + "y" * 210) \
        == errno.EINVAL


def test_acl_files_and_mapped_luns(stack):
    """A node ACL's attrib/ defaults and ranges, cmdsn_depth, tag, auth/,
    the session files without a session (and its statistics' instance,
    the target's), and mapped LUNs with write_protect."""
    tpg = mk_iscsi_tpg(IQN)
    so = mk_rd("ia0", 16 * MiB)
    link_lun(tpg, 0, so)
    link_lun(tpg, 3, so)
    acl = mk_acl(tpg, INI, [(0, 0), (1, 3)])
    a = acl + "/attrib/"
    got = {f: int(rd(a + f)) for f in ACL_ATTRIB}
    assert got == ACL_ATTRIB
    for f, bad in (("dataout_timeout", "1"), ("dataout_timeout", "61"),
                   ("dataout_timeout_retries", "0"),
                   ("nopin_timeout", "1"), ("nopin_timeout", "61"),
                   ("nopin_response_timeout", "2"), ("default_erl", "3"),
                   ("random_r2t_offsets", "2"), ("authentication", "2"),
                   ("authentication", "-2")):
        refused(a + f, bad)
    for f, good in (("nopin_timeout", "0"), ("nopin_timeout", "5"),
                    ("authentication", "1"), ("authentication", "-1"),
                    ("dataout_timeout", "60")):
        wr(a + f, good)
        assert rd(a + f) == good + "\n", f
    assert rd(acl + "/cmdsn_depth") == "64\n"
    refused(acl + "/cmdsn_depth", "513")
    wr(acl + "/cmdsn_depth", "128")
    assert rd(acl + "/cmdsn_depth") == "128\n"
    wr(acl + "/tag", "group1")
    assert rd(acl + "/tag").strip() == "group1"
    assert rd(acl + "/info").startswith(
        "No active iSCSI Session for Initiator Endpoint: " + INI)
    for f in ACL_PARAM:
        assert rd(acl + "/param/" + f) == "No Active iSCSI Session\n", f
        assert err_of(wr, acl + "/param/" + f, "1") != 0
    st = acl + "/fabric_statistics/iscsi_sess_stats/"
    wst = os.path.dirname(tpg) + "/fabric_statistics/iscsi_instance/"
    assert int(rd(st + "inst")) == int(rd(wst + "inst"))
    au = acl + "/auth/"
    assert sorted(os.listdir(au)) == sorted(AUTH_FILES)
    assert rd(au + "authenticate_target") == "0\n"
    for f, v in (("userid", "iu"), ("password", "ip"),
                 ("userid_mutual", "tu"), ("password_mutual", "tp")):
        wr(au + f, v)
        assert chap(au + f) == v, f
    assert rd(au + "authenticate_target") == "1\n"
    wr(au + "password_mutual", "NULL")
    assert chap(au + "password_mutual") == ""
    assert rd(au + "authenticate_target") == "0\n"
    # mapped LUNs
    assert sorted(e for e in os.listdir(acl) if e.startswith("lun_")) == \
        ["lun_0", "lun_1"]
    wp = acl + "/lun_1/write_protect"
    assert rd(wp).strip() == "0"
    wr(wp, "1")
    assert rd(wp).strip() == "1"
    refused(wp, "2")
    # a mapping to a LUN of another TPG is refused
    tpg2 = mk_iscsi_tpg(IQN, 2)
    link_lun(tpg2, 0, so)
    os.mkdir(acl + "/lun_2")
    assert err_of(os.symlink, tpg2 + "/lun/lun_0", acl + "/lun_2/x") != 0
    os.rmdir(acl + "/lun_2")


def canonical(x):
    """x with every list sorted: rtslib dumps TPGs, LUNs, ACLs and portals
    in configfs directory order, which is newest first, so that a
    restore lists them the other way round."""
    if isinstance(x, dict):
        return {k: canonical(v) for k, v in x.items()}
    if isinstance(x, list):
        return sorted((canonical(v) for v in x),
                      key=lambda v: json.dumps(v, sort_keys=True))
    return x


def rtslib_config(two_tpgs_v6):
    """With rtslib from one process: two TPGs on 127.0.0.1 and 127.0.0.2
    (and [::1] when there is IPv6), LUNs, ACLs with CHAP, a
    write-protected mapping, changed attributes and parameters, a tag,
    discovery authentication."""
    from rtslib_fb import (LUN, TPG, FabricModule, MappedLUN, NetworkPortal,
                           NodeACL, RDMCPStorageObject, Target)
    so0 = RDMCPStorageObject("isr0", size=16 * MiB)
    so1 = RDMCPStorageObject("isr1", size=8 * MiB)
    fm = FabricModule("iscsi")
    t = Target(fm, IQN)
    tpg1 = TPG(t, 1)
    tpg1.set_attribute("authentication", 0)
    tpg1.set_attribute("default_cmdsn_depth", 32)
    tpg1.set_parameter("TargetAlias", "tcmx alias")
    tpg1.set_parameter("HeaderDigest", "None")
    l0, l1 = LUN(tpg1, 0, so0), LUN(tpg1, 1, so1)
    NetworkPortal(tpg1, "127.0.0.1", 3260)
    if two_tpgs_v6:
        NetworkPortal(tpg1, "[::1]", 3260)
    acl = NodeACL(tpg1, INI)
    acl.chap_userid, acl.chap_password = "iu", "ip"
    acl.chap_mutual_userid, acl.chap_mutual_password = "tu", "tp"
    acl.tcq_depth = 16
    acl.set_attribute("nopin_timeout", 10)
    acl.tag = "group1"
    MappedLUN(acl, 0, l0, write_protect=True)
    MappedLUN(acl, 1, l1)
    tpg1.enable = True
    tpg2 = TPG(t, 2)
    l2 = LUN(tpg2, 0, so0)
    NetworkPortal(tpg2, "127.0.0.2", 3260)
    acl2 = NodeACL(tpg2, INI2)
    MappedLUN(acl2, 0, l2)
    tpg2.enable = True
    fm.discovery_userid, fm.discovery_password = "du", "dp"
    fm.discovery_mutual_userid, fm.discovery_mutual_password = "dmu", "dmp"
    fm.discovery_enable_auth = True


def test_saveconfig_clearconfig_restoreconfig_same_json(stack):
    """targetcli saveconfig -> clearconfig -> restoreconfig ->
    saveconfig: the same JSON (but for the order of lists), with two
    TPGs and portals, ACLs, CHAP, a write-protected mapping and discovery
    authentication."""
    v6 = ipv6_loopback()
    rtslib_config(v6)
    shutil.rmtree(SAVE, ignore_errors=True)
    os.makedirs(SAVE)
    a, b = SAVE + "/a.json", SAVE + "/b.json"
    out = tcli_ok("saveconfig " + a, "clearconfig confirm=True",
                  "ls", "restoreconfig " + a, "saveconfig " + b)
    assert node(tree_text(out[2]), "iscsi").endswith("[Targets: 0]")
    with open(a) as f:
        saved = json.load(f)
    with open(b) as f:
        again = json.load(f)
    assert canonical(again) == canonical(saved)
    [t] = [t for t in saved["targets"] if t["fabric"] == "iscsi"]
    assert t["wwn"] == IQN
    tpgs = {g["tag"]: g for g in t["tpgs"]}
    assert sorted(tpgs) == [1, 2] and all(g["enable"] for g in tpgs.values())
    ports = sorted((p["ip_address"].strip("[]"), p["port"])
                   for p in tpgs[1]["portals"])
    assert ports == sorted([("127.0.0.1", 3260)] +
                           ([("::1", 3260)] if v6 else []))
    assert [(p["ip_address"], p["port"]) for p in tpgs[2]["portals"]] == \
        [("127.0.0.2", 3260)]
    assert tpgs[1]["attributes"]["default_cmdsn_depth"] == 32
    assert tpgs[1]["parameters"]["TargetAlias"] == "tcmx alias"
    assert tpgs[1]["parameters"]["AuthMethod"] == "CHAP,None"
    [acl] = tpgs[1]["node_acls"]
    assert (acl["node_wwn"], acl["chap_userid"], acl["chap_password"],
            acl["chap_mutual_userid"], acl["chap_mutual_password"]) == \
        (INI, "iu", "ip", "tu", "tp")
    assert acl["attributes"]["nopin_timeout"] == 10
    assert sorted((m["index"], m["tpg_lun"], m["write_protect"])
                  for m in acl["mapped_luns"]) == [(0, 0, True),
                                                   (1, 1, False)]
    [fm] = [m for m in saved["fabric_modules"] if m["name"] == "iscsi"]
    assert fm["discovery_enable_auth"] is True
    assert (fm["discovery_userid"], fm["discovery_mutual_password"]) == \
        ("du", "dmp")


@pytest.mark.tcmx_only
def test_tcmx_iscsi_secrets_and_refusals(stack):
    """tcmx_iscsi keeps secrets 0600; each refused write says why in one
    tcmx_iscsi line naming the file; iser and cxgbit refuse 1 with
    EOPNOTSUPP."""
    tpg = mk_iscsi_tpg(IQN)
    acl = mk_acl(tpg, INI)
    for d in (tpg + "/auth/", acl + "/auth/", ISCSI + "/discovery_auth/"):
        for f, m in (("userid", 0o644), ("password", 0o600),
                     ("userid_mutual", 0o644), ("password_mutual", 0o600),
                     ("authenticate_target", 0o444)):
            assert os.stat(d + f).st_mode & 0o777 == m, d + f
    os.mkdir(tpg + "/np/127.0.0.1:3260")
    cases = ((tpg + "/attrib/login_timeout", "99", "login_timeout"),
             (tpg + "/param/MaxConnections", "0", "MaxConnections"),
             (tpg + "/auth/userid", "u" * 256, "auth/userid"),
             (tpg + "/enable", "x", "enable"),
             (acl + "/attrib/nopin_timeout", "2", "nopin_timeout"),
             (acl + "/cmdsn_depth", "0", "cmdsn_depth"),
             (acl + "/tag", "t" * 64, "tag"),
             (ISCSI + "/cpus_allowed_list", "99999", "cpus_allowed_list"),
             (tpg + "/np/127.0.0.1:3260/iser", "1", "iser"),
             (tpg + "/np/127.0.0.1:3260/cxgbit", "1", "cxgbit"))
    for path, value, name in cases:
        k = Kmsg()
        err = errno.EOPNOTSUPP if name in ("iser", "cxgbit") else \
            errno.EINVAL
        refused(path, value, err)
        said = [ln for ln in k.lines() if "tcmx_iscsi: " in ln or
                "tcmx_core: " in ln]
        assert len(said) == 1 and name in said[0], (path, said)
        k.close()
    k = Kmsg()
    assert err_of(os.mkdir, tpg + "/np/nonsense") == errno.EINVAL
    assert len([ln for ln in k.lines() if "tcmx_iscsi: " in ln]) == 1
    k.close()
    assert rd(tpg + "/dynamic_sessions") == ""
    with open(T + "/iscsi/lio_version") as f:
        assert f.read().startswith("tcmx iSCSI Target v")
