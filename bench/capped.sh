#!/usr/bin/env bash
# Runs a command in a fresh memory cgroup capped at CAP_MB MiB, as a container would
# (issue 27), and prints one JSON line: the cap, wall seconds, the cgroup's peak memory
# (anonymous and page cache together, as the kernel counts it against the cap), the exit
# status (or the signal that ended it) and whether the kernel's OOM killer fired.
#
# Usage: bench/capped.sh CAP_MB COMMAND [ARGS...]
#   e.g. bench/capped.sh 1200 target/release/heaptui dominators DUMP --top 5 --json --no-cache
#
# Needs root. Uses cgroup v1's memory controller at /sys/fs/cgroup/memory when mounted
# (this project's benchmark machine), otherwise cgroup v2 at /sys/fs/cgroup (with the
# memory controller enabled in the root's subtree_control). Swap is not counted (the
# benchmark machine has none). The command's stdout goes to CAPPED_OUT (default
# /dev/null), its stderr to CAPPED_ERR (default: this script's stderr).
set -euo pipefail

cap_mb=${1:?usage: bench/capped.sh CAP_MB COMMAND [ARGS...]}
shift
[ $# -gt 0 ] || { echo "usage: bench/capped.sh CAP_MB COMMAND [ARGS...]" >&2; exit 1; }
out=${CAPPED_OUT:-/dev/null}
err=${CAPPED_ERR:-/dev/stderr}
name="heaptui-capped-$$"
bytes=$((cap_mb * 1024 * 1024))

if [ -d /sys/fs/cgroup/memory ] && [ -w /sys/fs/cgroup/memory ]; then
    v=1
    cg=/sys/fs/cgroup/memory/$name
    mkdir "$cg"
    echo "$bytes" > "$cg/memory.limit_in_bytes"
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup ]; then
    v=2
    cg=/sys/fs/cgroup/$name
    grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
        echo +memory > /sys/fs/cgroup/cgroup.subtree_control
    mkdir "$cg"
    echo "$bytes" > "$cg/memory.max"
    [ -f "$cg/memory.swap.max" ] && echo 0 > "$cg/memory.swap.max"
else
    echo "bench/capped.sh: no writable memory cgroup (needs root, and cgroup v1's memory controller or v2)" >&2
    exit 3
fi
cleanup() { rmdir "$cg" 2>/dev/null || true; }
trap cleanup EXIT

start=$(date +%s.%N)
set +e
# The child joins the cgroup before exec, so everything it allocates is counted.
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' capped "$cg" "$@" >"$out" 2>"$err"
status=$?
set -e
end=$(date +%s.%N)

if [ $v = 1 ]; then
    peak=$(cat "$cg/memory.max_usage_in_bytes")
    oom=$(awk '$1=="oom_kill"{print $2}' "$cg/memory.oom_control")
else
    peak=$(cat "$cg/memory.peak" 2>/dev/null || echo 0)
    oom=$(awk '$1=="oom_kill"{print $2}' "$cg/memory.events")
fi
if [ $status -gt 128 ]; then ended="\"signal $((status - 128))\""; else ended=$status; fi
printf '{"cap_mb": %d, "seconds": %.2f, "peak_mb": %d, "exit": %s, "oom_kills": %d, "cgroup": "v%d"}\n' \
    "$cap_mb" "$(echo "$end - $start" | bc)" $((peak / 1024 / 1024)) "$ended" "${oom:-0}" "$v"
