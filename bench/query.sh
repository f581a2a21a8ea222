#!/usr/bin/env bash
# Issue 41's figures alone: heaptui's SQL on a large HPROF dump from a cache entry, beside
# hprof-analyzer's OQL on the same questions (from its own disk cache), and
# `export --parquet` beside `dominators` (both without the cache). bench/run.py's SQL
# table (its doc names the questions); `SQL=1 bench/run.sh` adds it to the whole table.
#
# Usage: bench/query.sh [SET...]     (default hprof-50m: 50.4 M objects, 5,566,500 sessions)
# Environment: as bench/run.sh (BENCH_DIR, RUNS, PEERS=0 leaves hprof-analyzer out, HEAPTUI).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -gt 0 ]] || set -- hprof-50m
exec env SQL_ONLY=1 "$ROOT/bench/run.sh" "$@"
