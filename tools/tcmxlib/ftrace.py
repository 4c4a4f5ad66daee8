# SPDX-License-Identifier: GPL-2.0
"""The kernel's function tracer, to count calls of kernel functions, and
tcmx:tcmx_tmr's events."""
import os
import re

from .host import run

TRACING = "/sys/kernel/tracing/"


def _put(name, data):
    with open(TRACING + name, "w") as f:    # O_TRUNC: resets it
        f.write(data)


def function_calls(fns, action):
    """Run action() with the function tracer on each name of fns; a dict:
    how often each ran meanwhile."""
    if not os.path.exists(TRACING + "trace"):
        run("mount -t tracefs nodev " + TRACING)
    _put("tracing_on", "0")
    _put("current_tracer", "nop")
    _put("trace", "")
    _put("buffer_size_kb", "4096")
    _put("set_ftrace_filter", " ".join(fns))
    _put("current_tracer", "function")
    _put("tracing_on", "1")
    try:
        action()
    finally:
        _put("tracing_on", "0")
        with open(TRACING + "trace") as f:   # before a tracer change wipes it
            lines = [ln.split("<-")[0] for ln in f if not ln.startswith("#")]
        _put("current_tracer", "nop")
        _put("set_ftrace_filter", "")
        _put("trace", "")
    return {fn: sum(1 for ln in lines if ln.rstrip().endswith(" " + fn))
            for fn in fns}


def event_lines(event, action, filt=""):
    """Run action() with the trace event (e.g. "kmem/mm_page_alloc") on,
    filtered by filt if given; its lines in the trace meanwhile."""
    if not os.path.exists(TRACING + "trace"):
        run("mount -t tracefs nodev " + TRACING)
    ev = "events/" + event + "/"
    _put("tracing_on", "0")
    _put("current_tracer", "nop")
    _put("trace", "")
    _put("buffer_size_kb", "4096")
    if filt:
        _put(ev + "filter", filt)
    _put(ev + "enable", "1")
    _put("tracing_on", "1")
    try:
        action()
    finally:
        _put("tracing_on", "0")
        _put(ev + "enable", "0")
        with open(TRACING + "trace") as f:
            lines = [ln.rstrip("\n") for ln in f if not ln.startswith("#")]
        if filt:
            _put(ev + "filter", "0")
        _put("trace", "")
    return lines


def tmr_events():
    """The tcmx:tcmx_tmr event on, an empty buffer; returns a function
    giving [(tmf, result, latency_ns)] of the events since."""
    if not os.path.exists(TRACING + "trace"):
        run("mount -t tracefs nodev " + TRACING)
    for name, data in (("tracing_on", "0"), ("trace", ""),
                       ("events/tcmx/tcmx_tmr/enable", "1"),
                       ("tracing_on", "1")):
        _put(name, data)

    def events():
        with open(TRACING + "trace") as f:
            return [(m.group(1), int(m.group(2)), int(m.group(3)))
                    for m in re.finditer(r"tcmx_tmr: .*tmf=(\w+) "
                                         r"result=(-?\d+) latency_ns=(\d+)",
                                         f.read())]
    return events
