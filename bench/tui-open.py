#!/usr/bin/env python3
"""Time to a usable TUI, measured on the real binary in tmux, as a person sees it.

Usage: bench/tui-open.py DUMP [DUMP...]

For each DUMP (warm page cache), with a private index cache directory:
  1. first open (no cache entry): the seconds from starting `heaptui DUMP` in a
     200x50 tmux pane until the pane shows
       - a class histogram ("Class histogram — " in the pane: for HPROF, the quick
         pass's, while the index is built),
       - the index ready (the status line counts the objects and no longer says
         "indexing"),
       - the dominator tree ready ("retained sizes: computing" gone);
     then `q`. That open writes the index cache entry.
  2. reopen: the same, with the entry written by step 1: seconds until the index is
     ready (a usable TUI: histogram, instances, references).
  3. hprof-slurp on the same file (HPROF, when installed), for the ratio.
The pane is read with `tmux capture-pane` every 25 ms (more often steals CPU from the
program on two cores), so figures are within ~30 ms.
HEAPTUI names the binary (else target/release/heaptui, built first); REOPENS=N times the
reopen N times ("reopen" then a list); CACHE_DIR=DIR keeps the index
cache entry in DIR (not removed after) and skips the first open when DIR holds one,
so that an A/B of two builds, each with its own DIR, times reopens only (and hprof-slurp
is not run).
Prints one JSON object per DUMP and writes them to BENCH_DIR/tui-open-result.json.
"""

import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.realpath(os.environ.get("BENCH_DIR", "/tmp/heaptui-bench"))
HEAPTUI = os.environ.get("HEAPTUI", os.path.join(ROOT, "target/release/heaptui"))
SESSION = f"heaptui-open-{os.getpid()}"
# The status line: " HPROF · 50,375,709 objects · ..." (the quick histogram's says "indexing").
STATUS = re.compile(r"^ [^·]+ · [\d,]+ objects", re.M)


def pane():
    r = subprocess.run(["tmux", "capture-pane", "-p", "-t", SESSION], capture_output=True, text=True)
    return r.stdout


def open_once(dump, cache, limit=600):
    """Starts the TUI on dump; returns the seconds to each milestone."""
    env_cmd = f"env HEAPTUI_CACHE_DIR={cache} HEAPTUI_CACHE_MIN_BYTES=0 {HEAPTUI} {dump}; sleep 30"
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    t0 = time.monotonic()
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", env_cmd], check=True)
    got = {}
    while time.monotonic() - t0 < limit:
        s = pane()
        t = time.monotonic() - t0
        if "histogram" not in got and "Class histogram — " in s:
            got["histogram"] = round(t, 3)
        status = [m.group(0) for m in STATUS.finditer(s)]
        line = next((l for l in s.splitlines() if STATUS.match(l)), "")
        if "index" not in got and status and "indexing" not in line:
            got["index"] = round(t, 3)
        if "index" in got and "retained sizes: computing" not in line:
            got["dominators"] = round(t, 3)
            break
        if "Cannot open" in s:
            got["error"] = s
            break
        time.sleep(0.025)
    subprocess.run(["tmux", "send-keys", "-t", SESSION, "q"], capture_output=True)
    # Quitting waits for the index cache entry if it is still being written (beside the
    # dominator pass): let it, up to a minute, as a user's quit would.
    r = subprocess.run(["tmux", "list-panes", "-t", SESSION, "-F", "#{pane_pid}"], capture_output=True, text=True)
    shell = r.stdout.strip().split("\n")[0]
    t1 = time.monotonic()
    while shell and time.monotonic() - t1 < 60:
        c = subprocess.run(["pgrep", "-P", shell, "-f", "heaptui"], capture_output=True, text=True)
        if not c.stdout.strip():
            break
        time.sleep(0.05)
    got["exit_after_quit"] = round(time.monotonic() - t1, 3)
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    return got


def main():
    if not shutil.which("tmux"):
        sys.exit("tmux is needed (apt-get install tmux)")
    if "HEAPTUI" not in os.environ:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    reopens = int(os.environ.get("REOPENS", "1"))
    kept = os.environ.get("CACHE_DIR")
    results = []
    for dump in sys.argv[1:]:
        dump = os.path.realpath(dump)
        with open(dump, "rb") as f:
            while f.read(1 << 24):
                pass
        cache = kept or tempfile.mkdtemp(prefix="heaptui-open-cache-")
        entries = os.path.join(cache, "index")
        try:
            first = None
            if not (kept and os.path.isdir(entries) and os.listdir(entries)):
                first = open_once(dump, cache)
            for name in os.listdir(entries):
                with open(os.path.join(entries, name), "rb") as f:
                    while f.read(1 << 24):
                        pass
            reopen = [open_once(dump, cache) for _ in range(reopens)]
            if reopens == 1:
                reopen = reopen[0]
        finally:
            if not kept:
                shutil.rmtree(cache, ignore_errors=True)
        out = {"file": dump, "bytes": os.path.getsize(dump), "first_open": first, "reopen": reopen}
        if not kept and shutil.which("hprof-slurp") and open(dump, "rb").read(18).startswith(b"JAVA PROFILE"):
            t0 = time.monotonic()
            subprocess.run(["hprof-slurp", dump], capture_output=True, check=True)
            out["hprof_slurp"] = round(time.monotonic() - t0, 3)
            if first and "histogram" in first:
                out["histogram_vs_slurp"] = round(first["histogram"] / out["hprof_slurp"], 2)
        print(json.dumps(out), flush=True)
        results.append(out)
    os.makedirs(BENCH, exist_ok=True)
    with open(os.path.join(BENCH, "tui-open-result.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
