# SPDX-License-Identifier: GPL-2.0
"""Helpers for the tcmx tests (run as root inside tools/vm), and for
`make unload` on a real host (so: standard library only, no pytest).

TCMX_TEST_STACK selects the stack under test: "tcmx" (default: tcmx_core
+ tcmx_rd + tcmx_loop) or "lio" (the in-tree target_core_mod + tcm_loop),
which validates the tests themselves: every test that states in-tree
behaviour must pass on both; tests of requirements the in-tree LIO does
not meet are marked @pytest.mark.tcmx_only (see conftest.py). The tests
of the modules themselves (test_modules.py) load tcmx whatever the stack.

Basics       run(), wr(), rd(), err_of(), modules(), loaded(), meminfo(),
             sha(), Kmsg (kernel messages logged since it was created)
Modules      load()/unload(): the stack under test, or named modules
             (modprobe; insmod from build/<kver>/ with TCMX_LOAD=insmod)
configfs     clean() removes everything under /sys/kernel/config/target;
             mk_rd(), mk_target(), link_lun(), unlink_lun(), setup_luns(),
             hctl(), disk(), sgdev(), sd_attached(), scsi_present()
targetcli    tcli(), tcli_ok(), tree_text()
SCSI         sgio(), sg_io() (SG_IO by ioctl), kcq(), sg_raw(), tur(),
             tool(), field()

`python3 tests/tcmxlib.py clean` empties configfs if tcmx owns it and
unloads tcmx (used by make unload), `... clean-intree` does the same for
the in-tree LIO.
"""
import contextlib
import ctypes
import fcntl
import glob
import os
import re
import secrets
import subprocess
import sys
import time

T = "/sys/kernel/config/target"
LOOP = T + "/loopback"
PROJ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KVER = os.uname().release
STACK = os.environ.get("TCMX_TEST_STACK", "tcmx")
# load order; unload in reverse
MODULES = ("tcmx_core", "tcmx_rd", "tcmx_loop")
KO = {"tcmx_core": "target/tcmx_core.ko", "tcmx_rd": "rd_mcp/tcmx_rd.ko",
      "tcmx_loop": "loopback/tcmx_loop.ko"}
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

GiB = 1 << 30
MiB = 1 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")

# kernel log lines that fail any test
BAD_KMSG = re.compile(r"WARNING:|BUG:|kernel BUG|Oops|Call Trace|UBSAN:|KASAN|"
                      r"refcount_t:|INFO: task|hung_task|soft lockup|"
                      r"circular locking|general protection|"
                      r"list_(add|del) corruption|invoked oom-killer|"
                      r"Out of memory|Killed process")
# what the sd driver must not say about a LUN
BAD_SD = re.compile(r"asking for cache data failed|[Uu]nsupported|"
                    r"Assuming drive cache|Sense Key|failed")


# ---------------------------------------------------------------- basics
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
    """One write(2) of data to path, exactly like echo -n / rtslib."""
    if isinstance(data, str):
        data = data.encode()
    fd = os.open(path, os.O_WRONLY)
    try:
        n = os.write(fd, data)
    finally:
        os.close(fd)
    assert n == len(data), "short write to %s: %d" % (path, n)


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


def modules():
    """The names of the loaded modules, a set."""
    with open("/proc/modules") as f:
        return {line.split()[0] for line in f}


def loaded(name):
    """True when module name is in /proc/modules."""
    return name in modules()


def meminfo(key="MemAvailable"):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


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
        """The lines that look like a kernel warning, BUG or oops."""
        return [ln for ln in self.lines() if BAD_KMSG.search(ln)]

    def close(self):
        os.close(self.fd)


# --------------------------------------------------------------- modules
def env_setup():
    """What the VM should have done; harmless when it did."""
    if not os.path.ismount("/sys/kernel/config"):
        run(["modprobe", "configfs"], check=False)
        run(["mount", "-t", "configfs", "configfs", "/sys/kernel/config"])
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


