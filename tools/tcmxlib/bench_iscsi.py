# SPDX-License-Identifier: GPL-2.0
"""The three iSCSI targets `tools/bench --fabric iscsi` compares, each
behind the same open-iscsi initiator on 127.0.0.1, with the same LUNs and
the same negotiated session:

  tcmx      tcmx_core + tcmx_rd + tcmx_iscsi: rd_mcp LUNs in configfs
  in-tree   target_core_mod + iscsi_target_mod: rd_mcp LUNs in configfs
  tgt       Debian's tgtd (user space): rdwr LUNs on files in a tmpfs

setup(ini, luns, size_mb) makes one target with `luns` LUNs, logs the
initiator (an iscsi.Initiator) in and returns the disks; session() is
what that session negotiated (the target's acls/.../param files where
there are some, and `iscsiadm -m session -P 3`); teardown() logs out and
removes everything it loaded or started.
"""
import glob
import os
import re
import subprocess
import time

from . import iscsi
from .configfs import T as TARGET
from .configfs import clean, link_lun, mk_rd
from .host import StackError, mount_configfs, rd, run, wr
from .kmod import INTREE, MODULES, has_module, modprobe, unload_users_first
from .stacks import check_target_free, no_scheduler

INITIATOR = "iqn.2026-12.bench.tcmx:initiator"
# the in-tree's maximum burst (its TYPERANGE_512_TO_16777215)
BURST = 16777215
MRDSL = 262144
# open-iscsi's command window, and the target's CmdSN window to match
CMDS_MAX = 128
QUEUE_DEPTH = 128
CMDSN_DEPTH = 128
# the negotiable keys, as every target is told them (tpgt_1/param/, or
# tgtadm --op update)
TARGET_KEYS = {
    "InitialR2T": "No", "ImmediateData": "Yes",
    "MaxRecvDataSegmentLength": str(MRDSL),
    "MaxXmitDataSegmentLength": str(MRDSL),
    "FirstBurstLength": str(BURST), "MaxBurstLength": str(BURST),
    "HeaderDigest": "None", "DataDigest": "None", "MaxConnections": "1",
}
# and the initiator (iscsid.conf, read when a node record is made)
INITIATOR_CONF = {
    "node.session.cmds_max": str(CMDS_MAX),
    "node.session.queue_depth": str(QUEUE_DEPTH),
    "node.session.nr_sessions": "1",
    "node.session.iscsi.InitialR2T": "No",
    "node.session.iscsi.ImmediateData": "Yes",
    "node.session.iscsi.FirstBurstLength": str(BURST),
    "node.session.iscsi.MaxBurstLength": str(BURST),
    "node.conn[0].iscsi.MaxRecvDataSegmentLength": str(MRDSL),
    "node.conn[0].iscsi.HeaderDigest": "None",
    "node.conn[0].iscsi.DataDigest": "None",
    # no NOP-Out pings in the measurements
    "node.conn[0].timeo.noop_out_interval": "0",
    "node.conn[0].timeo.noop_out_timeout": "0",
}


def initiator():
    """The bench's open-iscsi (a context manager, iscsi.Initiator)."""
    return iscsi.Initiator(INITIATOR, INITIATOR_CONF)


def negotiated_iscsiadm(sid):
    """{key: value} of the "Negotiated iSCSI params" of session sid in
    `iscsiadm -m session -r sid -P 3`."""
    p = iscsi.iscsiadm("-m", "session", "-r", str(sid), "-P", "3",
                       check=False)
    out, inside = {}, False
    for line in p.stdout.splitlines():
        s = line.strip()
        if s.startswith("Negotiated iSCSI params"):
            inside = True
        elif inside and s.startswith("Attached SCSI devices"):
            break
        elif inside and ":" in s:
            k, v = s.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def node_record(iqn):
    """{key: value} of the keys of INITIATOR_CONF in iqn's node record
    on 127.0.0.1."""
    p = iscsi.iscsiadm("-m", "node", "-T", iqn, "-p", "%s:%d" % (
        iscsi.ADDR1, iscsi.PORT), check=False)
    out = {}
    for line in p.stdout.splitlines():
        k, sep, v = line.partition(" = ")
        if sep and k.strip() in INITIATOR_CONF:
            out[k.strip()] = v.strip()
    return out


def host_queue(sess):
    """The session's SCSI host can_queue and its disks' queue_depth."""
    out = {}
    if sess.get("host") is not None:
        try:
            out["can_queue"] = int(rd("/sys/class/scsi_host/host%d/can_queue"
                                      % sess["host"]))
        except OSError:
            pass
    dev = os.path.realpath(sess["path"] + "/device")
    qd = sorted({rd(p).strip() for p in
                 glob.glob(dev + "/target*/*:*:*:*/queue_depth")})
    out["queue_depth"] = ",".join(qd)
    return out


