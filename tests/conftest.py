# SPDX-License-Identifier: GPL-2.0
"""pytest fixtures for tcmx. The tests run as root inside tools/vm (see
tests/run), against the real modules of the running kernel; helpers are
in tools/tcmxlib (pytest.ini puts tools/ on the path). TCMX_TEST_STACK=lio
runs them against the in-tree LIO.

Every test gets, automatically:
  - a clean start and a clean end: configfs target/ emptied and the tcmx
    and in-tree target modules unloaded after the test, even when it fails
    (tcmxlib.unload(stack=...) for both stacks);
  - a kernel log check: a WARNING, BUG, oops or "Call Trace" logged during
    the test (or its teardown) fails it. A test that provokes one on
    purpose says so with @pytest.mark.kmsg_allow(r"regex").

Markers:
  tcmx_only     a tcmx requirement the in-tree LIO does not meet: skipped
                with TCMX_TEST_STACK=lio
  kmsg_allow    see above

Fixtures to ask for:
  dmesg         tcmxlib.Kmsg: dmesg.read() = kernel log since the test began
  tcmx_modules  tcmx_core, tcmx_rd and tcmx_loop loaded (in that order),
                whatever the stack under test
  stack         the stack under test loaded (tcmxlib.load()), configfs
                empty; its value is tcmxlib.STACK
  scsi_lun      on the stack under test: a 1 GiB ramdisk as LUN 0 (serial
                5e1a1-0000-4000-8000-000000000001), 16 MiB ones as LUNs 1
                and 7, one TPG; a dict: tpg, so, dev (/dev/sdX of LUN 0),
                sg (its /dev/sgN)
  sgfd          scsi_lun's /dev/sgN, an open file descriptor
  run           tcmxlib.run(cmd, check=True, timeout=300)
"""
import os
import re

import pytest

import tcmxlib


def pytest_configure(config):
    config.addinivalue_line("markers",
                            "kmsg_allow(regex): kernel log lines matching "
                            "regex do not fail the test")
    config.addinivalue_line("markers",
                            "tcmx_only: a tcmx requirement the in-tree LIO "
                            "does not meet (skipped with "
                            "TCMX_TEST_STACK=lio)")
    if "TCMX_KVER" not in os.environ and not os.environ.get("TCMX_HOST"):
        pytest.exit("the tests load kernel modules: run them in the VM "
                    "(make check, or tools/vm -- tests/run); TCMX_HOST=1 "
                    "forces a run on this machine", returncode=2)


# CI tiers (CI has 90 minutes and must stay under 60): tools/check sets
# TCMX_TIER per kernel; without it (tests/run by hand) everything runs.
#   full    6.1: every module
#   second  6.12: all but the long runs whose kernel side 6.1 covers
#           (libiscsi, fuzzers, lifecycle fault injection, userspace
#           flows; test_inject runs here in full)
#   core    PREEMPT_RT: the locking-heavy core: reservations, unit
#           attentions, atomicity, task management, data, ACLs, module
#           life, iSCSI sessions and masking, and of fault injection
#           (test_inject) the values refused, the bad blocks and the
#           stuck commands (its timing, fio and ext4 runs are left out)
TIER_NOT_SECOND = {
    "test_conformance", "test_configfs_fuzz", "test_lifecycle_faults",
    "test_iscsi_libiscsi", "test_fuzz_sgio", "test_multipath",
    "test_iscsi_teardown",
    "test_scsi_thin", "test_saverestore", "test_targetcli",
}
TIER_CORE = {
    "test_scsi_pr", "test_unit_attention", "test_atomicity",
    "test_task_management", "test_data", "test_acls", "test_modules",
    "test_iscsi_sessions", "test_iscsi_masking", "test_inject",
}


# tests of a core module that exercise no locking of their own and that
# tiers full and second run: left out of tier core (RT) for CI's time
TIER_CORE_LEAVES_OUT = {
    "test_iscsi_sessions::test_ext4_and_bonnie",
    "test_data::test_space_allocation_failed",
    "test_inject::test_files_defaults_and_values_read_back",
    "test_inject::test_badblocks_tool_finds_them",
    "test_inject::test_delay_read_latency",
    "test_inject::test_delay_min_max_and_write_lands_first",
    "test_inject::test_fault_statuses_and_counters",
    "test_inject::test_fault_under_fio_verify",
    "test_inject::test_stuck_commands_aborted_by_the_error_handler",
    "test_inject::test_ext4_under_delays_and_busy",
    "test_inject::test_inject_tracepoint",
    "test_inject::test_nothing_programmed_costs_nothing",
    "test_inject::test_verdict_inside_the_write_exclusion",
    "test_task_management::test_host_reset_waits_for_what_the_core_holds",
    "test_scsi_pr::test_ending_a_registered_nexus_leaves_configfs_free",
    "test_scsi_pr::test_preempt_and_abort_through_the_preempted_nexus_port",
}


