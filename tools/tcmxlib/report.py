# SPDX-License-Identifier: GPL-2.0
"""Medians, the text tables and the gnuplot charts of a tools/bench run.

A run is the JSON document tools/bench writes: "runs" holds one record
per fio run ({"stack", "shape", "mode", "luns", "round", "iops", ...};
the seq shapes add "mbps", the lat shapes "p50_us", "p99_us", "p999_us").
Each family of shapes (rw: randrw IOPS, seq: MB/s, lat: latency) has its
own table and chart.
"""

import os
import shutil
import statistics
import subprocess

ORDER = ("tcmx", "in-tree", "scsi_debug", "null_blk", "brd")
BASE = ORDER[:4]      # always columns of the randrw table; brd when run
SEQ_BS = ("32k", "64k", "128k", "1M")
# every job shape: (family, parameter): rw: rwmixread; seq: (rw, bs);
# lat: the fio rw
SHAPES = {"rw75": ("rw", 75), "rw25": ("rw", 25)}
SHAPE_LABEL = {"rw75": "randrw 75/25", "rw25": "randrw 25/75"}
for _rw in ("read", "write"):
    for _bs in SEQ_BS:
        SHAPES["seq-%s-%s" % (_rw, _bs)] = ("seq", (_rw, _bs))
        SHAPE_LABEL["seq-%s-%s" % (_rw, _bs)] = "seq %s %s" % (_rw, _bs)
for _rw in ("randread", "randwrite"):
    SHAPES["lat-" + _rw] = ("lat", _rw)
    SHAPE_LABEL["lat-" + _rw] = "4k %s QD1" % _rw
# fio's completion latency (clat) percentiles, then the total's (lat =
# slat + clat); an I/O that completes before io_submit returns to fio
# (inline, or in a kworker that runs first) spends its time in slat and
# shows a clat of a few us: compare the totals
LAT_PCTS = (("p50_us", "clat p50"), ("p99_us", "clat p99"),
            ("p999_us", "clat p99.9"), ("lat_p50_us", "total p50"),
            ("lat_p99_us", "total p99"), ("lat_p999_us", "total p99.9"))
MEM_BAR_MIB = 64


def family(shape):
    return SHAPES.get(shape, ("rw", None))[0]


def stacks_of(med, always=BASE):
    """`always` and the other stacks of ORDER present in the medians, in
    ORDER, then the variants (tcmx:...) present."""
    seen = {s for m in med.values() for s in m}
    return [s for s in ORDER if s in always or s in seen] + \
        sorted(seen - set(ORDER))


def rounds_done(doc):
    return len({r["round"] for r in doc["runs"] if r.get("iops")})


def spread(values):
    """{"median", "min", "max"} of a non-empty list of values"""
    values = list(values)
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values)}


def medians(doc, metric="iops", fam="rw"):
    """{(shape, mode, luns): {stack: {"median", "min", "max", "n",
    "rounds": {round: value}}}} of `metric` over the runs of the shapes of
    family `fam`"""
    groups = {}
    for r in doc["runs"]:
        if r.get(metric) is None or family(r["shape"]) != fam:
            continue
        key = (r["shape"], r["mode"], r["luns"])
        groups.setdefault(key, {}).setdefault(r["stack"], {})[r["round"]] = \
            r[metric]
    out = {}
    for key, by in groups.items():
        out[key] = {s: dict(spread(v.values()), n=len(v), rounds=v)
                    for s, v in by.items()}
    return out


def case_order(key):
    shape, mode, luns = key
    if family(shape) != "rw":
        return (mode != "data", luns, list(SHAPES).index(shape)
                if shape in SHAPES else len(SHAPES), shape)
    return (mode != "data", luns, shape != "rw75", shape)


def case_label(key):
    shape, mode, luns = key
    return "%s %s %d LUN%s" % (SHAPE_LABEL.get(shape, shape), mode, luns,
                               "" if luns == 1 else "s")


def spread_pct(st):
    if not st["median"]:
        return 0
    return (st["max"] - st["min"]) / 2 / st["median"] * 100


def kiops(st):
    if not st:
        return "-"
    return "%.1fK±%d%%" % (st["median"] / 1000, round(spread_pct(st)))


