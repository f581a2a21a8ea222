#!/usr/bin/env bash
# Indexing benchmark: how fast heaptui opens and fully indexes an HPROF dump, next to
# hprof-slurp (a streaming HPROF analyser) reading the same file.
#
# Usage: bench/index.sh [DUMP] [RUNS]
#   DUMP  an .hprof file. If missing (or given as ""), uses
#         $BENCH_DIR/heap-scale$SCALE.hprof, generating it with bench/gen-large-hprof.sh
#         unless it already exists.
#   RUNS  timed runs per tool (default 3); the tools alternate, heaptui first.
#
# Environment:
#   BENCH_DIR=/tmp/heaptui-bench  where generated dumps and index-result.json go
#   SCALE=1900       gen-large-hprof.sh SCALE for a generated dump (1900 ~ 1 GB)
#   HEAPTUI=PATH     heaptui binary to time (default: target/release/heaptui, built
#                    with `cargo build --release` if missing)
#   BUILD=1          run `cargo build --release` even if the binary exists
#   SLURP=PATH       hprof-slurp binary (default: from PATH or ~/.cargo/bin)
#   CLEANUP=1        delete the dump at the end if this script generated it
#
# Each run is `heaptui summary DUMP --json` / `hprof-slurp DUMP` (its full analysis:
# every record parsed, class histogram built; report to /dev/null) under
# /usr/bin/time for wall seconds and max RSS. The page cache is warmed first, so this
# measures parsing and indexing, not the disk. MB = 10^6 bytes throughout.
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1

usage() { sed -n '2,23p' "$0" >&2; exit 2; }
[[ $# -le 2 ]] || usage
[[ "${1:-}" != -h && "${1:-}" != --help ]] || usage

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'bench/index: %s\n' "$*" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$(realpath -m -- "${BENCH_DIR:-/tmp/heaptui-bench}")
SCALE=${SCALE:-1900}
RUNS=${2:-3}
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"
[[ "$SCALE" =~ ^[1-9][0-9]*$ ]] || die "SCALE must be a positive integer (got '$SCALE')"
command -v jq >/dev/null || die "jq not found (apt-get install jq)"
mkdir -p "$BENCH_DIR"

# --- /usr/bin/time ---------------------------------------------------------------
if [[ ! -x /usr/bin/time ]]; then
    log "/usr/bin/time missing: installing package 'time'"
    if [[ $(id -u) -eq 0 ]]; then
        apt-get install -y time >/dev/null || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
    else
        sudo apt-get install -y time >/dev/null
    fi
    [[ -x /usr/bin/time ]] || die "could not install /usr/bin/time"
fi

# --- the dump --------------------------------------------------------------------
GENERATED=0
if [[ -n "${1:-}" ]]; then
    DUMP=$(realpath -- "$1") || die "no such file: $1"
    [[ -f "$DUMP" ]] || die "not a file: $1"
else
    DUMP="$BENCH_DIR/heap-scale$SCALE.hprof"
    if [[ -f "$DUMP" ]]; then
        log "reusing $DUMP"
    else
        log "generating $DUMP (SCALE $SCALE, ~$(( SCALE * 528 / 1000 )) MB); this takes a few minutes"
        "$ROOT/bench/gen-large-hprof.sh" "$DUMP.part" "$SCALE"
        mv "$DUMP.part" "$DUMP"
        GENERATED=1
    fi
fi
SIZE=$(stat -c %s "$DUMP")

# --- heaptui ---------------------------------------------------------------------
HEAPTUI=${HEAPTUI:-$ROOT/target/release/heaptui}
if [[ "${BUILD:-0}" == 1 || ! -x "$HEAPTUI" ]]; then
    [[ "$HEAPTUI" == "$ROOT/target/release/heaptui" ]] || die "HEAPTUI=$HEAPTUI is not executable"
    log "building heaptui: cargo build --release (in $ROOT)"
    (cd "$ROOT" && cargo build --release)
fi
[[ -x "$HEAPTUI" ]] || die "no heaptui binary at $HEAPTUI"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/heaptui-bench-index.XXXXXX")
cleanup() {
    rm -rf "$WORK"
    if [[ "${CLEANUP:-0}" == 1 && "$GENERATED" == 1 ]]; then rm -f "$DUMP"; fi
}
trap cleanup EXIT
# Time a private copy, so a concurrent rebuild of target/ cannot swap it mid-benchmark.
cp "$HEAPTUI" "$WORK/heaptui"
HEAPTUI_SHA=$(sha256sum "$WORK/heaptui" | cut -c1-16)
GIT_REV=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)

# --- hprof-slurp -----------------------------------------------------------------
SLURP=${SLURP:-$(command -v hprof-slurp || true)}
[[ -n "$SLURP" || ! -x "$HOME/.cargo/bin/hprof-slurp" ]] || SLURP="$HOME/.cargo/bin/hprof-slurp"
if [[ -z "$SLURP" || ! -x "$SLURP" ]]; then
    log "NOTE: hprof-slurp not installed, timing heaptui alone (\`cargo install hprof-slurp\` installs it)"
    SLURP=""
    SLURP_VERSION=""
else
    SLURP_VERSION=$("$SLURP" --version 2>/dev/null | awk '{print $2}')
fi

# --- runs ------------------------------------------------------------------------
log "dump: $DUMP ($SIZE bytes); warming the page cache"
cat "$DUMP" >/dev/null

# run NAME I CMD...: times CMD; stdout to $WORK/NAME.I.out, stderr to .err, and
# "wall maxrss_kb user sys" to .time. Fails the benchmark if CMD fails.
run() {
    local name=$1 i=$2; shift 2
    local base="$WORK/$name.$i" wall rss_kb user sys
    if ! /usr/bin/time -f '%e %M %U %S' -o "$base.time" "$@" >"$base.out" 2>"$base.err"; then
        cat "$base.err" >&2
        die "$name run $i failed: $*"
    fi
    read -r wall rss_kb user sys <"$base.time"
    log "$(printf '%-11s run %d: %6.2f s wall, %7.1f MB max RSS, %6.2f s user+sys' \
        "$name" "$i" "$wall" "$(awk -v k="$rss_kb" 'BEGIN{print k*1024/1e6}')" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')")"
}

