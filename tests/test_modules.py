# SPDX-License-Identifier: GPL-2.0
"""Module life cycle: load order, dependencies, coexistence with the
in-tree LIO (only one stack can own configfs target/), modinfo, module
parameters and what they set. These load tcmx whatever the stack under
test."""
import os
import re

import pytest

from tcmxlib import (KO, KVER, MODULES, PROJ, T, hctl, load, loaded, rd, run,
                     unload)

OWNED = "configfs target/ is owned by another target stack " \
        "(target_core_mod?); unload it first"


def holders(name):
    return sorted(os.listdir("/sys/module/%s/holders" % name))


def version():
    with open(os.path.join(T, "version")) as f:
        return f.read()


def test_load_in_order_unload_in_reverse(dmesg):
    load("tcmx_core")
    assert loaded("tcmx_core")
    assert version().startswith("tcmx target core v")
    assert os.path.isfile(os.path.join(T, "dbroot"))
    load("tcmx_rd")
    load("tcmx_loop")
    assert all(loaded(m) for m in MODULES)
    assert holders("tcmx_core") == ["tcmx_loop", "tcmx_rd"]

    for i, name in enumerate(MODULES[::-1]):
        run(["rmmod", name])
        assert not loaded(name)
        assert all(loaded(m) for m in MODULES[:2 - i])
    assert not os.path.exists(T)
    log = dmesg.read()
    assert "tcmx target core v" in log and "loaded" in log
    assert "tcmx target core unloaded" in log


@pytest.mark.parametrize("user", ["tcmx_rd", "tcmx_loop"])
def test_core_in_use_refuses_rmmod(user):
    load("tcmx_core", user)
    p = run(["rmmod", "tcmx_core"], check=False)
    assert p.returncode != 0
    assert "in use" in p.stderr
    assert loaded("tcmx_core") and loaded(user)
    assert os.path.isdir(T)
    unload(user, "tcmx_core")
    assert not loaded("tcmx_core")


def test_intree_owns_configfs_tcmx_refused(dmesg):
    run(["modprobe", "target_core_mod"])
    intree = version()
    assert "tcmx" not in intree
    # plain modprobe: it hides an -EEXIST from the module's init (it takes
    # it for "already loaded"), so a refusal must not use that errno
    p = load("tcmx_core", check=False)
    assert p.returncode != 0, "modprobe tcmx_core succeeded"
    assert not loaded("tcmx_core")
    assert not os.path.exists("/sys/module/tcmx_core")
    assert version() == intree
    assert OWNED in dmesg.read()
    # the in-tree stack still works
    os.mkdir(os.path.join(T, "core", "rd_mcp_0"))
    os.rmdir(os.path.join(T, "core", "rd_mcp_0"))


def test_tcmx_owns_configfs_intree_refused(dmesg):
    load("tcmx_core")
    # the in-tree init fails with -EEXIST, which plain modprobe hides
    p = run(["modprobe", "--first-time", "target_core_mod"], check=False)
    assert p.returncode != 0
    assert not loaded("target_core_mod")
    assert "Error -17 while registering subsystem target" in dmesg.read()
    assert version().startswith("tcmx target core v")


def source_params(name):
    """module_param* names declared in a module's sources."""
    d = os.path.join(PROJ, os.path.dirname(KO[name]))
    names = set()
    for f in os.listdir(d):
        if f.endswith(".c") and not f.endswith(".mod.c"):
            with open(os.path.join(d, f)) as src:
                text = src.read()
            names |= set(re.findall(
                r"\bmodule_param(?:_named|_cb|_array)?\(\s*(\w+)", text))
    return names


def modinfo(path, field):
    return run(["modinfo", "-F", field, path]).stdout.strip()


@pytest.mark.parametrize("name", MODULES)
def test_modinfo(name):
    with open(os.path.join(PROJ, "target", "tcmx.h")) as f:
        ver = re.search(r'#define\s+TCMX_VERSION\s+"([^"]+)"', f.read())[1]
    path = run(["modinfo", "-n", name]).stdout.strip()
    assert path.endswith("/updates/tcmx/%s.ko" % name)
    assert modinfo(path, "license") == "GPL"
    assert "tcmx" in modinfo(path, "description")
    assert modinfo(path, "version") == ver
    assert modinfo(path, "vermagic").split()[0] == KVER
    parms = {}
    for line in modinfo(path, "parm").splitlines():
        pname, _, desc = line.partition(":")
        parms[pname] = desc
    assert set(parms) == source_params(name)
    for pname, desc in parms.items():
        assert desc.split("(")[0].strip(), "parameter %s: no description" % pname


def loop_param(name):
    with open("/sys/module/tcmx_loop/parameters/" + name) as f:
        return int(f.read())


def test_loop_queue_depth_defaults(tcmx_modules):
    # 64 tags per CPU, at least 256; each LUN may use them all
    want = min(max(64 * os.cpu_count(), 256), 10240)
    assert loop_param("can_queue") == want
    assert loop_param("cmd_per_lun") == want
    assert loop_param("nr_hw_queues") == 0     # one per CPU


@pytest.mark.parametrize("params,msg", [
    (["can_queue=10241"], "can_queue=10241: must be 0 (auto) or 1..10240"),
    (["can_queue=200", "cmd_per_lun=300"],
     "cmd_per_lun=300: must be 0 (= can_queue) or 1..can_queue (200)"),
    (["nr_hw_queues=%d" % (os.cpu_count() + 1)],
     "nr_hw_queues=%d: must be 0..%d (CPUs)" % (os.cpu_count() + 1,
                                                 os.cpu_count())),
])
def test_loop_bad_params_refused(dmesg, params, msg):
    load("tcmx_core")
    p = run(["modprobe", "tcmx_loop"] + params, check=False)
    assert p.returncode != 0
    assert "Invalid argument" in p.stderr
    assert not loaded("tcmx_loop")
    assert ("tcmx_loop: " + msg) in dmesg.read()
    # nothing left half-way: it loads fine afterwards
    load("tcmx_loop")
    assert loop_param("can_queue") >= 256


@pytest.mark.tcmx_only
def test_queue_depths_from_params(scsi_lun):
    """The host and the LUN use tcmx_loop's can_queue and cmd_per_lun."""
    def num(path):
        return int(rd(path).strip())
    params = "/sys/module/tcmx_loop/parameters/"
    h = hctl(scsi_lun["tpg"], 0)
    sdev = "/sys/class/scsi_device/%s/device/" % h
    host = "host" + h.split(":")[0]
    assert num("/sys/class/scsi_host/%s/can_queue" % host) == \
        num(params + "can_queue")
    assert num(sdev + "queue_depth") == num(params + "cmd_per_lun")
    # one blk-mq hardware queue per CPU
    blk = os.path.basename(scsi_lun["dev"])
    assert len(os.listdir("/sys/block/%s/mq" % blk)) == os.cpu_count()
