#!/usr/bin/env bash
# Makes a large Dart VM heap snapshot of the fixture program (fixtures/dart/app) run with
# ORDERS orders (default 1,500,000: about 13 M objects, a 32-bit VM), taken over the VM
# service like the fixtures (fixtures/dart/vm.sh gets the VM: npm + Debian's i386 libc),
# then times `heaptui dominators` on it with /usr/bin/time -v.
#
# Usage: bench/gen-large-dart.sh [OUT.dartheap] [ORDERS]
#   OUT default: $BENCH_DIR/dart-ORDERS.dartheap (BENCH_DIR default /tmp/heaptui-bench);
#   an existing OUT is reused, not remade. Not committed: it is hundreds of MB.
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ORDERS=${2:-1500000}
BENCH_DIR=${BENCH_DIR:-/tmp/heaptui-bench}
mkdir -p "$BENCH_DIR"
OUT=$(realpath -m -- "${1:-$BENCH_DIR/dart-$ORDERS.dartheap}")
command -v /usr/bin/time >/dev/null 2>&1 || [[ -x /usr/bin/time ]] ||
    { apt-get update -q >/dev/null; apt-get install -y -q time >/dev/null; }

if [[ ! -s "$OUT" ]]; then
    source "$ROOT/fixtures/dart/vm.sh"
    # 1009 customers, a chain of 1000 links.
    "$PY" "$ROOT/fixtures/dart/snap.py" bench "$OUT" "$ORDERS" 1009 1000 -- "${VM[@]}"
fi
ls -l "$OUT"

HEAPTUI=${HEAPTUI:-$ROOT/target/release/heaptui}
[[ -x "$HEAPTUI" ]] || (cd "$ROOT" && cargo build --release)
BIN=$(mktemp "${TMPDIR:-/tmp}/heaptui-bench-bin.XXXXXX"); trap 'rm -f "$BIN"' EXIT
cp "$HEAPTUI" "$BIN"; chmod +x "$BIN"
cat "$OUT" >/dev/null   # warm the page cache: measure parsing, not the disk
"$BIN" summary "$OUT" --json > "$BENCH_DIR/dart-summary.json"
for run in 1 2 3; do
    /usr/bin/time -v "$BIN" dominators "$OUT" --top 5 > /dev/null 2> "$BENCH_DIR/dart-time-$run.txt"
    grep -E "Elapsed|Maximum resident|User time|System time" "$BENCH_DIR/dart-time-$run.txt"
done
objects=$(grep -o '"objects":[0-9]*' "$BENCH_DIR/dart-summary.json" | head -1 | cut -d: -f2)
size=$(stat -c %s "$OUT")
echo "objects $objects, file $size bytes, $(awk -v s="$size" -v n="$objects" 'BEGIN{printf "%.1f", s/n}') file bytes per object"
grep -o '"index_bytes_per_object":[0-9.]*' "$BENCH_DIR/dart-summary.json"
