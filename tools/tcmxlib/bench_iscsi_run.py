# SPDX-License-Identifier: GPL-2.0
"""tools/bench --fabric iscsi: tcmx_iscsi against the in-tree
iscsi_target_mod and tgt, over open-iscsi on 127.0.0.1, in one boot.

The same rounds as the loopback bench (every stack once per case and
round, the order rotating), the same fio jobs (tcmxlib.fio), the same
medians and charts (tcmxlib.report); the stacks and the pinned session
are tcmxlib.bench_iscsi's. Results: <out>/bench-iscsi-<kernel>.{json,txt}
and, drawn on the host, .png, -seq.png, -lat.png.
"""
import argparse
import os
import platform
import subprocess
import sys
import time

from . import bench, bench_iscsi, fio, report
from .host import StackError

SEQ_BS = ("32k", "128k", "1M")
GROUPS = {"seq": ["seq-%s-%s" % (rw, bs) for bs in SEQ_BS
                  for rw in ("read", "write")],
          "lat": ["lat-randread", "lat-randwrite"]}
RATIOS = (("tcmx", "in-tree", "tcmx/in-tree"), ("tcmx", "tgt", "tcmx/tgt"))


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tools/bench --fabric iscsi",
        description="tcmx_iscsi, the in-tree iscsi_target_mod and tgt "
        "behind one open-iscsi initiator on 127.0.0.1 (BENCHMARKS.md, "
        "\"Over iSCSI\")")
    a = p.add_argument
    a("--fabric", choices=("iscsi",), default="iscsi")
    a("--quick", action="store_true",
      help="plumbing check: 1 LUN, randrw 75/25, 1 round of 3 s (+1 s)")
    a("--rounds", type=int, default=3, help="alternated rounds (default 3)")
    a("--runtime", type=int, default=8, help="fio runtime, s (default 8)")
    a("--ramp", type=int, default=2, help="fio ramp_time, s (default 2)")
    a("--luns", default="1,8,32",
      help="LUN counts, each as 1 target x N LUNs (default 1,8,32)")
    a("--shapes", default="rw75,rw25,seq,lat",
      help="rw75, rw25 (randrw 4k QD64), seq (seq read and write at 32k,"
      " 128k, 1M, QD16), lat (4k randread/randwrite QD1), or single ones")
    a("--stacks", default=",".join(bench_iscsi.ORDER),
      help="default tcmx,in-tree,tgt")
    a("--no-prewrite", dest="prewrite", action="store_false",
      help="measure fresh LUNs (default: each LUN written in full first)")
    a("--size-mb", type=int, default=64, help="LUN size, MiB (default 64)")
    a("--numjobs", type=int, default=os.cpu_count(),
      help="fio jobs (default: one per CPU)")
    bench.run_options(
        a, icount_help="with --vm: the guest's clocks count instructions"
        " (tools/vm --icount)", chart_help="no PNG")
    args = p.parse_args(argv)
    if args.quick:
        args.luns, args.shapes, args.rounds = "1", "rw75", 1
        args.runtime, args.ramp = 3, 1
    args.luns = [int(x) for x in str(args.luns).split(",") if x]
    shapes = []
    for s in [x for x in args.shapes.split(",") if x]:
        if s not in report.SHAPES and s not in GROUPS:
            p.error("unknown shape %s" % s)
        shapes += [x for x in GROUPS.get(s, [s]) if x not in shapes]
    args.shapes = shapes
    args.stacks = [x for x in args.stacks.split(",") if x]
    for s in args.stacks:
        if s not in bench_iscsi.STACKS:
            p.error("unknown stack %s (iSCSI: %s)" % (
                s, ",".join(bench_iscsi.ORDER)))
    if not shapes or not args.luns or not args.stacks:
        p.error("nothing to run")
    return args


