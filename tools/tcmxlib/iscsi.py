# SPDX-License-Identifier: GPL-2.0
"""iSCSI in the VM, on 127.0.0.0/8 only: the target side made in configfs
the way rtslib makes it (the in-tree iscsi_target_mod with
TCMX_TEST_STACK=lio, tcmx_iscsi otherwise), the open-iscsi initiator
(an iscsid started here over a private copy of /etc/iscsi, iscsiadm) and
the disks of its sessions, found in sysfs (no udev in the VM).

Imported by name: `from tcmxlib import iscsi`.

Target:     missing() (why the iSCSI tests cannot run here, or None),
            load() / unload() the fabric (unload() first waits for the
            connections to end: quiesce()), target(), tpg(), portal(),
            enable(), acl(), acl_chap(), set_auth(), discovery_auth(),
            demo_mode(), session_info() (an ACL's info file), rd_lun()
Initiator:  Initiator (context manager: iscsid up, cleanup always logs
            out and stops it): discover(), discoverydb_chap(), login(),
            logout(), node_set(), chap(), iface(); sessions(), luns()
            (LUN -> /dev/sdX, /dev/sgN), wait_state()
Sockets:    kill_connections() (ss -K: the TCP connections to a portal
            cut inside the guest), live_connections()
libiscsi:   url(), run_test_cu() (iscsi-test-cu over iSCSI URLs)
I/O:        io_count(), io_flows(), wait_kmsg()
"""
import glob
import os
import re
import secrets
import shutil
import subprocess
import time

from .configfs import T, link_lun, map_lun, mk_rd
from .host import KVER, PROJ, loaded, rd, run, wr
from .kmod import STACK, has_module
from .kmod import load as load_stack

ISCSI = T + "/iscsi"
PORT = 3260
ADDR1, ADDR2 = "127.0.0.1", "127.0.0.2"
KO = "iscsi/tcmx_iscsi.ko"
# libiscsi's iscsi-test-cu names its two I_T nexuses after these (its
# README: an ACL for each is what the two-initiator tests need)
LIBISCSI_INI1 = "iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test"
LIBISCSI_INI2 = "iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test-2"
INI_A = "iqn.2026-12.test.tcmx:initiator-a"
INI_B = "iqn.2026-12.test.tcmx:initiator-b"


def ko_path():
    return os.path.join(PROJ, "build", KVER, KO)


def missing():
    """Why the iSCSI tests cannot run on this stack and VM, or None."""
    for tool in ("iscsiadm", "iscsid"):
        if not shutil.which(tool):
            return "open-iscsi is not installed (%s): tools/deps" % tool
    if STACK == "lio":
        if not has_module("iscsi_target_mod"):
            return "no iscsi_target_mod for %s" % KVER
        return None
    if not os.path.exists(ko_path()):
        return "tcmx_iscsi.ko is not built for %s (%s)" % (KVER, ko_path())
    return None


def new_iqn(what="target"):
    return "iqn.2026-12.test.tcmx:%s-%s" % (what, secrets.token_hex(4))


# ------------------------------------------------------------ the target

def lo_up():
    """The VM boots with its loopback interface down: 127.0.0.0/8 needs
    it up."""
    run(["ip", "link", "set", "lo", "up"])


def pr_dirs():
    """The in-tree core keeps its APTPL and ALUA metadata under its
    db_root: /var/target here (the VM has no /etc/target, and the db_root
    cannot change once a fabric is loaded), a fresh tmpfs in the VM.
    Without its pr/ every PERSISTENT RESERVE OUT REGISTER fails with
    LOGICAL UNIT COMMUNICATION FAILURE (02/08/00): the in-tree writes
    "No Registrations" to pr/aptpl_<serial> even with APTPL off."""
    for d in ("pr", "alua"):
        os.makedirs("/var/target/" + d, exist_ok=True)


def load():
    """The stack under test and its iSCSI fabric loaded, configfs iscsi/
    made (as rtslib's first touch of the fabric makes it)."""
    lo_up()
    pr_dirs()
    load_stack()
    if STACK == "lio":
        run(["modprobe", "iscsi_target_mod"])
    elif not loaded("tcmx_iscsi"):
        # tools/vm's module index may not know it yet: insmod the build
        if run(["modprobe", "tcmx_iscsi"], check=False).returncode:
            run(["insmod", ko_path()])
    if not os.path.isdir(ISCSI):
        os.mkdir(ISCSI)