class IscsiStack:
    """What the three share: the initiator side of one session."""

    name = None
    iqn = None

    def __init__(self):
        self.sess = None
        self.ini = None
        self.node = {}
        self.key_errors = []

    def set_key(self, fn, key, value):
        """fn(key, value) sets a session key on the target; a refusal is
        recorded (session()["key_errors"]), not fatal: the negotiated
        values show what came of it."""
        try:
            fn(key, value)
        except (OSError, AssertionError, StackError) as e:
            self.key_errors.append("%s=%s: %s" % (key, value, e))

    def login(self, ini, luns):
        """Log ini in to self.iqn on 127.0.0.1; the disks of `luns` LUNs
        (tgt's LUN 0 is its controller, no disk: not counted)."""
        self.ini = ini
        ini.node_new(self.iqn, iscsi.ADDR1)
        # a new record should take these from iscsid.conf, yet one of
        # the first six had open-iscsi's defaults, cause not found: set
        # them on the record itself, and record what it holds
        for k, v in INITIATOR_CONF.items():
            p = iscsi.iscsiadm("-m", "node", "-T", self.iqn, "-p", "%s:%d" % (
                iscsi.ADDR1, iscsi.PORT), "-o", "update", "-n", k, "-v", v,
                check=False)
            if p.returncode:
                self.key_errors.append("initiator %s=%s: %s" % (
                    k, v, (p.stderr or p.stdout).strip()[-100:]))
        self.node = node_record(self.iqn)
        self.sess = ini.login(self.iqn, iscsi.ADDR1)
        found = iscsi.luns(self.sess, luns, timeout=120)
        if len(found) != luns:
            raise StackError("%s: %d LUNs, expected %d" % (
                self.name, len(found), luns))
        names = [os.path.basename(found[k][0]) for k in sorted(found)]
        no_scheduler(names)
        return ["/dev/" + b for b in names]

    def logout(self):
        if self.ini is None:
            return
        if self.sess is not None:
            self.ini.logout(self.sess, check=False)
            self.sess = None
        iscsi.iscsiadm("-m", "node", "-T", self.iqn, "-o", "delete",
                       check=False)
        self.ini = None

    def session(self):
        """What the session negotiated, as the initiator sees it (and
        the target, in target_keys())."""
        rec = {"iscsiadm": negotiated_iscsiadm(self.sess["sid"]),
               "node": self.node}
        rec.update(host_queue(self.sess))
        rec.update(self.target_keys())
        if self.key_errors:
            rec["key_errors"] = list(self.key_errors)
        return rec

    def target_keys(self):
        return {}


class LioIscsi(IscsiStack):
    """A LIO-style target in configfs (tcmx or the in-tree): one target,
    TPG 1 with a portal on 127.0.0.1:3260, the session keys pinned, an
    rd_mcp backstore per LUN, an ACL for the bench's initiator mapping
    them all, its cmdsn_depth CMDSN_DEPTH."""

    load = ()
    unload = ()
    fabric_mod = None

    def available(self):
        return all(has_module(m) for m in self.load)

    def setup(self, ini, luns, size_mb):
        check_target_free()
        mount_configfs()
        iscsi.lo_up()
        iscsi.pr_dirs()
        for m in self.load:
            modprobe(m)
        if not os.path.isdir(iscsi.ISCSI):
            os.mkdir(iscsi.ISCSI)
        self.iqn = iscsi.new_iqn("bench")
        tpg = iscsi.tpg(iscsi.target(self.iqn), 1, portals=(iscsi.ADDR1,))
        self.key_errors = []
        for k, v in TARGET_KEYS.items():
            self.set_key(lambda k, v: wr("%s/param/%s" % (tpg, k), v), k, v)
        for i in range(luns):
            link_lun(tpg, i, mk_rd("bench%d" % i, size_mb << 20))
        self.acl = iscsi.acl(tpg, INITIATOR,
                             maps=[(i, i) for i in range(luns)])
        wr(self.acl + "/cmdsn_depth", str(CMDSN_DEPTH))
        iscsi.enable(tpg)
        return self.login(ini, luns)

    def target_keys(self):
        out = {}
        for p in sorted(glob.glob(self.acl + "/param/*")):
            out["acl_param/" + os.path.basename(p)] = rd(p).strip()
        out["acl/cmdsn_depth"] = rd(self.acl + "/cmdsn_depth").strip()
        return out

    def teardown(self):
        err = None
        try:
            self.logout()
            iscsi.quiesce()
            clean()
            iscsi.quiesce()
        except Exception as e:     # still try to unload
            err = StackError("%s teardown: %s" % (self.name, e))
        unload_users_first(list(self.unload))
        if os.path.isdir(TARGET):
            raise StackError("%s: configfs target/ left" % self.name)
        if err:
            raise err


