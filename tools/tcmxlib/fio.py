# SPDX-License-Identifier: GPL-2.0
"""fio jobs: the project's seed job and the shapes of tools/bench, the
prewrite, one run's figures from fio's JSON output, and the verifying
fio that tests run while they disturb the target."""
import json
import os
import subprocess

from .host import StackError


def seed_job(devs, rwmixread, numjobs, runtime, ramp):
    """The project's seed fio job over `devs` (no output format)."""
    return ["fio", "--name=bench", "--filename=" + ":".join(devs),
            "--ioengine=libaio", "--direct=1", "--rw=randrw",
            "--rwmixread=%d" % rwmixread, "--bs=4k", "--iodepth=64",
            "--iodepth_batch_submit=4", "--iodepth_batch_complete_max=32",
            "--numjobs=%d" % numjobs, "--time_based",
            "--runtime=%d" % runtime, "--ramp_time=%d" % ramp,
            "--group_reporting"]


def seq_job(devs, rw, bs, numjobs, runtime, ramp):
    """Sequential `rw` (read or write) at block size `bs`, QD16 per job;
    each job streams its own 1/numjobs slice of every device (two jobs
    reading the same blocks at the same offsets would not be a stream
    of the device each)."""
    part = max(1, 100 // numjobs)
    return ["fio", "--name=bench", "--filename=" + ":".join(devs),
            "--ioengine=libaio", "--direct=1", "--rw=" + rw, "--bs=" + bs,
            "--iodepth=16", "--numjobs=%d" % numjobs,
            "--size=%d%%" % part, "--offset_increment=%d%%" % part,
            "--time_based", "--runtime=%d" % runtime,
            "--ramp_time=%d" % ramp, "--group_reporting"]


def lat_job(devs, rw, runtime, ramp):
    """4k random `rw` (randread or randwrite) at QD1, one job: percentiles
    50, 99 and 99.9 of the completion latency (clat) and of the total
    latency (lat = slat + clat: an I/O that completes before io_submit
    returns to fio spends its time in slat)."""
    return ["fio", "--name=bench", "--filename=" + ":".join(devs),
            "--ioengine=libaio", "--direct=1", "--rw=" + rw, "--bs=4k",
            "--iodepth=1", "--numjobs=1", "--percentile_list=50:99:99.9",
            "--clat_percentiles=1", "--lat_percentiles=1",
            "--time_based", "--runtime=%d" % runtime,
            "--ramp_time=%d" % ramp, "--group_reporting"]


def shape_job(kind, spec, devs, numjobs, runtime, ramp):
    """The fio job of a tools/bench shape (report.SHAPES[shape]:
    kind rw, seq or lat, and its spec) over `devs`."""
    if kind == "rw":
        return seed_job(devs, spec, numjobs, runtime, ramp)
    if kind == "seq":
        return seq_job(devs, spec[0], spec[1], numjobs, runtime, ramp)
    return lat_job(devs, spec, runtime, ramp)


def prewrite(devs):
    """Fill the LUNs once, sequentially, 1 MiB at a time."""
    cmd = ["fio", "--name=prewrite", "--filename=" + ":".join(devs),
           "--ioengine=libaio", "--direct=1", "--rw=write", "--bs=1M",
           "--iodepth=8", "--output-format=terse"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode:
        raise StackError("prewrite fio: " + (
            p.stderr.strip() or "exit %d" % p.returncode))


def percentile(lat, p):
    """A latency percentile p (50, 99, 99.9) of fio's clat_ns or lat_ns,
    in us."""
    for k, v in (lat.get("percentile") or {}).items():
        if abs(float(k) - p) < 1e-6:
            return v / 1000
    raise KeyError("no latency percentile %s" % p)


def run_json(cmd, timeout):
    """Run a fio job (cmd, with --output-format=json) and return its one
    job's JSON record; StackError if fio or the job failed."""
    p = subprocess.run(cmd, capture_output=True,
                       text=True, timeout=timeout)
    if p.returncode:
        raise StackError("fio: " + (p.stderr.strip() or
                                    "exit %d" % p.returncode))
    js = json.loads(p.stdout[p.stdout.index("{"):])
    job = js["jobs"][0]
    if job.get("error"):
        raise StackError("fio job error %d" % job["error"])
    return job


def figures(job, kind="rw"):
    """The figures of one fio job record: IOPS, mean completion latency,
    CPU; MB/s for kind seq and lat, latency percentiles for lat."""
    rd, wr = job["read"], job["write"]
    rec = {"iops": rd["iops"] + wr["iops"], "read_iops": rd["iops"],
           "write_iops": wr["iops"],
           "read_clat_us": rd["clat_ns"]["mean"] / 1000,
           "write_clat_us": wr["clat_ns"]["mean"] / 1000,
           "cpu_sys": job["sys_cpu"], "cpu_usr": job["usr_cpu"]}
    if kind != "rw":
        rec["mbps"] = (rd["bw_bytes"] + wr["bw_bytes"]) / 1e6
    if kind == "lat":
        d = rd if rd["iops"] else wr
        for p, k in ((50, "p50_us"), (99, "p99_us"), (99.9, "p999_us")):
            rec[k] = percentile(d["clat_ns"], p)
            rec["lat_" + k] = percentile(d["lat_ns"], p)
    return rec


# a verifying fio (verify_start) stops, cleanly, once this file exists
VERIFY_STOP = "/tmp/tcmx-fio-verify-stop"


def verify_start(devs, size="16M", runtime=300, iodepth=8, offset=None):
    """fio writing and verifying (crc32c, every 64 blocks written) each
    of devs (a job per device, size bytes of it from offset) in the
    background until verify_stop(), or runtime seconds; the Popen."""
    if os.path.exists(VERIFY_STOP):
        os.unlink(VERIFY_STOP)
    args = ["fio", "--ioengine=libaio", "--direct=1", "--rw=randwrite",
            "--bs=4k", "--iodepth=%d" % iodepth] + \
        (["--offset=%d" % offset] if offset is not None else []) + \
        ["--size=%s" % size, "--verify=crc32c", "--verify_backlog=64",
         "--verify_fatal=1", "--time_based", "--runtime=%d" % runtime,
         "--trigger-file=" + VERIFY_STOP, "--output-format=terse"]
    for i, d in enumerate(devs):
        args += ["--name=t%d" % i, "--filename=" + d]
    return subprocess.Popen(args, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def verify_stop(p, timeout=180):
    """The fio of verify_start() ran all along (so what the test did
    happened during it): stop it; it must end 0, every job without an
    error, having read (verified) and written. Returns its output."""
    try:
        assert p.poll() is None, "fio ended early:\n" + p.communicate()[0]
        with open(VERIFY_STOP, "w"):
            pass
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            raise AssertionError("fio did not end:\n" + out)
    except BaseException:
        p.kill()
        p.communicate()
        raise
    finally:
        if os.path.exists(VERIFY_STOP):
            os.unlink(VERIFY_STOP)
    assert p.returncode == 0, out
    assert "verify:" not in out and "bad magic" not in out, out
    for line in out.strip().splitlines():
        f = line.split(";")
        # terse v3: field 5 is the job's error, 6 KiB read, 47 KiB written
        assert f[4] == "0" and int(f[5]) > 0 and int(f[46]) > 0, out
    return out
