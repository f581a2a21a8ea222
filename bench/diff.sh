#!/usr/bin/env bash
# Times `heaptui diff BASE TARGET` on two large dumps, both indexes and both dominator
# trees in memory at once (the TUI's diff view holds the same), and prints wall time,
# max RSS and the top owners.
#
# Usage: bench/diff.sh [BASE TARGET]
#   Default: two real JDK 17 dumps of the fixture program made by gen-large-hprof.sh at
#   SCALE 1500 (~0.8 GB, ~16.8 M objects) and SCALE 1900 (~1 GB, ~21.3 M objects) in
#   BENCH_DIR (default /tmp/heaptui-bench), generated when missing. The populations
#   differ by SCALE, so the owners that grew are the fixture's collections
#   (SessionStore.sessions, Main.ORDERS, the chain).
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/heaptui-bench}
mkdir -p "$BENCH_DIR"
if [[ $# -eq 2 ]]; then
    A=$1; B=$2
else
    A=$BENCH_DIR/heap-scale1500.hprof
    B=$BENCH_DIR/heap-scale1900.hprof
    [[ -f $A ]] || "$ROOT/bench/gen-large-hprof.sh" "$A" 1500
    [[ -f $B ]] || "$ROOT/bench/gen-large-hprof.sh" "$B" 1900
fi
(cd "$ROOT" && cargo build --release -q)
BIN=$ROOT/target/release/heaptui
# Warm the page cache so both runs read from memory.
cat "$A" "$B" >/dev/null
for run in 1 2; do
    /usr/bin/time -f "run $run: %e s wall, %M KB max RSS" \
        "$BIN" diff "$A" "$B" --owners 5 --sort delta-retained --top 5 > "$BENCH_DIR/diff-out.txt"
done
cat "$BENCH_DIR/diff-out.txt"
echo "objects: $("$BIN" summary "$A" --json | sed -n 's/.*"objects": *\([0-9]*\).*/\1/p') + $("$BIN" summary "$B" --json | sed -n 's/.*"objects": *\([0-9]*\).*/\1/p')"
