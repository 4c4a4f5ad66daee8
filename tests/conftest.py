# SPDX-License-Identifier: GPL-2.0
"""pytest fixtures for tcmx. The tests run as root inside tools/vm (see
tests/run), against the real modules of the running kernel.

Every test gets, automatically:
  - a clean start and a clean end: configfs target/ emptied and the tcmx
    and in-tree target modules unloaded after the test, even when it fails
    (tcmxlib.tcmx_clean / intree_clean);
  - a kernel log check: a WARNING, BUG, oops or "Call Trace" logged during
    the test (or its teardown) fails it. A test that provokes one on
    purpose says so with @pytest.mark.kmsg_allow(r"regex").

Fixtures to ask for:
  dmesg         tcmxlib.Kmsg: dmesg.read() = kernel log since the test began
  tcmx_modules  tcmx_core, tcmx_rd and tcmx_loop loaded (in that order)
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
    if "TCMX_KVER" not in os.environ and not os.environ.get("TCMX_HOST"):
        pytest.exit("the tests load kernel modules: run them in the VM "
                    "(make check, or tools/vm -- tests/run); TCMX_HOST=1 "
                    "forces a run on this machine", returncode=2)


def _clean():
    tcmxlib.tcmx_clean()
    tcmxlib.intree_clean()


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
    tcmxlib.load()
    return tcmxlib.MODULES


@pytest.fixture
def run():
    """tcmxlib.run: run(cmd, check=True, timeout=300) -> CompletedProcess."""
    return tcmxlib.run