def live_connections():
    """TCP connections from or to an iSCSI port, past or before their
    close (LISTEN and TIME-WAIT aside): ss's lines."""
    p = run("ss -t -a -n -H '( sport = :%d or dport = :%d )'" % (PORT, PORT),
            check=False)
    return [ln for ln in p.stdout.splitlines()
            if ln.split() and ln.split()[0] not in ("LISTEN", "TIME-WAIT")]


def conn_threads():
    """The in-tree target's per-connection kthreads still running."""
    p = run(["pgrep", "-x", "iscsi_trx|iscsi_ttx"], check=False)
    return p.stdout.split()


def quiesce(timeout=30):
    """Wait until no connection to the target is left, nor (in-tree) a
    thread of one. The in-tree iscsi_target_mod can be removed while a
    discovery connection's threads still run, which ends in an oops:
    the tests leave it time to finish first."""
    end = time.monotonic() + timeout
    while live_connections() or conn_threads():
        if time.monotonic() > end:
            raise AssertionError("connections left after %ds: %s %s" % (
                timeout, live_connections(), conn_threads()))
        time.sleep(0.2)


def unload():
    """The target's connections gone (quiesce()), configfs emptied and
    tcmx_iscsi out (the guard of conftest.py unloads the rest, and the
    in-tree iscsi_target_mod)."""
    from .configfs import clean
    quiesce()
    clean()
    quiesce()
    if loaded("tcmx_iscsi"):
        run(["rmmod", "tcmx_iscsi"], check=False)


def target(iqn=None):
    """iscsi/<iqn>; returns its path."""
    path = "%s/%s" % (ISCSI, iqn or new_iqn())
    os.mkdir(path)
    return path


def portal(tpg, addr=ADDR1, port=PORT):
    """tpg/np/<addr>:<port>; returns its path."""
    path = "%s/np/%s:%d" % (tpg, addr, port)
    os.mkdir(path)
    return path


def tpg(tgt, tag=1, portals=(ADDR1,), attrib=None):
    """tgt/tpgt_<tag> with its portals on PORT, authentication off (as
    targetcli leaves a new TPG) and the attrib/ values given; not yet
    enabled. Returns its path."""
    path = "%s/tpgt_%d" % (tgt, tag)
    os.mkdir(path)
    wr(path + "/attrib/authentication", "0")
    for k, v in (attrib or {}).items():
        wr("%s/attrib/%s" % (path, k), str(v))
    for a in portals:
        portal(path, a)
    return path


def enable(tpg_path, on=True):
    wr(tpg_path + "/enable", "1" if on else "0")


def demo_mode(tpg_path, write_protect=0):
    """Any initiator logs in and reaches every LUN of the TPG."""
    wr(tpg_path + "/attrib/generate_node_acls", "1")
    wr(tpg_path + "/attrib/cache_dynamic_acls", "1")
    wr(tpg_path + "/attrib/demo_mode_write_protect", str(write_protect))


def rd_lun(tpg_path, n, size, name=None):
    """A ramdisk of size bytes as lun_<n> of the TPG; (lun path, so)."""
    so = mk_rd(name or "i%d_%s" % (n, secrets.token_hex(3)), size)
    return link_lun(tpg_path, n, so), so


def acl(tpg_path, initiator, maps=(), write_protect=()):
    """tpg/acls/<initiator> with lun_<m> mapped to the TPG's lun_<l> for
    each (m, l) of maps; the mapped LUNs m in write_protect are
    write-protected. Returns the ACL's path."""
    path = "%s/acls/%s" % (tpg_path, initiator)
    os.mkdir(path)
    for m, lun in maps:
        mp = map_lun(path, m, "%s/lun/lun_%d" % (tpg_path, lun))
        if m in write_protect:
            wr(mp + "/write_protect", "1")
    return path


def no_nopin(tpg_path):
    """No NOP-In on the new sessions of the TPG's ACLs (nopin_timeout 0):
    for an initiator that stops reading its socket for a while, as
    libiscsi's test tool does while it sleeps."""
    for a in os.listdir(tpg_path + "/acls"):
        wr("%s/acls/%s/attrib/nopin_timeout" % (tpg_path, a), "0")


def set_auth(path, userid=None, password=None, userid_mutual=None,
             password_mutual=None):
    """CHAP names and secrets of an auth/ group (a TPG's, an ACL's) or of
    discovery_auth/: the ones given; "NULL" clears one."""
    for k, v in (("userid", userid), ("password", password),
                 ("userid_mutual", userid_mutual),
                 ("password_mutual", password_mutual)):
        if v is not None:
            wr("%s/%s" % (path, k), v)


