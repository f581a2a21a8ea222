#!/usr/bin/env python3
"""One benchmark table: heaptui and its peers on the same files, in the same run.

Usage: bench/run.sh [SET...]        (sets: hprof-5m hprof-50m hprof-3g v8-1m v8-6m go-5m moarvm
                                     dart; default: all of them)

Environment: BENCH_DIR (default /tmp/heaptui-bench), RUNS (default 1; the best wall time
of RUNS is kept), PEERS=0 to skip the peers, CAPS (e.g. "100,50,25": also run heaptui's
`dominators --top 1 --json --no-cache` and the peer's tree in memory cgroups capped at
those percentages of heaptui's uncapped peak RSS, with bench/capped.sh; needs root), HEAPTUI (a binary; default
target/release/heaptui, built if missing), MEMLAB_DIR (as bench/v8-compare.sh).

Inputs are made by the generators beside this script when missing (see bench/README.md:
real JDK 17, Node 20, Go 1.19, Raku/MoarVM and Dart VM programs) and kept in BENCH_DIR.
Every file is read once (`cat > /dev/null`) before it is timed: warm page cache.

Per file and tool, each command runs under a sampler of /proc/PID/status every 10 ms:
wall seconds, peak RssAnon (the process's own memory) and peak RssFile (pages of mapped
files: heaptui's map of the dump, which stay page cache), and VmHWM. Commands:
  heaptui   histogram FILE --no-retained --json --top 1 --no-cache   -> time to histogram
            dominators FILE --json --top 1 --no-cache                -> time to dominator tree
            suspects FILE --json --no-cache                          -> leak suspects (issue 25:
                                                                        at most 1.2x the tree's time)
            waste FILE --json --no-cache                             -> duplicates, sparse collections
            summary FILE --json (cache on, private cache dir: writes the index), then
            histogram FILE --no-retained --json --top 1 (reads it back)  -> reopen from the cache
  hprof-slurp FILE               (HPROF: one streaming pass, the class histogram)
  hprof-analyzer FILE OUT.json   (HPROF: the whole graph, dominators, MAT-like report)
  memlab (bench/v8-memlab-top.js: memlab's loader and dominator tree)  (V8)
  memlab analyze object-size --snapshot FILE   (V8: the command issue 11 names, as a user
            runs it; it also finds shortest paths and prints the largest objects)
With SQL=1, an HPROF set also gets issue 41's table (SQL_ONLY=1: that table alone, as
bench/query.sh runs it):
  heaptui query FILE SQL, from a cache entry with its tree (a private cache dir, filled
            first by `dominators`): group (count and retained by class), strings (a LIKE
            '%…%' over every string's text, with the text bytes: MB/s of text), join
            (refs with objects on the 5.5 M sessions, referrers by class)
  hprof-analyzer heap query --oql, from its own disk cache (`heap load --with-graph`
            first): the nearest OQL to each (OQL has no LIKE and no GROUP BY over a
            subquery: an equality over every String, and every session's inbounds)
  heaptui export FILE --parquet DIR --no-cache beside dominators --no-cache
Prints the table and writes every figure to BENCH_DIR/run-result.json.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.realpath(os.environ.get("BENCH_DIR", "/tmp/heaptui-bench"))
RUNS = int(os.environ.get("RUNS", "1"))
PEERS = os.environ.get("PEERS", "1") != "0"
CAPS = [int(c) for c in os.environ.get("CAPS", "").split(",") if c.strip()]
SQL_ONLY = os.environ.get("SQL_ONLY", "0") != "0"
SQL = SQL_ONLY or os.environ.get("SQL", "0") != "0"
HEAPTUI = os.environ.get("HEAPTUI", os.path.join(ROOT, "target/release/heaptui"))
MEMLAB_DIR = os.environ.get("MEMLAB_DIR", os.path.join(BENCH, "memlab"))

SETS = {
    # name: (format, file, generator command)
    "hprof-5m": ("hprof", "heap-scale450.hprof", ["bench/gen-large-hprof.sh", "{out}", "450"]),
    "hprof-50m": ("hprof", "heap-scale4500.hprof", ["bench/gen-large-hprof.sh", "{out}", "4500"]),
    # The ~3 GB dump of issue 11's reopen line (64 M objects).
    "hprof-3g": ("hprof", "heap-scale5700.hprof", ["bench/gen-large-hprof.sh", "{out}", "5700"]),
    "v8-1m": ("v8", "v8-1m.heapsnapshot", ["bench/gen-large-v8.sh", "{out}", "1"]),
    "v8-6m": ("v8", "v8-6m.heapsnapshot", ["bench/gen-large-v8.sh", "{out}", "6"]),
    "go-5m": ("go", "go-5m.dump", ["bench/gen-large-go.sh", "{out}", "5"]),
    "moarvm": ("moarvm", "raku-v3.mvmheap", ["bench/gen-large-moarvm.sh", BENCH]),
    "dart": ("dart", "dart-6000000.dartheap", ["bench/gen-large-dart.sh", "{out}", "6000000"]),
}


def log(*a):
    print("bench/run:", *a, file=sys.stderr, flush=True)


def measure(cmd, env=None, stdout=subprocess.DEVNULL):
    """Runs cmd; returns wall seconds, peaks of RssAnon/RssFile/VmHWM (bytes), exit code."""
    peaks = {"RssAnon:": 0, "RssFile:": 0, "VmHWM:": 0}
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env)
    done = threading.Event()

    def sample():
        path = f"/proc/{p.pid}/status"
        while not done.is_set():
            try:
                with open(path) as f:
                    for line in f:
                        k = line.split(":", 1)[0] + ":"
                        if k in peaks:
                            peaks[k] = max(peaks[k], int(line.split()[1]) * 1024)
            except (OSError, ValueError, IndexError):
                pass
            done.wait(0.01)

    t = threading.Thread(target=sample)
    t.start()
    _, err = p.communicate()
    wall = time.monotonic() - start
    done.set()
    t.join()
    return {
        "wall_seconds": round(wall, 3),
        "rss_anon_bytes": peaks["RssAnon:"],
        "rss_file_bytes": peaks["RssFile:"],
        "vm_hwm_bytes": peaks["VmHWM:"],
        "exit": p.returncode,
        "stderr": err.decode(errors="replace")[-2000:],
    }


def best(cmd, env=None):
    runs = [measure(cmd, env) for _ in range(RUNS)]
    ok = [r for r in runs if r["exit"] == 0] or runs
    b = min(ok, key=lambda r: r["wall_seconds"])
    b["runs"] = [r["wall_seconds"] for r in runs]
    return b


def cache_resident(d):
    """The fraction of the files in d held in the page cache (fincore), or None."""
    files = [os.path.join(d, f) for f in os.listdir(d)] if os.path.isdir(d) else []
    if not files or not shutil.which("fincore"):
        return None
    r = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "-o", "RES,SIZE"] + files, capture_output=True, text=True)
    res = size = 0
    for line in r.stdout.split("\n"):
        parts = line.split()
        if len(parts) == 2:
            res += int(parts[0])
            size += int(parts[1])
    return round(res / size, 3) if size else None


def heaptui_env(**extra):
    env = dict(os.environ)
    env.pop("HEAPTUI_NO_CACHE", None)
    env.update(extra)
    return env


def run_set(name):
    fmt, fname, gen = SETS[name]
    path = os.path.join(BENCH, fname)
    if not os.path.exists(path):
        log(f"{name}: making {path}")
        cmd = [os.path.join(ROOT, gen[0])] + [a.replace("{out}", path) for a in gen[1:]]
        subprocess.run(cmd, check=True, cwd=ROOT)
    size = os.path.getsize(path)
    log(f"{name}: {path} ({size / 1e6:.0f} MB), warming the page cache")
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass
    out = {"set": name, "format": fmt, "file": path, "bytes": size, "tools": {}}
    if SQL_ONLY:
        if fmt == "hprof":
            out["sql"] = sql_runs(name, path)
        return out
    env = heaptui_env(HEAPTUI_NO_CACHE="1")
    s = subprocess.run([HEAPTUI, "summary", path, "--json", "--no-cache"], capture_output=True, env=env)
    summary = json.loads(s.stdout) if s.returncode == 0 else {}
    out["objects"] = summary.get("objects")
    out["edges"] = summary.get("edges")
    out["index_bytes"] = summary.get("index_bytes")
    log(f"{name}: heaptui histogram")
    h = best([HEAPTUI, "histogram", path, "--no-retained", "--json", "--top", "1", "--no-cache"], env)
    log(f"{name}: heaptui dominators")
    d = best([HEAPTUI, "dominators", path, "--json", "--top", "1", "--no-cache"], env)
    log(f"{name}: heaptui suspects")
    sus = best([HEAPTUI, "suspects", path, "--json", "--no-cache"], env)
    log(f"{name}: heaptui waste")
    was = best([HEAPTUI, "waste", path, "--json", "--no-cache"], env)
    cache = tempfile.mkdtemp(prefix="heaptui-run-cache-")
    try:
        cenv = heaptui_env(HEAPTUI_CACHE_DIR=cache, HEAPTUI_CACHE_MIN_BYTES="0")
        log(f"{name}: heaptui with the index cache (write, then reopen)")
        w = measure([HEAPTUI, "summary", path, "--json"], cenv)
        # How much of the entry is still in the page cache when it is read back: this
        # machine's kernel runs DAMON's proactive reclaim (action "pageout"), which can
        # evict it within seconds; a reopen then reads part of it from disk.
        resident = cache_resident(os.path.join(cache, "index"))
        r = best([HEAPTUI, "histogram", path, "--no-retained", "--json", "--top", "1"], cenv)
        r["cache_resident_before"] = resident
        cache_bytes = sum(os.path.getsize(os.path.join(cache, "index", f)) for f in os.listdir(os.path.join(cache, "index")))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    out["tools"]["heaptui"] = {"histogram": h, "dominators": d, "suspects": sus, "waste": was,
                               "cache_write": w, "reopen": r, "cache_bytes": cache_bytes}
    if PEERS and fmt == "hprof":
        if shutil.which("hprof-slurp"):
            log(f"{name}: hprof-slurp")
            out["tools"]["hprof-slurp"] = {"histogram": best(["hprof-slurp", path])}
        else:
            log("hprof-slurp not installed (cargo install hprof-slurp): skipped")
        if shutil.which("hprof-analyzer"):
            log(f"{name}: hprof-analyzer")
            rep = tempfile.mkdtemp(prefix="hprof-analyzer-")
            try:
                out["tools"]["hprof-analyzer"] = {
                    "dominators": best(["hprof-analyzer", path, os.path.join(rep, "report.json")])
                }
            finally:
                shutil.rmtree(rep, ignore_errors=True)
        else:
            log("hprof-analyzer not installed (cargo install --locked hprof-analyzer): skipped")
    if PEERS and fmt == "v8":
        top = os.path.join(ROOT, "bench/v8-memlab-top.js")
        if os.path.isdir(os.path.join(MEMLAB_DIR, "node_modules", "@memlab", "core")):
            log(f"{name}: memlab")
            menv = dict(os.environ, MEMLAB_DIR=MEMLAB_DIR)
            out["tools"]["memlab"] = {
                "dominators": best(["node", "--max-old-space-size=16384", top, path, "1"], menv)
            }
            cli = os.path.join(MEMLAB_DIR, "node_modules", ".bin", "memlab")
            if os.path.exists(cli):
                log(f"{name}: memlab analyze object-size")
                out["tools"]["memlab analyze"] = {
                    "dominators": best([cli, "analyze", "object-size", "--snapshot", path], menv)
                }
        else:
            log(f"memlab is not in {MEMLAB_DIR} (bench/v8-compare.sh installs it): skipped")
    if SQL and fmt == "hprof":
        out["sql"] = sql_runs(name, path)
    if CAPS and d and d["exit"] == 0:
        out["capped"] = capped_runs(name, fmt, path, d["vm_hwm_bytes"], env)
    return out


def capped_runs(name, fmt, path, peak, env):
    """heaptui's tree, and the peer's, in memory cgroups capped at CAPS percent of `peak`
    (heaptui's uncapped peak RSS): bench/capped.sh's JSON line per run."""
    runs = []
    cmds = [("heaptui", [HEAPTUI, "dominators", path, "--json", "--top", "1", "--no-cache"])]
    rep = tempfile.mkdtemp(prefix="hprof-analyzer-")
    if PEERS and fmt == "hprof" and shutil.which("hprof-analyzer"):
        cmds.append(("hprof-analyzer", ["hprof-analyzer", path, os.path.join(rep, "report.json")]))
    if PEERS and fmt == "v8" and os.path.isdir(os.path.join(MEMLAB_DIR, "node_modules", "@memlab", "core")):
        top = os.path.join(ROOT, "bench/v8-memlab-top.js")
        cmds.append(("memlab", ["node", "--max-old-space-size=16384", top, path, "1"]))
    try:
        for pct in CAPS:
            cap = -(-peak * pct // 100 // (1 << 20))
            for tool, cmd in cmds:
                log(f"{name}: {tool} capped at {pct} % ({cap} MiB)")
                r = subprocess.run([os.path.join(ROOT, "bench/capped.sh"), str(cap)] + cmd,
                                   capture_output=True, text=True,
                                   env=dict(env, MEMLAB_DIR=MEMLAB_DIR))
                line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "{}"
                res = json.loads(line)
                res.update({"tool": tool, "percent": pct})
                runs.append(res)
    finally:
        shutil.rmtree(rep, ignore_errors=True)
    return runs


# Issue 41's questions, in heaptui's SQL and in hprof-analyzer's OQL (the nearest it has).
QUESTIONS = [
    ("group",
     "SELECT class, count(*), sum(retained) FROM objects GROUP BY class ORDER BY 3 DESC LIMIT 10",
     "SELECT classof(x) AS class, COUNT(*) AS n, SUM(@retainedHeapSize) AS ret "
     "FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY ret DESC LIMIT 10"),
    ("strings LIKE",
     "SELECT count(*) AS n, sum(octet_length(text)) AS text_bytes FROM strings "
     "WHERE text LIKE '%heaptui-needle-not-there%'",
     'SELECT COUNT(*) AS n FROM java.lang.String s WHERE toString(s) = "heaptui-needle-not-there"'),
    ("join",
     "SELECT o.class, count(*) AS refs FROM objects t JOIN refs r ON r.dst_n = t.n "
     "JOIN objects o ON o.n = r.src_n WHERE t.class = 'dev.heaptui.fixture.Session' "
     "GROUP BY o.class ORDER BY 2 DESC",
     "SELECT s.@inbounds FROM dev.heaptui.fixture.Session s"),
]


def sql_runs(name, path):
    """Issue 41's figures on one HPROF file (see the module's doc)."""
    out = {"queries": {}, "oql": {}}
    cache = tempfile.mkdtemp(prefix="heaptui-sql-cache-")
    try:
        cenv = heaptui_env(HEAPTUI_CACHE_DIR=cache, HEAPTUI_CACHE_MIN_BYTES="0")
        log(f"{name}: heaptui query: the cache entry, its tree and the strings first")
        measure([HEAPTUI, "dominators", path, "--top", "1", "--json"], cenv)
        measure([HEAPTUI, "query", path, "SELECT count(*) FROM strings"], cenv)
        out["process"] = best([HEAPTUI, "query", path, "SELECT 1"], cenv)
        t = subprocess.run([HEAPTUI, "query", path, "SELECT sum(octet_length(text)) FROM strings",
                            "--csv"], capture_output=True, env=cenv, text=True)
        out["text_bytes"] = int(t.stdout.split()[-1]) if t.returncode == 0 else None
        for q, sql, _ in QUESTIONS:
            log(f"{name}: heaptui query {q}")
            out["queries"][q] = best([HEAPTUI, "query", path, sql], cenv)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if PEERS and shutil.which("hprof-analyzer"):
        log(f"{name}: hprof-analyzer heap load --with-graph (its own disk cache)")
        out["oql_load"] = measure(["hprof-analyzer", "heap", "load", "--with-graph", path])
        for q, _, oql in QUESTIONS:
            log(f"{name}: hprof-analyzer OQL {q}")
            out["oql"][q] = best(["hprof-analyzer", "heap", "query", "--oql", oql, path])
    env = heaptui_env(HEAPTUI_NO_CACHE="1")
    pq = tempfile.mkdtemp(prefix="heaptui-parquet-", dir=BENCH)
    try:
        log(f"{name}: heaptui export --parquet and dominators, both without the cache")
        out["dominators"] = best([HEAPTUI, "dominators", path, "--top", "10", "--json"], env)
        out["export"] = measure([HEAPTUI, "export", path, "--parquet", pq], env)
        out["parquet_bytes"] = sum(os.path.getsize(os.path.join(pq, f)) for f in os.listdir(pq))
    finally:
        shutil.rmtree(pq, ignore_errors=True)
    return out


def fmt_sql(r):
    q = r.get("sql")
    if not q:
        return []
    rows = []
    for name, _, _ in QUESTIONS:
        h, o = q["queries"].get(name), q["oql"].get(name)
        note = ""
        if name == "strings LIKE" and h and q.get("text_bytes"):
            scan = h["wall_seconds"] - q["process"]["wall_seconds"]
            note = (f"{q['text_bytes'] / 1e6 / h['wall_seconds']:,.0f} MB/s of text end to end, "
                    f"{q['text_bytes'] / 1e6 / max(scan, 1e-3):,.0f} MB/s past `SELECT 1`'s "
                    f"{q['process']['wall_seconds']:.2f} s")
        if h and o and o["exit"] == 0:
            note += ("; " if note else "") + f"OQL {o['wall_seconds'] / h['wall_seconds']:.0f}x heaptui's time"
        rows.append([r["set"], name, f"{h['wall_seconds']:.2f}" if h else "-",
                     f"{h['rss_anon_bytes'] / 1e6:,.0f}" if h else "-",
                     f"{o['wall_seconds']:.2f}" if o else "-", note])
    d, e = q.get("dominators"), q.get("export")
    if d and e:
        rows.append([r["set"], "export --parquet", f"{e['wall_seconds']:.2f}",
                     f"{e['rss_anon_bytes'] / 1e6:,.0f}", "-",
                     f"{e['wall_seconds'] / d['wall_seconds']:.2f}x dominators' {d['wall_seconds']:.2f} s "
                     f"(both --no-cache); {q['parquet_bytes'] / 1e6:,.0f} MB of Parquet"])
    return rows


def fmt_capped(r):
    rows = []
    for c in r.get("capped", []):
        rows.append([r["set"], c["tool"], f"{c['percent']} %", f"{c.get('cap_mb', '-')}",
                     f"{c.get('seconds', 0):.1f}", f"{c.get('peak_mb', '-')}", str(c.get("exit")),
                     str(c.get("oom_kills"))])
    return rows


def fmt_row(r):
    mb = lambda b: f"{b / 1e6:,.0f}" if b else "-"
    n = r.get("objects") or 0
    e = r.get("edges") or 0
    t = r["tools"]
    ht = t["heaptui"]
    rows = []
    peer_hist = t.get("hprof-slurp", {}).get("histogram")
    dom_peers = [(p, t[p]["dominators"]) for p in ("hprof-analyzer", "memlab", "memlab analyze")
                 if p in t and t[p].get("dominators")]
    for tool, res in t.items():
        h = res.get("histogram")
        d = res.get("dominators")
        peak = d or h
        anon = peak["rss_anon_bytes"] if peak else 0
        ratio = []
        if tool == "heaptui":
            sus, was = res.get("suspects"), res.get("waste")
            if sus and d and sus["exit"] == 0:
                ratio.append(f"suspects {sus['wall_seconds'] / d['wall_seconds']:.2f}x dom's time")
            if was and h and was["exit"] == 0:
                ratio.append(f"waste {was['wall_seconds'] / h['wall_seconds']:.1f}x hist's time")
            if peer_hist and h and peer_hist["exit"] == 0:
                ratio.append(f"hist {h['wall_seconds'] / peer_hist['wall_seconds']:.2f}x slurp's time")
            for peer_name, peer_dom in dom_peers:
                if d and peer_dom["exit"] == 0:
                    ratio.append(
                        f"dom {peer_dom['wall_seconds'] / d['wall_seconds']:.1f}x faster, "
                        f"{d['vm_hwm_bytes'] / max(peer_dom['vm_hwm_bytes'], 1):.2f} of {peer_name}'s peak RSS"
                    )
        failed = [k for k, v in res.items() if isinstance(v, dict) and v.get("exit", 0) != 0]
        rows.append([
            r["set"], mb(r["bytes"]), f"{n:,}" if n else "-", tool,
            f"{h['wall_seconds']:.2f}" if h else "-",
            f"{d['wall_seconds']:.2f}" if d else "-",
            f"{res['suspects']['wall_seconds']:.2f}" if res.get("suspects") else "-",
            f"{res['waste']['wall_seconds']:.2f}" if res.get("waste") else "-",
            f"{r['bytes'] / 1e6 / d['wall_seconds']:.0f}" if d else (f"{r['bytes'] / 1e6 / h['wall_seconds']:.0f}" if h else "-"),
            mb(anon), mb(peak["rss_file_bytes"]) if peak else "-", mb(peak["vm_hwm_bytes"]) if peak else "-",
            f"{anon / n:.1f}" if n and anon else "-",
            f"{res['reopen']['wall_seconds']:.2f}" if "reopen" in res else "-",
            "; ".join(ratio) + (f" FAILED: {failed}" if failed else ""),
        ])
    if n and ht.get("dominators"):
        idx = r.get("index_bytes") or 0
        rows.append(["", "", "", "  index", "", "", "", "", "", mb(idx), "", "", f"{idx / n:.1f}", "",
                     f"{e:,} edges; 24 B/object + 8 B/edge would be {(24 * n + 8 * e) / 1e6:,.0f} MB"])
    return rows


def main():
    sets = sys.argv[1:] or list(SETS)
    for s in sets:
        if s not in SETS:
            sys.exit(f"bench/run: unknown set {s} (known: {' '.join(SETS)})")
    if not os.path.exists(HEAPTUI):
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    results = []
    for s in sets:
        try:
            results.append(run_set(s))
        except subprocess.CalledProcessError as e:
            log(f"{s}: could not make the input ({e}); skipped")
    head = ["set", "MB", "objects", "tool", "hist s", "dom s", "susp s", "waste s", "MB/s", "anon MB", "file MB",
            "HWM MB", "anon B/obj", "reopen s", "ratios (heaptui against the peers)"]
    rows = [head] + [row for r in results if "heaptui" in r["tools"] for row in fmt_row(r)]
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(head) - 1)]
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
    capped = [row for r in results for row in fmt_capped(r)]
    if capped:
        head = ["set", "tool", "cap", "cap MiB", "seconds", "cgroup peak MB", "exit", "OOM kills"]
        rows = [head] + capped
        widths = [max(len(str(row[i])) for row in rows) for i in range(len(head))]
        print()
        for row in rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    sql = [row for r in results for row in fmt_sql(r)]
    if sql:
        head = ["set", "question", "heaptui s", "anon MB", "OQL s", "ratios"]
        rows = [head] + sql
        widths = [max(len(str(row[i])) for row in rows) for i in range(len(head) - 1)]
        print()
        for row in rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
    meta = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average_at_end": os.getloadavg(),
        "cpus": os.cpu_count(),
        "runs": RUNS,
    }
    with open(os.path.join(BENCH, "run-result.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    log(f"figures in {os.path.join(BENCH, 'run-result.json')}")


if __name__ == "__main__":
    main()
