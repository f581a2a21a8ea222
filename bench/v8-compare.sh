#!/usr/bin/env bash
# Compares heaptui's dominator tree of a V8 heap snapshot with memlab's, on the same file.
#
# Usage: bench/v8-compare.sh [SNAPSHOT]
#   SNAPSHOT  a .heapsnapshot file. Default: $BENCH_DIR/v8-6m.heapsnapshot, generated
#             with bench/gen-large-v8.sh (6 M nodes, ~500 MB) if it does not exist.
#
# Environment: BENCH_DIR (/tmp/heaptui-bench), TOP (100), HEAPTUI (default
# target/release/heaptui; built with cargo if missing, BUILD=1 forces a build),
# MEMLAB_DIR (/tmp/heaptui-bench/memlab; installed there with npm if missing),
# MEMLAB_HEAP_MB (--max-old-space-size for memlab's node, default 16384),
# NODE (node), OUT (result file, default $BENCH_DIR/v8-compare-result.json).
#
# Runs, each under /usr/bin/time -f '%e %M' (wall seconds, max RSS), after warming the
# page cache:
#   (b) heaptui dominators SNAPSHOT --json --flat --top TOP
#       -> {"objects":[{"object":"@<id>","class":..,"shallow_bytes":..,"retained_bytes":..}]}
#   (a) node bench/v8-memlab-top.js SNAPSHOT TOP IDS  (memlab's loader and its
#       Lengauer-Tarjan dominators; IDS = heaptui's ids, so memlab's figures for ids only
#       heaptui listed are known too)
# and compares the two top-TOP lists by node id: ids in common, how many of those have
# identical retained sizes, the mismatches (id, name, memlab retained, heaptui retained),
# and the ids only one side listed (with memlab's retained size where known, and whether
# it ties memlab's cut-off). memlab's list excludes only the synthetic root (id 1), the
# root of its dominator tree; see bench/v8-memlab-top.js. If either tool fails, the other
# side is still printed and the failure is reported. Writes everything to OUT.
set -euo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1

