# SPDX-License-Identifier: GPL-2.0
"""Data through a ramdisk LUN: integrity (dd, fio --verify on 8 LUNs),
sparse memory, the memory refusal, the 27/07 DATA PROTECT path and the
backend's deferred allocation path."""
import ctypes
import errno
import hashlib
import json
import mmap
import os

import pytest

from tcmxlib import (GiB, MiB, SG_DXFER_TO_DEV, SPACE_ALLOC_FAILED, T, Kmsg,
                     clean, disk, err_of, kcq, link_lun, meminfo, mk_rd,
                     mk_target, rd, run, setup_luns, sg_io, sg_raw, sgio, sha,
                     wr)


def test_zeroes_and_checksum(stack):
    tpg, _ = setup_luns(1, GiB)
    dev = disk(tpg, 0)
    zero = hashlib.sha256(bytes(4 * MiB)).hexdigest()
    for off in (0, 512 * MiB - 2 * MiB, GiB - 4 * MiB):
        assert sha(dev, off, 4 * MiB) == zero, off
    run("head -c %d /dev/urandom > /tmp/pat" % (16 * MiB))
    want = run("sha256sum /tmp/pat").stdout.split()[0]
    run("dd if=/tmp/pat of=%s bs=1M seek=100 oflag=direct "
        "conv=fsync status=none" % dev)
    assert sha(dev, 100 * MiB, 16 * MiB) == want
    # neighbours untouched
    assert sha(dev, 96 * MiB, 4 * MiB) == zero
    assert sha(dev, 116 * MiB, 4 * MiB) == zero
    # through the page cache, odd offsets
    run("dd if=/tmp/pat of=%s bs=4096 seek=12345 count=100 conv=fsync "
        "status=none" % dev)
    run("blockdev --flushbufs %s" % dev)
    got = run("dd if=%s bs=4096 skip=12345 count=100 status=none | "
              "sha256sum" % dev).stdout.split()[0]
    exp = run("head -c 409600 /tmp/pat | sha256sum").stdout.split()[0]
    assert got == exp
    os.unlink("/tmp/pat")


