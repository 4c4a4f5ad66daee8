# SPDX-License-Identifier: GPL-2.0
"""Atomicity of the write-type commands against each other and against
READ, from two I_T nexuses to one ramdisk:

- COMPARE AND WRITE increments a counter (compare-and-swap) on one nexus
  while the other nexus overwrites the same blocks with WRITE SAME, UNMAP
  and a WRITE that rd_mcp finishes in its worker (alloc_in_worker=1: the
  write meets a hole after it has written the blocks).  No write may land
  between a COMPARE AND WRITE's compare and its write, and none may land
  twice;
- a READ never sees part of a WRITE ATOMIC(16) of more than one chunk.

Both are tcmx requirements: the in-tree stack serialises COMPARE AND WRITE
only against itself."""
import multiprocessing
import os
import struct
import time
from collections import Counter

import pytest

import tcmxlib
from tcmxlib import MiB, be, caw_cdb, kcq, rw_cdb, sgio, wr

MISCOMPARE = (0xe, 0x1d, 0x00)
BS = 512
SPAN = 2048             # blocks of the WRITE that ends in a hole
N = 128                 # blocks of the COMPARE AND WRITE range (16 pages)
X = SPAN - N - 8        # its first LBA: the range ends on a page boundary
HOLE = X + N            # the page after it, a hole before each span WRITE
ROUNDS = 3
B_OPS = 40              # writes of the other nexus per round
PAR = "/sys/module/tcmx_rd/parameters/alloc_in_worker"
ZERO = b"\0" * 16


def tag(who, n):
    """The 16 bytes that identify a value of the range."""
    return who + struct.pack(">Q", n) + b"\xa5" * 7


def blocks(t, nr):
    """nr blocks, each its tag and filler: WRITE SAME of one of them
    writes the same range as a WRITE of all of them."""
    return (t + bytes(i & 0xff for i in range(16, BS))) * nr