def acl_chap(acl_path, user, secret, muser=None, msecret=None):
    """One-way CHAP (and mutual, with muser/msecret) for an ACL; the
    TPG's authentication on."""
    set_auth(acl_path + "/auth", user, secret, muser, msecret)
    wr(os.path.dirname(os.path.dirname(acl_path)) +
       "/attrib/authentication", "1")


def discovery_auth(enforce, user=None, secret=None, muser=None,
                   msecret=None):
    """Discovery sessions need CHAP (enforce) or not."""
    d = ISCSI + "/discovery_auth"
    set_auth(d, user, secret, muser, msecret)
    wr(d + "/enforce_discovery_auth", "1" if enforce else "0")


def session_info(acl_path):
    """{'sid': LIO Session ID or None, 'isid': ..., 'state': ...} from
    an ACL's info file (what targetcli's `sessions` reads)."""
    text = rd(acl_path + "/info")
    m = re.search(r"LIO Session ID: (\d+)\s+ISID: (\S+)", text)
    st = re.search(r"TARG_SESS_STATE_(\w+)", text)
    return dict(sid=int(m.group(1)) if m else None,
                isid=m.group(2) if m else None,
                state=st.group(1) if st else None, text=text)


# ------------------------------------------------------------ the initiator

# what iscsid says (in the VM's /tmp)
ISCSID_LOG = "/tmp/tcmx-iscsid.log"
ISCSID_CONF = {
    # iscsiadm starts no daemon: this module does
    "iscsid.startup": "/bin/true",
    "node.startup": "manual",
    # a lost path fails its I/O in seconds (dm-multipath), not 120 s
    "node.session.timeo.replacement_timeout": "5",
    "node.conn[0].timeo.login_timeout": "15",
    "node.session.initial_login_retry_max": "2",
    "node.conn[0].timeo.noop_out_interval": "5",
    "node.conn[0].timeo.noop_out_timeout": "10",
}


def iscsiadm(*args, check=True, timeout=120):
    """iscsiadm args; the CompletedProcess (AssertionError on failure when
    check)."""
    return run(["iscsiadm"] + list(args), check=check, timeout=timeout)


def _write_conf(path, settings):
    lines = []
    with open(path) as f:
        for line in f:
            key = line.split("=")[0].strip()
            if key not in settings:
                lines.append(line)
    lines += ["%s = %s\n" % kv for kv in settings.items()]
    with open(path, "w") as f:
        f.writelines(lines)


def chap_settings(prefix, user, secret, muser=None, msecret=None):
    """iscsiadm's CHAP keys under prefix (node.session.auth. or
    discovery.sendtargets.auth.): one-way, or mutual with muser."""
    sets = {prefix + "authmethod": "CHAP", prefix + "username": user,
            prefix + "password": secret}
    if muser:
        sets[prefix + "username_in"] = muser
        sets[prefix + "password_in"] = msecret
    return sets


