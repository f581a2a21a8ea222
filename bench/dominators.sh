#!/usr/bin/env bash
# Dominator-tree benchmark: how long heaptui takes to build the dominator tree and the
# retained sizes of a large HPROF dump, and how much memory per object it needs.
#
# Usage: bench/dominators.sh [DUMP] [RUNS]
#   DUMP  an .hprof file. If missing (or ""), uses $BENCH_DIR/heap-scale$SCALE.hprof,
#         generating it with bench/gen-large-hprof.sh unless it already exists.
#   RUNS  timed runs (default 3); the best is reported.
#
# Environment: BENCH_DIR (/tmp/heaptui-bench), SCALE (1900 ~ 1 GB, 21 M objects),
# HEAPTUI (default target/release/heaptui, built if missing), BUILD=1 (rebuild).
#
# Each run alternates `heaptui summary DUMP --json` (index only) and `heaptui dominators
# DUMP --json --top 1` (index, then dominator tree) under /usr/bin/time, with
# HEAPTUI_TIMING=1 so heaptui prints the time of each phase on stderr. Reported:
# - dominator time: the sum of the "dominators: ..." phases (DFS, semidominators,
#   immediate dominators, retained sizes, children lists);
# - peak memory: each command's peak RssAnon (sampled by bench/peak-mem.sh), per
#   object; the difference between the two commands is what the dominator pass adds on
#   top of the index at its peak;
# - bytes per object the finished dominator tree keeps (idom, retained, children).
# The page cache is warmed first. MB = 10^6 bytes.
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1

usage() { sed -n '2,24p' "$0" >&2; exit 2; }
[[ $# -le 2 ]] || usage
[[ "${1:-}" != -h && "${1:-}" != --help ]] || usage
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'bench/dominators: %s\n' "$*" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$(realpath -m -- "${BENCH_DIR:-/tmp/heaptui-bench}")
SCALE=${SCALE:-1900}
RUNS=${2:-3}
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"
command -v jq >/dev/null || die "jq not found (apt-get install jq)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$BENCH_DIR"

if [[ -n "${1:-}" ]]; then
    DUMP=$(realpath -- "$1") || die "no such file: $1"
else
    DUMP="$BENCH_DIR/heap-scale$SCALE.hprof"
    if [[ ! -f "$DUMP" ]]; then
        log "generating $DUMP (SCALE $SCALE); this takes a few minutes"
        "$ROOT/bench/gen-large-hprof.sh" "$DUMP.part" "$SCALE"
        mv "$DUMP.part" "$DUMP"
    fi
fi
SIZE=$(stat -c %s "$DUMP")

HEAPTUI=${HEAPTUI:-$ROOT/target/release/heaptui}
if [[ "${BUILD:-0}" == 1 || ! -x "$HEAPTUI" ]]; then
    (cd "$ROOT" && cargo build --release)
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/heaptui-bench-dom.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$HEAPTUI" "$WORK/heaptui"

log "warming the page cache ($((SIZE / 1000000)) MB)"
cat "$DUMP" >/dev/null

# run NAME ARGS... -> prints "wall_s peak_rss_anon_kb" (sampled by bench/peak-mem.sh:
# heaptui releases the map's pages as it reads, so its own memory is RssAnon) and keeps
# stderr in $WORK/NAME.err
run() {
    local name=$1; shift
    HEAPTUI_TIMING=1 "$ROOT/bench/peak-mem.sh" "$WORK/heaptui" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" \
        || { cat "$WORK/$name.err" >&2; die "heaptui $* failed"; }
    tail -1 "$WORK/$name.err" | jq -r '"\(.wall_seconds) \(.peak_rss_anon_kb)"'
}

best_sum=""; best_wall=""; best_rss=0; sum_rss=0; kept=""
for i in $(seq "$RUNS"); do
    read -r _ rss_s < <(run summary summary "$DUMP" --json)
    (( rss_s > sum_rss )) && sum_rss=$rss_s
    read -r wall rss_d < <(run dominators dominators "$DUMP" --json --top 1)
    (( rss_d > best_rss )) && best_rss=$rss_d
    dom=$(sed -n 's/^timing: dominators: [^:]*: \([0-9.]*\) s.*/\1/p' "$WORK/dominators.err" | awk '{s += $1} END {printf "%.3f", s}')
    log "run $i: dominator phases $dom s, whole command $wall s, peak RssAnon ${rss_d} kB (summary ${rss_s} kB)"
    if [[ -z "$best_sum" ]] || awk "BEGIN{exit !($dom < $best_sum)}"; then
        best_sum=$dom; best_wall=$wall; cp "$WORK/dominators.err" "$WORK/best.err"
    fi
done
kept=$(sed -n 's/^timing: dominator tree kept: \([0-9]*\) bytes.*/\1/p' "$WORK/best.err")
OBJ=$(jq .objects "$WORK/summary.out")
EDGES=$(jq .edges "$WORK/summary.out")
RSS_FILE=$(jq .rss_file_bytes "$WORK/summary.out")
INDEX=$(jq .index_bytes "$WORK/summary.out")

jq -n --arg dump "$DUMP" --argjson size "$SIZE" --argjson objects "$OBJ" --argjson edges "$EDGES" \
    --argjson dom_s "$best_sum" --argjson wall_s "$best_wall" \
    --argjson rss_dom_kb "$best_rss" --argjson rss_sum_kb "$sum_rss" --argjson rss_file "$RSS_FILE" \
    --argjson kept "${kept:-0}" --argjson index "$INDEX" --arg phases "$(grep '^timing: dominators' "$WORK/best.err")" '
  { dump: $dump, bytes: $size, objects: $objects, edges: $edges,
    dominator_seconds: $dom_s, dominators_command_seconds: $wall_s,
    ns_per_object: ($dom_s * 1e9 / $objects),
    peak_anon_bytes_per_object_summary: ($rss_sum_kb * 1024 / $objects),
    peak_anon_bytes_per_object_dominators: ($rss_dom_kb * 1024 / $objects),
    index_bytes_per_object: ($index / $objects),
    dominator_tree_bytes_per_object: ($kept / $objects),
    phases: ($phases | split("\n")) }' | tee "$BENCH_DIR/dominators-result.json"