def value(data):
    """The tag the range holds, None if its blocks disagree (torn)."""
    if not any(data):
        return ZERO
    if data != blocks(data[:16], len(data) // BS):
        return None
    return data[:16]


def cmd(fd, cdb, din=0, dout=None):
    st, sense, data, _ = sgio(fd, cdb, din=din, dout=dout)
    return st, kcq(sense), data


def read_range(fd, lba, nr):
    st, k, data = cmd(fd, rw_cdb(0x88, lba, nr), din=nr * BS)
    assert (st, k) == (0, None), (st, k)
    return data


def counter(path, stop, out):
    """Nexus A: compare-and-swap increments until stop is set, then one
    more that succeeds.  Sends (successes, compared values, torn reads)."""
    fd = os.open(path, os.O_RDWR)
    done, compared, torn = 0, [], 0
    try:
        while True:
            last = stop.is_set()
            cur = read_range(fd, X, N)
            if value(cur) is None:
                torn += 1
                continue
            st, k, _ = cmd(fd, caw_cdb(X, N),
                           dout=cur + blocks(tag(b"A", done + 1), N))
            if (st, k) == (0, None):
                done += 1
                compared.append(value(cur))
                if last:
                    break
            else:
                assert k == MISCOMPARE, (st, k)
    finally:
        os.close(fd)
    out.send((done, compared, torn))


def interfere(fd, k):
    """Nexus B's k-th write of the range: WRITE SAME, a span WRITE that
    ends in a hole, UNMAP, a span WRITE, WRITE SAME with UNMAP of zeroes.
    Returns the tag the range then holds."""
    op = k % 5
    if op in (1, 3):
        # the hole after the range: the span's last page is new
        d = be(8 + 16, 2) + be(16, 2) + [0] * 4 + be(HOLE, 8) + be(8, 4) \
            + [0] * 4
        st, kk, _ = cmd(fd, [0x42, 0, 0, 0, 0, 0, 0] + be(len(d), 2) + [0],
                        dout=bytes(d))
        assert (st, kk) == (0, None), (st, kk)
        t = tag(b"B", k)
        data = bytes(X * BS) + blocks(t, N) + bytes((SPAN - X - N) * BS)
        st, kk, _ = cmd(fd, rw_cdb(0x8a, 0, SPAN), dout=data)
    elif op == 0:
        t = tag(b"B", k)
        st, kk, _ = cmd(fd, [0x93, 0] + be(X, 8) + be(N, 4) + [0, 0],
                        dout=blocks(t, 1))
    elif op == 2:
        d = be(8 + 16, 2) + be(16, 2) + [0] * 4 + be(X, 8) + be(N, 4) \
            + [0] * 4
        st, kk, _ = cmd(fd, [0x42, 0, 0, 0, 0, 0, 0] + be(len(d), 2) + [0],
                        dout=bytes(d))
        t = ZERO
    else:
        st, kk, _ = cmd(fd, [0x93, 0x08] + be(X, 8) + be(N, 4) + [0, 0],
                        dout=bytes(BS))
        t = ZERO
    return (st, kk), t


def run_round(a, b):
    stop = multiprocessing.Event()
    rx, tx = multiprocessing.Pipe(False)
    p = multiprocessing.Process(target=counter, args=(a, stop, tx))
    p.start()
    fd = os.open(b, os.O_RDWR)
    written = Counter()
    try:
        for k in range(B_OPS):
            res, t = interfere(fd, k)
            assert res == (0, None), (k, res)
            written[t] += 1
            # wait until a COMPARE AND WRITE replaced it
            t0 = time.monotonic()
            while True:
                cur = read_range(fd, X, N)
                if value(cur) != t:
                    break
                assert time.monotonic() - t0 < 60, "counter stalled"
    finally:
        stop.set()
        os.close(fd)
    done, compared, _ = rx.recv()
    p.join(60)
    return written, done, compared


def check_round(a, b):
    """One round; the invariants a serial order of the commands keeps."""
    written, done, compared = run_round(a, b)
    fd = os.open(a, os.O_RDWR)
    try:
        final = read_range(fd, X, N)
    finally:
        os.close(fd)
    assert value(final) == tag(b"A", done), "final value is not the count"
    seen = Counter(compared)
    # every A value at most once: none came back
    twice = [c for c, n in seen.items() if c[:1] == b"A" and n > 1]
    assert not twice, "a replaced value came back: %s" % twice
    return written, seen, done


@pytest.fixture
def nexuses(stack):
    with tcmxlib.sd_off():
        n = tcmxlib.two_nexuses("atom0", 64 * MiB)
        wr(n["so"] + "/attrib/emulate_tpu", "1")
        wr(n["so"] + "/attrib/emulate_tpws", "1")
        yield n
    wr(PAR, "0")


def prime(a):
    """The range and the span's pages written once: they exist."""
    data = bytes(X * BS) + blocks(tag(b"A", 0), N) + \
        bytes((SPAN - X - N) * BS)
    fd = os.open(a, os.O_RDWR)
    try:
        st, k, _ = cmd(fd, rw_cdb(0x8a, 0, SPAN), dout=data)
    finally:
        os.close(fd)
    assert (st, k) == (0, None)


@pytest.mark.tcmx_only
@pytest.mark.parametrize("in_worker", [False, True],
                         ids=["inline", "alloc_in_worker"])
def test_caw_counter_against_other_writes(nexuses, in_worker):
    """COMPARE AND WRITE on nexus A increments the value of a 128-block
    range; nexus B overwrites the range with WRITE SAME, UNMAP and WRITEs
    spanning it (ending in a hole), and waits after each until A replaced
    its value.  In every round: each value B wrote was the compare value
    of exactly one successful COMPARE AND WRITE (none lost between a
    compare and its write, none written twice by a WRITE redone), no A
    value came back, and the final value is A's count of successes."""
    a, b = nexuses["a"], nexuses["b"]
    wr(PAR, "1" if in_worker else "0")
    for _ in range(ROUNDS):
        prime(a)
        written, seen, done = check_round(a, b)
        got = Counter({c: n for c, n in seen.items() if c[:1] != b"A"})
        assert got == written, "B's writes vs the compares that replaced " \
            "them: lost %s, twice %s" % (written - got, got - written)


def watomic(lba, n):
    return [0x9c, 0] + be(lba, 8) + [0, 0] + be(n, 2) + [0, 0]


def max_atomic_blocks(fd):
    st, k, data = cmd(fd, [0x12, 1, 0xb0, 0, 64, 0], din=64)
    assert (st, k) == (0, None)
    return struct.unpack(">I", data[44:48])[0]


def atomic_writer(path, nr, stop, out):
    fd = os.open(path, os.O_RDWR)
    pats = [blocks(tag(b"W", i), nr) for i in range(2)]
    n = 0
    try:
        while not stop.is_set():
            st, k, _ = cmd(fd, watomic(0, nr), dout=pats[n % 2])
            assert (st, k) == (0, None), (st, k)
            n += 1
    finally:
        os.close(fd)
    out.send(n)


@pytest.mark.tcmx_only
def test_write_atomic_never_read_in_part(nexuses):
    """WRITE ATOMIC(16) of the largest atomic transfer (VPD B0h), two
    patterns alternately from nexus A; nexus B reads the range in a loop
    and always sees one pattern whole."""
    a, b = nexuses["a"], nexuses["b"]
    fd = os.open(b, os.O_RDWR)
    nr = max_atomic_blocks(fd)
    assert nr * BS > 256 * 1024, nr     # more than one chunk
    pats = {tag(b"W", i) for i in range(2)}
    st, k, _ = cmd(fd, watomic(0, nr), dout=blocks(tag(b"W", 0), nr))
    assert (st, k) == (0, None)
    stop = multiprocessing.Event()
    rx, tx = multiprocessing.Pipe(False)
    p = multiprocessing.Process(target=atomic_writer,
                                args=(a, nr, stop, tx))
    p.start()
    mixed, reads = 0, 0
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < tcmxlib.soak(20, 8):
            v = value(read_range(fd, 0, nr))
            reads += 1
            if v not in pats:
                mixed += 1
    finally:
        stop.set()
        os.close(fd)
    writes = rx.recv()
    p.join(60)
    assert writes > 10 and reads > 10, (writes, reads)
    assert not mixed, "%d of %d reads saw parts of two WRITE ATOMICs " \
        "(%d writes)" % (mixed, reads, writes)


def caw_loop(path, stop, out):
    """COMPARE AND WRITEs of the range, back to back, until stop is set:
    the range is held (or its exclusion lingers) most of the time."""
    fd = os.open(path, os.O_RDWR)
    n = 0
    try:
        while not stop.is_set():
            cur = read_range(fd, X, N)
            if value(cur) is None:
                continue
            st, k, _ = cmd(fd, caw_cdb(X, N),
                           dout=cur + blocks(tag(b"A", n + 1), N))
            n += (st, k) == (0, None)
    finally:
        os.close(fd)
    out.send(n)


@pytest.mark.tcmx_only          # in-tree LIO reads the CDB by its opcode
def test_truncated_write_while_range_held(nexuses):
    """A WRITE(16) carried in 10 bytes into a range COMPARE AND WRITE keeps
    taking: 05/0E/03 each time, as without a held range, and nothing of it
    is written."""
    a, b = nexuses["a"], nexuses["b"]
    prime(a)
    fd = os.open(b, os.O_RDWR)
    short = rw_cdb(0x8a, X, 1)[:10]
    junk = blocks(tag(b"J", 0), 1)
    want = (2, (0x5, 0x0e, 0x03))
    try:
        assert cmd(fd, short, dout=junk)[:2] == want
        stop = multiprocessing.Event()
        rx, tx = multiprocessing.Pipe(False)
        p = multiprocessing.Process(target=caw_loop, args=(a, stop, tx))
        p.start()
        try:
            for _ in range(200):
                assert cmd(fd, short, dout=junk)[:2] == want
        finally:
            stop.set()
        cas = rx.recv()
        p.join(60)
        assert cas > 0
        assert value(read_range(fd, X, N)) == tag(b"A", cas)
    finally:
        os.close(fd)


@pytest.mark.tcmx_only
def test_caw_run_without_expedited_grace_period(nexuses):
    """40 COMPARE AND WRITEs back to back on one range: none calls
    synchronize_rcu_expedited() (an IPI to every CPU), and they share
    grace periods: fewer synchronize_rcu() than commands."""
    from tcmxlib.ftrace import function_calls
    a = nexuses["a"]
    prime(a)
    fd = os.open(a, os.O_RDWR)
    n = 40

    def cas():
        for i in range(n):
            st, k, _ = cmd(fd, caw_cdb(X, N),
                           dout=blocks(tag(b"A", i), N) +
                           blocks(tag(b"A", i + 1), N))
            assert (st, k) == (0, None), (i, st, k)
    try:
        calls = function_calls(["synchronize_rcu_expedited",
                                "synchronize_rcu"], cas)
    finally:
        os.close(fd)
    print(calls)
    assert calls["synchronize_rcu_expedited"] == 0, calls
    assert calls["synchronize_rcu"] < n // 2, calls


DELAY = "/sys/module/tcmx_rd/parameters/resume_delay_ms"


def unmap(fd, lba, nr):
    d = be(8 + 16, 2) + be(16, 2) + [0] * 4 + be(lba, 8) + be(nr, 4) \
        + [0] * 4
    return cmd(fd, [0x42, 0, 0, 0, 0, 0, 0] + be(len(d), 2) + [0],
               dout=bytes(d))


def span_write(path, lba, data, out):
    fd = os.open(path, os.O_RDWR)
    try:
        out.send(cmd(fd, rw_cdb(0x8a, lba, len(data) // BS), dout=data)[:2])
    finally:
        os.close(fd)


@pytest.mark.tcmx_only
def test_deferred_write_keeps_caw_that_ran_meanwhile(nexuses):
    """A WRITE of two pages, the first one there, the second a hole
    (alloc_in_worker=1): its inline part writes the first page and the
    worker, delayed by resume_delay_ms, writes the rest.  A COMPARE AND
    WRITE from the other nexus meanwhile compares the WRITE's new first
    block (it succeeds: the WRITE came first) and replaces it; the worker
    must not write that block again."""
    a, b = nexuses["a"], nexuses["b"]
    lba, nr = 800, 2 * 4096 // BS            # page-aligned, two pages
    old, new, caw = (blocks(tag(w, 0), nr) for w in (b"O", b"W", b"C"))
    fd = os.open(b, os.O_RDWR)
    try:
        assert cmd(fd, rw_cdb(0x8a, lba, nr), dout=old)[:2] == (0, None)
        assert unmap(fd, lba + nr // 2, nr // 2)[:2] == (0, None)
        wr(PAR, "1")
        wr(DELAY, "5000")
        rx, tx = multiprocessing.Pipe(False)
        p = multiprocessing.Process(target=span_write,
                                    args=(a, lba, new, tx))
        p.start()
        try:
            t0 = time.monotonic()       # until the inline part is done
            while read_range(fd, lba, 1) != new[:BS]:
                assert time.monotonic() - t0 < 4, "inline part not seen"
            assert not rx.poll(), "the WRITE did not defer"
            res = cmd(fd, caw_cdb(lba, 1), dout=new[:BS] + caw[:BS])[:2]
            assert res == (0, None), res
            assert rx.recv() == (0, None)
        finally:
            p.join(60)
            wr(DELAY, "0")
            wr(PAR, "0")
        got = read_range(fd, lba, nr)
    finally:
        os.close(fd)
    assert got[:BS] == caw[:BS], "the deferred WRITE reverted the " \
        "COMPARE AND WRITE: block %d holds %r" % (lba, value(got[:BS]))
    assert got[BS:] == new[BS:]


@pytest.mark.tcmx_only
def test_rd_worker_allocates_without_io(nexuses):
    """alloc_in_worker=1: rd's worker allocates the new pages of a WRITE
    under memalloc_noio (kmem:mm_page_alloc shows the flags after the
    task's scope is applied): GFP_NOIO, no __GFP_IO or __GFP_FS, since
    reclaim could write to this very device (swap or a file system on
    it)."""
    from tcmxlib.ftrace import event_lines
    a = nexuses["a"]
    pages = 64
    nr = pages * 4096 // BS
    lba = 4096                      # holes: nothing wrote there
    fd = os.open(a, os.O_RDWR)

    def write():
        st, k, _ = cmd(fd, rw_cdb(0x8a, lba, nr),
                       dout=blocks(tag(b"N", 0), nr))
        assert (st, k) == (0, None), (st, k)
    wr(PAR, "1")
    try:
        lines = event_lines("kmem/mm_page_alloc", write, "order == 0")
    finally:
        wr(PAR, "0")
        os.close(fd)
    # rd's page allocations: the worker's, __GFP_NORETRY|__GFP_NOWARN
    ours = [ln for ln in lines if "kworker" in ln and
            "__GFP_NORETRY" in ln and "__GFP_NOWARN" in ln]
    assert len(ours) >= pages, (len(ours), lines[:5])
    bad = [ln for ln in ours if "gfp_flags=GFP_NOIO|" not in ln or
           "__GFP_IO" in ln or "__GFP_FS" in ln]
    assert not bad, "%d of %d worker allocations may do I/O: %s" % (
        len(bad), len(ours), bad[0])


def sense_info(sense):
    """The INFORMATION field of fixed or descriptor sense data, or None."""
    if sense[0] & 0x7f in (0x70, 0x71):
        return struct.unpack(">I", sense[3:7])[0] if sense[0] & 0x80 \
            else None
    at = 8
    while at + 1 < len(sense):
        if sense[at] == 0:
            return struct.unpack(">Q", sense[at + 4:at + 12])[0]
        at += 2 + sense[at + 1]
    return None


@pytest.mark.tcmx_only
def test_verify_never_compares_part_of_write_atomic(nexuses):
    """VERIFY(16) with BYTCHK 1 against one of two patterns a WRITE
    ATOMIC(16) loop on the other nexus alternates: it matches or
    miscompares in the first block, never further in (which would mean
    it compared the first blocks of one pattern and later ones of the
    other)."""
    a, b = nexuses["a"], nexuses["b"]
    fd = os.open(b, os.O_RDWR)
    nr = max_atomic_blocks(fd)
    pats = [blocks(tag(b"W", i), nr) for i in range(2)]
    st, k, _ = cmd(fd, watomic(0, nr), dout=pats[0])
    assert (st, k) == (0, None)
    stop = multiprocessing.Event()
    rx, tx = multiprocessing.Pipe(False)
    p = multiprocessing.Process(target=atomic_writer,
                                args=(a, nr, stop, tx))
    p.start()
    mixed, verifies, matched = [], 0, 0
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < tcmxlib.soak(20, 8):
            st, sense, _, _ = sgio(fd, rw_cdb(0x8f, 0, nr, 0x02),
                                   dout=pats[verifies % 2])
            verifies += 1
            if st == 0:
                matched += 1
                continue
            assert kcq(sense) == MISCOMPARE, (st, sense.hex())
            off = sense_info(sense)
            if off is None or off >= BS:
                mixed.append(off)
    finally:
        stop.set()
        os.close(fd)
    writes = rx.recv()
    p.join(60)
    assert writes > 10 and verifies > 10, (writes, verifies)
    assert not mixed, "%d of %d VERIFYs compared parts of two WRITE " \
        "ATOMICs, miscompare at %s (%d writes, %d matched)" % (
            len(mixed), verifies, mixed[:5], writes, matched)
