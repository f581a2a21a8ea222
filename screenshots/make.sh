#!/usr/bin/env bash
# Makes the screenshots in this folder from real runs of the release binary in tmux at
# 80x24, on the bundled JDK 17 fixture. Text captures (capture-pane), so they diff well and
# show exactly what a person's terminal shows.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$root"
cargo build --release -q
bin="$root/target/release/heaptui"
dump="fixtures/java/coops/heap-live-jvmgz.hprof.gz"
sock="heaptui-shots-$$"
export HEAPTUI_CACHE_DIR="${HEAPTUI_CACHE_DIR:-$(mktemp -d)}"
t() { tmux -L "$sock" "$@"; }
trap 't kill-server 2>/dev/null || true' EXIT
t -f /dev/null new-session -d -x 80 -y 24 "$bin $dump"
wait_for() {
  for _ in $(seq 1 300); do
    t capture-pane -p | grep -q "$1" && return 0
    sleep 0.1
  done
  echo "timed out waiting for $1" >&2; t capture-pane -p >&2; exit 1
}
wait_gone() {
  for _ in $(seq 1 300); do
    t capture-pane -p | grep -q "$1" || return 0
    sleep 0.1
  done
  echo "timed out waiting for $1 to go" >&2; t capture-pane -p >&2; exit 1
}
shot() { sleep 0.3; t capture-pane -p > "$here/$1.txt"; echo "wrote screenshots/$1.txt"; }
wait_for "Class histogram"
wait_gone "retained sizes: computing"
shot histogram
t send-keys / f i x t u r e
wait_for 'filter "fixture"'
shot histogram-filter
t send-keys Escape; sleep 0.3; t send-keys s
wait_for "sorted by count"
shot histogram-by-count
t send-keys s s
wait_for "sorted by retained"
shot histogram-by-retained
t send-keys i
wait_for "Summary"
shot summary
t send-keys Escape; sleep 0.3; t send-keys '?'
wait_for "Keys"
shot help
t send-keys q
