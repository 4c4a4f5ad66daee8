# SPDX-License-Identifier: GPL-2.0
"""Random CDBs over SG_IO against a ramdisk LUN (tools/fuzz-sgio): at
least 10,000 commands; every one completes with a SAM status and, when it
is CHECK CONDITION, well-formed sense data in the format D_SENSE says
(the first half fixed, the second descriptor);
the half of the medium no write-type command may reach keeps its
pattern; the LUN answers normally afterwards; a second LUN of the same
host running fio --verify beside the fuzzer keeps its data; the kernel
log stays clean (the conftest guard).

TCMX_FUZZ_SEED (default: a fixed one) and TCMX_FUZZ_COUNT change the
run; the seed is printed, so that a failure can be replayed by hand:
tools/fuzz-sgio --dev /dev/sgN --seed S --count N (the generator and
the oracles are tcmxlib.fuzz)."""
import hashlib
import os
import subprocess
import threading
import time

import pytest

from tcmxlib import NOT_ON_RT_WHY, PREEMPT_RT, fuzz
from tcmxlib import (MiB, disk, kcq, run, setup_luns, sgcmd, sgdev,
                     unit_attentions)

pytestmark = pytest.mark.skipif(PREEMPT_RT, reason=NOT_ON_RT_WHY)

SIZE = 16 * MiB
SEED = int(os.environ.get("TCMX_FUZZ_SEED", "20261201"))
COUNT = int(os.environ.get("TCMX_FUZZ_COUNT", "10000"))
THREADS = int(os.environ.get("TCMX_FUZZ_THREADS", "4"))
PR_KEY = 0x7e57c1ea2


def restore(sg):
    """Undo what the fuzzer may have left: a stopped unit, persistent and
    SPC-2 reservations, registrations, unit attentions. Returns the
    states found (for the log)."""
    found = []
    unit_attentions(sg, tries=50)
    st, sense, _ = sgcmd(sg, [0x1b, 0, 0, 0, 0x01, 0])     # START UNIT
    found.append(("START UNIT", st, kcq(sense) if st else None))
    # REGISTER AND IGNORE EXISTING KEY, then CLEAR with that key
    par = bytes(8) + PR_KEY.to_bytes(8, "big") + bytes(8)
    st, sense, _ = sgcmd(sg, [0x5f, 0x06, 0, 0, 0, 0, 0, 0, 24, 0],
                         dout=par)
    assert st == 0, ("PR REGISTER AND IGNORE", st, sense.hex())
    par = PR_KEY.to_bytes(8, "big") + bytes(16)
    st, sense, _ = sgcmd(sg, [0x5f, 0x03, 0, 0, 0, 0, 0, 0, 24, 0],
                         dout=par)
    assert st == 0, ("PR CLEAR", st, sense.hex())
    st, sense, _ = sgcmd(sg, [0x17, 0, 0, 0, 0, 0])       # RELEASE(6)
    found.append(("RELEASE(6)", st, kcq(sense) if st else None))
    unit_attentions(sg, tries=50)
    return found


def set_d_sense(sg, on):
    """MODE SELECT(10) of the control mode page with D_SENSE = on."""
    st, sense, data = sgcmd(sg, [0x5a, 0x08, 0x0a, 0, 0, 0, 0, 0, 255, 0],
                            din=255)
    assert st == 0, sense.hex()
    at = 8 + int.from_bytes(data[6:8], "big")
    page = bytearray(data[at:at + 2 + data[at + 1]])
    page[0] &= 0x3f
    page[2] = (page[2] & ~0x04) | (0x04 if on else 0)
    par = bytes(8) + bytes(page)
    st, sense, _ = sgcmd(sg, [0x55, 0x10, 0, 0, 0, 0, 0, 0, len(par), 0],
                         dout=par)
    assert st == 0, ("MODE SELECT D_SENSE", st, sense.hex())


