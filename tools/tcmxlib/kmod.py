# SPDX-License-Identifier: GPL-2.0
"""Module load and unload: the stack under test (TCMX_TEST_STACK)."""
import os

from .configfs import T, clean
from .host import (KVER, PROJ, StackError, loaded, loaded_modules,
                   mount_configfs, run, sh)

STACK = os.environ.get("TCMX_TEST_STACK", "tcmx")
# load order; unload in reverse
MODULES = ("tcmx_core", "tcmx_rd", "tcmx_loop", "tcmx_iscsi")
KO = {"tcmx_core": "target/tcmx_core.ko", "tcmx_rd": "rd_mcp/tcmx_rd.ko",
      "tcmx_loop": "loopback/tcmx_loop.ko",
      "tcmx_iscsi": "iscsi/tcmx_iscsi.ko"}
# the in-tree LIO: what the lio stack loads, and what may have to go
LIO = ("target_core_mod", "tcm_loop")
INTREE = ("iscsi_target_mod", "tcm_loop", "target_core_pscsi",
          "target_core_file", "target_core_iblock", "target_core_user",
          "target_core_mod")
# per stack: (load order, unload order, the core that owns configfs)
STACKS = {"tcmx": (MODULES, MODULES[::-1], "tcmx_core"),
          "lio": (LIO, INTREE, "target_core_mod")}
LOAD = STACKS[STACK][0]
if STACK == "lio":
    FABRIC_MOD, BACKEND_MOD, CORE_MOD = "tcm_loop", "target_core_mod", \
        "target_core_mod"
else:
    FABRIC_MOD, BACKEND_MOD, CORE_MOD = "tcmx_loop", "tcmx_rd", "tcmx_core"


def env_setup():
    """What the VM should have done; harmless when it did."""
    mount_configfs()
    for m in ("sd_mod", "sg"):
        if not loaded(m):
            run(["modprobe", m], check=False)
    os.makedirs("/etc/rtslib-fb-target", exist_ok=True)


def ko_path(name):
    return os.path.join(PROJ, "build", KVER, KO[name])


def load(*names, check=True):
    """Load modules in the given order, skipping loaded ones; default: the
    stack under test (LOAD), which must then own configfs target/.
    tcmx modules come from modprobe (tools/vm installs them), or insmod
    of build/<kver>/ with TCMX_LOAD=insmod. Returns the last
    CompletedProcess (the failed one with check=False), or None."""
    env_setup()
    p = None
    for name in names or LOAD:
        if loaded(name):
            continue
        if name in KO and os.environ.get("TCMX_LOAD") == "insmod":
            p = run(["insmod", ko_path(name)], check=check)
        else:
            p = run(["modprobe", name], check=check)
        if p.returncode:
            return p
    if not names:
        assert os.path.isdir(T), "%s missing after loading %s" % (T, LOAD)
    return p


def unload(*names, stack=None, check=True):
    """rmmod the loaded ones of names, in the given order. Without names,
    a whole stack (default: the one under test; "tcmx" or "lio"): first
    configfs is emptied if that stack's core owns it, then its modules go
    in reverse load order. Returns None, or with check=False the
    CompletedProcess of a failed rmmod."""
    if not names:
        _, names, core = STACKS[stack or STACK]
        if loaded(core):
            clean()
    for name in names:
        if loaded(name):
            p = run(["rmmod", name], check=check)
            if p.returncode:
                return p
    return None




def modprobe(name, **params):
    """modprobe name with module parameters; StackError if it fails."""
    sh("modprobe", name, *["%s=%s" % kv for kv in params.items()])


def has_module(name):
    """modinfo knows name: it can be loaded."""
    return run(["modinfo", name], check=False).returncode == 0


def unload_users_first(names):
    """rmmod every loaded module of names, users before what they use;
    StackError if some stay in use."""
    while True:
        mods = loaded_modules()
        left = [m for m in names if m in mods]
        if not left:
            return
        free = [m for m in left if not mods[m][1]]
        if not free:
            raise StackError("cannot unload %s (in use)" % ", ".join(left))
        sh("rmmod", *free)
