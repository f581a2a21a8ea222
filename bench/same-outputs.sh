#!/usr/bin/env bash
# Compares what two heaptui binaries print on every bundled fixture: for a change that
# should not alter any answer (a refactor, a speed-up), every command's output must be
# byte for byte the same.
#   bench/same-outputs.sh OLD_BINARY NEW_BINARY [COMMAND...]
# COMMANDs default to: summary histogram dominators threads suspects waste (each with
# --json and --no-cache). Prints one line per fixture and command that differs, and a
# count; exits 1 when any differs. Outputs are kept in $OUT (default a temporary dir).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OLD=${1:?old binary}
NEW=${2:?new binary}
shift 2
CMDS=("$@")
[ ${#CMDS[@]} -gt 0 ] || CMDS=(summary histogram dominators threads suspects waste)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/old" "$OUT/new"
differ=0
same=0
while IFS= read -r f; do
  rel=${f#"$ROOT"/fixtures/}
  key=${rel//\//_}
  for c in "${CMDS[@]}"; do
    # summary says where the file is and how much memory is left: not an answer.
    "$OLD" "$c" "$f" --json --no-cache >"$OUT/old/$key.$c" 2>/dev/null || true
    "$NEW" "$c" "$f" --json --no-cache >"$OUT/new/$key.$c" 2>/dev/null || true
    if [ "$c" = summary ]; then
      for s in old new; do
        python3 - "$OUT/$s/$key.$c" <<'EOF'
import json, sys
p = sys.argv[1]
try:
    d = json.load(open(p))
except Exception:
    sys.exit(0)
for k in ("file", "memory_budget", "memory_mode", "rss_anon_bytes", "rss_file_bytes"):
    d.pop(k, None)
json.dump(d, open(p, "w"), sort_keys=True)
EOF
      done
    fi
    if cmp -s "$OUT/old/$key.$c" "$OUT/new/$key.$c"; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "differs: $rel $c"
    fi
  done
done < <(find "$ROOT/fixtures" -type f \( -name '*.hprof*' -o -name '*.heapsnapshot*' -o -name '*.dump.gz' -o -name '*.mvmheap*' -o -name '*.dartheap*' \) | sort)
echo "same: $same, differ: $differ (outputs in $OUT)"
[ "$differ" -eq 0 ]
