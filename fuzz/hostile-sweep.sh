#!/usr/bin/env bash
# Issue 28's acceptance: under `prlimit --as=4GiB` every file of the attack's shapes
# gives exit 0 or 2 — never 134, 137 or another signal — in under 60 s each.
#
#   fuzz/hostile-sweep.sh [ONLY]
#
# Builds the release binary (target/release/heaptui) and runs `sweep_full` of
# tests/it/hostile_sweep.rs: each shape (tests/common/sweep.rs: a 270 MB HPROF of empty
# HEAP DUMP SEGMENTs, a MoarVM v3 file claiming 99.6 M collectables, V8 files of minimal
# nodes up to 1.2 GB, Dart files of one-byte references up to 620 MB, chains of 25 k,
# 2 M and 5 M links for `dominators --depth` and `path --json`, 750,000 classes each
# extending the last, a FIFO, a gzip of 1 GiB of zeros, a gzip of a 250 MB dump, names of
# emoji sequences and stacked marks, the bad records of defect 16, the zstd bomb) is
# written to a temporary directory, every command run on it is
#     prlimit --as=$((4<<30)) target/release/heaptui CMD FILE ...
# (summary, histogram, histogram --no-retained, dominators --top 5 --json, path, waste,
# suspects, and the commands of the shape's own defect; stdout to /dev/null, the index
# cache off), and the file is removed before the next shape is written. One Markdown row
# per run: shape, file size, command, exit, seconds, peak RSS (wait4's ru_maxrss), the
# first line of stderr. Exits non-zero when a run ends by a signal, exits with another
# code than the shape allows (0 or 2; 3 for a path to what the shape does not hold),
# takes more than 60 s, or leaves a temporary file in its cache directory.
#
# ONLY (or SWEEP_ONLY) keeps the shapes whose name or file name contains it. SWEEP_DIR
# sets the directory (default: a new one under $TMPDIR, removed at the end); it needs
# about 1.3 GB free. SWEEP_TARGET_DIR builds in another target directory than
# CARGO_TARGET_DIR's: where one is shared between checkouts, another checkout's build can
# replace target/release/heaptui between this build and the runs. About 8 minutes on the
# shared 2-core machine.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] && export SWEEP_ONLY=$1
own_dir=0
if [ -z "${SWEEP_DIR:-}" ]; then
    SWEEP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/heaptui-sweep.XXXXXX")
    own_dir=1
fi
export SWEEP_DIR
cleanup() { [ $own_dir = 1 ] && rm -rf "$SWEEP_DIR"; }
trap cleanup EXIT
command -v prlimit >/dev/null || echo "hostile-sweep: prlimit not found; the limit is set with setrlimit in the child" >&2
[ -x /usr/bin/time ] || echo "hostile-sweep: GNU time not found; the peak RSS is polled from /proc" >&2
[ -n "${SWEEP_TARGET_DIR:-}" ] && export CARGO_TARGET_DIR=$SWEEP_TARGET_DIR
echo "hostile-sweep: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src Cargo.toml Cargo.lock || echo ' with uncommitted changes'), $(uname -srm), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
cargo test --release --test it -- --ignored --exact hostile_sweep::sweep_full --nocapture --test-threads 1
