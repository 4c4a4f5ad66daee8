# SPDX-License-Identifier: GPL-2.0
"""Module life cycle: load order, dependencies, coexistence with the
in-tree LIO (only one stack can own configfs target/), modinfo, module
parameters and what they set. These load tcmx whatever the stack under
test."""
import errno
import os
import re
import threading
import time

import pytest

from tcmxlib import (KO, KVER, MODULES, PROJ, T, MiB, hctl, link_lun, load,
                     loaded, mk_rd, mk_target, rd, run, sgdev, tur,
                     unlink_lun, unload, write_read_block)

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
    load("tcmx_iscsi")
    assert all(loaded(m) for m in MODULES)
    assert holders("tcmx_core") == ["tcmx_iscsi", "tcmx_loop", "tcmx_rd"]

    for i, name in enumerate(MODULES[::-1]):
        run(["rmmod", name])
        assert not loaded(name)
        assert all(loaded(m) for m in MODULES[:len(MODULES) - 1 - i])
    assert not os.path.exists(T)
    log = dmesg.read()
    assert "tcmx target core v" in log and "loaded" in log
    assert "tcmx target core unloaded" in log


@pytest.mark.parametrize("user", ["tcmx_rd", "tcmx_loop", "tcmx_iscsi"])
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
    # (not "tcmx" not in it: it ends with the kernel release, and the
    # debug kernel's is 6.1.N-tcmx-debug)
    assert intree.startswith("Target Engine Core"), intree
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


@pytest.mark.tcmx_only
def test_no_io_scheduler_by_default(scsi_lun):
    """A tcmx disk starts with no I/O scheduler (with shared tags blk-mq
    would give it mq-deadline and 2048 requests of its own); one can still
    be chosen, and data goes through either way."""
    blk = os.path.basename(scsi_lun["dev"])
    sched = "/sys/block/%s/queue/scheduler" % blk
    assert "[none]" in rd(sched), rd(sched)
    nr_requests = int(rd("/sys/block/%s/queue/nr_requests" % blk))
    assert nr_requests == loop_param("can_queue")
    sg = scsi_lun["sg"]
    try:
        with open(sched, "w") as f:
            f.write("mq-deadline")
        assert "[mq-deadline]" in rd(sched), rd(sched)
        write_read_block(sg, 5, 0x5a)
    finally:
        with open(sched, "w") as f:
            f.write("none")
    assert "[none]" in rd(sched)
    write_read_block(sg, 5, 0xa5)


def rmmod_refused(name):
    p = run(["rmmod", name], check=False)
    assert p.returncode != 0 and "in use" in p.stderr, p.stderr
    assert loaded(name)


@pytest.mark.tcmx_only
def test_backend_pinned_while_its_device_exists(stack):
    """A backstore's module stays while one of its devices exists: the
    HBA core/rd_mcp_<n> holds tcmx_rd from its mkdir to its release, and
    every device holds its HBA until the device's own release (which
    calls into tcmx_rd). rmmod tcmx_rd is refused with the device
    exported, and the LUN serves I/O afterwards; refused with the device
    unexported, and with only the HBA left; once the HBA is gone it
    succeeds, and a reloaded tcmx_rd makes devices again."""
    tpg = mk_target()
    so = mk_rd("pinned", 16 * MiB)
    hba = os.path.dirname(so)
    assert refcnt("tcmx_rd") == 1                 # the HBA's
    lun = link_lun(tpg, 0, so)
    sg = sgdev(tpg, 0)
    write_read_block(sg, 5, 0x5a)
    rmmod_refused("tcmx_rd")
    write_read_block(sg, 5, 0xa5)
    unlink_lun(lun)
    rmmod_refused("tcmx_rd")
    os.rmdir(so)
    rmmod_refused("tcmx_rd")
    os.rmdir(hba)
    assert refcnt("tcmx_rd") == 0
    run(["rmmod", "tcmx_rd"])
    assert not loaded("tcmx_rd") and loaded("tcmx_core")
    load("tcmx_rd")
    so = mk_rd("again", 16 * MiB)
    link_lun(tpg, 0, so)
    sg = sgdev(tpg, 0)
    tur(sg)     # the new LUN's POWER ON, if sd has not taken it yet
    write_read_block(sg, 5, 0x3c)


def refcnt(name):
    return int(rd("/sys/module/%s/refcnt" % name).strip())


@pytest.mark.tcmx_only
def test_backend_pinned_across_link_racing_rmdir(stack):
    """The window between allow_link and the symlink's creation: the
    device and its HBA removed meanwhile stay alive (configfs holds the
    link target across both steps, the device its HBA, the HBA
    tcmx_rd) until the failed link is undone, so tcmx_rd can go only once
    no LUN uses the device. Also the window inside rmdir where configfs
    has dropped the device but its directory is still found: the device
    keeps its last reference until then and refuses the link (ENODEV),
    where 6.1 used to hand configfs_symlink an item at refcount 0 (an
    oops). TCMX_RACE_ROUNDS (default 12) rounds."""
    tpg = mk_target()
    lun = "%s/lun/lun_0" % tpg
    os.mkdir(lun)
    for i in range(int(os.environ.get("TCMX_RACE_ROUNDS", "12"))):
        if not loaded("tcmx_rd"):
            load("tcmx_rd")
        so = mk_rd("race%d" % i, 4 * MiB)
        hba = os.path.dirname(so)
        res = {}

        def link():
            try:
                os.symlink(so, lun + "/l")
                res["link"] = None
            except OSError as e:
                res["link"] = e.errno

        t = threading.Thread(target=link)
        t.start()
        if i % 2:
            time.sleep(0.02 * (i % 5))
        gone = []
        for path in (so, hba):
            try:
                os.rmdir(path)
                gone.append(path)
            except OSError as e:
                assert e.errno in (errno.EBUSY, errno.ENOTEMPTY), (path, e)
        unloaded = run(["rmmod", "tcmx_rd"], check=False).returncode == 0
        t.join(60)
        assert not t.is_alive()
        linked = os.path.islink(lun + "/l")
        # a linked LUN keeps its device, hence the HBA and tcmx_rd
        assert res["link"] in (None, errno.ENOENT, errno.ENODEV), res
        assert not (linked and (gone or unloaded)), (i, res, gone, unloaded)
        if linked:
            sgdev(tpg, 0)
            os.unlink(lun + "/l")
        for path in (so, hba):
            if os.path.isdir(path):
                os.rmdir(path)
    if loaded("tcmx_rd"):
        run(["rmmod", "tcmx_rd"])
    load("tcmx_rd")