usage() { sed -n '2,26p' "$0" >&2; exit 2; }
[[ $# -le 1 ]] || usage
[[ "${1:-}" != -h && "${1:-}" != --help ]] || usage
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'bench/v8-compare: %s\n' "$*" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$(realpath -m -- "${BENCH_DIR:-/tmp/heaptui-bench}")
TOP=${TOP:-100}
NODE=${NODE:-node}
MEMLAB_DIR=${MEMLAB_DIR:-$BENCH_DIR/memlab}
MEMLAB_HEAP_MB=${MEMLAB_HEAP_MB:-16384}
OUT=${OUT:-$BENCH_DIR/v8-compare-result.json}
[[ "$TOP" =~ ^[1-9][0-9]*$ ]] || die "TOP must be a positive integer"
if ! command -v jq >/dev/null; then
    log "installing jq"
    apt-get install -y jq >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y jq >/dev/null; }
fi
[[ -x /usr/bin/time ]] || apt-get install -y time >/dev/null
command -v "$NODE" >/dev/null || die "$NODE not found"
mkdir -p "$BENCH_DIR"

if [[ -n "${1:-}" ]]; then
    SNAP=$(realpath -- "$1") || die "no such file: $1"
else
    SNAP="$BENCH_DIR/v8-6m.heapsnapshot"
    if [[ ! -f "$SNAP" ]]; then
        log "generating $SNAP (6 M nodes; about a minute)"
        "$ROOT/bench/gen-large-v8.sh" "$SNAP.part" 6 >&2
        mv "$SNAP.part" "$SNAP"
    fi
fi
SIZE=$(stat -c %s "$SNAP")

if [[ ! -d "$MEMLAB_DIR/node_modules/@memlab/core" ]]; then
    log "installing memlab into $MEMLAB_DIR"
    mkdir -p "$MEMLAB_DIR"
    (cd "$MEMLAB_DIR" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab >&2)
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/heaptui-v8-compare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

HEAPTUI=${HEAPTUI:-$ROOT/target/release/heaptui}
if [[ "${BUILD:-0}" == 1 || ! -x "$HEAPTUI" ]]; then
    (cd "$ROOT" && cargo build --release >&2) || log "cargo build failed"
fi
if [[ -x "$HEAPTUI" ]]; then
    cp "$HEAPTUI" "$WORK/heaptui" # a private copy: a concurrent rebuild cannot swap it
fi

log "warming the page cache ($((SIZE / 1000000)) MB)"
cat "$SNAP" >/dev/null

# --- heaptui ------------------------------------------------------------------------
H_OK=false; H_ERR=""; H_WALL=null; H_RSS=null
echo '{"objects":[]}' >"$WORK/heaptui.json"
if [[ ! -x "$WORK/heaptui" ]]; then
    H_ERR="no heaptui binary at $HEAPTUI"
else
    log "heaptui dominators --json --flat --top $TOP"
    if /usr/bin/time -f '%e %M' -o "$WORK/heaptui.time" "$WORK/heaptui" dominators "$SNAP" \
        --json --flat --top "$TOP" >"$WORK/heaptui.out" 2>"$WORK/heaptui.err"; then
        if jq -e '.objects | type == "array"' "$WORK/heaptui.out" >/dev/null 2>&1; then
            H_OK=true
            cp "$WORK/heaptui.out" "$WORK/heaptui.json"
        else
            H_ERR="output is not {\"objects\":[...]}: $(head -c 300 "$WORK/heaptui.out")"
        fi
    else
        H_ERR="exit $?: $(tail -n 5 "$WORK/heaptui.err" | head -c 600)"
    fi
    if [[ -s "$WORK/heaptui.time" ]]; then
        read -r H_WALL H_RSS < <(grep -E '^[0-9.]+ [0-9]+$' "$WORK/heaptui.time" | tail -n 1) || true
        H_WALL=${H_WALL:-null}; H_RSS=${H_RSS:-null}
    fi
fi
$H_OK || log "heaptui failed: $H_ERR"

# heaptui's ids ("@123" or "@0x7b") as decimal numbers, for memlab's lookup
jq -r '
  def hex: ascii_downcase | ltrimstr("0x") | explode
           | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
  .objects[] | .object | tostring | ltrimstr("@")
  | if startswith("0x") or startswith("0X") then hex else tonumber? // empty end' \
  "$WORK/heaptui.json" >"$WORK/ids.txt" || true

# --- memlab -------------------------------------------------------------------------
M_OK=false; M_ERR=""; M_WALL=null; M_RSS=null
echo '{"top":[],"lookup":{}}' >"$WORK/memlab.json"
log "memlab (bench/v8-memlab-top.js, --max-old-space-size=$MEMLAB_HEAP_MB)"
if MEMLAB_DIR="$MEMLAB_DIR" /usr/bin/time -f '%e %M' -o "$WORK/memlab.time" \
    "$NODE" --max-old-space-size="$MEMLAB_HEAP_MB" "$ROOT/bench/v8-memlab-top.js" \
    "$SNAP" "$TOP" "$WORK/ids.txt" >"$WORK/memlab.out" 2>"$WORK/memlab.err"; then
    if jq -e '.top | type == "array"' "$WORK/memlab.out" >/dev/null 2>&1; then
        M_OK=true
        cp "$WORK/memlab.out" "$WORK/memlab.json"
    else
        M_ERR="output is not memlab-top JSON: $(head -c 300 "$WORK/memlab.out")"
    fi
else
    M_ERR="exit $?: $(tail -n 5 "$WORK/memlab.err" | head -c 600)"
fi
if [[ -s "$WORK/memlab.time" ]]; then
    read -r M_WALL M_RSS < <(grep -E '^[0-9.]+ [0-9]+$' "$WORK/memlab.time" | tail -n 1) || true
    M_WALL=${M_WALL:-null}; M_RSS=${M_RSS:-null}
fi
$M_OK || log "memlab failed: $M_ERR"

# --- comparison ---------------------------------------------------------------------
jq -n \
  --arg snap "$SNAP" --argjson size "$SIZE" --argjson top "$TOP" \
  --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  --argjson hok "$H_OK" --arg herr "$H_ERR" --argjson hwall "$H_WALL" --argjson hrss "$H_RSS" \
  --argjson mok "$M_OK" --arg merr "$M_ERR" --argjson mwall "$M_WALL" --argjson mrss "$M_RSS" \
  --slurpfile h "$WORK/heaptui.json" --slurpfile m "$WORK/memlab.json" '
  def hex: ascii_downcase | ltrimstr("0x") | explode
           | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
  def hid: tostring | ltrimstr("@") | if startswith("0x") or startswith("0X") then hex else (tonumber? // .) end;
  ($h[0].objects | map({id: (.object | hid), name: .class, shallow: .shallow_bytes, retained: .retained_bytes})) as $H
  | ($m[0].top) as $M
  | ($m[0].lookup // {}) as $L
  | ($H | map({key: (.id | tostring), value: .}) | from_entries) as $Hby
  | ($M | map({key: (.id | tostring), value: .}) | from_entries) as $Mby
  | (if ($M | length) > 0 then $M[-1].retained_size else null end) as $cut
  | ([$M[] | select($Hby[.id | tostring])]) as $common
  | {
      date: $date, snapshot: $snap, bytes: $size, top: $top,
      nodes: $m[0].nodes, edges: $m[0].edges,
      memlab: {ok: $mok, error: (if $mok then null else $merr end),
               version: $m[0].memlab_version,
               wall_seconds: $mwall, max_rss_kb: $mrss,
               seconds_load: $m[0].seconds_load, seconds_dominators: $m[0].seconds_dominators,
               total_bytes: $m[0].total_bytes, top: $M},
      heaptui: {ok: $hok, error: (if $hok then null else $herr end),
                wall_seconds: $hwall, max_rss_kb: $hrss,
                total_retained_bytes: $h[0].total_retained_bytes, objects: $h[0].objects},
      comparison: (if ($hok and $mok) then {
          common_ids: ($common | length),
          identical_retained: ([$common[] | select(.retained_size == $Hby[.id | tostring].retained)] | length),
          mismatches: [$common[] | select(.retained_size != $Hby[.id | tostring].retained)
                       | {id, name, type, memlab_retained: .retained_size,
                          heaptui_retained: $Hby[.id | tostring].retained,
                          heaptui_class: $Hby[.id | tostring].name}],
          only_memlab: [$M[] | select($Hby[.id | tostring] | not)
                        | {id, name, type, memlab_retained: .retained_size}],
          only_heaptui: [$H[] | select($Mby[.id | tostring] | not)
                         | . as $x | ($L[$x.id | tostring]) as $l
                         | {id, heaptui_class: .name, heaptui_retained: .retained,
                            memlab_name: $l.name, memlab_type: $l.type,
                            memlab_retained: $l.retained_size,
                            memlab_ties_cutoff: (if $l then $l.retained_size == $cut else null end)}],
          memlab_cutoff_retained: $cut
        } else null end),
      ratios: {
        memlab_time_over_heaptui_time: (if ($mok and $hok and $hwall != null and $hwall > 0) then ($mwall / $hwall) else null end),
        heaptui_rss_over_memlab_rss: (if ($mok and $hok and $mrss != null and $mrss > 0) then ($hrss / $mrss) else null end)
      }
    }' >"$OUT"

# --- report -------------------------------------------------------------------------
jq -r '
  def mb: if . == null then "-" else (. / 1024 | . * 10 | round / 10 | tostring) end;
  def s: if . == null then "-" else tostring end;
  "snapshot: \(.snapshot) (\(.bytes / 1e6 | round) MB, \(.nodes | s) nodes, \(.edges | s) edges), top \(.top), \(.date)",
  "  tool     ok     wall s   max RSS MB   (memlab: load \(.memlab.seconds_load | s) s, dominators \(.memlab.seconds_dominators | s) s)",
  "  memlab   \(.memlab.ok)   \(.memlab.wall_seconds | s)   \(.memlab.max_rss_kb | mb)",
  "  heaptui  \(.heaptui.ok)   \(.heaptui.wall_seconds | s)   \(.heaptui.max_rss_kb | mb)",
  (if .memlab.ok | not then "memlab FAILED: \(.memlab.error)" else empty end),
  (if .heaptui.ok | not then "heaptui FAILED: \(.heaptui.error)" else empty end),
  "ratios: memlab time / heaptui time = \(.ratios.memlab_time_over_heaptui_time | s); heaptui RSS / memlab RSS = \(.ratios.heaptui_rss_over_memlab_rss | s)",
  (if .comparison then
     "ids in common: \(.comparison.common_ids) of \(.top); identical retained sizes: \(.comparison.identical_retained)",
     (if (.comparison.mismatches | length) > 0 then "mismatches (id, name, memlab retained, heaptui retained):",
        (.comparison.mismatches[] | "  @\(.id)\t\(.name)\t\(.memlab_retained)\t\(.heaptui_retained)") else empty end),
     (if (.comparison.only_memlab | length) > 0 then "only in memlab'"'"'s top (id, name, memlab retained):",
        (.comparison.only_memlab[] | "  @\(.id)\t\(.name)\t\(.memlab_retained)") else empty end),
     (if (.comparison.only_heaptui | length) > 0 then "only in heaptui'"'"'s top (id, class, heaptui retained, memlab retained, ties memlab cut-off \(.comparison.memlab_cutoff_retained)):",
        (.comparison.only_heaptui[] | "  @\(.id)\t\(.heaptui_class)\t\(.heaptui_retained)\t\(.memlab_retained | s)\t\(.memlab_ties_cutoff | s)") else empty end)
   else empty end),
  (if .memlab.ok then "memlab top 10 (id, name, type, retained):",
     (.memlab.top[:10][] | "  @\(.id)\t\(.name)\t\(.type)\t\(.retained_size)") else empty end)
' "$OUT"
echo "result: $OUT"