def fio_loop(dev, stop):
    """fio write+verify passes over dev until stop exists; the exit
    statuses."""
    rcs = []
    while not os.path.exists(stop) or not rcs:
        p = subprocess.run(
            ["fio", "--name=beside", "--filename=" + dev, "--direct=1",
             "--ioengine=libaio", "--iodepth=4", "--rw=randwrite",
             "--bs=64k", "--size=8M", "--verify=crc32c", "--do_verify=1",
             "--verify_fatal=1", "--randrepeat=0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        rcs.append((p.returncode, p.stdout[-2000:] if p.returncode else ""))
    return rcs


@pytest.mark.tcmx_only
def test_fuzz_sgio(stack, dmesg, tmp_path):
    """COUNT random commands on LUN 0 (fuzz-sgio's oracles), fio --verify
    on LUN 1 beside them; LUN 0's protected half and capacity unchanged."""
    tpg, _ = setup_luns(2, SIZE, names="fz")
    sd0, sg0, sd1 = disk(tpg, 0), sgdev(tpg, 0), disk(tpg, 1)
    # a known pattern over the whole of LUN 0
    pattern = hashlib.shake_256(b"tcmx fuzz %d" % SEED).digest(SIZE)
    pfile = tmp_path / "pattern"
    pfile.write_bytes(pattern)
    run("dd if=%s of=%s bs=1M oflag=direct status=none" % (pfile, sd0))
    unit = fuzz.Unit(sg0)
    assert unit.blocks * unit.bs == SIZE, (unit.blocks, unit.bs)
    scratch = unit.blocks // 2
    keep = scratch * unit.bs
    want = hashlib.sha256(pattern[:keep]).hexdigest()
    print("seed %d, %d commands, %d threads, %d opcodes reported, "
          "D_SENSE %d, writes kept at LBA >= %d" % (
              SEED, COUNT, THREADS, len(unit.ops), unit.d_sense, scratch))

    stop = str(tmp_path / "stop")
    fio_out = []
    ft = threading.Thread(target=lambda: fio_out.extend(fio_loop(sd1, stop)))
    ft.start()
    f = fuzz.Fuzzer(sg0, unit, scratch)
    t0 = time.monotonic()
    try:
        # half with fixed sense, half with descriptor sense
        f.run(COUNT // 2, SEED, THREADS)
        set_d_sense(sg0, not unit.d_sense)
        fd = os.open(sg0, os.O_RDWR)
        f.d_sense = {fuzz.Unit.read_d_sense(fd)}
        os.close(fd)
        assert f.d_sense == {not unit.d_sense}
        stats = f.run(COUNT - COUNT // 2, SEED + 1, THREADS)
    finally:
        secs = time.monotonic() - t0
        open(stop, "w").close()
        ft.join()
    print("fuzzing: %.1f s (%.0f commands/s)" % (secs, COUNT / secs))
    stats.report()
    print("fio passes beside it: %d" % len(fio_out))

    assert stats.sent >= COUNT
    assert not stats.bad, "\n".join(stats.bad[:30])
    assert not stats.ioctl_err
    # the oracles are not vacuous: both outcomes and field pointers came
    assert stats.status["GOOD"] > COUNT // 20, stats.status
    assert stats.status["CHECK CONDITION"] > COUNT // 4, stats.status
    assert stats.kcq[(0x5, 0x24, 0x00)] > 0 and \
        stats.kcq[(0x5, 0x20, 0x00)] > 0, stats.kcq.most_common(5)
    assert stats.fmt[0x70] > COUNT // 5 and stats.fmt[0x72] > COUNT // 5, \
        stats.fmt
    assert all(rc == 0 for rc, _ in fio_out), fio_out

    found = restore(sg0)
    print("restored: %s" % found)
    st, sense, _ = sgcmd(sg0, [0, 0, 0, 0, 0, 0])
    assert st == 0, ("TEST UNIT READY", st, sense.hex())
    again = fuzz.Unit(sg0)
    assert (again.blocks, again.bs) == (unit.blocks, unit.bs)
    got = run("dd if=%s bs=1M count=%d iflag=direct status=none | "
              "sha256sum" % (sd0, keep // MiB)).stdout.split()[0]
    assert got == want, "the protected half of LUN 0 changed"
    bad = dmesg.bad()
    assert not bad, bad