for ((i = 1; i <= RUNS; i++)); do
    run heaptui "$i" "$WORK/heaptui" summary "$DUMP" --json
    jq -e . "$WORK/heaptui.$i.out" >/dev/null || die "heaptui run $i printed no valid JSON"
    if [[ -s "$WORK/heaptui.$i.err" ]]; then
        log "heaptui run $i stderr:"; sed 's/^/   | /' "$WORK/heaptui.$i.err" >&2
    fi
    if [[ -n "$SLURP" ]]; then
        # Its report is on stdout (discarded); stderr holds only the timing line.
        run hprof-slurp "$i" "$SLURP" "$DUMP"
        : >"$WORK/hprof-slurp.$i.out"
    fi
done

# --- results ---------------------------------------------------------------------
# Per-tool JSON: runs (wall, RSS, CPU), best wall, MB/s at best wall, max RSS over runs.
tool_json() {
    local name=$1 i wall rss_kb user sys
    for ((i = 1; i <= RUNS; i++)); do
        read -r wall rss_kb user sys <"$WORK/$name.$i.time"
        jq -n --argjson w "$wall" --argjson r "$rss_kb" --argjson u "$user" --argjson s "$sys" \
            '{wall_s: $w, max_rss_bytes: ($r * 1024), cpu_s: (($u + $s) * 100 | round / 100)}'
    done | jq -s --argjson size "$SIZE" '{
        runs: .,
        best_wall_s: (map(.wall_s) | min),
        mb_per_s: ($size / 1e6 / (map(.wall_s) | min) * 10 | round / 10),
        max_rss_bytes: (map(.max_rss_bytes) | max)
    }'
}

HT=$(tool_json heaptui)
# heaptui's own figures, from its fastest run.
best_i=$(jq -r '.runs | to_entries | min_by(.value.wall_s) | .key + 1' <<<"$HT")
HT=$(jq --slurpfile s "$WORK/heaptui.$best_i.out" '. + {summary: ($s[0] | {
        objects, edges, index_bytes, index_bytes_per_object, rss_anon_bytes, rss_file_bytes,
        warnings})}' <<<"$HT")
if [[ -n "$SLURP" ]]; then SL=$(tool_json hprof-slurp); else SL=null; fi

RESULT=$(jq -n --argjson ht "$HT" --argjson sl "$SL" --arg dump "$DUMP" --argjson size "$SIZE" \
    --argjson runs "$RUNS" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    --arg host "$(uname -srm)" --argjson cpus "$(nproc)" \
    --argjson mem "$(awk '/MemTotal/{print $2 * 1024}' /proc/meminfo)" \
    --arg rev "$GIT_REV" --arg sha "$HEAPTUI_SHA" --arg slv "$SLURP_VERSION" \
    --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '{
        date: $date, machine: {kernel: $host, cpus: $cpus, mem_bytes: $mem, loadavg_after: $load},
        dump: $dump, dump_bytes: $size, runs: $runs,
        heaptui: ($ht + {git: $rev, binary_sha256_16: $sha}),
        "hprof-slurp": (if $sl == null then null else $sl + {version: $slv} end),
        mb_per_s_ratio_heaptui_over_hprof_slurp:
            (if $sl == null then null else ($ht.mb_per_s / $sl.mb_per_s * 100 | round / 100) end)
    }')
OUT_JSON="$BENCH_DIR/index-result.json"
printf '%s\n' "$RESULT" >"$OUT_JSON"

# --- table -----------------------------------------------------------------------
jq -r '"dump: \(.dump) (\(.dump_bytes / 1e6 | round) MB), best of \(.runs) runs, \(.machine.cpus) CPUs, \(.date)"' <<<"$RESULT"
jq -r '
    def mb: . / 1e6 | . * 10 | round / 10;
    def row($name; $t): "\($name)\t\($t.best_wall_s)\t\($t.mb_per_s)\t\($t.max_rss_bytes | mb)";
    "tool\tbest wall s\tMB/s\tmax RSS MB",
    row("heaptui"; .heaptui),
    (if .["hprof-slurp"] then row("hprof-slurp"; .["hprof-slurp"]) else "hprof-slurp\t-\t-\t(not installed)" end)
' <<<"$RESULT" | column -t -s $'\t' | sed 's/^/  /'
jq -r '
    def mb: . / 1e6 | . * 10 | round / 10;
    (.heaptui.summary |
        "heaptui: objects \(.objects), edges \(.edges), index \(.index_bytes | mb) MB = \(.index_bytes_per_object) B/object, rss_anon \(.rss_anon_bytes | mb) MB, rss_file \(.rss_file_bytes | mb) MB"),
    (if .mb_per_s_ratio_heaptui_over_hprof_slurp then
        "ratio: heaptui MB/s / hprof-slurp MB/s = \(.mb_per_s_ratio_heaptui_over_hprof_slurp)" else empty end)
' <<<"$RESULT"
log "wrote $OUT_JSON"
if [[ "$GENERATED" == 1 && "${CLEANUP:-0}" != 1 ]]; then
    log "kept the generated dump $DUMP ($SIZE bytes) for reuse; delete it when done"
fi
