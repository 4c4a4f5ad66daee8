# SPDX-License-Identifier: GPL-2.0
"""configfs target/: objects made the way rtslib makes them, and the
SCSI devices they become."""
import contextlib
import glob
import os
import re
import secrets
import time

from .host import MiB, PAGE, rd, wr
from .scsi import tur, ua_clear

T = "/sys/kernel/config/target"
LOOP = T + "/loopback"


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




def mk_acl(tpg, initiator, maps=()):
    """tpg/acls/<initiator> with a mapped lun_<m> -> tpg/lun/lun_<l> for
    each (m, l) of maps; returns the ACL's path."""
    acl = "%s/acls/%s" % (tpg, initiator)
    os.mkdir(acl)
    for m, l in maps:
        map_lun(acl, m, "%s/lun/lun_%d" % (tpg, l))
    return acl


def map_lun(acl, m, lun, alias=None):
    """acl/lun_<m> with a symlink to the TPG's LUN directory lun."""
    path = "%s/lun_%d" % (acl, m)
    os.mkdir(path)
    os.symlink(lun, path + "/" + (alias or secrets.token_hex(5)))
    return path


def rm_acl(acl):
    """Remove an ACL: its mapped LUNs' symlinks and directories, then it."""
    for e in os.listdir(acl):
        sub = os.path.join(acl, e)
        if e.startswith("lun_"):
            unlink_lun(sub)
    os.rmdir(acl)


def target_sdevs(tpg):
    """H:C:T:L of every SCSI device of tpg's target id, by LUN."""
    pre = rd(tpg + "/address").strip() + ":"
    return sorted((h for h in os.listdir("/sys/class/scsi_device")
                   if h.startswith(pre)),
                  key=lambda h: int(h.rsplit(":", 1)[1]))


def rescan_target(tpg, lun="-"):
    """Delete the SCSI devices of tpg's target id, then scan it (every LUN
    REPORT LUNS gives, or the one LUN lun): what shows a change of the
    LUNs an initiator reaches on any stack (the in-tree loopback adds no
    device when a mapping changes).  Returns target_sdevs()."""
    host, _, tid = rd(tpg + "/address").strip().split(":")
    for h in target_sdevs(tpg):
        path = "/sys/class/scsi_device/%s/device/delete" % h
        if os.path.exists(path):
            wr(path, "1")
    end = time.time() + 30
    while target_sdevs(tpg) and time.time() < end:
        time.sleep(0.1)
    wr("/sys/class/scsi_host/host%s/scan" % host, "0 %s %s" % (tid, lun))
    return target_sdevs(tpg)


def inject(so, **files):
    """Write each inject/<file> of device so (its configfs directory),
    e.g. inject(so, fault="stuck 1", delay_write_us="0")."""
    for f, value in files.items():
        wr(so + "/inject/" + f, value)


def inject_counter(so, kind):
    """inject/counters' count of kind ("stuck", "delayed"...) of so."""
    for line in rd(so + "/inject/counters").splitlines():
        k, n = line.split()
        if k == kind:
            return int(n)
    raise AssertionError("no counter %s" % kind)
