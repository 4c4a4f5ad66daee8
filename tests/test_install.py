# SPDX-License-Identifier: GPL-2.0
"""The installed path (make install): the modules DKMS put in
/lib/modules/<kver>/updates/dkms, found by modprobe through the real
module index, and the unmodified targetcli / targetctl finding tcmx, not
the in-tree LIO, through /etc/modprobe.d/tcmx.conf.

Skipped unless tcmx is installed for the running kernel. tools/check
(TCMX_CHECK_INSTALL=1, .ci/run) installs it on the host, boots each
kernel with tools/vm --no-modules (so the VM sees the host's own
/lib/modules and /etc, not build/) and runs this file.
"""
import glob
import os
import re

import pytest

import tcmxlib
from tcmxlib import KVER, T, loaded, run

UPDATES = "/lib/modules/%s/updates/dkms" % KVER
CONF = "/etc/modprobe.d/tcmx.conf"
SAVE = "/etc/rtslib-fb-target/saveconfig.json"

pytestmark = pytest.mark.skipif(
    not glob.glob(UPDATES + "/tcmx_core.ko*"),
    reason="tcmx is not installed for %s (make install)" % KVER)


def srcversion(path):
    return run(["modinfo", "-F", "srcversion", path]).stdout.strip()


def test_modprobe_resolves_installed_modules():
    deps = run(["modprobe", "--show-depends", "tcmx_loop"]).stdout
    ins = re.findall(r"^insmod (\S+)", deps, re.M)
    names = [os.path.basename(p).split(".")[0] for p in ins]
    assert names[-2:] == ["tcmx_core", "tcmx_loop"], deps
    for p in ins[-2:]:
        assert os.path.dirname(p) == UPDATES, deps
    for m in ("tcmx_core", "tcmx_rd", "tcmx_loop", "tcmx_iscsi"):
        assert os.path.dirname(run(["modinfo", "-n", m]).stdout.strip()) \
            == UPDATES

    run(["modprobe", "tcmx_loop"])
    assert loaded("tcmx_core") and loaded("tcmx_loop")
    assert "tcmx_loop" in os.listdir("/sys/module/tcmx_core/holders")
    # the module loaded is the installed file (MODULE_VERSION gives
    # tcmx_core a srcversion)
    with open("/sys/module/tcmx_core/srcversion") as f:
        assert f.read().strip() == srcversion(
            run(["modinfo", "-n", "tcmx_core"]).stdout.strip())


@pytest.mark.skipif(not os.path.exists(CONF),
                    reason="installed with INTREE=1 (no %s)" % CONF)
def test_intree_still_reachable_with_ignore_install():
    run(["modprobe", "--ignore-install", "target_core_mod"])
    assert loaded("target_core_mod") and not loaded("tcmx_core")
    with open(T + "/version") as f:
        assert "tcmx" not in f.read()
    run(["modprobe", "tcm_loop"])	# target_core_mod is loaded: no redirect
    assert loaded("tcm_loop") and not loaded("tcmx_core")
    run(["modprobe", "--ignore-install", "iscsi_target_mod"])
    assert loaded("iscsi_target_mod") and not loaded("tcmx_iscsi")


@pytest.mark.skipif(not os.path.exists(CONF),
                    reason="installed with INTREE=1 (no %s)" % CONF)
def test_modprobe_iscsi_target_mod_loads_tcmx_iscsi():
    """What rtslib runs when it cannot make target/iscsi loads tcmx's
    iSCSI fabric (and the core under it), not the in-tree one."""
    tcmxlib.env_setup()
    run(["modprobe", "iscsi_target_mod"])
    assert loaded("tcmx_iscsi") and loaded("tcmx_core")
    assert not loaded("iscsi_target_mod") and not loaded("target_core_mod")
    os.mkdir(T + "/iscsi")
    with open(T + "/iscsi/lio_version") as f:
        assert f.read().startswith("tcmx iSCSI Target")


@pytest.mark.skipif(not os.path.exists(CONF),
                    reason="installed with INTREE=1 (no %s)" % CONF)
def test_targetcli_saveconfig_then_boot_restore(dmesg):
    """targetcli with nothing loaded loads tcmx (rtslib: modprobe
    target_core_mod); saveconfig; everything unloaded (a reboot);
    what rtslib-fb-targetctl.service runs at boot brings it back;
    fio writes and verifies the restored LUN."""
    tcmxlib.env_setup()
    assert not os.path.exists(T)
    wwn = tcmxlib.new_wwn()
    tcmxlib.tcli_ok("/backstores/ramdisk create name=inst0 size=64M",
                   "/loopback create %s" % wwn,
                   "/loopback/%s/luns create /backstores/ramdisk/inst0" % wwn,
                   "saveconfig")
    assert loaded("tcmx_core") and loaded("tcmx_rd") and loaded("tcmx_loop")
    assert loaded("tcmx_iscsi")	# rtslib made target/iscsi
    assert not loaded("target_core_mod") and not loaded("tcm_loop")
    assert not loaded("iscsi_target_mod")
    with open(SAVE) as f:
        saved = f.read()
    assert wwn in saved and '"inst0"' in saved

    tcmxlib.unload(stack="tcmx")
    assert not os.path.exists(T) and not loaded("tcmx_core")

    # rtslib-fb-targetctl.service: ExecStart= lines, as at boot
    run("mkdir -p /etc/rtslib-fb-target && /usr/bin/targetctl restore")
    assert loaded("tcmx_core") and not loaded("target_core_mod")
    tpg = "%s/loopback/%s/tpgt_1" % (T, wwn)
    assert os.path.islink(glob.glob(tpg + "/lun/lun_0/*")[0])
    dev = tcmxlib.disk(tpg, 0)
    run(["fio", "--name=verify", "--filename=" + dev, "--direct=1",
         "--ioengine=libaio", "--iodepth=16", "--rw=randwrite", "--bs=4k",
         "--size=32M", "--verify=crc32c", "--do_verify=1",
         "--verify_fatal=1", "--output-format=terse"], timeout=600)
