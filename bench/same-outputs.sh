#!/usr/bin/env bash
# Compares what two heaptui binaries print on every bundled fixture: for a change that
# should not alter any answer (a refactor, a speed-up), every command's output must be
# byte for byte the same.
#   bench/same-outputs.sh OLD_BINARY NEW_BINARY [COMMAND...]
# Runs every batch command (summary histogram dominators path inspect threads suspects
# waste diff leaks; default all, or the COMMANDs named), with the options that change a
# document's shape, as text and with --json, with --no-cache. `path` and `inspect` take
# the top object of OLD's dominator tree and its first child; `diff` and `leaks` the
# fixtures' pairs and triples. Compared: stdout, stderr and the exit code.
#
# Not compared: what says where the file is and how much memory is left (summary's
# `rss_*`, `memory_budget`, "memory left"), and a leading `"schema_version":N` key of
# a JSON document (issue 38 added it; both sides lose it before the comparison, and the
# documents of NEW that had it are counted).
#
# Prints one line per case that differs, and counts; exits 1 when any differs. Outputs
# are kept in $OUT (default a temporary dir).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OLD=${1:?old binary}
NEW=${2:?new binary}
shift 2
WANT=("$@")
[ ${#WANT[@]} -gt 0 ] || WANT=(summary histogram dominators path inspect threads suspects waste diff leaks)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/old" "$OUT/new"
differ=0
same=0
json=0
versioned=0

wanted() {
  local w
  for w in "${WANT[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}

# Masks what changes from run to run, and drops a leading schema_version.
normalise() {
  python3 - "$1" <<'EOF'
import re, sys
p = sys.argv[1]
t = open(p, encoding="utf-8", errors="surrogateescape").read()
t = re.sub(r'^\{"schema_version":\d+,', "{", t)
t = re.sub(r'"(rss_anon_bytes|rss_file_bytes)":(\d+|null)', r'"\1":0', t)
t = re.sub(r'"memory_budget":(\{[^{}]*\}|null)', '"memory_budget":null', t)
t = re.sub(r'(?m)^memory left .*\n', "", t)
open(p, "w", encoding="utf-8", errors="surrogateescape").write(t)
EOF
}

# run KEY ARGS...: both binaries, text and --json.
run() {
  local key=$1 mode
  shift
  for mode in text json; do
    local extra=()
    [ $mode = json ] && extra=(--json)
    for side in old new; do
      local bin=$OLD f="$OUT/$side/$key.$mode"
      [ $side = new ] && bin=$NEW
      set +e
      "$bin" "$@" "${extra[@]}" --no-cache >"$f" 2>"$f.err"
      echo "exit $?" >>"$f.err"
      set -e
      if [ $mode = json ] && [ $side = new ]; then
        if [ -s "$f" ]; then json=$((json + 1)); fi
        if head -c 20 "$f" | grep -q '^{"schema_version":'; then versioned=$((versioned + 1)); fi
      fi
      normalise "$f"
    done
    if cmp -s "$OUT/old/$key.$mode" "$OUT/new/$key.$mode" &&
      cmp -s "$OUT/old/$key.$mode.err" "$OUT/new/$key.$mode.err"; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "differs: $key $mode: $*"
    fi
  done
}

while IFS= read -r f; do
  rel=${f#"$ROOT"/fixtures/}
  key=${rel//\//_}
  wanted summary && run "$key.summary" summary "$f"
  if wanted histogram; then
    run "$key.histogram" histogram "$f"
    run "$key.histogram-package" histogram "$f" --group-by package
    run "$key.histogram-quick" histogram "$f" --no-retained --sort count --top 20
    run "$key.histogram-filter" histogram "$f" --sort retained --top 5 --filter a
  fi
  if wanted dominators; then
    run "$key.dominators" dominators "$f"
    run "$key.dominators-deep" dominators "$f" --depth 4 --top 3
    run "$key.dominators-flat" dominators "$f" --flat --top 10
  fi
  wanted threads && run "$key.threads" threads "$f"
  wanted suspects && run "$key.suspects" suspects "$f"
  wanted waste && run "$key.waste" waste "$f"
  if wanted path || wanted inspect; then
    objs=$(
      "$OLD" dominators "$f" --json --depth 2 --top 1 --no-cache 2>/dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
for o in d.get("objects", [])[:1]:
    print(o["object"])
    for c in o.get("children", [])[:1]:
        print(c["object"])'
    ) || true
    n=0
    for o in $objs; do
      n=$((n + 1))
      wanted path && run "$key.path$n" path "$f" "$o"
      wanted inspect && run "$key.inspect$n" inspect "$f" "$o"
    done
  fi
done < <(find "$ROOT/fixtures" -type f \( -name '*.hprof*' -o -name '*.heapsnapshot*' -o -name '*.dump.gz' -o -name '*.mvmheap*' -o -name '*.dartheap*' \) | sort)

F=$ROOT/fixtures
if wanted diff; then
  for pair in "java/growth/base.hprof.gz java/growth/target.hprof.gz" \
    "node/baseline.heapsnapshot.gz node/target.heapsnapshot.gz" \
    "dart/before.dartheap.gz dart/after.dartheap.gz" \
    "go/heap.dump.gz go/leak/heap.dump.gz" \
    "moarvm/app-v2.mvmheap.gz moarvm/app-v3.mvmheap.gz"; do
    set -- $pair
    key=diff_${1//\//_}
    run "$key" diff "$F/$1" "$F/$2"
    run "$key-owners" diff "$F/$1" "$F/$2" --owners 5 --sort delta-retained --top 10
  done
fi
if wanted leaks; then
  for triple in "node/baseline.heapsnapshot.gz node/target.heapsnapshot.gz node/final.heapsnapshot.gz" \
    "java/growth/base.hprof.gz java/growth/target.hprof.gz java/growth/target.hprof.gz" \
    "dart/before.dartheap.gz dart/after.dartheap.gz dart/after.dartheap.gz"; do
    set -- $triple
    key=leaks_${1//\//_}
    run "$key" leaks "$F/$1" "$F/$2" "$F/$3"
    run "$key-internal" leaks "$F/$1" "$F/$2" "$F/$3" --internal --top 5
  done
fi
echo "same: $same, differ: $differ; JSON documents of NEW: $json, with schema_version: $versioned (outputs in $OUT)"
[ "$differ" -eq 0 ]
