# SPDX-License-Identifier: GPL-2.0
"""target/iscsi/cpus_allowed_list of tcmx_iscsi: while it leaves a CPU
out, a new connection's receive and send work (tcmx_iscsi_io_work) runs
only on the CPUs it lists, as the in-tree binds its connection threads;
the file shows the list back, and one that names no online CPU is
refused with EINVAL."""
import os
import re

import pytest

import tcmxlib
from tcmxlib import MiB, ftrace, iscsi, run

WHY = iscsi.missing()
pytestmark = [pytest.mark.skipif(WHY is not None, reason=str(WHY)),
              pytest.mark.tcmx_only]

CPUS = iscsi.ISCSI + "/cpus_allowed_list"
CPU_COL = re.compile(r"\[(\d+)\]")


def io_work_cpus(action):
    """The CPUs tcmx_iscsi_io_work ran on while action() ran."""
    lines = ftrace.event_lines("workqueue/workqueue_execute_start", action)
    return [int(CPU_COL.search(ln).group(1)) for ln in lines
            if "tcmx_iscsi_io_work" in ln]


@pytest.mark.skipif(os.cpu_count() < 2, reason="needs two CPUs")
def test_connections_run_on_the_allowed_cpus(stack):
    iscsi.load()
    online = tcmxlib.rd(CPUS).strip()
    assert online == "0-%d" % (os.cpu_count() - 1)
    for bad in ("x", "0-", "1,a", str(os.cpu_count() + 7)):
        with pytest.raises(OSError):
            tcmxlib.wr(CPUS, bad)
    assert tcmxlib.rd(CPUS).strip() == online
    tcmxlib.wr(CPUS, "1")
    assert tcmxlib.rd(CPUS).strip() == "1"
    t = iscsi.target()
    tpg = iscsi.tpg(t, 1, portals=(iscsi.ADDR1,))
    iscsi.rd_lun(tpg, 0, 16 * MiB)
    iscsi.acl(tpg, iscsi.INI_A, maps=[(0, 0)])
    iscsi.enable(tpg)
    try:
        with iscsi.Initiator(iscsi.INI_A) as ini:
            ini.discover(iscsi.ADDR1)

            def io():
                s = ini.login(os.path.basename(t), iscsi.ADDR1)
                dev, _ = iscsi.luns(s, 1)[0]
                # on each CPU in turn, so that completions come from both
                for cpu in (0, 1):
                    run("taskset -c %d dd if=/dev/zero of=%s bs=64k "
                        "count=64 oflag=direct" % (cpu, dev))
                    run("taskset -c %d dd if=%s of=/dev/null bs=64k "
                        "count=64 iflag=direct" % (cpu, dev))
                ini.logout(s)
            cpus = io_work_cpus(io)
        assert len(cpus) > 20, cpus
        assert set(cpus) == {1}, cpus
        # every CPU again: the work follows the packets, on any CPU
        tcmxlib.wr(CPUS, online)
        assert tcmxlib.rd(CPUS).strip() == online
    finally:
        iscsi.unload()