def plain(st):
    """MB/s or us, 3 significant digits at least."""
    if not st:
        return "-"
    v = st["median"]
    return "%s±%d%%" % ("%.0f" % v if v >= 100 else "%.1f" % v if v >= 10
                        else "%.2f" % v, round(spread_pct(st)))


def paired(sa, sb):
    """Median over the rounds of sa/sb within each round: the stacks of a
    round run back to back, so the slow drifts of a TCG host cancel."""
    if not sa or not sb:
        return None
    common = [r for r in sa["rounds"] if sb["rounds"].get(r)]
    if not common:
        return None
    return statistics.median(sa["rounds"][r] / sb["rounds"][r]
                             for r in common)


def ratio(m, a, b):
    return paired(m.get(a), m.get(b))


def fmt_ratio(x):
    return "-" if x is None else "%.2f" % x


def render(cols, rows):
    width = [max(len(str(r[i])) for r in rows + [cols])
             for i in range(len(cols))]
    return ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                      for i, (c, w) in enumerate(zip(r, width)))
            for r in [cols] + rows]


# the ratio columns of the seq and lat tables
RATIOS = (("tcmx", "in-tree", "tcmx/in-tree"),
          ("tcmx", "scsi_debug", "tcmx/sdebug"),
          ("tcmx", "brd", "tcmx/brd"))


def seq_table(doc):
    med = medians(doc, "mbps", "seq")
    if not med:
        return []
    meta = doc["meta"]
    names = stacks_of(med, ())
    cols = ["case"] + names + [c for _, _, c in RATIOS]
    rows = []
    for key in sorted(med, key=case_order):
        m = med[key]
        rows.append([case_label(key)] + [plain(m.get(s)) for s in names] +
                    [fmt_ratio(ratio(m, a, b)) for a, b, _ in RATIOS])
    return (["sequential, libaio direct, QD16 per job, %s jobs (each its own"
             " slice of every LUN): median MB/s (10^6 bytes/s), read or write"
             " alone" % meta["numjobs"]] + render(cols, rows) + [""])


def lat_table(doc):
    rows, names = [], None
    meds = [(k, lab, medians(doc, k, "lat")) for k, lab in LAT_PCTS]
    every = {}
    for _, _, med in meds:
        for key, m in med.items():
            every.setdefault(key, {}).update(m)
    if not every:
        return []
    names = stacks_of(every, ())
    cols = ["case"] + names + [c for _, _, c in RATIOS]
    for key in sorted(every, key=case_order):
        for _, lab, med in meds:
            m = med.get(key, {})
            rows.append(["%s %s" % (case_label(key), lab)] +
                        [plain(m.get(s)) for s in names] +
                        [fmt_ratio(ratio(m, a, b)) for a, b, _ in RATIOS])
    return (["latency, 4k random, libaio direct, QD1, 1 job: medians of "
             "fio's latency percentiles, us: clat (completion) and total "
             "(slat + clat);", "  ratios are latency ratios (< 1: tcmx is "
             "faster); an I/O that completes before io_submit returns to fio "
             "has its cost in slat, not clat: compare the totals"] +
            render(cols, rows) + [""])


