#!/usr/bin/env bash
# Input-to-draw latency of the TUI on a large dump: builds examples/tui_latency.rs, which
# opens DUMP, builds the dominator tree, then walks the leak hunt key by key through the
# same event handling and drawing as the binary (into a 200x50 TestBackend) and prints,
# per step, the slowest key from input to finished frame, as JSON; then `g` on the widest
# node of the dominator tree, and the instance filter's first matches and all of them.
#
# Usage: bench/tui-latency.sh [DUMP] [CLASS]
#   DUMP   default $BENCH_DIR/heap-scale1900.hprof (made by gen-large-hprof.sh if missing)
#   CLASS  the class the walk filters to and opens (default dev.heaptui.fixture.Session,
#          2.35 M instances in the SCALE 1900 dump)
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$(realpath -m -- "${BENCH_DIR:-/tmp/heaptui-bench}")
DUMP=${1:-$BENCH_DIR/heap-scale1900.hprof}
CLASS=${2:-dev.heaptui.fixture.Session}
if [[ ! -f "$DUMP" ]]; then
    mkdir -p "$BENCH_DIR"
    "$ROOT/bench/gen-large-hprof.sh" "$DUMP.part" 1900
    mv "$DUMP.part" "$DUMP"
fi
(cd "$ROOT" && cargo build --release -q --example tui_latency)
cat "$DUMP" > /dev/null
"$ROOT/target/release/examples/tui_latency" "$DUMP" "$CLASS" | tee "$BENCH_DIR/tui-latency-result.json"
