# SPDX-License-Identifier: GPL-2.0
"""The unmodified /usr/bin/targetcli, driven over stdin."""
import os
import re
import subprocess
import time

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TCLI_TIMES = []      # per call: (command, seconds since start) pairs


def tcli(*cmds, timeout=600):
    """Run the unmodified /usr/bin/targetcli once with cmds on stdin.

    Returns one (output, errors) pair per command: errors are the
    "Error: ..." lines targetcli printed for that command."""
    script = "set global auto_save_on_exit=false color_mode=false\n"
    script += "".join(c + "\n" for c in cmds)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.time()
    p = subprocess.Popen(["/usr/bin/targetcli"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env)
    p.stdin.write(script.encode())
    p.stdin.close()
    raw, stamps = b"", []
    while True:
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        raw += chunk
        stamps += [time.time() - t0] * chunk.count(b"/> ")
    rc = p.wait(timeout=timeout)
    out = ANSI.sub("", raw.decode(errors="replace"))
    TCLI_TIMES.append(list(zip(["(start)", "(set)"] + list(cmds), stamps)))
    if os.environ.get("TCMX_TEST_TIMES"):
        with open(os.environ["TCMX_TEST_TIMES"], "a") as f:
            for c, t in TCLI_TIMES[-1]:
                f.write("%7.1f  %s\n" % (t, c))
    assert rc == 0 and "Traceback" not in out, out
    parts = out.split("/> ")
    # parts: banner, "set global", one per command, "exit"
    assert len(parts) == len(cmds) + 3, out
    res = []
    for part in parts[2:-1]:
        errs = [ln for ln in part.splitlines() if ln.startswith("Error")]
        res.append((part, errs))
    return res


def tcli_ok(*cmds):
    res = tcli(*cmds)
    for c, (out, errs) in zip(cmds, res):
        assert not errs, "targetcli %r failed:\n%s" % (c, out)
    return [out for out, _ in res]


def tree_text(ls_out):
    """targetcli ls output without the volatile parts (dots, nexus)."""
    lines = []
    for ln in ls_out.splitlines():
        ln = re.sub(r" \.+ ", " ", ln.rstrip())
        ln = re.sub(r"\[naa\.[0-9a-f]{16}\]", "[NEXUS]", ln)
        if ln.strip():
            lines.append(ln)
    return lines


