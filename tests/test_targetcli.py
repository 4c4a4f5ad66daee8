# SPDX-License-Identifier: GPL-2.0
"""The user's flows with the unmodified Debian targetcli: create, ls,
saveconfig JSON, deletes, refused commands."""
import json
import os
import re

import pytest

from tcmxlib import (PREEMPT_RT, USERSPACE_NOT_ON_RT_WHY, BAD_SD, GiB, LOOP,
                     MiB, T, disk, hctl, rd, run, sd_attached, tcli,
                     tcli_ok, tree_text)
WWN = "naa.5001405000000001"
TPG = "%s/%s/tpgt_1" % (LOOP, WWN)
SAVE = "/tmp/lun-tcli"

pytestmark = pytest.mark.skipif(PREEMPT_RT, reason=USERSPACE_NOT_ON_RT_WHY)


def node(tree, name):
    """The line of `ls` for node name (first match)."""
    for l in tree:
        if re.match(r"[ |]*o- %s \[" % re.escape(name), l):
            return l
    raise AssertionError("%s not in\n%s" % (name, "\n".join(tree)))


def test_create_flow(stack, dmesg):
    out = tcli_ok("/backstores/ramdisk create name=r0 size=1G",
                  "/loopback create " + WWN,
                  "/loopback/%s/luns create /backstores/ramdisk/r0" % WWN,
                  "ls")
    assert "Created ramdisk r0 with size 1G." in out[0]
    assert "Created target %s." % WWN in out[1]
    assert "Created LUN 0." in out[2]
    tree = tree_text(out[3])
    assert node(tree, "ramdisk").endswith("[Storage Objects: 1]")
    assert node(tree, "r0").endswith("[(1.0GiB) activated]")
    assert node(tree, "default_tg_pt_gp").endswith(
        "[ALUA state: Active/optimized]")
    assert node(tree, "loopback").endswith("[Targets: 1]")
    assert node(tree, WWN).endswith("[NEXUS]")
    assert node(tree, "luns").endswith("[LUNs: 1]")
    assert node(tree, "lun0").endswith("[ramdisk/r0 (default_tg_pt_gp)]")
    assert node(tree, "iscsi").endswith("[Targets: 0]")
    # what it did in configfs
    so = T + "/core/rd_mcp_0/r0"
    flat = " ".join(rd(so + "/info").split())
    assert "PAGES/PAGE_SIZE: 262144*%d" % 4096 in flat
    assert "Status: ACTIVATED" in flat
    assert rd(so + "/attrib/emulate_model_alias").strip() == "1"
    assert rd(so + "/wwn/product_id").strip() == "r0"
    assert re.fullmatch(r"T10 VPD Unit Serial Number: [0-9a-f-]{36}\n",
                        rd(so + "/wwn/vpd_unit_serial"))
    links = [e for e in os.listdir(TPG + "/lun/lun_0")
             if os.path.islink(TPG + "/lun/lun_0/" + e)]
    assert len(links) == 1
    assert os.path.realpath(TPG + "/lun/lun_0/" + links[0]) == so
    # the new disk: attached cleanly, right size, keeps data
    dev = disk(TPG, 0)
    name = os.path.basename(dev)
    assert int(rd("/sys/block/%s/size" % name)) * 512 == GiB
    assert rd("/sys/block/%s/device/model" % name).strip() == "r0"
    sd = sd_attached(dmesg, dev)
    sd += [l for l in dmesg.lines() if hctl(TPG, 0) in l]
    assert not [l for l in sd if BAD_SD.search(l)], sd
    run("head -c %d /dev/urandom > /tmp/pat" % (8 * MiB))
    run("dd if=/tmp/pat of=%s bs=1M oflag=direct status=none" % dev)
    got = run("dd if=%s bs=1M count=8 iflag=direct status=none | sha256sum"
              % dev).stdout.split()[0]
    assert got == run("sha256sum /tmp/pat").stdout.split()[0]


