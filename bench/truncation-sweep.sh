#!/usr/bin/env bash
# The full truncation sweep (issue 12), in release mode: every fixture of the five formats
# cut at every record boundary and at 1 000 seeded random offsets, then the gzip path
# (one compressed fixture per format cut at every member boundary and 1 000 random
# offsets). Each fixture's line says how many cuts opened truncated, were refused with an
# offset and an expectation, or failed; every failing cut is listed (file, cut offset,
# the panic and its location) and the script exits non-zero. See tests/no_cache/truncation.rs.
#
#   bench/truncation-sweep.sh                   all fixtures, then the gzip path
#   SWEEP_ONLY=dart bench/truncation-sweep.sh   fixtures whose path contains "dart"
#   SWEEP_BOUNDARIES=1000 ...                   at most 1 000 boundaries per fixture
#   SWEEP_THREADS=1 ...                         one worker (default: every core)
set -uo pipefail
export RUST_BACKTRACE=0
cd "$(dirname "$0")/.."
start=$SECONDS
cargo test --release --test no_cache -- --ignored --nocapture --test-threads 1 \
    sweep_full sweep_full_gzip 2>&1 | grep -v -e '^thread .* panicked at' -e '^note: '
rc=${PIPESTATUS[0]}
echo "truncation-sweep: $((SECONDS - start)) s, exit $rc"
exit "$rc"
