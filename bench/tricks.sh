#!/usr/bin/env bash
# What each machine-specific trick is worth (issues 29, 38): `dominators --top 1 --json
# --no-cache` on each DUMP with the tricks all on (the default), then each one off:
#   HEAPTUI_NO_RECYCLE=1    freed large blocks go back to the kernel at once (src/sys/alloc.rs)
#   HEAPTUI_NO_HUGEPAGES=1  no transparent huge pages for the large blocks (src/sys/huge.rs)
#   HEAPTUI_NO_AVX2=1       the loops of src/sys/simd.rs as the baseline compiles them
#   none                    all three off: the plain system allocator's behaviour
# The configurations alternate, RUNS rounds (default 5, on an idle machine); the median
# and best wall times and the peak RSS of each are printed as one JSON line per DUMP and
# configuration. A trick is kept only where it wins 10 % or more in the median on one of
# the dumps (bench/README.md has the table and the decisions).
#
# Usage: bench/tricks.sh DUMP...   (HEAPTUI: the binary, default target/release/heaptui)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${HEAPTUI:-$ROOT/target/release/heaptui}
RUNS=${RUNS:-5}
[ $# -gt 0 ] || { echo "usage: bench/tricks.sh DUMP..." >&2; exit 1; }
configs=(
    "default:"
    "no-recycle:HEAPTUI_NO_RECYCLE=1"
    "no-hugepages:HEAPTUI_NO_HUGEPAGES=1"
    "no-avx2:HEAPTUI_NO_AVX2=1"
    "none:HEAPTUI_NO_RECYCLE=1 HEAPTUI_NO_HUGEPAGES=1 HEAPTUI_NO_AVX2=1"
)
for dump in "$@"; do
    cat "$dump" > /dev/null
    declare -A best=() peak=() all=()
    for _ in $(seq "$RUNS"); do
        for c in "${configs[@]}"; do
            name=${c%%:*}
            vars=${c#*:}
            out=$(env $vars /usr/bin/time -f "%e %M" "$BIN" dominators "$dump" --top 1 --json \
                --no-cache 2>&1 >/dev/null | tail -1)
            read -r secs kb <<<"$out"
            all[$name]="${all[$name]:-} $secs"
            if [ -z "${best[$name]:-}" ] || [ "$(echo "$secs < ${best[$name]}" | bc)" = 1 ]; then
                best[$name]=$secs
            fi
            peak[$name]=$kb
        done
    done
    for c in "${configs[@]}"; do
        name=${c%%:*}
        median=$(printf '%s\n' ${all[$name]} | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
        printf '{"dump": "%s", "config": "%s", "median_seconds": %s, "best_seconds": %s, "peak_rss_mb": %d}\n' \
            "$(basename "$dump")" "$name" "$median" "${best[$name]}" $((peak[$name] / 1024))
    done
    unset best peak all
done