class Initiator:
    """open-iscsi with its own /etc/iscsi (a tmpfs copy bind-mounted over
    the VM's) and an iscsid of its own; the initiator name `name`.
    A context manager: leaving it logs every session out, stops iscsid
    and puts /etc/iscsi back, whatever happened."""

    def __init__(self, name=INI_A, conf=None):
        self.name = name
        self.conf = dict(ISCSID_CONF, **(conf or {}))
        self.iscsid = None
        self.tmp = None

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        lo_up()
        run(["modprobe", "-a", "iscsi_tcp", "sd_mod", "sg"])
        self.tmp = "/run/tcmx-iscsi-etc"
        os.makedirs(self.tmp, exist_ok=True)
        run(["mount", "-t", "tmpfs", "tmpfs", self.tmp])
        run("cp -a /etc/iscsi/. %s/" % self.tmp)
        run(["mount", "--bind", self.tmp, "/etc/iscsi"])
        with open("/etc/iscsi/initiatorname.iscsi", "w") as f:
            f.write("InitiatorName=%s\n" % self.name)
        _write_conf("/etc/iscsi/iscsid.conf", self.conf)
        os.makedirs("/run/lock/iscsi", exist_ok=True)
        # its own process group: iscsid ends by signalling its group
        with open(ISCSID_LOG, "w") as log:
            self.iscsid = subprocess.Popen(["iscsid", "-f"],
                                           stdout=log, stderr=log,
                                           start_new_session=True)
        end = time.monotonic() + 30
        # up once its control socket listens
        while not iscsid_listening():
            if self.iscsid.poll() is not None or time.monotonic() > end:
                raise AssertionError("iscsid did not start")
            time.sleep(0.2)

    def stop(self):
        if self.iscsid is not None:
            iscsiadm("-m", "node", "-u", check=False, timeout=120)
            end = time.monotonic() + 60
            while self.sessions() and time.monotonic() < end:
                iscsiadm("-m", "session", "-u", check=False, timeout=60)
                time.sleep(1)
            self.iscsid.terminate()
            try:
                self.iscsid.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.iscsid.kill()
                self.iscsid.wait()
            self.iscsid = None
        if self.tmp:
            for m in ("/etc/iscsi", self.tmp):
                run(["umount", m], check=False)
            self.tmp = None

    # --- iscsiadm
    def discover(self, addr=ADDR1, port=PORT, ifaces=(), check=True):
        """SendTargets to addr:port: [(addr:port, tpgt, iqn)], or with
        check=False the CompletedProcess when it fails. With ifaces, a
        node record for each (a discovery drops the records of the ifaces
        it is not given)."""
        args = ["-m", "discovery", "-t", "st", "-p", "%s:%d" % (addr, port)]
        for i in ifaces:
            args += ["-I", i]
        p = iscsiadm(*args, check=check)
        if p.returncode:
            return p
        return parse_sendtargets(p.stdout)

    def discoverydb_chap(self, addr, user, secret, muser=None,
                         msecret=None, port=PORT):
        """A discovery record for addr:port that authenticates with CHAP."""
        pt = "%s:%d" % (addr, port)
        # a second call updates the record made by the first
        iscsiadm("-m", "discoverydb", "-t", "st", "-p", pt, "-o", "new",
                 check=False)
        sets = chap_settings("discovery.sendtargets.auth.", user, secret,
                             muser, msecret)
        for k, v in sets.items():
            iscsiadm("-m", "discoverydb", "-t", "st", "-p", pt, "-o",
                     "update", "-n", k, "-v", v)

    def discoverydb(self, addr=ADDR1, port=PORT, check=True):
        """--discover through the discovery record of addr:port."""
        p = iscsiadm("-m", "discoverydb", "-t", "st", "-p",
                     "%s:%d" % (addr, port), "--discover", check=check)
        if p.returncode:
            return p
        return parse_sendtargets(p.stdout)

    def node_new(self, iqn, addr=ADDR1, port=PORT, tpgt=1, iface=None):
        """A node record without discovery."""
        args = ["-m", "node", "-T", iqn, "-p", "%s:%d,%d" % (addr, port, tpgt),
                "-o", "new"]
        if iface:
            args += ["-I", iface]
        iscsiadm(*args)

    def node_set(self, iqn, addr, key, value, port=PORT):
        iscsiadm("-m", "node", "-T", iqn, "-p", "%s:%d" % (addr, port), "-o",
                 "update", "-n", key, "-v", value)

    def chap(self, iqn, addr, user, secret, muser=None, msecret=None,
             port=PORT):
        """CHAP on the node record of iqn at addr (mutual with muser)."""
        sets = chap_settings("node.session.auth.", user, secret, muser,
                             msecret)
        for k, v in sets.items():
            self.node_set(iqn, addr, k, v, port)

    def iface(self, name, initiator):
        """An iscsi_tcp iface record `name` whose sessions log in as
        initiator (a second initiator name from one iscsid)."""
        iscsiadm("-m", "iface", "-I", name, "-o", "new")
        iscsiadm("-m", "iface", "-I", name, "-o", "update", "-n",
                 "iface.initiatorname", "-v", initiator)
        # bound to lo: an iface bound to nothing is no iface of its own
        for k, v in (("iface.transport_name", "tcp"),
                     ("iface.net_ifacename", "lo")):
            iscsiadm("-m", "iface", "-I", name, "-o", "update", "-n", k,
                     "-v", v)

    def login(self, iqn, addr=ADDR1, port=PORT, iface=None, check=True):
        """Log in to iqn at addr:port (a node record must exist); returns
        the new session's sysfs dict (sessions()), or with check=False the
        CompletedProcess when the login fails."""
        before = {s["sid"] for s in self.sessions()}
        args = ["-m", "node", "-T", iqn, "-p", "%s:%d" % (addr, port), "-l"]
        if iface:
            args += ["-I", iface]
        p = iscsiadm(*args, check=check)
        if p.returncode:
            return p
        new = [s for s in self.sessions() if s["sid"] not in before and
               s["target"] == iqn and s["address"] == addr]
        assert len(new) == 1, (p.stdout, self.sessions())
        return new[0]

    def logout(self, sess, check=True):
        """Log session `sess` (a sessions() dict) out."""
        return iscsiadm("-m", "session", "-r", str(sess["sid"]), "-u",
                        check=check)

    def sessions(self):
        return sessions()


