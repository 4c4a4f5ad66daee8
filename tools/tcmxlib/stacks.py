# SPDX-License-Identifier: GPL-2.0
"""The five block stacks tools/bench compares, each with setup() and
teardown().

setup(luns, size_mb, nullio) loads the stack's modules, creates `luns`
disks of `size_mb` MiB and returns their /dev paths; teardown() removes
them and unloads every module the stack loaded, so that the next stack
finds configfs target/ free (tcmx_core and target_core_mod cannot both own
it). "nullio" is the no-data variant: rd_nullio=1 for the two LIO stacks,
fake_rw=1 for scsi_debug, memory_backed=0 for null_blk; brd has none
(its `nullio` attribute is False and the nullio cases skip it).
"""

import glob
import os
import time
import warnings

from .configfs import T as TARGET
from .host import CFS, StackError, loaded_modules, mount_configfs, wr
from .kmod import LIO, MODULES, has_module, modprobe, unload_users_first

# rtslib warns when the kernel refuses its dbroot once backstores exist
warnings.filterwarnings("ignore", message="Cannot set dbroot")

NULLB = CFS + "/nullb"


def scsi_disks():
    """{'H:C:T:L': 'sdX'} for every SCSI disk with a block device."""
    out = {}
    for d in glob.glob("/sys/class/scsi_disk/*"):
        blk = glob.glob(d + "/device/block/*")
        if blk:
            out[os.path.basename(d)] = os.path.basename(blk[0])
    return out


def hctl_key(hctl):
    return tuple(int(x) for x in hctl.split(":"))


def scsi_prepare():
    """sd_mod may not be loaded yet where no udev runs."""
    modprobe("sd_mod")
    return scsi_disks()


def wait_new_disks(before, n, timeout=90):
    """Wait until n SCSI disks not in `before` have /dev nodes; return
    their names ordered by host:channel:target:lun."""
    end = time.monotonic() + timeout
    while True:
        new = {h: b for h, b in scsi_disks().items() if h not in before}
        if len(new) >= n and all(os.path.exists("/dev/" + b)
                                 for b in new.values()):
            break
        if time.monotonic() > end:
            raise StackError("%d of %d disks appeared in %ds"
                             % (len(new), n, timeout))
        time.sleep(0.2)
    if len(new) != n:
        raise StackError("expected %d new disks, got %d" % (n, len(new)))
    return [new[h] for h in sorted(new, key=hctl_key)]


def no_scheduler(names):
    """Set the I/O scheduler of disks `names` to none; return the one they
    had (the first disk's), or None."""
    default = None
    for b in names:
        path = "/sys/block/%s/queue/scheduler" % b
        try:
            with open(path) as f:
                cur = f.read()
            if default is None and "[" in cur:
                default = cur.split("[")[1].split("]")[0]
            wr(path, "none")
        except OSError:
            pass
    return default


def dev_nodes(names, what, timeout=30):
    """/dev/<name> of block devices `names` once they all exist, their
    I/O scheduler none."""
    end = time.monotonic() + timeout
    while not all(os.path.exists("/dev/" + b) for b in names):
        if time.monotonic() > end:
            raise StackError("%s /dev nodes did not appear" % what)
        time.sleep(0.2)
    no_scheduler(names)
    return ["/dev/" + b for b in names]


def check_target_free():
    mods = loaded_modules()
    owner = [m for m in ("target_core_mod", "tcmx_core") if m in mods]
    if owner or os.path.isdir(TARGET):
        raise StackError("configfs target/ still owned (%s)"
                         % (", ".join(owner) or "dir exists"))


class Lio:
    """A LIO-style stack driven with rtslib: one loopback target, one TPG,
    one rd_mcp backstore per LUN; the disks are H:0:1:0..N-1 of one host."""

    name = None
    load = ()          # modprobe'd in order before rtslib runs
    params = {}        # {module: {param: value}} for those modprobes
    unload = ()        # rmmod'ed after teardown, with every prefix* one
    prefix = None

    def available(self):
        return all(has_module(m) for m in self.load)

    def load_modules(self):
        """The stack's modules loaded, configfs target/ theirs."""
        check_target_free()
        mount_configfs()
        for m in self.load:
            modprobe(m, **self.params.get(m, {}))
        if not os.path.isdir(TARGET):
            raise StackError("%s did not create %s" % (self.load[0], TARGET))

    def setup(self, luns, size_mb, nullio):
        self.load_modules()
        from rtslib_fb import FabricModule, Target, TPG, LUN
        from rtslib_fb import RDMCPStorageObject
        before = scsi_prepare()
        tpg = TPG(Target(FabricModule("loopback")), 1)
        for i in range(luns):
            so = RDMCPStorageObject("bench%d" % i, size=size_mb << 20,
                                    nullio=nullio)
            LUN(tpg, i, so)
        disks = wait_new_disks(before, luns)
        no_scheduler(disks)
        return ["/dev/" + b for b in disks]

    def teardown(self):
        err = None
        if os.path.isdir(TARGET):
            try:
                from rtslib_fb import FabricModule, RTSRoot
                for t in FabricModule("loopback").targets:
                    t.delete()
                for so in RTSRoot().storage_objects:
                    so.delete()
            except Exception as e:   # still try to unload
                err = StackError("rtslib teardown: %s" % e)
            for fab in ("loopback", "iscsi"):
                if os.path.isdir(TARGET + "/" + fab):
                    os.rmdir(TARGET + "/" + fab)
        extra = [m for m in loaded_modules() if m.startswith(self.prefix)]
        unload_users_first(list(self.unload) +
                           sorted(set(extra) - set(self.unload)))
        if err:
            raise err


