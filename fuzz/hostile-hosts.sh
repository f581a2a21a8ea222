#!/usr/bin/env bash
# Issue 40's acceptance: every file of the attack's shapes (the `i40:` shapes of
# tests/common/sweep.rs, and with ONLY= any others) gives exit 0 or 2 — never 137 (the
# OOM killer), 153 (SIGXFSZ) or another signal — under each hostile host in turn:
#   - `prlimit --as=4GiB` alone;
#   - memory cgroups (v1) of 120, 300 and 600 MiB (needs root and cgroup v1's memory
#     controller; skipped with a message otherwise);
#   - a file-size limit of `ulimit -f 20000` (20,480,000 bytes).
# Each host's table is printed as `fuzz/hostile-sweep.sh` prints its own.
#
#   fuzz/hostile-hosts.sh [ONLY]        (default ONLY: i40)
#
# PROFILE=debug runs the debug test binary (no release build: for a machine busy with
# other builds; the 60 s time limit then counts a debug build's time).
set -u
cd "$(dirname "$0")/.."
export SWEEP_ONLY=${1:-i40}
SWEEP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/heaptui-hosts.XXXXXX")
export SWEEP_DIR
trap 'rm -rf "$SWEEP_DIR"' EXIT
release=--release
[ "${PROFILE:-release}" = debug ] && release=
echo "hostile-hosts: $(git rev-parse --short HEAD), $(uname -srm), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ${PROFILE:-release}"
hosts=("")
if [ -w /sys/fs/cgroup/memory ]; then
    hosts+=(cgroup:120 cgroup:300 cgroup:600)
else
    echo "hostile-hosts: no writable cgroup v1 memory controller; the cgroup hosts are skipped" >&2
fi
hosts+=(fsize:20480000)
status=0
for h in "${hosts[@]}"; do
    SWEEP_HOST=$h cargo test $release --test it -- --ignored --exact hostile_sweep::sweep_full \
        --nocapture --test-threads 1 2>&1 | grep -E '^(host:|\||test result|.*panicked|.*runs failed)' || true
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
done
exit $status
