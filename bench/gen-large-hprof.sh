#!/usr/bin/env bash
# Makes a large, real JDK 17 heap dump for benchmarks, from the fixture program in
# fixtures/java/src (see fixtures/java/README.md for what it holds).
#
# Usage: bench/gen-large-hprof.sh OUT.hprof [SCALE]
#   SCALE (default 2000) multiplies the Session/Order/Customer/ChainNode populations
#   (1237/777/311/503 per unit of SCALE); the rest of the population is fixed.
#   Measured (JDK 17.0.15, G1, compressed oops): dump = 7.4 MB + 0.528 MB per unit of
#   SCALE, about 11,190 objects per unit. SCALE 200 -> 113 MB (2.26 M objects),
#   1000 -> 535 MB (11.2 M), 2000 -> 1.06 GB (22.4 M), 6000 -> 3.22 GB (67.2 M).
#   So ~1 GB is SCALE 1900 (2020 for 1 GiB) and ~3 GB is SCALE 5700 (6100 for 3 GiB).
#
# Environment:
#   HEAP=8g      -Xmx/-Xms for the JVM (default: 8g). The live heap is about 0.39 MB per
#                unit of SCALE (2.3 GB at 6000); raise HEAP for SCALE above ~15000.
#   JAVA_OPTS=   extra JVM options, e.g. "-XX:-UseCompressedOops -XX:-UseCompressedClassPointers"
#   HISTO=FILE   also write `jcmd GC.class_histogram` taken right after the dump to FILE
#   READY_TIMEOUT=1800  seconds to wait for the program's "ready" line
#
# The dump is written plain (not gzipped). Needs java, javac, jcmd.
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1

usage() { sed -n '2,21p' "$0" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
[[ "$1" != -h && "$1" != --help ]] || usage

OUT=$(realpath -m -- "$1")
SCALE=${2:-2000}
[[ "$SCALE" =~ ^[1-9][0-9]*$ ]] || { echo "gen-large-hprof: SCALE must be a positive integer" >&2; exit 2; }
HEAP=${HEAP:-8g}
READY_TIMEOUT=${READY_TIMEOUT:-1800}
HISTO=${HISTO:-}
[[ -z "$HISTO" ]] || HISTO=$(realpath -m -- "$HISTO")

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/fixtures/java/src"
MAIN_CLASS=dev.heaptui.fixture.Main

for tool in java javac jcmd; do
    command -v "$tool" >/dev/null || { echo "gen-large-hprof: $tool not found" >&2; exit 1; }
done
mkdir -p "$(dirname "$OUT")"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/heaptui-gen-hprof.XXXXXX")
JPID=""
cleanup() {
    # Only ever stop the JVM this script started, by its pid.
    if [[ -n "$JPID" ]] && kill -0 "$JPID" 2>/dev/null; then
        kill "$JPID" 2>/dev/null || true
        wait "$JPID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'gen-large-hprof: %s\n' "$*" >&2; exit 1; }

mapfile -t SOURCES < <(find "$SRC" -name '*.java' | sort)
javac -encoding UTF-8 --release 17 -d "$WORK/out" "${SOURCES[@]}"

mkfifo "$WORK/stdin"
# shellcheck disable=SC2086  # JAVA_OPTS is split on purpose
log "starting: java -Xms$HEAP -Xmx$HEAP ${JAVA_OPTS:-} -cp out $MAIN_CLASS $SCALE"
start=$(date +%s)
java -Xms"$HEAP" -Xmx"$HEAP" ${JAVA_OPTS:-} -cp "$WORK/out" "$MAIN_CLASS" "$SCALE" \
    <"$WORK/stdin" >"$WORK/stdout.txt" 2>"$WORK/stderr.txt" &
JPID=$!
exec 3>"$WORK/stdin"   # keep the JVM's stdin open until we send the quit line

waited=0
while ! grep -qx ready "$WORK/stdout.txt" 2>/dev/null; do
    if ! kill -0 "$JPID" 2>/dev/null; then
        cat "$WORK/stdout.txt" "$WORK/stderr.txt" >&2
        die "JVM exited before ready (out of memory? try a larger HEAP)"
    fi
    (( waited < READY_TIMEOUT * 10 )) || die "no 'ready' after ${READY_TIMEOUT}s"
    sleep 0.1
    waited=$((waited + 1))
done
pid=$(grep -Ex '[0-9]+' "$WORK/stdout.txt" | head -n1)
[[ -n "$pid" ]] || die "program printed no pid"
log "ready after $(( $(date +%s) - start ))s, pid $pid"
grep -E '^(scale|count|blob|strings) ' "$WORK/stdout.txt" >&2

t0=$(date +%s)
jcmd "$pid" GC.heap_dump -overwrite "$OUT" | tee "$WORK/dump.log" >&2
grep -q 'Heap dump file created' "$WORK/dump.log" || die "jcmd did not create the dump"
log "dump took $(( $(date +%s) - t0 ))s"
if [[ -n "$HISTO" ]]; then
    jcmd "$pid" GC.class_histogram >"$HISTO"
    log "histogram (right after the dump) in $HISTO"
fi

echo quit >&3
exec 3>&-
wait "$JPID" || die "JVM exited with status $?"
JPID=""
grep -q 'OutOfMemoryError' "$WORK/stderr.txt" && die "JVM reported OutOfMemoryError"

log "wrote $OUT ($(stat -c %s "$OUT") bytes, SCALE $SCALE)"