class TcmxIscsi(LioIscsi):
    name = "tcmx"
    load = ("tcmx_core", "tcmx_rd", "tcmx_iscsi")
    unload = MODULES[::-1]


class InTreeIscsi(LioIscsi):
    name = "in-tree"
    load = ("target_core_mod", "iscsi_target_mod")
    unload = INTREE


TGT_DIR = "/run/tcmx-bench-tgt"
TGT_LOG = "/tmp/tcmx-bench-tgtd.log"
# tgt's own name for its command window
TGT_KEYS = dict(TARGET_KEYS, MaxQueueCmd=str(CMDSN_DEPTH))


def tgtadm(*args, check=True):
    p = run(["tgtadm", "--lld", "iscsi"] + list(args), check=False)
    if check and p.returncode:
        raise StackError("tgtadm %s: %s" % (" ".join(args),
                                            (p.stderr or p.stdout).strip()))
    return p


class Tgt(IscsiStack):
    """tgtd listening on 127.0.0.1:3260 only, one target (tid 1), LUN i+1
    an rdwr backing store on a file of size_mb in a tmpfs (memory, like
    rd_mcp), the session keys pinned, MaxQueueCmd
    CMDSN_DEPTH, bound to every initiator."""

    name = "tgt"

    def __init__(self):
        super().__init__()
        self.proc = None
        self.mounted = False

    def available(self):
        return bool(run(["sh", "-c", "command -v tgtd && command -v tgtadm"],
                        check=False).stdout.strip())

    def start(self):
        iscsi.lo_up()
        os.makedirs("/var/run/tgtd", exist_ok=True)   # its control socket
        with open(TGT_LOG, "w") as log:
            self.proc = subprocess.Popen(
                ["tgtd", "-f", "--iscsi", "portal=%s:%d" % (iscsi.ADDR1,
                                                             iscsi.PORT)],
                stdout=log, stderr=log, start_new_session=True)
        end = time.monotonic() + 30
        while tgtadm("--mode", "target", "--op", "show",
                     check=False).returncode:
            if self.proc.poll() is not None or time.monotonic() > end:
                raise StackError("tgtd did not start: %s" % rd(TGT_LOG)[-300:])
            time.sleep(0.2)

    def setup(self, ini, luns, size_mb):
        self.start()
        self.iqn = iscsi.new_iqn("bench-tgt")
        tgtadm("--mode", "target", "--op", "new", "--tid", "1",
               "--targetname", self.iqn)
        # a tmpfs of its own: /dev/shm's holds half the memory only
        os.makedirs(TGT_DIR, exist_ok=True)
        run(["mount", "-t", "tmpfs", "-o", "size=%dm" % (luns * size_mb + 16),
             "tmpfs", TGT_DIR])
        self.mounted = True
        for i in range(luns):
            f = "%s/lun%d" % (TGT_DIR, i)
            with open(f, "wb") as fh:
                fh.truncate(size_mb << 20)
            tgtadm("--mode", "logicalunit", "--op", "new", "--tid", "1",
                   "--lun", str(i + 1), "--backing-store", f,
                   "--bstype", "rdwr")
        self.key_errors = []
        for k, v in TGT_KEYS.items():
            self.set_key(lambda k, v: tgtadm(
                "--mode", "target", "--op", "update", "--tid", "1",
                "--name", k, "--value", v), k, v)
        tgtadm("--mode", "target", "--op", "bind", "--tid", "1",
               "--initiator-address", "ALL")
        return self.login(ini, luns)

    def target_keys(self):
        p = tgtadm("--mode", "target", "--op", "show", "--tid", "1",
                   check=False)
        keys = {}
        for line in p.stdout.splitlines():
            m = re.match(r"^\s*(\w+)=(\S+)$", line)
            if m and m.group(1) in TGT_KEYS:
                keys["tgt/" + m.group(1)] = m.group(2)
        return keys

    def teardown(self):
        err = None
        try:
            self.logout()
            iscsi.quiesce()
        except Exception as e:
            err = StackError("tgt teardown: %s" % e)
        if self.proc is not None:
            tgtadm("--mode", "target", "--op", "delete", "--force",
                   "--tid", "1", check=False)
            # tgtd leaves on this, not on SIGTERM
            run(["tgtadm", "--op", "delete", "--mode", "system"],
                check=False)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        for f in glob.glob(TGT_DIR + "/lun*"):
            os.unlink(f)
        if self.mounted:
            run(["umount", TGT_DIR], check=False)
            self.mounted = False
        if err:
            raise err


STACKS = {s.name: s for s in (TcmxIscsi(), InTreeIscsi(), Tgt())}
ORDER = ("tcmx", "in-tree", "tgt")
