# SPDX-License-Identifier: GPL-2.0
"""libiscsi's iscsi-test-cu (Debian libiscsi-bin) over SG_IO."""
import re
import subprocess
import time



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
        after = re.match(r"(passed|FAILED)\s+(\S.*)$", s)
        if after:
            # the status word came first on its line (after what the test
            # printed, if anything), then what the suite's cleanup printed
            # (a failed PRIN after a reset, ...)
            cur[1] = "passed" if after.group(1) == "passed" else "failed"
            cur[2].append(after.group(2))
            continue
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


def libiscsi_devs(sg):
    """The device arguments of iscsi-test-cu: sg, a /dev/sgN or an
    iscsi:// URL, or a list of them (a second path: MultipathIO)."""
    return list(sg) if isinstance(sg, (list, tuple)) else [sg]


def libiscsi_over_iscsi(sg):
    return libiscsi_devs(sg)[0].startswith("iscsi://")


def libiscsi_run(sg, sel, timeout, log):
    """One iscsi-test-cu process on test selector sel; (rc, output, secs)."""
    cmd = ["timeout", "-k", "10", str(timeout), LIBISCSI_TOOL, "--dataloss",
           "--allow-sanitize", "-t", sel] + libiscsi_devs(sg)
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
    # what concerns SG_IO only
    over_iscsi = libiscsi_over_iscsi(sg)
    not_run = set() if over_iscsi else LIBISCSI_NOT_RUN
    silent = set() if over_iscsi else LIBISCSI_SILENT_SKIP
    todo = [t for t in tests if "%s.%s" % (suite, t) not in not_run]
    if len(todo) == len(tests):
        rc, text, secs = libiscsi_run(sg, "%s.%s" % (family, suite), timeout,
                                  log)
        for name, st, msg in libiscsi_parse(text):
            if name in tests:
                out[name] = {"result": st, "msg": msg}
            if st == "passed" and "%s.%s" % (suite, name) in silent:
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
            if "%s.%s" % (suite, t) in not_run:
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
            if st == "passed" and "%s.%s" % (suite, t) in silent:
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

