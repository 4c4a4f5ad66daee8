# SPDX-License-Identifier: GPL-2.0
"""Medians, the text table and the gnuplot chart of a tools/bench run.

A run is the JSON document tools/bench writes: "runs" holds one record
per fio run ({"stack", "shape", "mode", "luns", "round", "iops", ...}).
"""

import os
import shutil
import statistics
import subprocess

ORDER = ("tcmx", "in-tree", "scsi_debug", "null_blk")
SHAPE_LABEL = {"rw75": "randrw 75/25", "rw25": "randrw 25/75"}
MEM_BAR_MIB = 64


def stacks_of(med):
    """ORDER first, then the variants (tcmx:...) present in the medians."""
    seen = {s for m in med.values() for s in m}
    return list(ORDER) + sorted(seen - set(ORDER))


def rounds_done(doc):
    return len({r["round"] for r in doc["runs"] if r.get("iops")})


def medians(doc):
    """{(shape, mode, luns): {stack: {"median", "min", "max", "n",
    "rounds": {round: iops}}}}"""
    groups = {}
    for r in doc["runs"]:
        if r.get("iops") is None:
            continue
        key = (r["shape"], r["mode"], r["luns"])
        groups.setdefault(key, {}).setdefault(r["stack"], {})[r["round"]] = \
            r["iops"]
    out = {}
    for key, by in groups.items():
        out[key] = {s: {"median": statistics.median(v.values()),
                        "min": min(v.values()), "max": max(v.values()),
                        "n": len(v), "rounds": v} for s, v in by.items()}
    return out


def case_order(key):
    shape, mode, luns = key
    return (mode != "data", luns, shape != "rw75", shape)


def case_label(key):
    shape, mode, luns = key
    return "%s %s %d LUN%s" % (SHAPE_LABEL.get(shape, shape), mode, luns,
                               "" if luns == 1 else "s")


def kiops(st):
    if not st:
        return "-"
    spread = (st["max"] - st["min"]) / 2 / st["median"] * 100 if st["median"] else 0
    return "%.1fK±%d%%" % (st["median"] / 1000, round(spread))


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


def table(doc):
    """The text report: medians per case, ratios, the bars, memory."""
    med = medians(doc)
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
             "median IOPS ± half the min..max spread over the rounds; ratios:"
             " median over the rounds of the ratio within a round", ""]
    names = stacks_of(med)
    cols = ["case"] + names + ["tcmx/in-tree", "tcmx/sdebug",
                               "tcmx/nullblk", "in-tree/sdebug"]
    rows = []
    for key in sorted(med, key=case_order):
        m = med[key]
        rows.append([case_label(key)] + [kiops(m.get(s)) for s in names] +
                    [fmt_ratio(ratio(m, "tcmx", "in-tree")),
                     fmt_ratio(ratio(m, "tcmx", "scsi_debug")),
                     fmt_ratio(ratio(m, "tcmx", "null_blk")),
                     fmt_ratio(ratio(m, "in-tree", "scsi_debug"))])
    width = [max(len(str(r[i])) for r in rows + [cols])
             for i in range(len(cols))]
    for r in [cols] + rows:
        lines.append("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                               for i, (c, w) in enumerate(zip(r, width))))
    lines.append("")
    lines.append("nullio: tcmx and in-tree rd_nullio=1, scsi_debug fake_rw=1, "
                 "null_blk memory_backed=0; data: the same with data")
    lines.append("")
    lines += bars(doc, med)
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
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot not found, no chart"
    med = medians(doc)
    keys = sorted(med, key=case_order)
    if not keys:
        return "no data to chart"
    stacks = [s for s in stacks_of(med) if any(s in med[k] for k in keys)]
    dat = os.path.splitext(png)[0] + ".dat"
    with open(dat, "w") as f:
        f.write("# case " + " ".join("%s_med %s_min %s_max" % (s, s, s)
                                      for s in stacks) + "\n")
        for k in keys:
            cells = []
            for s in stacks:
                st = med[k].get(s)
                cells += (["%d" % st[x] for x in ("median", "min", "max")]
                          if st else ["NaN"] * 3)
            f.write('"%s" %s\n' % (case_label(k).replace("randrw ", ""),
                                   " ".join(cells)))
    meta = doc["meta"]
    plots = ", ".join("'%s' using %d:%d:%d:xtic(1) title '%s'"
                      % (dat, 2 + 3 * i, 3 + 3 * i, 4 + 3 * i, s)
                      for i, s in enumerate(stacks))
    script = "\n".join([
        "set terminal pngcairo size %d,600 font ',10'"
        % max(800, 140 * len(keys) + 200),
        "set output '%s'" % png,
        "set title 'fio 4k randrw, libaio QD64, %s jobs - kernel %s, "
        "%s vCPUs (TCG)' noenhanced" % (meta["numjobs"], meta["kernel"],
                                        meta["nproc"]),
        "set ylabel 'IOPS (median of %d rounds, bars: min..max)'"
        % rounds_done(doc),
        "set style data histogram",
        "set style histogram errorbars gap 1 lw 1",
        "set style fill solid 0.8 border -1",
        "set key top left noenhanced",
        "set xtics rotate by -25 noenhanced",
        "set yrange [0:*]",
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
