# SPDX-License-Identifier: GPL-2.0
"""Helpers for the tcmx tests (run as root inside tools/vm).

run()            run a command, return CompletedProcess (text)
Kmsg             kernel messages logged since it was created
load()/unload()  tcmx modules via modprobe (installed by tools/vm), or
                 insmod/rmmod from build/<kver>/ with TCMX_LOAD=insmod
configfs_clean() remove everything under /sys/kernel/config/target
tcmx_clean()     configfs_clean() + rmmod tcmx_loop tcmx_rd tcmx_core
intree_clean()   configfs_clean() + rmmod the in-tree LIO modules

`python3 tests/tcmxlib.py clean` runs tcmx_clean() (used by make unload),
`... clean-intree` runs intree_clean().
"""
import os
import re
import subprocess
import sys

T = "/sys/kernel/config/target"
PROJ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KVER = os.uname().release
# load order; unload in reverse
MODULES = ("tcmx_core", "tcmx_rd", "tcmx_loop")
KO = {"tcmx_core": "target/tcmx_core.ko", "tcmx_rd": "rd_mcp/tcmx_rd.ko",
      "tcmx_loop": "loopback/tcmx_loop.ko"}
INTREE = ("iscsi_target_mod", "tcm_loop", "target_core_pscsi",
          "target_core_file", "target_core_iblock", "target_core_user",
          "target_core_mod")
# kernel log lines that fail any test
BAD_KMSG = re.compile(r"WARNING:|BUG:|kernel BUG|Oops|Call Trace|UBSAN:|KASAN|"
                      r"refcount_t:|INFO: task|hung_task|soft lockup|"
                      r"circular locking|general protection|"
                      r"list_(add|del) corruption|invoked oom-killer|"
                      r"Out of memory|Killed process")


def run(cmd, check=True, timeout=300):
    """Run cmd (a list, or a string for the shell); raise on a non-zero
    exit when check is true. stdout and stderr are text."""
    p = subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True,
                       text=True, timeout=timeout)
    if check and p.returncode:
        raise AssertionError("%s: exit %d\n%s%s" % (
            cmd, p.returncode, p.stdout, p.stderr))
    return p


def loaded(name):
    """True when module name is in /proc/modules."""
    with open("/proc/modules") as f:
        return any(line.split()[0] == name for line in f)


def ko_path(name):
    return os.path.join(PROJ, "build", KVER, KO[name])


def load(*names, check=True):
    """Load modules in the given order (default: all three)."""
    for name in names or MODULES:
        if os.environ.get("TCMX_LOAD") == "insmod":
            p = run(["insmod", ko_path(name)], check=check)
        else:
            p = run(["modprobe", name], check=check)
        if p.returncode:
            return p
    return p


def unload(*names, check=True):
    """rmmod modules in the given order (default: loop, rd, core)."""
    for name in names or MODULES[::-1]:
        if loaded(name):
            p = run(["rmmod", name], check=check)
            if p.returncode:
                return p
    return None


class Kmsg:
    """Kernel log records written after construction (via /dev/kmsg)."""

    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.seen = []

    def lines(self):
        """All messages since construction, a list of lines."""
        while True:
            try:
                rec = os.read(self.fd, 8192).decode(errors="replace")
            except BlockingIOError:
                break
            except BrokenPipeError:	# overwritten records: skip
                continue
            head, _, msg = rec.partition(";")
            self.seen.append(msg.split("\n")[0])
        return list(self.seen)

    def read(self):
        """All messages since construction, one string, newline-separated."""
        return "\n".join(self.lines())

    def bad(self):
        """The lines that look like a kernel warning, BUG or oops."""
        return [ln for ln in self.lines() if BAD_KMSG.search(ln)]

    def close(self):
        os.close(self.fd)


def _walk_bottom_up(top):
    for root, dirs, files in os.walk(top, topdown=False):
        yield root, dirs, files


def _rmdirs_bottom_up(top):
    """rmdir every directory under top, deepest first; configfs refuses
    default groups (they go with their parent), so errors are ignored."""
    for root, dirs, _ in _walk_bottom_up(top):
        for d in dirs:
            path = os.path.join(root, d)
            if not os.path.islink(path):
                try:
                    os.rmdir(path)
                except OSError:
                    pass


def configfs_clean():
    """Remove all objects under $T, whichever target stack owns it:
    LUN/ACL symlinks, then LUNs, TPGs, WWNs and fabric dirs, then storage
    objects and HBAs under core/. Raises if something is left."""
    if not os.path.isdir(T):
        return
    fabrics = [os.path.join(T, f) for f in sorted(os.listdir(T))
               if f != "core" and os.path.isdir(os.path.join(T, f))]
    for _ in range(3):
        for fab in fabrics:
            for root, dirs, files in _walk_bottom_up(fab):
                for n in dirs + files:
                    if os.path.islink(os.path.join(root, n)):
                        os.unlink(os.path.join(root, n))
            _rmdirs_bottom_up(fab)
            try:
                os.rmdir(fab)
            except OSError:
                pass
        core = os.path.join(T, "core")
        if os.path.isdir(core):
            _rmdirs_bottom_up(core)
        left = leftovers()
        if not left:
            return
    raise AssertionError("configfs not clean: %s" % left)


def leftovers():
    """Objects still under $T: fabric dirs and core/<hba> dirs."""
    if not os.path.isdir(T):
        return []
    left = [f for f in os.listdir(T)
            if f != "core" and os.path.isdir(os.path.join(T, f))]
    core = os.path.join(T, "core")
    if os.path.isdir(core):
        left += ["core/" + h for h in os.listdir(core)
                 if re.match(r".+_\d+$", h)]
    return left


def tcmx_clean():
    """Empty configfs and unload tcmx (no-op for what is not loaded)."""
    if loaded("tcmx_core"):
        configfs_clean()
    unload()


def intree_clean():
    """Empty configfs and unload the in-tree LIO modules."""
    if loaded("target_core_mod"):
        configfs_clean()
    for name in INTREE:
        if loaded(name):
            run(["rmmod", name])


if __name__ == "__main__":
    if sys.argv[1:] == ["clean"]:
        tcmx_clean()
    elif sys.argv[1:] == ["clean-intree"]:
        intree_clean()
    else:
        sys.exit("usage: tcmxlib.py clean|clean-intree")
