# SPDX-License-Identifier: GPL-2.0
"""The pr/ files of a device and its APTPL file, in each state a PR
sequence leaves, byte for byte.  Not tcmx_only: with TCMX_TEST_STACK=lio
the same expectations hold for the in-tree LIO, which is how the formats
were checked to be its."""
import os

import pytest

import tcmxlib
from tcmxlib import GOOD, prout, rd, wr

DBROOT = "/etc/rtslib-fb-target"
NONE = "No SPC-3 Reservation holder\n"


def files(pr):
    return {f: rd(pr + f) for f in sorted(os.listdir(pr))}


@pytest.fixture
def nexuses(stack):
    """dbroot with its pr/ directory, then tcmxlib.two_nexuses() with sd
    kept off."""
    wr(tcmxlib.T + "/dbroot", DBROOT)
    os.makedirs(DBROOT + "/pr", exist_ok=True)
    with tcmxlib.sd_off():
        yield tcmxlib.two_nexuses("prf0")


def test_pr_files_in_each_state(nexuses):
    n = nexuses
    a, b, pr, na, nb = n["a"], n["b"], n["pr"], n["na"], n["nb"]
    wwn = n["wa"]
    rtpi = tcmxlib.vpd83_ports(a)[4]
    empty = {
        "res_aptpl_active": "APTPL Bit Status: Disabled\n",
        "res_aptpl_metadata": "Ready to process PR APTPL metadata..\n",
        "res_holder": NONE,
        "res_pr_all_tgt_pts": NONE,
        "res_pr_generation": "0x00000000\n",
        "res_pr_holder_tg_port": NONE,
        "res_pr_registered_i_pts": "SPC-3 PR Registrations:\nNone\n",
        "res_pr_type": NONE,
        "res_type": "SPC3_PERSISTENT_RESERVATIONS\n",
    }
    assert files(pr) == empty

    assert prout(a, 0, sa_key=0xa) == (GOOD, None)
    assert prout(b, 0, sa_key=0xb) == (GOOD, None)
    assert prout(a, 1, key=0xa, type_=5) == (GOOD, None)
    held = dict(empty)
    held.update({
        "res_holder": "SPC-3 Reservation: loopback Initiator: %s\n" % na,
        "res_pr_all_tgt_pts":
            "SPC-3 Reservation: Single Target Port registration\n",
        "res_pr_generation": "0x00000002\n",
        "res_pr_holder_tg_port":
            "SPC-3 Reservation: loopback Target Node Endpoint: %s\n"
            "SPC-3 Reservation: Relative Port Identifier Tag: %d loopback "
            "Portal Group Tag: 1 loopback Logical Unit: 0\n" % (wwn, rtpi),
        "res_pr_registered_i_pts":
            "SPC-3 PR Registrations:\n"
            "loopback Node: %s Key: 0x000000000000000a PRgen: 0x00000000\n"
            "loopback Node: %s Key: 0x000000000000000b PRgen: 0x00000001\n"
            % (na, nb),
        "res_pr_type": "SPC-3 Reservation Type: Write Exclusive Access, "
                       "Registrants Only\n",
    })
    assert files(pr) == held

    # APTPL from A's next REGISTER (same key): the file holds both
    assert prout(a, 6, sa_key=0xa, flags=0x01) == (GOOD, None)
    held.update({"res_aptpl_active": "APTPL Bit Status: Activated\n",
                 "res_pr_generation": "0x00000003\n"})
    held["res_pr_registered_i_pts"] = held[
        "res_pr_registered_i_pts"].replace("PRgen: 0x00000000",
                                           "PRgen: 0x00000002")
    assert files(pr) == held
    serial = rd(n["so"] + "/wwn/vpd_unit_serial").split(":", 1)[1].strip()
    text = rd("%s/pr/aptpl_%s" % (DBROOT, serial))
    # in-tree writes a NUL after the text
    assert text.rstrip("\0") == (
        "PR_REG_START: 0\ninitiator_fabric=loopback\ninitiator_node=%s\n"
        "sa_res_key=10\nres_holder=1\nres_type=05\nres_scope=00\n"
        "res_all_tg_pt=0\nmapped_lun=0\ntarget_fabric=loopback\n"
        "target_node=%s\ntpgt=1\nport_rtpi=%d\ntarget_lun=0\n"
        "PR_REG_END: 0\n"
        "PR_REG_START: 1\ninitiator_fabric=loopback\ninitiator_node=%s\n"
        "sa_res_key=11\nres_holder=0\nres_all_tg_pt=0\nmapped_lun=0\n"
        "target_fabric=loopback\ntarget_node=%s\ntpgt=1\nport_rtpi=%d\n"
        "target_lun=0\nPR_REG_END: 1\n"
        % (na, wwn, rtpi, nb, n["wb"], tcmxlib.vpd83_ports(b)[4]))

    # CLEAR: nothing to keep.  In-tree also turns APTPL off (and ends the
    # text with a newline); tcmx keeps the last REGISTER's APTPL value.
    assert prout(a, 3, key=0xa) == (GOOD, None)
    assert rd("%s/pr/aptpl_%s" % (DBROOT, serial)).rstrip("\0\n") == \
        "No Registrations or Reservations"
    held = dict(empty)
    held.update({"res_aptpl_active": "APTPL Bit Status: %s\n" %
                 ("Disabled" if tcmxlib.STACK == "lio" else "Activated"),
                 "res_pr_generation": "0x00000004\n"})
    assert files(pr) == held


@pytest.mark.tcmx_only
def test_aptpl_file_symlink_is_not_followed(nexuses):
    """A symlink planted in place of the APTPL file is never followed: the
    state is written to a temporary file (opened O_NOFOLLOW) and renamed
    over it, so the link is replaced and the file it pointed to is
    untouched.  A symlink at the temporary name: REGISTER with APTPL fails
    (02/08/00 LOGICAL UNIT COMMUNICATION FAILURE) and changes nothing.
    tcmx only: the in-tree opens the path following links."""
    n = nexuses
    a, so = n["a"], n["so"]
    serial = rd(so + "/wwn/vpd_unit_serial").split(":", 1)[1].strip()
    path = "%s/pr/aptpl_%s" % (DBROOT, serial)
    victim = "/tmp/aptpl-victim"
    with open(victim, "w") as f:
        f.write("victim\n")
    for name in (path, path + ".tmp"):
        if os.path.lexists(name):
            os.unlink(name)
    os.symlink(victim, path + ".tmp")
    try:
        st, kcq = prout(a, 0, sa_key=0xa, flags=0x01)
        assert (st, kcq) == (tcmxlib.CHECK, (0x2, 0x08, 0x00))
        assert rd(victim) == "victim\n"
        assert tcmxlib.prin(a, 0)[:8] == bytes(8)
        assert rd(n["pr"] + "res_aptpl_active") == \
            "APTPL Bit Status: Disabled\n"
        assert not os.path.lexists(path)
    finally:
        os.unlink(path + ".tmp")
    os.symlink(victim, path)
    try:
        assert prout(a, 0, sa_key=0xa, flags=0x01) == (GOOD, None)
        assert rd(victim) == "victim\n"
        assert os.path.isfile(path) and not os.path.islink(path)
        assert "sa_res_key=10\n" in rd(path)
        assert rd(n["pr"] + "res_aptpl_active") == \
            "APTPL Bit Status: Activated\n"
        assert prout(a, 6, sa_key=0) == (GOOD, None)
        assert rd(path) == "No Registrations or Reservations\n"
    finally:
        os.unlink(victim)
        if os.path.islink(path):
            os.unlink(path)
