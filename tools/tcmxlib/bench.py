# SPDX-License-Identifier: GPL-2.0
"""What the bench tools (tools/bench, bench-fs, bench-scale) share: the
run from the host through tools/vm, their results files, the memory
figure."""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

from . import stacks
from .host import PROJ, cmdline_icount, meminfo_kib, wr

TOOLS = os.path.join(PROJ, "tools")


def kernel_release(kernel):
    """The full release of a kernel name (tools/internal/kver)."""
    return subprocess.run([os.path.join(TOOLS, "internal", "kver"), kernel],
                          capture_output=True, text=True).stdout.strip()


def host_load():
    """The host's load averages, a string (under TCG the host's load is
    the main source of noise: the tools record it)."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def vm_run(tool, argv, kernel, mem, out, timeout, icount=False, draw=None):
    """Boot tools/vm and run `tool` (tools/<name>) in it with `argv`
    (the options not meant for the host), results in `out`, then print
    where they are and, when the run succeeded, draw them on the host
    with draw(doc, base) (the VM draws nothing); returns the exit
    status."""
    cmd = ([os.path.join(TOOLS, "vm"), "--kernel", kernel, "--mem", str(mem),
            "--out", out, "--timeout", str(int(timeout))] +
           (["--icount"] if icount else []) +
           ["--", "tools/" + tool, "--out", "/out", "--no-chart"] +
           list(argv))
    os.environ["TCMX_BENCH_HOST_LOAD"] = host_load()
    print("%s: %s (host load %s)" % (tool, " ".join(cmd),
                                     os.environ["TCMX_BENCH_HOST_LOAD"]),
          flush=True)
    rc = subprocess.call(cmd)
    print("%s: host load now %s" % (tool, host_load()))
    base = os.path.join(os.path.realpath(out), "%s-%s" % (
        tool, kernel_release(kernel)))
    print("%s: %s.{json,txt}" % (tool, base))
    if rc == 0 and draw and os.path.exists(base + ".json"):
        with open(base + ".json") as f:
            draw(json.load(f), base)
    return rc


def host_argv(argv, with_value=("--kernel", "--mem", "--out"),
              flags=("--vm", "--host", "--icount")):
    """argv without the options that only the host side uses."""
    fwd, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in with_value:
            skip = True
        elif a not in flags and a.split("=")[0] not in with_value:
            fwd.append(a)
    return fwd


def default_out(out):
    """Where a run from the host puts its results: out, or build/vm/out."""
    return out or os.path.join(PROJ, "build", "vm", "out")


def save(doc, base):
    """doc to base.json, replaced whole (a run killed midway leaves the
    last complete one)."""
    with open(base + ".json.tmp", "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(base + ".json.tmp", base + ".json")


def write_table(text, base):
    """The table of a run to base.txt, and printed."""
    with open(base + ".txt", "w") as f:
        f.write(text)
    print()
    print(text, end="")


def used_mib():
    """MemTotal - MemAvailable in MiB, after dropping the caches."""
    subprocess.run(["sync"])
    wr("/proc/sys/vm/drop_caches", 3)
    time.sleep(1)
    info = meminfo_kib()
    return (info["MemTotal"] - info["MemAvailable"]) / 1024.0


def refuse_outside_vm(tool, args):
    """Exit status 2 with a message when tool is not in the VM and not
    told --host, or not root; None when it may run."""
    if "TCMX_KVER" not in os.environ and not args.host:
        print("%s: not in the tools/vm VM; use --vm, or --host on a real "
              "host (it loads and unloads target modules)" % tool,
              file=sys.stderr)
        return 2
    if os.geteuid():
        print("%s: needs root" % tool, file=sys.stderr)
        return 2
    return None


def results_base(tool, out):
    """The path without extension of this run's results: <out>/<tool>-
    <kernel release>, out by default /out in the VM, else ./bench-out."""
    out = out or ("/out" if os.path.ismount("/out") else "bench-out")
    os.makedirs(out, exist_ok=True)
    return os.path.join(out, "%s-%s" % (tool, platform.release()))


def available_stacks(tool, names, doc):
    """The stacks of names (tcmxlib.stacks) whose modules exist; the
    others are noted in doc["errors"]."""
    todo = []
    for name in names:
        st = stacks.stack(name)
        if st.available():
            todo.append(st)
        else:
            doc["errors"].append("%s: modules not installed, skipped" % name)
            print("%s: %s: modules not installed, skipped" % (tool, name))
    return todo


def run_meta(**more):
    """What every run records first: kernel, CPUs, VM or not, icount,
    the host's load, the date; then more."""
    return dict({"kernel": platform.release(), "nproc": os.cpu_count(),
                 "in_vm": "TCMX_KVER" in os.environ,
                 "icount": cmdline_icount(),
                 "host_load_at_start": os.environ.get("TCMX_BENCH_HOST_LOAD"),
                 "date": datetime.datetime.now().isoformat(
                     timespec="seconds")}, **more)


def teardown(stack, doc):
    """stack.teardown(); a failure is noted in doc["errors"] and printed.
    False when it failed (the stack may still hold its modules)."""
    try:
        stack.teardown()
    except Exception as e:
        doc["errors"].append("%s teardown: %s" % (stack.name, e))
        print("  %-10s teardown failed: %s" % (stack.name, e), flush=True)
        return False
    return True


def load_report(path):
    """An earlier run's results: (doc, base) of its JSON file."""
    with open(path) as f:
        return json.load(f), os.path.splitext(path)[0]


def run_options(a, icount_help="with --vm: the guest's clocks count "
                "instructions", chart_help=None,
                report_help="reprint the table of a run"):
    """The options every bench tool has, added with argparse's a =
    parser.add_argument: where it runs (--host, --vm and the VM's
    --kernel, --mem, --icount), --out, --no-chart, --report."""
    a("--out", help="output dir (default /out in the VM, else ./bench-out)")
    a("--host", action="store_true", help="allow running outside the VM")
    a("--vm", action="store_true", help="run inside tools/vm from the host")
    a("--kernel", default="6.1", help="with --vm: kernel (default 6.1)")
    a("--mem", default="4096", help="with --vm: VM memory, MiB")
    a("--icount", action="store_true", help=icount_help)
    a("--no-chart", action="store_true",
      help=chart_help or argparse.SUPPRESS)
    a("--report", metavar="JSON", help=report_help)


def stack_names(p, spec):
    """The stacks of a --stacks value (comma-separated), each known to
    tcmxlib.stacks, else an argparse error of parser p."""
    names = [x for x in spec.split(",") if x]
    for s in names:
        try:
            stacks.stack(s)
        except KeyError:
            p.error("unknown stack %s" % s)
    return names