# the long iSCSI runs of tier "all" only (TCMX_TIER=all): CI's 6.1 run must
# stay within its time (tools/check's VM timeout, .ci/run's hour)
TIER_ALL_ONLY = {"test_iscsi_teardown", "test_iscsi_fuzz"}


def tier_skip(tier, module, name=""):
    """Why @module (its test @name) does not run in CI tier @tier, or
    None."""
    if tier != "all" and module in TIER_ALL_ONLY:
        return "CI tier %s (%s): %s runs with TCMX_TIER=all" % (
            tier, tcmxlib.KVER, module)
    if tier == "second" and module in TIER_NOT_SECOND:
        return "CI tier second (%s): %s runs in tier full (6.1)" % (
            tcmxlib.KVER, module)
    if tier == "core" and "%s::%s" % (module, name) in TIER_CORE_LEAVES_OUT:
        return "CI tier core (%s): %s runs in tiers full and second " \
            "(6.1, 6.12)" % (tcmxlib.KVER, name)
    if tier == "core" and module not in TIER_CORE:
        return "CI tier core (%s): %s runs in tiers full and second " \
            "(6.1, 6.12)" % (tcmxlib.KVER, module)
    return None


def pytest_collection_modifyitems(config, items):
    tier = os.environ.get("TCMX_TIER", "full")
    if tier not in ("all", "full", "second", "core"):
        raise pytest.UsageError("TCMX_TIER=%s: all, full, second or core"
                                % tier)
    for item in items:
        why = tier_skip(tier, item.module.__name__.rsplit(".", 1)[-1],
                        item.originalname)
        if why:
            item.add_marker(pytest.mark.skip(reason=why))
    if tcmxlib.STACK == "tcmx":
        return
    skip = pytest.mark.skip(
        reason="tcmx requirement the in-tree LIO does not meet")
    for item in items:
        if item.get_closest_marker("tcmx_only"):
            item.add_marker(skip)


def _clean():
    for stack in tcmxlib.STACKS:
        tcmxlib.unload(stack=stack)


@pytest.fixture(autouse=True)
def _tcmx_guard(request):
    _clean()
    kmsg = tcmxlib.Kmsg()
    yield kmsg
    try:
        _clean()
        left = [m for m in tcmxlib.MODULES + tcmxlib.INTREE
                if tcmxlib.loaded(m)]
        assert not left, "modules left loaded: %s" % left
        text = kmsg.read()
        if text:
            print("--- kernel log during the test ---\n" + text)
        allow = [m.args[0] for m in request.node.iter_markers("kmsg_allow")]
        bad = [ln for ln in kmsg.bad()
               if not any(re.search(a, ln) for a in allow)]
        assert not bad, "kernel log has warnings/oopses:\n" + "\n".join(bad)
    finally:
        kmsg.close()


@pytest.fixture
def dmesg(_tcmx_guard):
    """Kernel log since the test started: dmesg.read()."""
    return _tcmx_guard


@pytest.fixture
def tcmx_modules():
    """The three tcmx modules, loaded in order; unloaded by the guard."""
    tcmxlib.load(*tcmxlib.MODULES)
    return tcmxlib.MODULES


@pytest.fixture
def stack():
    """The stack under test, loaded; configfs empty before and after."""
    tcmxlib.load()
    tcmxlib.clean()
    yield tcmxlib.STACK
    tcmxlib.clean()


@pytest.fixture
def scsi_lun(stack):
    """LUNs 0, 1 and 7 on one TPG; the tests use LUN 0. (Function
    scope: the guard unloads every module after each test.)"""
    tpg = tcmxlib.mk_target()
    so = tcmxlib.mk_rd("s0", tcmxlib.GiB,
                        serial="5e1a1-0000-4000-8000-000000000001")
    tcmxlib.link_lun(tpg, 0, so)
    tcmxlib.link_lun(tpg, 1, tcmxlib.mk_rd("s1", 16 * tcmxlib.MiB))
    tcmxlib.link_lun(tpg, 7, tcmxlib.mk_rd("s7", 16 * tcmxlib.MiB))
    d = dict(tpg=tpg, so=so, dev=tcmxlib.disk(tpg, 0),
             sg=tcmxlib.sgdev(tpg, 0))
    for i in (0, 1, 7):
        tcmxlib.tur(tcmxlib.disk(tpg, i))
    return d


@pytest.fixture
def sgfd(scsi_lun):
    """scsi_lun's /dev/sgN, open (O_RDWR) for the test."""
    fd = os.open(scsi_lun["sg"], os.O_RDWR)
    yield fd
    os.close(fd)


@pytest.fixture
def run():
    """tcmxlib.run: run(cmd, check=True, timeout=300) -> CompletedProcess."""
    return tcmxlib.run
