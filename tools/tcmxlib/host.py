# SPDX-License-Identifier: GPL-2.0
"""Basics: run a command, read and write files, the loaded modules,
memory, the kernel log, the kernel's kind."""
import os
import re
import subprocess

GiB = 1 << 30
MiB = 1 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")
KVER = os.uname().release
CFS = "/sys/kernel/config"
PROJ = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# kernel log lines that fail any test
BAD_KMSG = re.compile(r"WARNING:|BUG:|kernel BUG|Oops|Call Trace|UBSAN:|KASAN|"
                      r"refcount_t:|INFO: task|hung_task|soft lockup|"
                      r"circular locking|general protection|"
                      r"list_(add|del) corruption|invoked oom-killer|"
                      r"Out of memory|Killed process")
# a warning of the initiator's own kernel code, not the target's: the line
# that comes before it; the report it starts (its WARNING and Call Trace,
# up to "end trace") fails no test. Debian 6.1's iSCSI initiator, when a
# session's disk goes (logout) while a runtime-PM work of it is pending.
FOREIGN_KMSG = re.compile(
    r"WQ_MEM_RECLAIM iscsi_ctrl_\S+:__iscsi_unbind_session "
    r"\[scsi_transport_iscsi\] is flushing !WQ_MEM_RECLAIM pm:")
# what the sd driver must not say about a LUN
BAD_SD = re.compile(r"asking for cache data failed|[Uu]nsupported|"
                    r"Assuming drive cache|Sense Key|failed")



def run(cmd, check=True, timeout=300, **kw):
    """Run cmd (a list, or a string for the shell); raise on a non-zero
    exit when check is true. Returns the CompletedProcess, stdout and
    stderr as text."""
    p = subprocess.run(cmd, shell=isinstance(cmd, str), text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, **kw)
    if check and p.returncode:
        raise AssertionError("%s: exit %d\n%s%s" % (
            cmd, p.returncode, p.stdout, p.stderr))
    return p


def wr(path, data):
    """One write(2) of data (bytes, str, or a number: its str()) to path,
    exactly like echo -n / rtslib."""
    if not isinstance(data, (bytes, str)):
        data = str(data)
    if isinstance(data, str):
        data = data.encode()
    fd = os.open(path, os.O_WRONLY)
    try:
        n = os.write(fd, data)
    finally:
        os.close(fd)
    assert n == len(data), "short write to %s: %d" % (path, n)


class StackError(Exception):
    """A step of a tool failed (sh(), the stacks of tcmxlib.stacks)."""


def sh(*cmd, timeout=120):
    """Run a command; raise StackError with the last line of its error
    output when it fails; returns its standard output."""
    p = run(list(cmd), check=False, timeout=timeout)
    if p.returncode:
        msg = (p.stderr or p.stdout).strip().splitlines()
        raise StackError("%s: %s" % (" ".join(cmd),
                                     msg[-1] if msg else "exit %d" % p.returncode))
    return p.stdout


def rd(path):
    with open(path) as f:
        return f.read()


def err_of(fn, *args):
    """errno raised by fn(*args), or 0 if it succeeded."""
    try:
        fn(*args)
    except OSError as e:
        return e.errno
    return 0


def loaded_modules():
    """{name: (refcount, [users])} of the loaded modules (/proc/modules)."""
    mods = {}
    with open("/proc/modules") as f:
        for line in f:
            fld = line.split()
            users = [u for u in fld[3].split(",") if u and u != "-"]
            mods[fld[0]] = (int(fld[2]), users)
    return mods


def modules():
    """The names of the loaded modules, a set."""
    return set(loaded_modules())


def loaded(name):
    """True when module name is in /proc/modules."""
    return name in modules()


def meminfo_kib():
    """/proc/meminfo, {key: value in KiB}."""
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            info[k] = int(v.split()[0])
    return info


def meminfo(key="MemAvailable"):
    """One /proc/meminfo value, in bytes."""
    return meminfo_kib()[key] * 1024


def mem_free_to_use():
    """MemAvailable plus the free pages the per-CPU lists hold, in bytes.
    6.12 keeps far more freed pages there (auto-tuned pcp high marks:
    tens of MiB in a 4 GiB VM) and MemAvailable does not count them, so
    memory given back reappears only with them added."""
    pcp = 0
    with open("/proc/zoneinfo") as f:
        for line in f:
            w = line.split()
            if len(w) == 2 and w[0] == "count:":
                pcp += int(w[1])
    return meminfo() + pcp * os.sysconf("SC_PAGE_SIZE")


def fill(dev, text, length):
    """Write length bytes (whole MiB) of `text` lines ("text\\n" again and
    again, as yes(1) prints it) at the start of dev, direct."""
    run("yes %s | head -c %d | dd of=%s bs=1M oflag=direct "
        "iflag=fullblock status=none" % (text, length, dev))


def sha(dev, off, length):
    """sha256 of length bytes of dev at off (whole MiB), read direct."""
    p = run("dd if=%s bs=1M skip=%d count=%d iflag=direct,skip_bytes "
            "status=none | sha256sum" % (dev, off, length // MiB))
    return p.stdout.split()[0]


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
        """The lines that look like a kernel warning, BUG or oops, but
        those of a report that FOREIGN_KMSG announces."""
        out, foreign = [], False
        for ln in self.lines():
            if FOREIGN_KMSG.search(ln):
                foreign = True
            elif foreign and "---[ end trace" in ln:
                foreign = False
            elif not foreign and BAD_KMSG.search(ln):
                out.append(ln)
        return out

    def close(self):
        os.close(self.fd)



def mount_configfs():
    """configfs mounted on /sys/kernel/config (the VM does it; a bare
    host may not have)."""
    if not os.path.ismount(CFS):
        run(["modprobe", "configfs"], check=False)
        run(["mount", "-t", "configfs", "configfs", CFS])


def cmdline_icount():
    """tools/vm --icount's shift (ns per instruction = 2**shift) from the
    kernel command line, or None."""
    with open("/proc/cmdline") as f:
        for w in f.read().split():
            if w.startswith("tcmx_icount="):
                return int(w.split("=")[1])
    return None


def boot_args():
    """The kernel parameters tools/vm added to this boot (its --append,
    e.g. init_on_alloc=0), or ""."""
    return os.environ.get("TCMX_VM_APPEND", "")


# ------------------------------------------------------------ kernel kind
# A PREEMPT_RT kernel's version string says so ("#1 SMP PREEMPT_RT ...").
# The fault, fuzz and leak runs skip on it (NOT_ON_RT_WHY): they are for
# 6.1, 6.12 and the debug kernel; PREEMPT_RT runs the functional suite.
PREEMPT_RT = "PREEMPT_RT" in os.uname().version.split()
# The debug kernel (KASAN, lockdep, kmemleak; tools/deps builds it): file
# system loads over iSCSI run some 20x slower there than on 6.1.
DEBUG_KERNEL = KVER.endswith("-tcmx-debug")
NOT_ON_RT_WHY = ("PREEMPT_RT: fault, fuzz and leak runs are for 6.1, 6.12 "
                 "and the debug kernel (CI time)")
# So do the flows whose time goes to targetcli, rtslib and multipathd: what
# they do in the kernel (configfs, LUN links, ALUA, PR, offline paths) the
# shorter tests do on PREEMPT_RT too.
USERSPACE_NOT_ON_RT_WHY = ("PREEMPT_RT: targetcli, rtslib and multipathd "
                           "flows run on 6.1, 6.12 and the debug kernel "
                           "(CI time)")