def estimate_s(args):
    per = sum(20 + (n * args.size_mb / 40 if args.prewrite else 0) +
              len(args.shapes) * (args.runtime + args.ramp + 6)
              for n in args.luns)
    return per * len(args.stacks) * args.rounds + 120


def run_in_vm(args, argv):
    """--vm: tools/vm runs tools/bench --fabric iscsi inside; the charts
    are drawn here from its JSON."""
    est = estimate_s(args)
    print("bench: estimated %d min" % (est // 60 + 1), flush=True)
    out = os.path.realpath(bench.default_out(args.out))
    cmd = ([os.path.join(bench.TOOLS, "vm"), "--kernel", args.kernel,
            "--mem", str(args.mem), "--out", out,
            "--timeout", str(int(est * 2))] +
           (["--icount"] if args.icount else []) +
           ["--", "tools/bench", "--out", "/out", "--no-chart"] +
           bench.host_argv(argv))
    os.environ["TCMX_BENCH_HOST_LOAD"] = bench.host_load()
    print("bench: %s (host load %s)" % (" ".join(cmd),
                                        os.environ["TCMX_BENCH_HOST_LOAD"]),
          flush=True)
    rc = subprocess.call(cmd)
    print("bench: host load now %s" % bench.host_load())
    base = os.path.join(out, "bench-iscsi-%s" % bench.kernel_release(
        args.kernel))
    if os.path.exists(base + ".json") and not args.no_chart:
        draw(*bench.load_report(base + ".json"))
    print("bench: %s.{json,txt}" % base)
    return rc


def draw(doc, base):
    pngs, errs = report.charts(doc, base)
    print("bench: %s%s" % (" ".join(pngs), "".join(" (%s)" % e
                                                   for e in errs)))


def fio_cmd(args, devs, shape):
    kind, spec = report.SHAPES[shape]
    return fio.shape_job(kind, spec, devs, args.numjobs, args.runtime,
                         args.ramp) + ["--output-format=json"]


def measure(args, doc, stack, ini, luns, rnd):
    """Set one stack up with `luns` LUNs, run every shape, tear it down;
    False when it could not be torn down."""
    t0 = time.monotonic()
    base = {"stack": stack.name, "mode": "data", "luns": luns, "round": rnd}
    try:
        devs = stack.setup(ini, luns, args.size_mb)
        doc["sessions"]["%s %d LUNs round %d" % (stack.name, luns, rnd)] = \
            stack.session()
        if args.prewrite:
            fio.prewrite(devs)
        setup_s = round(time.monotonic() - t0, 1)
        for shape in args.shapes:
            rec = dict(base, shape=shape, setup_s=setup_s)
            try:
                job = fio.run_json(fio_cmd(args, devs, shape),
                                   args.runtime + args.ramp + 120)
                rec.update(fio.figures(job, report.SHAPES[shape][0]))
            except (StackError, ValueError, KeyError,
                    subprocess.TimeoutExpired) as e:
                rec["error"] = str(e)
                doc["errors"].append("%s %s %d LUNs round %d: %s" % (
                    stack.name, shape, luns, rnd, e))
            doc["runs"].append(rec)
            print("  %-8s %-16s %2d LUNs: %s" % (
                stack.name, shape, luns, summary(rec)), flush=True)
    except Exception as e:
        doc["errors"].append("%s setup %d LUNs round %d: %s" % (
            stack.name, luns, rnd, e))
        print("  %-8s setup failed: %s" % (stack.name, e), flush=True)
    return bench.teardown(stack, doc)


def summary(rec):
    if "error" in rec:
        return "ERROR " + rec["error"][-200:]
    if "p50_us" in rec:
        return "total p50 %.1f us, p99 %.1f us (%.0f IOPS)" % (
            rec["lat_p50_us"], rec["lat_p99_us"], rec["iops"])
    if "mbps" in rec:
        return "%.1f MB/s" % rec["mbps"]
    return "%.0f IOPS" % rec["iops"]


def main(argv):
    args = parse_args(argv)
    if args.report:
        doc, base = bench.load_report(args.report)
        finish(doc, base, not args.no_chart)
        return 0
    if args.vm:
        return run_in_vm(args, argv)
    rc = bench.refuse_outside_vm("bench", args)
    if rc:
        return rc
    base = bench.results_base("bench-iscsi", args.out)
    doc = {"fabric": "iscsi", "runs": [], "errors": [], "sessions": {},
           "notes": []}
    todo = []
    for name in args.stacks:
        st = bench_iscsi.STACKS[name]
        if st.available():
            todo.append(st)
        else:
            doc["errors"].append("%s: not installed, skipped" % name)
            print("bench: %s: not installed, skipped" % name, flush=True)
    fio_ver = subprocess.run(["fio", "--version"], capture_output=True,
                             text=True).stdout.strip()
    doc["meta"] = bench.run_meta(
        fabric="iscsi", fio_version=fio_ver, rounds=args.rounds,
        runtime=args.runtime, ramp=args.ramp, prewrite=args.prewrite,
        numjobs=args.numjobs, size_mb=args.size_mb,
        stacks=[s.name for s in todo], shapes=args.shapes, luns=args.luns,
        layout="1 target x N LUNs, 1 session, 1 connection",
        target_keys=bench_iscsi.TARGET_KEYS,
        initiator_conf=bench_iscsi.INITIATOR_CONF,
        cmdsn_depth=bench_iscsi.CMDSN_DEPTH,
        fio_examples={s: " ".join(fio_cmd(args, ["/dev/sdX"], s))
                      for s in args.shapes})
    print("bench: iSCSI, %s, %d CPUs, stacks %s, %d rounds" % (
        platform.release(), os.cpu_count(),
        " ".join(s.name for s in todo), args.rounds), flush=True)
    with bench_iscsi.initiator() as ini:
        turn = 0
        for rnd in range(1, args.rounds + 1):
            for luns in args.luns:
                k = turn % len(todo) if todo else 0
                order = todo[k:] + todo[:k]
                turn += 1
                print("round %d, %d LUNs: %s" % (rnd, luns, " ".join(
                    s.name for s in order)), flush=True)
                for st in order:
                    if not measure(args, doc, st, ini, luns, rnd):
                        todo.remove(st)
                    bench.save(doc, base)
    finish(doc, base, not args.no_chart)
    return 0


def finish(doc, base, charts=True):
    bench.save(doc, base)
    bench.write_table(table(doc), base)
    if charts:
        draw(doc, base)


# ------------------------------------------------------------ the table

def ratio_cells(m):
    return [report.fmt_ratio(report.ratio(m, a, b)) for a, b, _ in RATIOS]


def family_rows(doc, fam, metric, cell):
    med = report.medians(doc, metric, fam)
    names = [s for s in bench_iscsi.ORDER if any(s in m for m in
                                                  med.values())]
    rows = [[report.case_label(k).replace(" data", "")] +
            [cell(med[k].get(s)) for s in names] + ratio_cells(med[k])
            for k in sorted(med, key=report.case_order)]
    return names, rows


def lat_rows(doc):
    every, rows = {}, []
    for k, lab in report.LAT_PCTS:
        for key, m in report.medians(doc, k, "lat").items():
            every.setdefault(key, {})[lab] = m
    names = [s for s in bench_iscsi.ORDER
             if any(s in m for e in every.values() for m in e.values())]
    for key in sorted(every, key=report.case_order):
        for _, lab in report.LAT_PCTS:
            m = every[key].get(lab)
            if m:
                rows.append(["%s %s" % (report.case_label(key).replace(
                    " data", ""), lab)] + [report.plain(m.get(s))
                                           for s in names] + ratio_cells(m))
    return names, rows


def session_rows(doc):
    """The negotiated keys, one column per stack (its first LUN count)."""
    per = {}
    for key, rec in sorted(doc.get("sessions", {}).items()):
        name = key.split()[0]
        if name not in per:
            per[name] = dict(rec.get("iscsiadm", {}),
                             can_queue=rec.get("can_queue"),
                             queue_depth=rec.get("queue_depth"))
    cols = [s for s in bench_iscsi.ORDER if s in per]
    keys = []
    for name in cols:
        keys += [k for k in per[name] if k not in keys]
    return cols, [[k] + [str(per[n].get(k, "-")) for n in cols]
                  for k in keys]


def flat(rec):
    """A session record as one {key: value} (target side keys have a /)."""
    out = {k: v for k, v in rec.items() if "/" in k}
    out.update(rec.get("iscsiadm", {}))
    out.update(("node " + k, v) for k, v in rec.get("node", {}).items())
    for k in ("can_queue", "queue_depth"):
        out[k] = rec.get(k)
    return out


def session_notes(doc):
    """The target side of each stack's first session; the keys where a
    later session of the same stack and LUN count differed from it; the
    keys a target refused."""
    lines, first = [], {}
    for key, rec in sorted(doc.get("sessions", {}).items()):
        name, luns = key.split()[:2]
        if name not in first:
            tk = {k: v for k, v in rec.items() if "/" in k}
            lines.append("%s, target side: %s" % (key, ", ".join(
                "%s=%s" % kv for kv in sorted(tk.items()))))
        ref = first.setdefault((name, luns), flat(rec))
        first.setdefault(name, True)
        diff = ["%s=%s (not %s)" % (k, v, ref.get(k))
                for k, v in sorted(flat(rec).items()) if ref.get(k) != v]
        if diff:
            lines.append("%s negotiated otherwise: %s" % (key,
                                                          ", ".join(diff)))
        for e in rec.get("key_errors", []):
            lines.append("%s, key refused: %s" % (key, e))
    return lines


def table(doc):
    meta = doc["meta"]
    lines = ["tcmx bench over iSCSI: kernel %s, %s CPUs%s, open-iscsi on "
             "127.0.0.1, %s, LUNs of %d MiB%s, %s, %d jobs, %d round(s) of "
             "%ss (+%ss ramp)%s" % (
                 meta["kernel"], meta["nproc"],
                 " (VM)" if meta.get("in_vm") else "", meta["layout"],
                 meta["size_mb"], " written in full first"
                 if meta.get("prewrite") else "", meta["fio_version"],
                 meta["numjobs"], report.rounds_done(doc), meta["runtime"],
                 meta["ramp"], ", clocks count instructions (icount, %d ns "
                 "each)" % 2 ** meta["icount"] if meta.get("icount")
                 is not None else ""),
             "median ± half the min..max spread over the rounds; ratios: "
             "median over the rounds of the ratio within a round", ""]
    for title, fam, metric, cell in (
            ("randrw 4k QD64 per job: IOPS", "rw", "iops", report.kiops),
            ("sequential QD16 per job: MB/s", "seq", "mbps", report.plain)):
        names, rows = family_rows(doc, fam, metric, cell)
        if rows:
            lines += [title] + report.render(
                ["case"] + names + [c for _, _, c in RATIOS], rows) + [""]
    names, rows = lat_rows(doc)
    if rows:
        lines += ["4k QD1, 1 job: latency us (ratios < 1: tcmx faster)"] + \
            report.render(["case"] + names + [c for _, _, c in RATIOS],
                          rows) + [""]
    cols, rows = session_rows(doc)
    if rows:
        lines += ["negotiated (iscsiadm -m session -P 3; can_queue and "
                  "queue_depth from sysfs), each stack's first session"] + \
            report.render(["key"] + cols, rows) + [""]
    lines += session_notes(doc)
    for n in doc.get("notes") or []:
        lines.append(n)
    if doc.get("errors"):
        lines += ["", "errors (%d):" % len(doc["errors"])]
        lines += ["  " + e for e in doc["errors"][:20]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
