#!/usr/bin/env bash
# Issue 41's figures: heaptui's SQL on a large HPROF dump from its cache entry, beside
# hprof-analyzer's OQL on the same questions (from its own disk cache), and
# `export --parquet` beside `dominators` on the same dump.
#
# Usage: bench/query.sh [DUMP] [RUNS]
#   DUMP  an .hprof made by bench/gen-large-hprof.sh (default
#         $BENCH_DIR/heap-scale4500.hprof: 50.4 M objects, 5,566,500 sessions)
#   RUNS  timed runs of each query (default 3); every time is printed
#
# Environment: BENCH_DIR (/tmp/heaptui-bench), HEAPTUI (target/release/heaptui),
# HEAPTUI_CACHE_DIR (default $BENCH_DIR/query-cache: made on the first run, then reused),
# PEERS=0 leaves hprof-analyzer out, EXPORT=0 leaves the export out.
#
# The questions:
#   group    the acceptance's GROUP BY class with count and retained, top 10
#   strings  a LIKE '%…%' over every string's text (a text no string holds: the whole
#            scan), with the string bytes scanned, so the rate is text bytes per second
#   join     refs joined with objects on the 5.5 M Session instances: their referrers by
#            class
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$(realpath -m -- "${BENCH_DIR:-/tmp/heaptui-bench}")
DUMP=${1:-$BENCH_DIR/heap-scale4500.hprof}
RUNS=${2:-3}
HEAPTUI=${HEAPTUI:-$ROOT/target/release/heaptui}
export HEAPTUI_CACHE_DIR=${HEAPTUI_CACHE_DIR:-$BENCH_DIR/query-cache}
unset HEAPTUI_NO_CACHE
[[ -f "$DUMP" ]] || { echo "bench/query: no $DUMP (bench/gen-large-hprof.sh makes one)" >&2; exit 1; }
[[ -x "$HEAPTUI" ]] || (cd "$ROOT" && cargo build --release -q)
log() { printf '== %s\n' "$*" >&2; }

timed() { # label, command...: prints "label: S s, peak RSS M MB" and the output's head
    local label=$1; shift
    local t; t=$(mktemp)
    /usr/bin/time -f "%e %M" -o "$t" "$@" > "$t.out" 2> "$t.err" || { cat "$t.err" >&2; }
    read -r secs kb < <(tail -1 "$t")
    printf '%-28s %7.2f s  peak RSS %6d MB\n' "$label" "$secs" $((kb / 1024))
    head -4 "$t.out" | sed 's/^/      /'
    rm -f "$t" "$t.out" "$t.err"
}

cat "$DUMP" > /dev/null
log "cache entry and kept tree (first run only)"
timed "dominators (fills the cache)" "$HEAPTUI" dominators "$DUMP" --top 1 --json

GROUP="SELECT class, count(*), sum(retained) FROM objects GROUP BY class ORDER BY 3 DESC LIMIT 10"
STRINGS="SELECT count(*) AS n, sum(octet_length(text)) AS text_bytes FROM strings WHERE text LIKE '%heaptui-needle-not-there%'"
STRING_BYTES="SELECT count(*) AS n, sum(octet_length(text)) AS text_bytes FROM strings"
JOIN="SELECT o.class, count(*) AS refs FROM objects t JOIN refs r ON r.dst_n = t.n JOIN objects o ON o.n = r.src_n WHERE t.class = 'dev.heaptui.fixture.Session' GROUP BY o.class ORDER BY 2 DESC"

log "heaptui query, from the cache entry ($RUNS runs each)"
timed "strings: text bytes" "$HEAPTUI" query "$DUMP" "$STRING_BYTES"
for i in $(seq "$RUNS"); do
    timed "group (run $i)" "$HEAPTUI" query "$DUMP" "$GROUP"
    timed "strings LIKE (run $i)" "$HEAPTUI" query "$DUMP" "$STRINGS"
    timed "join (run $i)" "$HEAPTUI" query "$DUMP" "$JOIN"
done

if [[ "${PEERS:-1}" != 0 ]] && command -v hprof-analyzer >/dev/null; then
    log "hprof-analyzer $(hprof-analyzer --version 2>/dev/null | head -1): OQL from its disk cache"
    timed "hprof-analyzer heap load" hprof-analyzer heap load --with-graph "$DUMP"
    OQL_GROUP='SELECT classof(x) AS class, COUNT(*) AS n, SUM(@retainedHeapSize) AS ret FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY ret DESC LIMIT 10'
    # OQL has no LIKE: the nearest is an equality over every String's text.
    OQL_STRINGS='SELECT COUNT(*) AS n FROM java.lang.String s WHERE toString(s) = "heaptui-needle-not-there"'
    # OQL cannot group the referrers by class (a FROM-subquery must select whole objects;
    # `x IN (SELECT @objectAddress FROM …Session)` panicked in 0.3.2 on the fixture): the
    # nearest is every session's referrers, listed.
    OQL_JOIN='SELECT s.@inbounds FROM dev.heaptui.fixture.Session s'
    for i in $(seq "$RUNS"); do
        timed "oql group (run $i)" hprof-analyzer heap query --oql "$OQL_GROUP" "$DUMP"
        timed "oql strings = (run $i)" hprof-analyzer heap query --oql "$OQL_STRINGS" "$DUMP"
        timed "oql inbounds (run $i)" hprof-analyzer heap query --oql "$OQL_JOIN" "$DUMP"
    done
fi

if [[ "${EXPORT:-1}" != 0 ]]; then
    log "export --parquet beside dominators, both without the cache (HEAPTUI_NO_CACHE=1)"
    out=$(mktemp -d "$BENCH_DIR/parquet.XXXX")
    HEAPTUI_NO_CACHE=1 timed "dominators --no-cache" "$HEAPTUI" dominators "$DUMP" --top 10 --json
    HEAPTUI_NO_CACHE=1 timed "export --parquet --no-cache" "$HEAPTUI" export "$DUMP" --parquet "$out"
    timed "export --parquet (cache)" "$HEAPTUI" export "$DUMP" --parquet "$out"
    du -sh "$out"/*.parquet | sed 's/^/      /'
    rm -rf "$out"
fi
