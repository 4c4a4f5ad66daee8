# SPDX-License-Identifier: GPL-2.0
"""tcmx's tracepoints read through tracefs: tcmx:cmd_submit and
tcmx:cmd_complete for known commands, field by field (LUN, opcode, LBA,
blocks, status, sense, latency), and tcmx:tmr for the loopback's error
handling (a LUN reset from sg_reset)."""
import os
import re

import pytest

from tcmxlib import (MiB, disk, link_lun, mk_rd, mk_target, run, sg_raw,
                     sgdev, tur)

pytestmark = pytest.mark.tcmx_only

TR = "/sys/kernel/tracing/"
EVENT = re.compile(r"(tcmx_cmd_submit|tcmx_cmd_complete|tcmx_tmr): (.*)$")


def put(name, data):
    with open(TR + name, "w") as f:     # O_TRUNC: "trace" empties the buffer
        f.write(data)


@pytest.fixture
def tracing():
    """The tcmx events on, an empty buffer; events() parses what came."""
    if not os.path.exists(TR + "trace"):
        run("mount -t tracefs nodev " + TR)
    put("tracing_on", "0")
    put("current_tracer", "nop")
    put("buffer_size_kb", "4096")
    put("trace", "")
    put("events/tcmx/enable", "1")
    put("tracing_on", "1")

    def events():
        """[(event, {field: value})] since the buffer was emptied."""
        out = []
        with open(TR + "trace") as f:
            for line in f:
                m = EVENT.search(line)
                if m:
                    kv = dict(re.findall(r"(\w+)=(\S+)", m.group(2)))
                    out.append((m.group(1), kv))
        return out
    yield events
    put("events/tcmx/enable", "0")
    put("trace", "")


@pytest.fixture
def lun(stack):
    tpg = mk_target()
    link_lun(tpg, 3, mk_rd("t3", 16 * MiB))
    dev = disk(tpg, 3)
    tur(dev)
    return dict(tpg=tpg, dev=dev, sg=sgdev(tpg, 3))


def test_cmd_events(lun, tracing):
    dev = lun["dev"]
    put("trace", "")
    # one 8-block READ(10) at LBA 24, one 2-block WRITE(10) at LBA 40
    run("dd if=%s of=/dev/null bs=4096 count=1 skip=3 iflag=direct" % dev)
    run("dd if=/dev/zero of=%s bs=1024 count=1 seek=20 oflag=direct" % dev)
    # an unknown opcode: CHECK CONDITION, 05/20/00
    st, kcq, _ = sg_raw(lun["sg"], [0xe7, 0, 0, 0, 0, 0])
    assert kcq == (0x05, 0x20, 0x00), st
    ev = tracing()

    def one(name, **want):
        hits = [kv for e, kv in ev if e == name and
                all(kv.get(k) == v for k, v in want.items())]
        assert len(hits) == 1, (name, want, ev)
        return hits[0]

    for op, lba, blocks, xfer in (("0x28", "24", "8", "4096"),
                                  ("0x2a", "40", "2", "1024")):
        s = one("tcmx_cmd_submit", opcode=op, lba=lba, blocks=blocks)
        assert s["lun"] == "3" and s["tpg"] == "1"
        assert s["data_len"] == xfer
        c = one("tcmx_cmd_complete", opcode=op, lba=lba, blocks=blocks)
        assert c["lun"] == "3" and c["status"] == "0x00"
        assert c["sense"] == "00/00/00" and c["xfer_len"] == xfer
        assert int(c["latency_ns"]) > 0
    c = one("tcmx_cmd_complete", opcode="0xe7")
    assert c["status"] == "0x02" and c["sense"] == "05/20/00"
    assert int(c["latency_ns"]) > 0
    # every command submitted completed, and nothing else was traced
    subs = [e for e, _ in ev if e == "tcmx_cmd_submit"]
    comps = [e for e, _ in ev if e == "tcmx_cmd_complete"]
    assert len(subs) == len(comps) >= 3


def test_tmr_event(lun, tracing):
    put("trace", "")
    run(["sg_reset", "-d", lun["dev"]])
    tmr = [kv for e, kv in tracing() if e == "tcmx_tmr"]
    assert tmr, "no tcmx:tmr event"
    assert tmr[0]["tmf"] == "LUN_RESET" and tmr[0]["result"] == "0"
    assert tmr[0]["lun"] == "3" and tmr[0]["tpg"] == "1"
    assert int(tmr[0]["latency_ns"]) > 0
    tur(lun["dev"])                     # the LUN works after the reset


def test_events_off_by_default(lun):
    """Nothing is traced unless asked: the events exist and are off."""
    if not os.path.exists(TR + "trace"):
        run("mount -t tracefs nodev " + TR)
    for e in ("tcmx_cmd_submit", "tcmx_cmd_complete", "tcmx_tmr"):
        with open(TR + "events/tcmx/%s/enable" % e) as f:
            assert f.read().strip() == "0"
