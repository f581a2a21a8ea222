#!/usr/bin/env bash
# Issue 41: what an SQL engine costs heaptui before it is taken. For each probe in
# bench/sql-engines/ (DataFusion, SQLite with a virtual table): the release build's time
# from nothing (its own target directory, so nothing is shared with heaptui's), the
# stripped binary's size, and the acceptance's query over 50 M synthetic objects
# (`SELECT class, count(*), sum(retained) FROM objects GROUP BY class ORDER BY 3 DESC
# LIMIT 10`, 5,000 classes), with the peak RSS. heaptui's own stripped binary is given
# beside them. Run it on an idle machine: the build times are two cores' worth.
#
# Usage: bench/sql-engines.sh [ROWS]      (default 50000000)
#   FEATURES=parquet adds Parquet to the DataFusion probe; PROBES="sqlite" runs only the
#   ones named (default "datafusion sqlite").
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$(realpath -m -- "${BENCH_DIR:-/tmp/heaptui-bench}")
ROWS=${1:-50000000}
mkdir -p "$BENCH_DIR/sql-engines"
size() { local t; t=$(mktemp); cp "$1" "$t"; strip "$t"; stat -c %s "$t"; rm -f "$t"; }
for probe in ${PROBES:-datafusion sqlite}; do
    dir="$ROOT/bench/sql-engines/$probe"
    target="$BENCH_DIR/sql-engines/target-$probe"
    rm -rf "$target"
    feat=()
    if [[ $probe == datafusion && -n "${FEATURES:-}" ]]; then feat=(--features "$FEATURES"); fi
    start=$(date +%s.%N)
    (cd "$dir" && CARGO_TARGET_DIR="$target" cargo build --release -q "${feat[@]}")
    built=$(echo "$(date +%s.%N) - $start" | bc)
    bin="$target/release/probe-$probe"
    echo "$probe: build ${built} s, stripped $(size "$bin") bytes"
    /usr/bin/time -f "$probe: peak RSS %M KB, %e s in all" "$bin" "$ROWS"
done
(cd "$ROOT" && cargo build --release -q)
echo "heaptui: stripped $(size "$ROOT/target/release/heaptui") bytes"
