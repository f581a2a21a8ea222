#!/usr/bin/env bash
# Makes a large, real V8 heap snapshot (Node's own v8.writeHeapSnapshot) for benchmarks,
# by running bench/gen-large-v8.js, which builds an object graph of its own classes
# (Store, Region, Customer, Address, Order, LineItem, Product, Category, Tag, EventNode;
# Maps, Sets, arrays, strings, closures, linked lists, shared objects; see its header).
#
# Usage: bench/gen-large-v8.sh OUT.heapsnapshot [NODES_MILLIONS]
#   NODES_MILLIONS (default 6; decimals allowed) is the least number of snapshot nodes
#   wanted. The number of customers to build is calibrated first by two small runs
#   (0 and 20,000 customers; ~15 s) unless CALIBRATE=0, which uses the figures measured
#   with Node 20.20: 50,764 nodes + 37.75 nodes per customer. A 1% margin is added.
#   Measured (Node 20.20, x86-64, 2 cores), ~3.45 edges per node:
#     6 M:    6,085,025 nodes, 507 MB (83 bytes/node), 36 s, peak RSS 2.2 GB
#     52 M:  52,838,376 nodes, 4.55 GB (86 bytes/node), 433 s (snapshot 396 s),
#            peak RSS 18.2 GB -- V8's snapshot generator needs ~330 bytes per node on
#            top of the JS heap (~50 bytes per node), so > 4 GiB needs ~20 GB of RAM.
#   For > 4 GiB files on smaller machines use bench/gen-large-v8-synthetic.js.
#
# Environment:
#   NODE=node         the Node binary (Node 20 writes 7 node fields)
#   HEAP_MB=          --max-old-space-size (default: 2 x the expected heap + 1 GB)
#   CALIBRATE=1       0 skips the calibration runs
#   REPORT=FILE       also write the result JSON line to FILE
#
# Prints the generator's JSON line (node_count, edge_count, bytes, build/gc/snapshot
# seconds) and a summary with wall time and the peak RSS of the Node process (from
# /usr/bin/time). The snapshot holds the whole graph: Node's own heap (~50 k nodes) plus
# ~38 nodes per customer.
set -euo pipefail

usage() { sed -n '2,28p' "$0" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
[[ "$1" != -h && "$1" != --help ]] || usage
die() { printf 'gen-large-v8: %s\n' "$*" >&2; exit 1; }
log() { printf '== %s\n' "$*" >&2; }

OUT=$(realpath -m -- "$1")
MILLIONS=${2:-6}
[[ "$MILLIONS" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "NODES_MILLIONS must be a number (got '$MILLIONS')"
NODE=${NODE:-node}
command -v "$NODE" >/dev/null || die "$NODE not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GEN="$ROOT/bench/gen-large-v8.js"
mkdir -p "$(dirname "$OUT")"

WANT=$(awk -v m="$MILLIONS" 'BEGIN { printf "%d", m * 1000000 }')

BASE=50764
PER=37.75
if [[ "${CALIBRATE:-1}" != 0 ]]; then
    CAL=$(mktemp -d "$(dirname "$OUT")/.gen-large-v8-cal.XXXXXX")
    trap 'rm -rf "$CAL"' EXIT
    log "calibrating (0 and 20000 customers)"
    n0=$("$NODE" --expose-gc "$GEN" "$CAL/a.heapsnapshot" 0 | sed -n 's/.*"node_count":\([0-9]*\).*/\1/p')
    rm -f "$CAL/a.heapsnapshot"
    n1=$("$NODE" --expose-gc "$GEN" "$CAL/b.heapsnapshot" 20000 | sed -n 's/.*"node_count":\([0-9]*\).*/\1/p')
    rm -f "$CAL/b.heapsnapshot"
    [[ -n "$n0" && -n "$n1" ]] || die "calibration runs failed"
    BASE=$n0
    PER=$(awk -v a="$n0" -v b="$n1" 'BEGIN { printf "%.4f", (b - a) / 20000 }')
    log "calibration: $n0 nodes at 0 customers, $PER nodes per customer"
fi
UNITS=$(awk -v w="$WANT" -v b="$BASE" -v p="$PER" \
    'BEGIN { u = (w - b) / p * 1.01; if (u < 0) u = 0; printf "%d", u + 1 }')
# ~1.85 KB of JS heap per customer (measured); give V8 twice that plus 1 GB.
HEAP_MB=${HEAP_MB:-$(awk -v u="$UNITS" 'BEGIN { printf "%d", u * 1900 * 2 / 1048576 + 1024 }')}
log "building $UNITS customers for >= $WANT nodes (--max-old-space-size=$HEAP_MB) -> $OUT"

TIMEF=$(mktemp)
start=$(date +%s.%N)
set +e
/usr/bin/time -f '%e %M' -o "$TIMEF" \
    "$NODE" --expose-gc --max-old-space-size="$HEAP_MB" "$GEN" "$OUT" "$UNITS" ${REPORT:+"$REPORT"}
rc=$?
set -e
read -r wall maxrss < <(tail -n 1 "$TIMEF")
rm -f "$TIMEF"
[[ $rc -eq 0 ]] || die "node exited with $rc after ${wall}s (max RSS ${maxrss} kB)"
nodes=$(sed -n 's/.*"node_count":\([0-9]*\).*/\1/p' <<<"$(head -c 4096 "$OUT")")
edges=$(sed -n 's/.*"edge_count":\([0-9]*\).*/\1/p' <<<"$(head -c 4096 "$OUT")")
size=$(stat -c %s "$OUT")
printf 'snapshot %s\n  nodes %s, edges %s, %s bytes (%.1f MB, %.1f bytes/node)\n  node process: %s s wall, max RSS %.0f MB\n' \
    "$OUT" "$nodes" "$edges" "$size" "$(awk -v s="$size" 'BEGIN{print s/1e6}')" \
    "$(awk -v s="$size" -v n="$nodes" 'BEGIN{print s/n}')" "$wall" "$(awk -v k="$maxrss" 'BEGIN{print k/1024}')"
(( nodes >= WANT )) || log "warning: only $nodes nodes (< $WANT wanted)"
