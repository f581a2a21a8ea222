#!/usr/bin/env bash
# Makes a Raku program's MoarVM heap snapshot of about half a million collectables (the
# Raku setting alone is ~478k; the program adds NODES objects of its own in a tree, about
# 10 collectables each, default 2500) and times `heaptui dominators` on it: open, index,
# dominator tree ready.
# Writes format 2 with Debian's MoarVM and, when a MoarVM rebuilt with zstd is found
# (fixtures/moarvm/make.sh builds one in $BUILD, default /work/build-moarvm), format 3 too.
# Usage: bench/gen-large-moarvm.sh [OUT_DIR] ; env NODES, BUILD, RUNS (default 3).
# The snapshots are not committed (about 55 MB in v2, 5 MB in v3).
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m -- "${1:-/tmp/heaptui-bench}")
NODES=${NODES:-2500}
BUILD=${BUILD:-/work/build-moarvm}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
command -v raku >/dev/null || apt-get install -y -q rakudo >/dev/null
[ -x /usr/bin/time ] || apt-get install -y -q time >/dev/null
HEAPTUI=${HEAPTUI:-$ROOT/target/release/heaptui}
[ -x "$HEAPTUI" ] || (cd "$ROOT" && cargo build --release)

cat > "$OUT/bench.raku" <<RAKU
use nqp;
class BenchNode { has \$.id; has @.kids; has \$.name }
sub grow(Int \$n) {
    my @all = BenchNode.new(id => 0, name => "n0");
    for 1..^\$n -> \$i {
        my \$kid = BenchNode.new(id => \$i, name => "n\$i");
        @all[(\$i - 1) div 4].kids.push(\$kid);
        @all.push(\$kid);
    }
    @all[0]
}
my \$root = grow($NODES);
nqp::mvmstartprofile(nqp::hash('kind', 'heap', 'path', nqp::unbox_s(%*ENV<HEAP_OUT>)));
nqp::force_gc();
nqp::mvmendprofile();
say \$root.kids.elems;
RAKU

files=()
HEAP_OUT="$OUT/raku-v2.mvmheap" raku "$OUT/bench.raku" >/dev/null
files+=("$OUT/raku-v2.mvmheap")
ZSTD_LIB=$(ls -d "$BUILD"/moarvm-*/ 2>/dev/null | head -n1 || true)
if [ -n "$ZSTD_LIB" ] && [ -f "$ZSTD_LIB/libmoar.so" ]; then
    LD_LIBRARY_PATH="$ZSTD_LIB" HEAP_OUT="$OUT/raku-v3.mvmheap" raku "$OUT/bench.raku" >/dev/null
    files+=("$OUT/raku-v3.mvmheap")
fi

cp "$HEAPTUI" "$OUT/heaptui-bench"   # a private copy: a rebuild cannot swap it mid-run
for f in "${files[@]}"; do
    cat "$f" >/dev/null
    echo "== $f ($(stat -c %s "$f") bytes, $(head -c 16 "$f"))"
    "$OUT/heaptui-bench" summary "$f" --json |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("snapshot %d of %d: %d collectables, %d references; index %d bytes, %.1f per object" % (d["snapshot"], len(d["snapshots"]), d["objects"], d["edges"], d["index_bytes"], d["index_bytes_per_object"]))'
    for r in $(seq 1 "$RUNS"); do
        /usr/bin/time -f "run $r: %e s wall, %U+%S s CPU, max RSS %M KB" \
            "$OUT/heaptui-bench" dominators "$f" --top 10 >/dev/null
    done
done