def test_more_flows_and_deletes(stack):
    cmds = ["/backstores/ramdisk create name=r0 size=64M",
            "/backstores/ramdisk create name=r1 size=16M nullio=true",
            "/loopback create " + WWN,
            "/loopback/%s/luns create /backstores/ramdisk/r0" % WWN,
            "/loopback/%s/luns create /backstores/ramdisk/r1 lun=3" % WWN,
            "ls",
            "saveconfig %s/a.json" % SAVE,
            "/loopback/%s/luns delete lun0" % WWN,
            "/backstores/ramdisk delete r1",
            "/ refresh",
            "ls",
            "/loopback delete " + WWN,
            "/backstores/ramdisk delete r0",
            "ls",
            "/iscsi create iqn.2003-01.org.example:t1",
            "/loopback create naa.5001405zzzzzzzzz",
            "/loopback/%s/luns create /backstores/ramdisk/r9" % WWN]
    os.makedirs(SAVE, exist_ok=True)
    res = tcli(*cmds)
    ok = len(cmds) - 2
    for c, (out, errs) in zip(cmds[:ok], res):
        assert not errs, "%s:\n%s" % (c, out)
    for c, (out, errs) in zip(cmds[ok:], res[ok:]):
        assert errs, "%s should have failed:\n%s" % (c, out)
    tree = tree_text(res[5][0])
    assert node(tree, "r0").endswith("[(64.0MiB) activated]")
    assert node(tree, "r1").endswith("[nullio (16.0MiB) activated]")
    assert node(tree, "lun3").endswith("[ramdisk/r1 (default_tg_pt_gp)]")
    # saveconfig JSON
    with open(SAVE + "/a.json") as f:
        cfg = json.load(f)
    sos = {s["name"]: s for s in cfg["storage_objects"]}
    assert sos["r0"]["size"] == 64 * MiB and sos["r0"]["plugin"] == "ramdisk"
    assert sos["r1"].get("nullio") is True and sos["r1"]["size"] == 16 * MiB
    assert "nullio" not in sos["r0"]
    assert sos["r0"]["attributes"]["block_size"] == 512
    assert sos["r0"]["attributes"]["emulate_model_alias"] == 1
    for a in ("hw_block_size", "hw_max_sectors", "hw_queue_depth"):
        assert a not in sos["r0"]["attributes"]
    assert [g["name"] for g in sos["r0"]["alua_tpgs"]] == ["default_tg_pt_gp"]
    assert sos["r0"]["alua_tpgs"][0]["alua_access_type"] == 3
    assert re.fullmatch(r"[0-9a-f-]{36}", sos["r0"]["wwn"])
    [tgt] = cfg["targets"]
    assert tgt["fabric"] == "loopback" and tgt["wwn"] == WWN
    [tpg] = tgt["tpgs"]
    assert tpg["tag"] == 1 and tpg["attributes"] == {"fabric_prot_type": 0}
    assert sorted((l["index"], l["storage_object"]) for l in tpg["luns"]) \
        == [(0, "/backstores/ramdisk/r0"), (3, "/backstores/ramdisk/r1")]
    assert cfg["fabric_modules"] == []
    # the deletes
    tree = tree_text(res[10][0])
    assert node(tree, "ramdisk").endswith("[Storage Objects: 1]")
    assert node(tree, "luns").endswith("[LUNs: 0]")
    tree = tree_text(res[13][0])
    assert node(tree, "ramdisk").endswith("[Storage Objects: 0]")
    assert node(tree, "loopback").endswith("[Targets: 0]")
    assert os.listdir(T + "/core") == ["alua"] or \
        not [d for d in os.listdir(T + "/core") if d.startswith("rd_mcp")]
    assert not [e for e in os.listdir(LOOP) if e.startswith("naa.")]
    assert os.path.isdir(T + "/iscsi/iqn.2003-01.org.example:t1/tpgt_1")