class Tcmx(Lio):
    """tcmx; a variant "tcmx:can_queue=256:shared_tags=0" loads tcmx_loop
    with those parameters (to choose them from measurement)."""

    load = MODULES
    unload = MODULES[::-1]
    prefix = "tcmx_"

    def __init__(self, loop_params=()):
        self.params = {"tcmx_loop": dict(loop_params)}
        self.name = "tcmx" + "".join(":%s=%s" % kv for kv in loop_params)


class InTree(Lio):
    name = "in-tree"
    load = LIO
    # iscsi_target_mod only if rtslib pulled it in; target_core_{iblock,
    # file,pscsi,user} are requested by the core on the first HBA mkdir
    unload = ("tcm_loop", "iscsi_target_mod")
    prefix = "target_core_"


class ScsiDebug:
    """scsi_debug: one host, one target per LUN, no delay; the LUNs share
    one dev_size_mb store (its default)."""

    name = "scsi_debug"

    def available(self):
        return has_module("scsi_debug")

    def setup(self, luns, size_mb, nullio):
        before = scsi_prepare()
        modprobe("scsi_debug", dev_size_mb=size_mb, num_tgts=luns,
                 max_luns=1, delay=0, submit_queues=os.cpu_count(),
                 fake_rw=int(nullio))
        disks = wait_new_disks(before, luns)
        no_scheduler(disks)
        return ["/dev/" + b for b in disks]

    def teardown(self):
        unload_users_first(["scsi_debug"])


class NullBlk:
    """null_blk in blk-mq mode, completing inline (irqmode=0), devices made
    through configfs nullb/ so that their size is exact in MiB (the module
    parameter gb= only takes whole GiB)."""

    name = "null_blk"

    def available(self):
        return has_module("null_blk")

    def setup(self, luns, size_mb, nullio):
        mount_configfs()
        nq = os.cpu_count()
        modprobe("null_blk", nr_devices=0, queue_mode=2, irqmode=0,
                 submit_queues=nq)
        if not os.path.isdir(NULLB):
            raise StackError("null_blk has no configfs nullb/ here")
        devs = []
        for i in range(luns):
            # 6.1+ names the disk after the configfs item, older kernels
            # nullb<index>: item names nullb<i> give the same name
            d = "%s/nullb%d" % (NULLB, i)
            os.mkdir(d)
            for attr, val in (("size", size_mb), ("blocksize", 512),
                              ("queue_mode", 2), ("irqmode", 0),
                              ("submit_queues", nq),
                              ("memory_backed", int(not nullio)),
                              ("power", 1)):
                wr("%s/%s" % (d, attr), val)
            if os.path.isdir("/sys/block/nullb%d" % i):
                devs.append("nullb%d" % i)
            else:
                with open(d + "/index") as f:
                    devs.append("nullb" + f.read().strip())
        return dev_nodes(devs, "null_blk")

    def teardown(self):
        for d in glob.glob(NULLB + "/nullb*"):
            os.rmdir(d)
        unload_users_first(["null_blk"])


class Brd:
    """brd, the kernel's RAM disk (bio-based, no SCSI, no blk-mq queue):
    one /dev/ram<i> per LUN, allocating a page on its first write, like
    tcmx rd and null_blk (a never-written block reads as zeroes)."""

    name = "brd"
    nullio = False     # no no-data variant

    def available(self):
        return has_module("brd")

    def setup(self, luns, size_mb, nullio):
        if nullio:
            raise StackError("brd has no nullio variant")
        if "brd" in loaded_modules():
            raise StackError("brd already loaded")
        modprobe("brd", rd_nr=luns, rd_size=size_mb * 1024)   # KiB
        devs = ["ram%d" % i for i in range(luns)]
        return dev_nodes(devs, "brd")

    def teardown(self):
        unload_users_first(["brd"])


STACKS = {s.name: s for s in (Tcmx(), InTree(), ScsiDebug(), NullBlk(),
                              Brd())}


def stack(spec):
    """The stack named `spec`: a name of STACKS, or a tcmx variant
    "tcmx:param=value[:param=value...]" (tcmx_loop parameters)."""
    if spec in STACKS:
        return STACKS[spec]
    name, _, rest = spec.partition(":")
    if name != "tcmx" or not rest:
        raise KeyError(spec)
    kvs = [kv.partition("=") for kv in rest.split(":")]
    if any(not k or not sep or not v for k, sep, v in kvs):
        raise KeyError(spec)
    return Tcmx([(k, v) for k, _, v in kvs])