def table(doc):
    """The text report: medians per case, ratios, the bars, memory."""
    med = medians(doc)
    others = seq_table(doc) + lat_table(doc)
    meta = doc["meta"]
    lines = ["tcmx bench: kernel %s, %s CPUs%s, LUNs of %d MiB, %s, "
             "%d jobs, %d round(s) of %ss (+%ss ramp)"
             % (meta["kernel"], meta["nproc"],
                " (VM)" if meta.get("in_vm") else "", meta["size_mb"],
                meta["fio_version"], meta["numjobs"], rounds_done(doc),
                meta["runtime"], meta["ramp"]) +
             (", LUNs written in full first" if meta.get("prewrite") else "") +
             (", clocks count instructions (icount, %d ns each)"
              % 2 ** meta["icount"] if meta.get("icount") is not None
              else ""),
             "median %s± half the min..max spread over the rounds; ratios:"
             " median over the rounds of the ratio within a round"
             % ("IOPS " if med or not others else ""), ""]
    if med or not others:
        names = stacks_of(med)
        brd = "brd" in names
        cols = ["case"] + names + ["tcmx/in-tree", "tcmx/sdebug",
                                   "tcmx/nullblk"] + \
            (["tcmx/brd"] if brd else []) + ["in-tree/sdebug"]
        rows = []
        for key in sorted(med, key=case_order):
            m = med[key]
            rows.append([case_label(key)] + [kiops(m.get(s)) for s in names] +
                        [fmt_ratio(ratio(m, "tcmx", "in-tree")),
                         fmt_ratio(ratio(m, "tcmx", "scsi_debug")),
                         fmt_ratio(ratio(m, "tcmx", "null_blk"))] +
                        ([fmt_ratio(ratio(m, "tcmx", "brd"))] if brd else []) +
                        [fmt_ratio(ratio(m, "in-tree", "scsi_debug"))])
        lines += render(cols, rows)
        lines.append("")
    lines += others
    lines.append("nullio: tcmx and in-tree rd_nullio=1, scsi_debug fake_rw=1, "
                 "null_blk memory_backed=0; data: the same with data")
    for n in doc.get("notes") or []:
        lines.append(n)
    lines.append("")
    if med or not others:
        lines += bars(doc, med)
    else:
        lines += mem_lines(doc)[1:]
    if doc.get("errors"):
        lines.append("")
        lines.append("errors (%d):" % len(doc["errors"]))
        for e in doc["errors"][:20]:
            lines.append("  %s" % e)
    return "\n".join(lines) + "\n"


def bars(doc, med):
    out = ["bars:"]
    r75 = med.get(("rw75", "data", 8), {})
    out.append("  8 LUNs randrw 75/25: tcmx/in-tree %s, tcmx/scsi_debug %s "
               "(in-tree/scsi_debug %s)"
               % (fmt_ratio(ratio(r75, "tcmx", "in-tree")),
                  fmt_ratio(ratio(r75, "tcmx", "scsi_debug")),
                  fmt_ratio(ratio(r75, "in-tree", "scsi_debug"))))
    t32 = med.get(("rw75", "data", 32), {}).get("tcmx")
    t8 = r75.get("tcmx")
    out.append("  tcmx 32 LUNs / 8 LUNs (randrw 75/25): %s"
               % fmt_ratio(paired(t32, t8)))
    n75 = med.get(("rw75", "nullio", 8), {})
    out.append("  nullio 8 LUNs randrw 75/25: tcmx/scsi_debug(fake_rw=1) %s, "
               "tcmx/null_blk(no memory) %s"
               % (fmt_ratio(ratio(n75, "tcmx", "scsi_debug")),
                  fmt_ratio(ratio(n75, "tcmx", "null_blk"))))
    return out + mem_lines(doc)[1:]


def mem_lines(doc):
    out = ["memory:"]
    mem = doc.get("memory") or {}
    if "tcmx" in mem and mem["tcmx"].get("added_mib") is not None:
        m = mem["tcmx"]
        out.append("  memory: %d x %d MiB tcmx rd LUNs, never written, add "
                   "%.1f MiB used (bar < %d MiB: %s)"
                   % (m["luns"], m["size_mb"], m["added_mib"], MEM_BAR_MIB,
                      "PASS" if m["added_mib"] < MEM_BAR_MIB else "FAIL"))
    else:
        out.append("  memory: tcmx not measured")
    if "in-tree" in mem and mem["in-tree"].get("added_mib") is not None:
        m = mem["in-tree"]
        out.append("  memory (for comparison): %d x %d MiB in-tree rd LUN(s) "
                   "add %.1f MiB" % (m["luns"], m["size_mb"], m["added_mib"]))
    return out


def chart(doc, png):
    """Clustered bars of median IOPS per case and stack, with min..max
    error bars, drawn with gnuplot. Returns an error string or None."""
    med = medians(doc)
    keys = sorted(med, key=case_order)
    if not keys:
        return "no data to chart"
    meta = doc["meta"]
    return histogram(
        png, [(case_label(k).replace("randrw ", ""), med[k]) for k in keys],
        stacks_of(med),
        "fio 4k randrw, libaio QD64, %s jobs - kernel %s, %s vCPUs (TCG)"
        % (meta["numjobs"], meta["kernel"], meta["nproc"]),
        "IOPS (median of %d rounds, bars: min..max)" % rounds_done(doc))