def iscsid_listening():
    """iscsid's control socket (abstract, "@ISCSIADM_ABSTRACT_NAMESPACE")
    is bound."""
    with open("/proc/net/unix") as f:
        return any(ln.rstrip().endswith("@ISCSIADM_ABSTRACT_NAMESPACE")
                   for ln in f)


def parse_sendtargets(text):
    """[(addr:port, tpgt, iqn)] of iscsiadm's discovery output."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\S+):(\d+),(-?\d+) (\S+)$", line.strip())
        if m:
            out.append(("%s:%s" % (m.group(1), m.group(2)),
                        int(m.group(3)), m.group(4)))
    return out


def _attr(path, default=None):
    try:
        return rd(path).strip()
    except OSError:
        return default


def sessions():
    """The open-iscsi sessions, from sysfs: [{'sid', 'target', 'tpgt',
    'state', 'initiator', 'address', 'port', 'host', 'path'}]."""
    out = []
    for d in sorted(glob.glob("/sys/class/iscsi_session/session*")):
        sid = int(d.rsplit("session", 1)[1])
        conn = glob.glob("/sys/class/iscsi_connection/connection%d:*" % sid)
        host = glob.glob(d + "/device/../scsi_host/host*") or \
            glob.glob(os.path.realpath(d + "/device/..") + "/scsi_host/host*")
        out.append(dict(
            sid=sid, path=d, target=_attr(d + "/targetname"),
            tpgt=int(_attr(d + "/tpgt", "-1")), state=_attr(d + "/state"),
            initiator=_attr(d + "/initiatorname"),
            address=_attr(conn[0] + "/persistent_address") if conn else None,
            port=int(_attr(conn[0] + "/persistent_port", "0")) if conn
            else None,
            host=int(os.path.basename(host[0])[4:]) if host else None))
    return out


def session(sid):
    for s in sessions():
        if s["sid"] == sid:
            return s
    return None


def luns(sess, want=None, timeout=60):
    """{LUN: (/dev/sdX, /dev/sgN)} of a session's SCSI devices, once
    `want` of them (a count, or None: whatever is there after the scan
    settled) have both nodes."""
    end = time.monotonic() + timeout
    dev = os.path.realpath(sess["path"] + "/device")
    last, stable = None, 0
    while True:
        found = {}
        for sd in glob.glob(dev + "/target*/[0-9]*:*:*:*"):
            lun = int(os.path.basename(sd).rsplit(":", 1)[1])
            blk = glob.glob(sd + "/block/*")
            sg = glob.glob(sd + "/scsi_generic/*")
            if blk and sg and os.path.exists("/dev/" +
                                             os.path.basename(blk[0])):
                found[lun] = ("/dev/" + os.path.basename(blk[0]),
                              "/dev/" + os.path.basename(sg[0]))
        if want is not None and len(found) >= want:
            return found
        stable = stable + 1 if found == last else 0
        last = found
        if want is None and stable >= 10:
            return found
        if time.monotonic() > end:
            if want is None:
                return found
            raise AssertionError("%d of %d LUNs of session %d after %ds: %s"
                                 % (len(found), want, sess["sid"], timeout,
                                    found))
        time.sleep(0.2)


def wait_state(sid, state, timeout=60):
    """Wait until session sid is in state (LOGGED_IN, FAILED, FREE)."""
    end = time.monotonic() + timeout
    while True:
        s = session(sid)
        if s and s["state"] == state:
            return s
        if time.monotonic() > end:
            raise AssertionError("session %d not %s after %ds: %s"
                                 % (sid, state, timeout, s))
        time.sleep(0.2)


def sockets_killable():
    """None if this kernel's ss -K aborts sockets, else why not: it needs
    CONFIG_INET_DIAG_DESTROY (Debian's kernels have it; the debug kernel
    built from linux-source may not, and ss then lists without killing)."""
    for cfg in ("/boot/config-" + KVER,
                "/lib/modules/%s/build/.config" % KVER):
        try:
            with open(cfg) as f:
                if "CONFIG_INET_DIAG_DESTROY=y" in f.read():
                    return None
                return "%s: no CONFIG_INET_DIAG_DESTROY (ss -K)" % KVER
        except OSError:
            continue
    return None


def kill_connections(port=PORT, addr=None):
    """Cut the initiator's TCP connections to a target portal (ss -K:
    the socket is aborted, the peer gets a reset); returns ss's list of
    the sockets it killed."""
    flt = "dport = :%d" % port
    if addr:
        flt += " and dst %s" % addr
    p = run("ss -K -t -n state established '%s'" % flt, check=False)
    return [ln for ln in p.stdout.splitlines()[1:] if ln.strip()]


# ------------------------------------------------------------ libiscsi

def url(iqn, lun=0, addr=ADDR1, port=PORT):
    return "iscsi://%s:%d/%s/%d" % (addr, port, iqn, lun)


def run_test_cu(urls, sel, ini1=LIBISCSI_INI1, ini2=LIBISCSI_INI2,
                timeout=600, extra=()):
    """libiscsi's iscsi-test-cu --dataloss on test selector sel (e.g.
    "ALL.iSCSITMF") over iSCSI URLs (a second one, the same LU through
    another portal, for MultipathIO), logging in as ini1 and ini2, with
    the options of extra (e.g. --allow-sanitize): (
    {test: (result, message)}, the whole output). result: passed,
    failed, skipped ([SKIPPED] in a pass) or incomplete (it died)."""
    from .libiscsi import libiscsi_parse
    cmd = ["timeout", "-k", "10", str(timeout), "iscsi-test-cu",
           "--dataloss"] + list(extra) + ["-i", ini1, "-I", ini2, "-t",
                                          sel] + list(urls)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
    text = p.stdout.decode(errors="replace")
    res = {name: (st, msg) for name, st, msg in libiscsi_parse(text)}
    return res, "### %s (exit %d)\n%s" % (" ".join(cmd), p.returncode, text)


# ------------------------------------------------------------ I/O in flight

def io_count(dev):
    """Reads and writes completed on a block device (sdX, dm-N)."""
    f = rd("/sys/block/%s/stat" % os.path.basename(dev)).split()
    return int(f[0]) + int(f[4])


def io_flows(dev, what, n=100, timeout=60):
    """Wait until n more reads and writes complete on dev: proof that
    I/O goes through it now."""
    start = io_count(dev)
    end = time.monotonic() + timeout
    while io_count(dev) - start < n:
        if time.monotonic() > end:
            raise AssertionError("%d I/Os %s (%s) in %ds: %d" % (
                n, what, dev, timeout, io_count(dev) - start))
        time.sleep(0.2)


def wait_kmsg(kmsg, text, timeout=60):
    """Wait until the kernel logs a line with text (kmsg: a host.Kmsg)."""
    end = time.monotonic() + timeout
    while not any(text in ln for ln in kmsg.lines()):
        if time.monotonic() > end:
            raise AssertionError("no %r in the kernel log after %ds"
                                 % (text, timeout))
        time.sleep(0.2)


# ------------------------------------------------------------ hangs

def blocked_report():
    """What a stuck step leaves to read: the kernel stacks of the tasks in
    uninterruptible sleep (D), of fio and iscsiadm, and of the kernel's
    workers in tcmx, from /proc; and sysrq-w's dump of the blocked tasks
    in the kernel log."""
    out = []
    for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()),
                      key=int):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            state = stat[stat.rindex(")") + 2]
            if state != "D" and comm not in ("fio", "iscsiadm") and \
                    not (comm.startswith("kworker") and state != "I"):
                continue
            with open("/proc/%s/stack" % pid) as f:
                stack = f.read()
        except (OSError, ValueError):
            continue
        if state == "D" or "tcmx" in stack or not comm.startswith("kw"):
            out.append("%s %s (%s):\n%s" % (pid, comm, state, stack))
    try:
        wr("/proc/sysrq-trigger", "w")
    except OSError:
        pass
    return "\n".join(out) or "(no task in D state)"


def session_sg(sess, timeout=60):
    """/dev/sgN of LUN 0 of an iSCSI session (with sd kept off, the only
    way in), once udev-less /dev has it."""
    dev = os.path.realpath(sess["path"] + "/device")
    end = time.monotonic() + timeout
    while True:
        sg = glob.glob(dev + "/target*/*:*:*:0/scsi_generic/*")
        if sg and os.path.exists("/dev/" + os.path.basename(sg[0])):
            return "/dev/" + os.path.basename(sg[0])
        assert time.monotonic() < end, "no sg for session %d" % sess["sid"]
        time.sleep(0.2)
