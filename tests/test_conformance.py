# SPDX-License-Identifier: GPL-2.0
"""libiscsi's conformance suite (iscsi-test-cu, Debian's libiscsi-bin) over
SG_IO against a tcmx LUN, through tools/conformance: every test of the ALL
family (about 20 s under TCG), none may fail, and the only tests that may
skip are those that cannot run over SG_IO on a non-removable disk whatever
the target does (ALLOWED_SKIP, with the reason). See CONFORMANCE.md.

Conformance is required on the 6.1 and 6.12 kernels: on their PREEMPT_RT
flavours (6.1-rt, 6.12-rt in make check) test_libiscsi_all is skipped,
with the kernel in the reason. What it sends takes the same code there
(the decoder and every command's row and execute, which the other tests
send on every kernel); the RT runs keep the rest of the suite.
"""
import json
import os
import subprocess

import pytest

import tcmxlib

ISCSI = "This test needs an iSCSI session (a second I_T nexus, a logout, " \
    "a reset through iSCSI task management, or iSCSI PDUs)"
REMOVABLE = "needs a removable medium (RMB=1)"
ALLOWED_SKIP = {
    **{"ProutReserve.%s%s" % (k, t): ISCSI
       for k in ("Access", "Ownership")
       for t in ("EA", "EAAR", "EARO", "WE", "WEAR", "WERO")},
    "ProutPreempt.RemoveRegistration": ISCSI,
    # rewrites the transfer length in the iSCSI PDU (runs once LBPPB > 1)
    "CompareAndWrite.InvalidDataOutSize": ISCSI,
    **{"Reserve6." + t: ISCSI for t in (
        "2Initiators", "ITNexusLoss", "LUNReset", "Logout",
        "TargetColdReset", "TargetWarmReset")},
    **{"Sanitize." + t: ISCSI for t in (
        "BlockEraseReserved", "CryptoEraseReserved", "Readonly",
        "Reservations", "Reset")},
    **{"iSCSIResiduals." + t: ISCSI for t in (
        "Read10Invalid", "Read10Residuals", "Read12Residuals",
        "Read16Residuals", "Write10Residuals", "Write12Residuals",
        "Write16Residuals", "WriteVerify10Residuals",
        "WriteVerify12Residuals", "WriteVerify16Residuals")},
    "iSCSIcmdsn.iSCSICmdSnTooHigh": ISCSI,
    "iSCSIcmdsn.iSCSICmdSnTooLow": ISCSI,
    "iSCSIdatasn.iSCSIDataSnInvalid": ISCSI,
    # these pass silently over SG_IO; tools/conformance counts them skipped
    "iSCSITMF.AbortTaskSimpleAsync": ISCSI,
    "iSCSITMF.LUNResetSimpleAsync": ISCSI,
    "Read10.Async": ISCSI,
    "Write10.Async": ISCSI,
    **{"PreventAllow." + t: REMOVABLE for t in (
        "Simple", "Eject", "ITNexusLoss", "Logout", "WarmReset",
        "ColdReset", "LUNReset", "2ITNexuses")},
    "StartStopUnit.Simple": REMOVABLE,
    **{"MultipathIO." + t: "needs a second path to the LU (a second "
       "device argument)" for t in (
           "Simple", "Reset", "CompareAndWrite", "CompareAndWriteAsync")},
    "ReadOnly.ReadOnlySBC": "needs a write-protected LU",
    "Sanitize.OverwriteReserved": "not run: libiscsi 1.19 crashes in it "
    "over SG_IO",
}

# Open gaps, each with its exact result today: the test fails when one of
# them changes (fixed, or worse), so that the list only ever shrinks.
KNOWN = tcmxlib.LIBISCSI_KNOWN


def test_allowed_skips_are_real_tests():
    """A typo in ALLOWED_SKIP would widen nothing but hide a rename."""
    names = set(subprocess.run(["iscsi-test-cu", "--list"],
                               capture_output=True, text=True,
                               check=True).stdout.split())
    missing = sorted(t for t in list(ALLOWED_SKIP) + list(KNOWN)
                     if "ALL." + t not in names)
    assert not missing, missing


def preempt_rt():
    """True on a PREEMPT_RT kernel: its version string says so ("#1 SMP
    PREEMPT_RT Debian ..."; /sys/kernel/realtime is not on every one)."""
    return "PREEMPT_RT" in os.uname().version.split()


@pytest.mark.tcmx_only
@pytest.mark.skipif(preempt_rt(), reason="PREEMPT_RT kernel %s: libiscsi "
                    "ALL runs on the 6.1 and 6.12 kernels, not on their RT "
                    "flavour" % tcmxlib.KVER)
def test_libiscsi_all(tmp_path):
    out = tmp_path / "conformance.json"
    p = tcmxlib.run([os.path.join(tcmxlib.PROJ, "tools", "conformance"),
                     "--stack", "tcmx", "--timeout", "300",
                     "--json", str(out), "--log",
                     str(tmp_path / "conformance.log")],
                    check=False, timeout=1800)
    print(p.stdout + p.stderr)
    assert p.returncode == 0
    run = json.loads(out.read_text())["runs"][0]
    results = {"%s.%s" % (s, t): r["result"]
               for s, tests in run["suites"].items()
               for t, r in tests.items()}
    listed = [n[4:] for n in subprocess.run(
        ["iscsi-test-cu", "--list"], capture_output=True, text=True,
        check=True).stdout.split() if n.count(".") == 2 and
        n.startswith("ALL.")]
    assert sorted(results) == sorted(listed), "tests without a result"
    n = {}
    for r in results.values():
        n[r] = n.get(r, 0) + 1
    print("libiscsi ALL on tcmx: %s" % n)
    changed = sorted("%s: %s, was %s" % (t, results.get(t), r)
                     for t, (r, _) in KNOWN.items() if results.get(t) != r)
    failed = sorted(t for t, r in results.items()
                    if r not in ("passed", "skipped", "notrun") and
                    t not in KNOWN)
    unexpected = sorted(t for t, r in results.items()
                        if r in ("skipped", "notrun") and
                        t not in ALLOWED_SKIP and t not in KNOWN)
    msgs = {"%s.%s" % (s, t): r["msg"]
            for s, tests in run["suites"].items()
            for t, r in tests.items()}
    assert not failed, "failed:\n" + "\n".join(
        "%s: %s" % (t, " | ".join(msgs[t].splitlines()[:2])) for t in failed)
    assert not changed, "a known gap changed (update KNOWN):\n" + \
        "\n".join(changed)
    assert not unexpected, "skipped, not allowed:\n" + "\n".join(
        "%s: %s" % (t, " | ".join(msgs[t].splitlines()[:1]))
        for t in unexpected)
