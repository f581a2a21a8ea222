#!/usr/bin/env bash
# What each machine-specific trick is worth (issue 29): `dominators --top 1 --json
# --no-cache` on each DUMP with the tricks all on (the default), then each one off:
#   HEAPTUI_NO_RECYCLE=1    freed large blocks go back to the kernel at once (src/alloc.rs)
#   HEAPTUI_NO_HUGEPAGES=1  no transparent huge pages for the large blocks (src/heap/huge.rs)
#   both off                the plain system allocator's behaviour
# The configurations alternate, RUNS rounds (default 3); the best wall time and the peak
# RSS of each are printed as one JSON line per DUMP and configuration.
#
# Usage: bench/tricks.sh DUMP...   (HEAPTUI: the binary, default target/release/heaptui)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${HEAPTUI:-$ROOT/target/release/heaptui}
RUNS=${RUNS:-3}
[ $# -gt 0 ] || { echo "usage: bench/tricks.sh DUMP..." >&2; exit 1; }
configs=(
    "default:"
    "no-recycle:HEAPTUI_NO_RECYCLE=1"
    "no-hugepages:HEAPTUI_NO_HUGEPAGES=1"
    "none:HEAPTUI_NO_RECYCLE=1 HEAPTUI_NO_HUGEPAGES=1"
)
for dump in "$@"; do
    cat "$dump" > /dev/null
    declare -A best=() peak=()
    for _ in $(seq "$RUNS"); do
        for c in "${configs[@]}"; do
            name=${c%%:*}
            vars=${c#*:}
            out=$(env $vars /usr/bin/time -f "%e %M" "$BIN" dominators "$dump" --top 1 --json \
                --no-cache 2>&1 >/dev/null | tail -1)
            read -r secs kb <<<"$out"
            if [ -z "${best[$name]:-}" ] || [ "$(echo "$secs < ${best[$name]}" | bc)" = 1 ]; then
                best[$name]=$secs
            fi
            peak[$name]=$kb
        done
    done
    for c in "${configs[@]}"; do
        name=${c%%:*}
        printf '{"dump": "%s", "config": "%s", "best_seconds": %s, "peak_rss_mb": %d}\n' \
            "$(basename "$dump")" "$name" "${best[$name]}" $((peak[$name] / 1024))
    done
    unset best peak
done