# --------------------------------------------------------------- configfs
def _rmdirs_bottom_up(top):
    """rmdir every directory under top, deepest first; configfs refuses
    default groups (they go with their parent), so errors are ignored."""
    for root, dirs, _ in os.walk(top, topdown=False):
        for d in dirs:
            path = os.path.join(root, d)
            if not os.path.islink(path):
                try:
                    os.rmdir(path)
                except OSError:
                    pass


def clean():
    """Remove all objects under $T, whichever target stack owns it:
    LUN/ACL symlinks, then LUNs, TPGs, WWNs and fabric dirs, then storage
    objects (with their ALUA groups) and HBAs under core/. Raises if
    something is left."""
    if not os.path.isdir(T):
        return
    fabrics = [os.path.join(T, f) for f in sorted(os.listdir(T))
               if f != "core" and os.path.isdir(os.path.join(T, f))]
    for _ in range(3):
        for fab in fabrics:
            for root, dirs, files in os.walk(fab, topdown=False):
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


def free_hba_index():
    used = {int(m.group(1)) for m in
            (re.match(r".*_(\d+)$", p) for p in glob.glob(T + "/core/*_*"))
            if m}
    return min(set(range(len(used) + 1)) - used)


def mk_rd(name, size, nullio=False, overcommit=False, serial=None):
    """A ramdisk device made the way rtslib makes it; returns its path."""
    hba = "%s/core/rd_mcp_%d" % (T, free_hba_index())
    os.mkdir(hba)
    so = hba + "/" + name
    os.mkdir(so)
    wr(so + "/control", "rd_pages=%d" % max(1, size // PAGE))
    if nullio:
        wr(so + "/control", "rd_nullio=1")
    if overcommit:
        wr(so + "/control", "rd_overcommit=1")
    wr(so + "/enable", "1\n")
    wr(so + "/wwn/vpd_unit_serial", (serial or name + "-" +
                                     secrets.token_hex(8)) + "\n")
    return so


def new_wwn():
    return "naa.5001405" + secrets.token_hex(5)[:9]


def mk_target(wwn=None, tag=1):
    """WWN + tpgt_<tag> + nexus, as rtslib does; returns the TPG path."""
    wwn = wwn or new_wwn()
    tpg = "%s/%s/tpgt_%d" % (LOOP, wwn, tag)
    os.makedirs(tpg)
    wr(tpg + "/nexus", new_wwn())
    return tpg


def link_lun(tpg, n, so, alias=None):
    lun = "%s/lun/lun_%d" % (tpg, n)
    os.mkdir(lun)
    os.symlink(so, lun + "/" + (alias or secrets.token_hex(5)))
    return lun


def unlink_lun(lun):
    for e in os.listdir(lun):
        if os.path.islink(os.path.join(lun, e)):
            os.unlink(os.path.join(lun, e))
    os.rmdir(lun)


def hctl(tpg, n):
    """H:C:T:L of LUN n of tpg, from the TPG's address file."""
    return "%s:%d" % (rd(tpg + "/address").strip(), n)


def _sysdev(tpg, n, sub, timeout):
    h = hctl(tpg, n)
    end = time.time() + timeout
    while True:
        names = glob.glob("/sys/class/scsi_device/%s/device/%s/*" % (h, sub))
        if names:
            name = os.path.basename(names[0])
            dev = "/dev/" + name
            # devtmpfs makes the node before /sys/block/<disk> is linked
            if os.path.exists(dev) and (sub != "block" or os.path.exists(
                    "/sys/block/%s/size" % name)):
                return dev
        if time.time() > end:
            raise AssertionError("no %s device for %s after %ds"
                                 % (sub, h, timeout))
        time.sleep(0.1)


def disk(tpg, n, timeout=60):
    """/dev/sdX of LUN n of tpg (waits for sd to attach it)."""
    return _sysdev(tpg, n, "block", timeout)


def sgdev(tpg, n, timeout=60):
    """/dev/sgN of LUN n of tpg."""
    return _sysdev(tpg, n, "scsi_generic", timeout)


def sd_attached(kmsg, dev, timeout=30):
    """The sd lines about dev once sd said it attached it (the node in
    /dev can appear before that line)."""
    name = os.path.basename(dev)
    end = time.time() + timeout
    while True:
        lines = [ln for ln in kmsg.lines() if "[%s]" % name in ln]
        if any("Attached SCSI disk" in ln for ln in lines):
            return lines
        if time.time() > end:
            raise AssertionError("sd did not attach %s: %s" % (dev, lines))
        time.sleep(0.2)


def scsi_present(tpg, n):
    try:
        return os.path.isdir("/sys/class/scsi_device/" + hctl(tpg, n))
    except OSError:
        return False


def setup_luns(count, size, names="r"):
    """count ramdisks of size on one TPG as LUNs 0..count-1.

    Returns (tpg, [so...]) once every /dev/sdX exists and has no unit
    attention pending (each LUN linked after the first gave the earlier
    ones REPORTED LUNS DATA HAS CHANGED, which SG_IO does not retry)."""
    tpg = mk_target()
    sos = []
    for i in range(count):
        so = mk_rd("%s%d" % (names, i), size)
        link_lun(tpg, i, so)
        sos.append(so)
    for i in range(count):
        tur(disk(tpg, i))
    return tpg, sos


# -------------------------------------------------------------- targetcli
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TCLI_TIMES = []      # per call: (command, seconds since start) pairs


def tcli(*cmds, timeout=600):
    """Run the unmodified /usr/bin/targetcli once with cmds on stdin.

    Returns one (output, errors) pair per command: errors are the
    "Error: ..." lines targetcli printed for that command."""
    script = "set global auto_save_on_exit=false color_mode=false\n"
    script += "".join(c + "\n" for c in cmds)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.time()
    p = subprocess.Popen(["/usr/bin/targetcli"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env)
    p.stdin.write(script.encode())
    p.stdin.close()
    raw, stamps = b"", []
    while True:
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        raw += chunk
        stamps += [time.time() - t0] * chunk.count(b"/> ")
    rc = p.wait(timeout=timeout)
    out = ANSI.sub("", raw.decode(errors="replace"))
    TCLI_TIMES.append(list(zip(["(start)", "(set)"] + list(cmds), stamps)))
    if os.environ.get("TCMX_TEST_TIMES"):
        with open(os.environ["TCMX_TEST_TIMES"], "a") as f:
            for c, t in TCLI_TIMES[-1]:
                f.write("%7.1f  %s\n" % (t, c))
    assert rc == 0 and "Traceback" not in out, out
    parts = out.split("/> ")
    # parts: banner, "set global", one per command, "exit"
    assert len(parts) == len(cmds) + 3, out
    res = []
    for part in parts[2:-1]:
        errs = [ln for ln in part.splitlines() if ln.startswith("Error")]
        res.append((part, errs))
    return res


def tcli_ok(*cmds):
    res = tcli(*cmds)
    for c, (out, errs) in zip(cmds, res):
        assert not errs, "targetcli %r failed:\n%s" % (c, out)
    return [out for out, _ in res]


def tree_text(ls_out):
    """targetcli ls output without the volatile parts (dots, nexus)."""
    lines = []
    for ln in ls_out.splitlines():
        ln = re.sub(r" \.+ ", " ", ln.rstrip())
        ln = re.sub(r"\[naa\.[0-9a-f]{16}\]", "[NEXUS]", ln)
        if ln.strip():
            lines.append(ln)
    return lines


# ------------------------------------------------------------------- SCSI
class SgIoHdr(ctypes.Structure):
    _fields_ = [("interface_id", ctypes.c_int),
                ("dxfer_direction", ctypes.c_int),
                ("cmd_len", ctypes.c_ubyte), ("mx_sb_len", ctypes.c_ubyte),
                ("iovec_count", ctypes.c_ushort),
                ("dxfer_len", ctypes.c_uint), ("dxferp", ctypes.c_void_p),
                ("cmdp", ctypes.c_void_p), ("sbp", ctypes.c_void_p),
                ("timeout", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("pack_id", ctypes.c_int), ("usr_ptr", ctypes.c_void_p),
                ("status", ctypes.c_ubyte), ("masked_status", ctypes.c_ubyte),
                ("msg_status", ctypes.c_ubyte), ("sb_len_wr", ctypes.c_ubyte),
                ("host_status", ctypes.c_ushort),
                ("driver_status", ctypes.c_ushort),
                ("resid", ctypes.c_int), ("duration", ctypes.c_uint),
                ("info", ctypes.c_uint)]


SG_IO = 0x2285
SG_DXFER_NONE, SG_DXFER_TO_DEV, SG_DXFER_FROM_DEV = -1, -2, -3


def sg_io(fd, cdb, direction=SG_DXFER_NONE, addr=None, length=0,
          timeout_ms=60000):
    """One SG_IO of cdb on fd with the data buffer at address addr (length
    bytes, moved as direction says: SG_DXFER_*); returns (status, sense
    bytes, hdr). The sense buffer has room for 96 bytes."""
    cdb_buf = ctypes.create_string_buffer(bytes(cdb), len(cdb))
    sense = ctypes.create_string_buffer(96)
    h = SgIoHdr(interface_id=ord("S"), cmd_len=len(cdb), mx_sb_len=96,
                cmdp=ctypes.addressof(cdb_buf), sbp=ctypes.addressof(sense),
                timeout=timeout_ms, dxfer_direction=direction,
                dxfer_len=length, dxferp=addr)
    fcntl.ioctl(fd, SG_IO, h)
    return h.status, sense.raw[:h.sb_len_wr], h


def sgio(fd, cdb, din=0, dout=None, timeout_ms=60000):
    """One SG_IO: data-out bytes dout, or din bytes of data-in, or no
    data; returns (status, sense bytes, data-in bytes, hdr)."""
    if dout is not None:
        buf = ctypes.create_string_buffer(bytes(dout), len(dout))
        d, n = SG_DXFER_TO_DEV, len(dout)
    elif din:
        buf = ctypes.create_string_buffer(din)
        d, n = SG_DXFER_FROM_DEV, din
    else:
        buf, d, n = None, SG_DXFER_NONE, 0
    addr = None if buf is None else ctypes.addressof(buf)
    st, sense, h = sg_io(fd, cdb, d, addr, n, timeout_ms)
    data = buf.raw[:din - h.resid] if din else b""
    return st, sense, data, h


def sgcmd(path, cdb, din=0, dout=None):
    """sgio() on a device node opened for the one command: (status, sense,
    data-in)."""
    fd = os.open(path, os.O_RDWR)
    try:
        st, sense, data, _ = sgio(fd, cdb, din, dout)
    finally:
        os.close(fd)
    return st, sense, data


def unit_attentions(sg, tries=10):
    """TEST UNIT READY over SG_IO until it is not a unit attention: the
    (key, asc, ascq) of those it consumed, and how it ended (None for
    GOOD, else the other sense's triple)."""
    seen = []
    for _ in range(tries):
        st, sense, _ = sgcmd(sg, [0, 0, 0, 0, 0, 0])
        k = kcq(sense) if st == 0x02 else None
        assert st in (0x00, 0x02), (sg, st)
        if not k or k[0] != 0x6:
            return seen, k
        seen.append(k)
    raise AssertionError("%s: unit attentions do not stop: %s" % (sg, seen))


def ua_clear(sg):
    """unit_attentions() that must end in GOOD: the attentions consumed."""
    seen, last = unit_attentions(sg)
    assert last is None, (sg, seen, last)
    return seen


AUTOPROBE = "/sys/bus/scsi/drivers_autoprobe"


@contextlib.contextmanager
def sd_off():
    """No driver (sd) binds new SCSI devices meanwhile: only /dev/sgN, so
    that no one else takes their unit attentions."""
    wr(AUTOPROBE, "0")
    try:
        yield
    finally:
        wr(AUTOPROBE, "1")


def two_nexuses(name, size=16 * MiB):
    """One ramdisk behind two loopback targets A and B (LUN 0 each): two
    I_T nexuses to one logical unit, their power-on unit attentions
    taken.  Call under sd_off().  A dict: so (device path), pr (its pr/),
    ta, tb (TPG paths), wa, wb (WWNs), na, nb (nexus names), a, b
    (/dev/sgN)."""
    so = mk_rd(name, size)
    ta, tb = mk_target(), mk_target()
    link_lun(ta, 0, so)
    link_lun(tb, 0, so)
    d = dict(so=so, pr=so + "/pr/", ta=ta, tb=tb,
             wa=ta.split("/")[-2], wb=tb.split("/")[-2],
             na=rd(ta + "/nexus").strip(), nb=rd(tb + "/nexus").strip(),
             a=sgdev(ta, 0), b=sgdev(tb, 0))
    ua_clear(d["a"])
    ua_clear(d["b"])
    return d


def vpd83_ports(sg):
    """{designator type: value} of VPD 0x83's relative target port (4) and
    target port group (5) designators."""
    st, sense, data = sgcmd(sg, [0x12, 1, 0x83, 0, 255, 0], din=255)
    assert st == 0, sense
    at, out = 4, {}
    while at + 8 <= len(data):
        kind, ln = data[at + 1] & 0x0f, data[at + 3]
        if kind in (4, 5):
            out[kind] = int.from_bytes(data[at + 6:at + 8], "big")
        at += 4 + ln
    return out


def kcq(sense):
    """(key, asc, ascq) of fixed or descriptor sense data."""
    if not sense:
        return None
    if sense[0] & 0x7f in (0x72, 0x73):
        return sense[1] & 0xf, sense[2], sense[3]
    assert sense[0] & 0x7f in (0x70, 0x71), sense.hex()
    return sense[2] & 0xf, sense[12], sense[13]


def sg_raw(dev, cdb, rlen=0, data=None):
    """Run sg_raw; returns (status text, (key, asc, ascq) or None, data)."""
    args = ["sg_raw", "-v"]
    out = "/tmp/sg_raw.out"
    if rlen:
        args += ["-r", str(rlen), "-o", out]
    if data is not None:
        with open("/tmp/sg_raw.in", "wb") as f:
            f.write(data)
        args += ["-s", str(len(data)), "-i", "/tmp/sg_raw.in"]
    if os.path.exists(out):
        os.unlink(out)
    p = run(args + [dev] + ["%02x" % b for b in cdb], check=False,
            timeout=120)
    text = p.stdout + p.stderr
    m = re.search(r"SCSI Status: (.+?)\s*$", text, re.M)
    assert m, text
    sense = None
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if "Raw sense data" in ln:
            hx = []
            for h in lines[i + 1:]:
                if not re.fullmatch(r"\s+(?:[0-9a-f]{2}\s*)+", h):
                    break
                hx += h.split()
            sense = kcq(bytes.fromhex("".join(hx)))
            break
    got = b""
    if rlen and os.path.exists(out):
        with open(out, "rb") as f:
            got = f.read()
    return m.group(1), sense, got


def tool(*args):
    """Run an sg3_utils (or other) tool that must succeed; its output."""
    p = run(list(args), timeout=120)
    return p.stdout + p.stderr


def field(text, name):
    """The value after "name=" or "name:" in a tool's output."""
    m = re.search(r"\b%s[=:]\s*(\S+)" % re.escape(name), text)
    assert m, "%s not in:\n%s" % (name, text)
    return m.group(1)


def tur(dev, tries=4):
    """TEST UNIT READY until GOOD, consuming unit attentions (such as
    REPORTED LUNS DATA HAS CHANGED after another LUN came or went)."""
    for _ in range(tries):
        st, sense, _ = sg_raw(dev, [0, 0, 0, 0, 0, 0])
        if st == "Good":
            return
        assert sense and sense[0] == 6, (dev, st, sense)
    raise AssertionError("%s: unit attentions do not stop" % dev)


# libiscsi's iscsi-test-cu (Debian libiscsi-bin) over SG_IO: the one runner
# of tools/conformance (every suite, both stacks) and of the tests that run
# a few suites; LIBISCSI_KNOWN is the one list of its results that differ
# from a pass or an allowed skip, with the reason (CONFORMANCE.md).
LIBISCSI_TOOL = "iscsi-test-cu"
# libiscsi 1.19 dereferences a NULL iSCSI context in this test over SG_IO
LIBISCSI_NOT_RUN = {"Sanitize.OverwriteReserved"}
# Over SG_IO these return at once with CU_PASS("[SKIPPED] Non-iSCSI") and
# print nothing: counted as skipped, not as passed
LIBISCSI_SILENT_SKIP = {"Read10.Async", "Write10.Async",
                        "iSCSITMF.AbortTaskSimpleAsync",
                        "iSCSITMF.LUNResetSimpleAsync"}
LIBISCSI_TEST_LINE = re.compile(r"^\s*Test: (\S+) \.\.\.(.*)$")
LIBISCSI_SUITE_LINE = re.compile(r"^Suite: (\S+)")


def libiscsi_listing(family="ALL"):
    """{suite: [test, ...]} in the tool's order, for one family."""
    out = subprocess.run([LIBISCSI_TOOL, "--list"], capture_output=True,
                         text=True, check=True).stdout.split()
    suites = {}
    for name in out:
        parts = name.split(".")
        if parts[0] != family or len(parts) < 2:
            continue
        suites.setdefault(parts[1], [])
        if len(parts) == 3:
            suites[parts[1]].append(parts[2])
    return suites


def libiscsi_parse(text):
    """[(test, result, messages)] of one verbose iscsi-test-cu run, in
    order. result: "passed", "failed" or "skipped"; a test whose status
    word never came (the process died in it) is "incomplete"."""
    res = []
    cur = None          # [name, status or None, message lines]

    def close():
        if cur is None:
            return
        st = cur[1] or "incomplete"
        msg = "\n".join(cur[2]).strip()
        if st == "passed" and "[SKIPPED]" in msg:
            st = "skipped"
        res.append((cur[0], st, msg))

    for line in text.splitlines():
        m = LIBISCSI_TEST_LINE.match(line)
        if m:
            close()
            cur = [m.group(1), None, []]
            line = m.group(2)
        elif cur is None or LIBISCSI_SUITE_LINE.match(line) or \
                line.startswith("Run Summary"):
            close()
            cur = None
            continue
        if cur[1] is not None:
            # after FAILED, CUnit lists the failed assertions
            if cur[1] == "failed" and line.strip():
                cur[2].append(line.strip())
            continue
        s = line.rstrip()
        if s.endswith("passed"):
            cur[1] = "passed"
            s = s[:-len("passed")]
        elif s.endswith("FAILED"):
            cur[1] = "failed"
            s = s[:-len("FAILED")]
        if s.strip():
            cur[2].append(s.strip())
    close()
    return res


def libiscsi_run(sg, sel, timeout, log):
    """One iscsi-test-cu process on test selector sel; (rc, output, secs)."""
    cmd = ["timeout", "-k", "10", str(timeout), LIBISCSI_TOOL, "--dataloss",
           "--allow-sanitize", "-t", sel, sg]
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
    secs = time.monotonic() - t0
    text = p.stdout.decode(errors="replace")
    if log:
        log.write("### %s (rc %d, %.1f s)\n%s\n" % (sel, p.returncode, secs,
                                                   text))
        log.flush()
    return p.returncode, text, secs


def libiscsi_died(rc):
    """The process was killed: a signal, or timeout's 124/137."""
    return rc < 0 or rc in (124, 137) or rc >= 128


def libiscsi_suite(sg, family, suite, tests, timeout, log):
    """{test: {"result": ..., "msg": ...}} for one suite, and its time."""
    out = {}
    secs = 0.0
    todo = [t for t in tests if "%s.%s" % (suite, t) not in LIBISCSI_NOT_RUN]
    if len(todo) == len(tests):
        rc, text, secs = libiscsi_run(sg, "%s.%s" % (family, suite), timeout,
                                  log)
        for name, st, msg in libiscsi_parse(text):
            if name in tests:
                out[name] = {"result": st, "msg": msg}
            if st == "passed" and "%s.%s" % (suite, name) in LIBISCSI_SILENT_SKIP:
                out[name] = {"result": "skipped",
                             "msg": "needs an iSCSI session (silent)"}
        whole = not libiscsi_died(rc) and all(out.get(t, {}).get("result") not in
                                     (None, "incomplete") for t in tests)
    else:
        whole = False
    if not whole:
        # crashed, timed out, or some tests must be left out: one process
        # per test for those without a complete result
        for t in tests:
            if "%s.%s" % (suite, t) in LIBISCSI_NOT_RUN:
                out[t] = {"result": "notrun",
                          "msg": "not run: crashes libiscsi 1.19 over SG_IO"}
                continue
            if out.get(t, {}).get("result") not in (None, "incomplete"):
                continue
            rc, text, s = libiscsi_run(sg, "%s.%s.%s" % (family, suite, t),
                                   timeout, log)
            secs += s
            got = {n: (st, m) for n, st, m in libiscsi_parse(text)}
            st, msg = got.get(t, ("incomplete", ""))
            if st == "incomplete" or libiscsi_died(rc):
                st = "timeout" if rc in (124, 137) else \
                    ("crash" if libiscsi_died(rc) else st)
                msg = (msg + "\n" if msg else "") + "exit status %d" % rc
            if st == "passed" and "%s.%s" % (suite, t) in LIBISCSI_SILENT_SKIP:
                st, msg = "skipped", "needs an iSCSI session (silent)"
            out[t] = {"result": st, "msg": msg}
    return out, secs

# Each of these contradicts SBC-4 (and the command-set issue's own WRITE
# SAME rule); tests/test_conformance.py fails if one of them changes.
LIBISCSI_KNOWN = {
    "WriteSame10.UnmapUntilEnd": (
        "failed", "sends WRITE SAME(10) UNMAP with a block of 0xff and "
        "expects zeroes back; SBC-4 (and the issue) say a WRITE SAME "
        "reads back as the block it sent, and tcmx writes it; its "
        "WRITE SAME(16) twin zeroes the block first and passes"),
    "GetLBAStatus.UnmapSingle": (
        "failed", "with several blocks per physical block it asks GET LBA "
        "STATUS from LBA i+1 and expects the first descriptor to start at "
        "i+LBPPB; SBC-4 has it start at the LBA asked for, as tcmx does "
        "(it passes only where LBPPB is 1)"),
}


def iscsi_test_cu(sg, suite, timeout=600):
    """libiscsi's ALL.<suite> on sg as tools/conformance runs it; returns
    (text, [(test, result)...]), result one of passed, failed, skipped,
    notrun, crash, timeout; text has the messages of every test that did
    not pass."""
    res, _ = libiscsi_suite(sg, "ALL", suite,
                            libiscsi_listing()[suite], timeout, None)
    tests = [(t, r["result"]) for t, r in res.items()]
    text = "\n".join("%s.%s: %s\n%s" % (suite, t, r["result"], r["msg"])
                     for t, r in res.items() if r["result"] != "passed")
    print("%s: %s" % (suite, ", ".join("%s %s" % t for t in tests)))
    return text, tests


ILLEGAL_OPCODE = (0x5, 0x20, 0x00)
INVALID_FIELD = (0x5, 0x24, 0x00)
LBA_RANGE = (0x5, 0x21, 0x00)
SPACE_ALLOC_FAILED = (0x7, 0x27, 0x07)


if __name__ == "__main__":
    if sys.argv[1:] == ["clean"]:
        unload(stack="tcmx")
    elif sys.argv[1:] == ["clean-intree"]:
        unload(stack="lio")
    else:
        sys.exit("usage: tcmxlib.py clean|clean-intree")



# ------------------------------------------------------------ kernel kind
# A PREEMPT_RT kernel's version string says so ("#1 SMP PREEMPT_RT ...").
# The fault, fuzz and leak runs skip on it (NOT_ON_RT_WHY): they are for
# 6.1, 6.12 and the debug kernel; PREEMPT_RT runs the functional suite.
PREEMPT_RT = "PREEMPT_RT" in os.uname().version.split()
NOT_ON_RT_WHY = ("PREEMPT_RT: fault, fuzz and leak runs are for 6.1, 6.12 "
                 "and the debug kernel (CI time)")
# So do the flows whose time goes to targetcli, rtslib and multipathd: what
# they do in the kernel (configfs, LUN links, ALUA, PR, offline paths) the
# shorter tests do on PREEMPT_RT too.
USERSPACE_NOT_ON_RT_WHY = ("PREEMPT_RT: targetcli, rtslib and multipathd "
                           "flows run on 6.1, 6.12 and the debug kernel "
                           "(CI time)")