def fio(devs, extra):
    args = ["fio", "--output-format=json", "--ioengine=libaio", "--direct=1",
            "--iodepth=16", "--size=16M", "--bsrange=4k-64k",
            "--verify=crc32c", "--verify_fatal=1", "--rw=randwrite",
            "--randrepeat=1", "--group_reporting=0"] + extra
    for i, d in enumerate(devs):
        args += ["--name=j%d" % i, "--filename=" + d]
    p = run(args, check=False, timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    jobs = json.loads(p.stdout[p.stdout.index("{"):])["jobs"]
    assert len(jobs) == len(devs)
    for j in jobs:
        assert j["error"] == 0, j["jobname"]
    return jobs


def test_fio_verify_8_luns(stack):
    n = 8
    tpg, _ = setup_luns(n, 64 * MiB)
    devs = [disk(tpg, i) for i in range(n)]
    jobs = fio(devs, [])
    for j in jobs:
        assert j["write"]["io_bytes"] == 16 * MiB, j["jobname"]
        assert j["read"]["io_bytes"] == 16 * MiB, j["jobname"]


@pytest.mark.tcmx_only
def test_too_big_refused_unless_overcommit(stack):
    total = meminfo("MemTotal")
    hba = T + "/core/rd_mcp_0"
    so = hba + "/big"
    os.makedirs(so)
    wr(so + "/control", "rd_pages=%d" % (2 * total // 4096))
    k = Kmsg()
    e = err_of(wr, so + "/enable", "1\n")
    assert e in (errno.ENOMEM, errno.EINVAL, errno.EFBIG, errno.E2BIG,
                 errno.ENOSPC), e
    assert len(k.lines()) == 1, k.lines()           # exactly one line
    assert rd(so + "/enable").strip() == "0"
    wr(so + "/control", "rd_overcommit=1")
    wr(so + "/enable", "1\n")
    assert rd(so + "/enable").strip() == "1"
    flat = " ".join(rd(so + "/info").split())
    assert "PAGES/PAGE_SIZE: %d*4096" % (2 * total // 4096) in flat


@pytest.mark.tcmx_only
def test_space_allocation_failed(stack, dmesg):
    """Writing past the memory of the machine: 07/27/07, no OOM."""
    total = meminfo("MemTotal")
    start = meminfo()
    so = mk_rd("huge", 2 * total, overcommit=True)
    tpg = mk_target()
    link_lun(tpg, 0, so)
    dev = disk(tpg, 0)
    chunk = 1 * MiB
    buf = (os.urandom(4096) * (chunk // 4096))
    # the writes come from page-aligned memory, which SG_IO maps instead
    # of copying into a bounce buffer: half the time to fill the machine
    area = mmap.mmap(-1, chunk)
    area.write(buf)
    cbuf = (ctypes.c_char * chunk).from_buffer(area)
    fd = os.open(dev, os.O_RDWR)
    lba, fail = 0, None
    try:
        while lba * 512 < 2 * total:
            nb = chunk // 512
            cdb = [0x8a, 0] + list(lba.to_bytes(8, "big")) + \
                list(nb.to_bytes(4, "big")) + [0, 0]
            st, sense, h = sg_io(fd, cdb, SG_DXFER_TO_DEV,
                                 ctypes.addressof(cbuf), chunk)
            if st or h.host_status or h.driver_status:
                fail = (st, kcq(sense), h.host_status, h.driver_status)
                break
            lba += nb
        assert fail is not None, "wrote %d bytes without an error" % \
            (lba * 512)
        assert fail == (2, SPACE_ALLOC_FAILED, 0, 0x08) or \
            fail[:2] == (2, SPACE_ALLOC_FAILED), fail
        assert lba * 512 > start // 2, "failed early at %d MiB of %d" % (
            lba * 512 // MiB, start // MiB)
        # sg_raw sees the same sense going on writing (memory may come
        # back a little in between: a few writes may still succeed)
        for i in range(64):
            st, sense, _ = sg_raw(dev, [0x8a, 0] + list(lba.to_bytes(8, "big"))
                                  + [0, 0, 0x08, 0, 0, 0], data=buf)
            if st != "Good":
                break
            lba += chunk // 512
        assert (st, sense) == ("Check Condition", SPACE_ALLOC_FAILED), i
        # what was written is still there; the system is alive
        st, sense, data, _ = sgio(fd, [0x88, 0] + [0] * 8 + [0, 0, 0, 8, 0,
                                                           0], din=4096)
        assert st == 0 and data == buf[:4096]
        run(["true"])
    finally:
        os.close(fd)
        del cbuf
        area.close()
    oom = [l for l in dmesg.lines() if "oom" in l.lower() or
           "Out of memory" in l or "page allocation failure" in l]
    assert not oom, oom
    # memory comes back when the LUN goes
    clean()
    assert meminfo() > start - 256 * MiB


def traced_calls(fn, action):
    """Run action() with the function tracer on fn; how often fn ran."""
    tr = "/sys/kernel/tracing/"
    if not os.path.exists(tr + "trace"):
        run("mount -t tracefs nodev " + tr)

    def put(name, data):        # O_TRUNC: resets the buffer and filter
        with open(tr + name, "w") as f:
            f.write(data)
    put("tracing_on", "0")
    put("current_tracer", "nop")
    put("trace", "")
    put("buffer_size_kb", "4096")
    put("set_ftrace_filter", fn)
    put("current_tracer", "function")
    put("tracing_on", "1")
    try:
        action()
    finally:
        put("tracing_on", "0")
        with open(tr + "trace") as f:      # before a tracer change wipes it
            n = sum(1 for line in f
                    if not line.startswith("#") and fn in line)
        put("current_tracer", "nop")
        put("set_ftrace_filter", "")
        put("trace", "")
    return n


@pytest.mark.tcmx_only
def test_alloc_in_worker(stack):
    """tcmx_rd alloc_in_worker=1 sends every write that needs a new page to
    the backend's worker (the path a failed inline allocation takes): the
    core completes those commands later, data verifies, LUNs unlink."""
    par = "/sys/module/tcmx_rd/parameters/alloc_in_worker"
    assert rd(par).strip() == "N"
    assert err_of(wr, par, "maybe") == errno.EINVAL
    tpg, _ = setup_luns(2, 64 * MiB)
    devs = [disk(tpg, i) for i in range(2)]
    wr(par, "1")
    try:
        n = traced_calls("rd_rw_work", lambda: fio(devs, []))
    finally:
        wr(par, "0")
    # 2 x 16 MiB of new pages, in writes of 4-64 KiB (some merged)
    assert n >= 32, n
    # pages that exist are written inline again
    assert traced_calls("rd_rw_work", lambda: fio(devs, [])) == 0
