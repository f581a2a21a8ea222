#!/usr/bin/env bash
# What each machine-specific trick is worth (issues 29, 38), on an idle machine.
#
# 1. Building: `dominators --top 1 --json --no-cache` on each DUMP with every trick on
#    (the default build), then each one off, and with a well-kept allocator instead:
#      default       all on
#      no-recycle    HEAPTUI_NO_RECYCLE=1: freed large blocks go back to the kernel at
#                    once (src/sys/alloc.rs's pool)
#      no-hugepages  HEAPTUI_NO_HUGEPAGES=1: no transparent huge pages (src/sys/huge.rs)
#      no-avx2       HEAPTUI_NO_AVX2=1: the loops of src/sys/simd.rs as the baseline
#                    compiles them
#      none          all three off
# 2. Reopening (the cache's checksum and checks of every byte of the index entry):
#    `summary --json` with the entry written by a first run, in a cache of its own:
#      reopen-default  as built
#      reopen-no-avx2  the checks' loops as the baseline compiles them
#
# Two candidates were measured by earlier versions of this script and are gone with the
# code that only served them (bench/README.md, "Tricks"): mimalloc for the small blocks
# (a build with it), and a block sum of our own against twox-hash's XXH3.
#
# The configurations alternate, RUNS rounds (default 5); the median and the best wall
# time and the peak RSS of each are printed as one JSON line per DUMP and configuration.
# A trick is kept only where it wins 10 % or more in the median on one of the dumps
# (bench/README.md has the table and the decisions).
#
# Usage: bench/tricks.sh DUMP...
#   HEAPTUI: the binary (default target/release/heaptui, built if missing).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-5}
[ $# -gt 0 ] || { echo "usage: bench/tricks.sh DUMP..." >&2; exit 1; }
cd "$ROOT"
BIN=${HEAPTUI:-$ROOT/target/release/heaptui}
[ -x "$BIN" ] || cargo build --release --quiet
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# name:binary:command:variables
configs=(
    "default:$BIN:dominators:"
    "no-recycle:$BIN:dominators:HEAPTUI_NO_RECYCLE=1"
    "no-hugepages:$BIN:dominators:HEAPTUI_NO_HUGEPAGES=1"
    "no-avx2:$BIN:dominators:HEAPTUI_NO_AVX2=1"
    "none:$BIN:dominators:HEAPTUI_NO_RECYCLE=1 HEAPTUI_NO_HUGEPAGES=1 HEAPTUI_NO_AVX2=1"
    "reopen-default:$BIN:reopen:"
    "reopen-no-avx2:$BIN:reopen:HEAPTUI_NO_AVX2=1"
)

run() {  # run NAME BIN COMMAND VARS DUMP: prints "seconds kilobytes"
    local name=$1 bin=$2 cmd=$3 vars=$4 dump=$5
    if [ "$cmd" = dominators ]; then
        env $vars /usr/bin/time -f "%e %M" "$bin" dominators "$dump" --top 1 --json \
            --no-cache 2>&1 >/dev/null | tail -1
    else
        env $vars HEAPTUI_CACHE_DIR="$SCRATCH/$name" /usr/bin/time -f "%e %M" "$bin" \
            summary "$dump" --json 2>&1 >/dev/null | tail -1
    fi
}

for dump in "$@"; do
    cat "$dump" > /dev/null
    declare -A best=() peak=() all=()
    # The reopen configurations' entries (and kept trees), written once, not timed.
    for c in "${configs[@]}"; do
        IFS=: read -r name bin cmd vars <<<"$c"
        [ "$cmd" = reopen ] || continue
        rm -rf "${SCRATCH:?}/$name"
        env $vars HEAPTUI_CACHE_DIR="$SCRATCH/$name" "$bin" summary "$dump" --json >/dev/null
    done
    for _ in $(seq "$RUNS"); do
        for c in "${configs[@]}"; do
            IFS=: read -r name bin cmd vars <<<"$c"
            read -r secs kb <<<"$(run "$name" "$bin" "$cmd" "$vars" "$dump")"
            all[$name]="${all[$name]:-} $secs"
            if [ -z "${best[$name]:-}" ] || [ "$(echo "$secs < ${best[$name]}" | bc)" = 1 ]; then
                best[$name]=$secs
            fi
            if [ -z "${peak[$name]:-}" ] || [ "$kb" -gt "${peak[$name]}" ]; then
                peak[$name]=$kb
            fi
        done
    done
    for c in "${configs[@]}"; do
        name=${c%%:*}
        median=$(printf '%s\n' ${all[$name]} | sort -g |
            awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
        printf '{"dump": "%s", "config": "%s", "median_seconds": %s, "best_seconds": %s, "peak_rss_mb": %d}\n' \
            "$(basename "$dump")" "$name" "$median" "${best[$name]}" $((peak[$name] / 1024))
    done
    unset best peak all
done
