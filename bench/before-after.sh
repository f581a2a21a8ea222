#!/usr/bin/env bash
# Two builds of heaptui on the same dumps in the same run (issue 38's acceptance: a
# refactor may not make the dominator tree slower by more than 3 % nor raise the peak
# RSS): `dominators DUMP --top 1 --json --no-cache`, the builds alternating, RUNS rounds
# (default 3); the best wall time and the highest peak RSS of each, one JSON line per
# DUMP and build. Run it on an idle machine.
#
# Usage: bench/before-after.sh BEFORE_BINARY AFTER_BINARY DUMP...
set -euo pipefail
RUNS=${RUNS:-3}
[ $# -ge 3 ] || { sed -n '2,9p' "$0" >&2; exit 1; }
before=$1 after=$2
shift 2
for dump in "$@"; do
    cat "$dump" > /dev/null
    declare -A best=() peak=()
    for _ in $(seq "$RUNS"); do
        for name in before after; do
            bin=${!name}
            read -r secs kb <<<"$(HEAPTUI_NO_CACHE=1 /usr/bin/time -f "%e %M" "$bin" dominators \
                "$dump" --top 1 --json --no-cache 2>&1 >/dev/null | tail -1)"
            if [ -z "${best[$name]:-}" ] || [ "$(echo "$secs < ${best[$name]}" | bc)" = 1 ]; then
                best[$name]=$secs
            fi
            if [ -z "${peak[$name]:-}" ] || [ "$kb" -gt "${peak[$name]}" ]; then
                peak[$name]=$kb
            fi
        done
    done
    for name in before after; do
        printf '{"dump": "%s", "build": "%s", "best_seconds": %s, "peak_rss_mb": %d}\n' \
            "$(basename "$dump")" "$name" "${best[$name]}" $((peak[$name] / 1024))
    done
    unset best peak
done
