#!/usr/bin/env bash
# One command for the benchmark table: heaptui beside hprof-slurp, hprof-analyzer and
# memlab on the same files in the same run. See bench/run.py for the sets, the figures
# and the environment; bench/README.md for results.
#   bench/run.sh [SET...]     e.g. bench/run.sh hprof-5m hprof-50m v8-6m
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec python3 "$ROOT/bench/run.py" "$@"