def seq_chart(doc, png):
    med = medians(doc, "mbps", "seq")
    keys = sorted(med, key=case_order)
    if not keys:
        return "no data to chart"
    meta = doc["meta"]
    return histogram(
        png, [(case_label(k).replace("seq ", ""), med[k]) for k in keys],
        stacks_of(med, ()),
        "fio sequential read / write, libaio QD16, %s jobs - kernel %s, "
        "%s vCPUs (TCG)" % (meta["numjobs"], meta["kernel"], meta["nproc"]),
        "MB/s (median of %d rounds, bars: min..max)" % rounds_done(doc),
        fmt="%.1f")


def lat_chart(doc, png):
    rows, every = [], {}
    for k, lab in LAT_PCTS:
        for key, m in medians(doc, k, "lat").items():
            every.setdefault(key, {})[lab] = m
    if not every:
        return "no data to chart"
    for key in sorted(every, key=case_order):
        for _, lab in LAT_PCTS:
            if lab in every[key]:
                rows.append(("%s %s" % (case_label(key).replace(" QD1", ""),
                                        lab), every[key][lab]))
    meta = doc["meta"]
    return histogram(
        png, rows, stacks_of({i: m for i, (_, m) in enumerate(rows)}, ()),
        "fio 4k random, libaio QD1, 1 job: completion latency - kernel %s, "
        "%s vCPUs (TCG)" % (meta["kernel"], meta["nproc"]),
        "us, log scale (median of %d rounds, bars: min..max; lower is "
        "better)" % rounds_done(doc), fmt="%.2f", logy=True)


def charts(doc, base):
    """Every chart of the run: base.png (randrw IOPS), base-seq.png,
    base-lat.png, for the families present. Returns (pngs, errors)."""
    pngs, errs = [], []
    for fam, suffix, fn in (("rw", "", chart), ("seq", "-seq", seq_chart),
                            ("lat", "-lat", lat_chart)):
        if not any(family(r["shape"]) == fam and r.get("iops") is not None
                   for r in doc["runs"]):
            continue
        png = base + suffix + ".png"
        err = fn(doc, png)
        if err:
            errs.append("%s: %s" % (os.path.basename(png), err))
        else:
            pngs.append(png)
    return pngs, errs


def histogram(png, rows, stacks, title, ylabel, fmt="%d", logy=False):
    """Clustered bars, one cluster per row (label, {stack: st}), one bar
    per stack: the median with min..max error bars; gnuplot pngcairo.
    Returns an error string or None."""
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot not found, no chart"
    stacks = [s for s in stacks if any(s in m for _, m in rows)]
    dat = os.path.splitext(png)[0] + ".dat"
    with open(dat, "w") as f:
        f.write("# case " + " ".join("%s_med %s_min %s_max" % (s, s, s)
                                      for s in stacks) + "\n")
        for label, m in rows:
            cells = []
            for s in stacks:
                st = m.get(s)
                cells += ([fmt % st[x] for x in ("median", "min", "max")]
                          if st else ["NaN"] * 3)
            f.write('"%s" %s\n' % (label, " ".join(cells)))
    plots = ", ".join("'%s' using %d:%d:%d:xtic(1) title '%s'"
                      % (dat, 2 + 3 * i, 3 + 3 * i, 4 + 3 * i, s)
                      for i, s in enumerate(stacks))
    script = "\n".join([
        "set terminal pngcairo size %d,600 font ',10'"
        % max(800, 140 * len(rows) + 200),
        "set output '%s'" % png,
        "set title '%s' noenhanced" % title,
        "set ylabel '%s'" % ylabel,
        "set style data histogram",
        "set style histogram errorbars gap 1 lw 1",
        "set style fill solid 0.8 border -1",
        "set key top left noenhanced",
        "set xtics rotate by -25 noenhanced"] +
        (["set logscale y", "set yrange [*:*]"] if logy else
         ["set yrange [0:*]"]) + [
        "set grid ytics",
        "plot " + plots, ""])
    try:
        p = subprocess.run([gp], input=script, capture_output=True,
                           text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "gnuplot timed out"
    if p.returncode:
        return "gnuplot failed: %s" % p.stderr.strip()[-300:]
    return None
