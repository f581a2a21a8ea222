#!/usr/bin/env bash
# Makes the screenshots in this folder from real runs of the release binary in tmux at
# 80x24, on the bundled JDK 17 fixture: a text capture of each screen (capture-pane, so it
# diffs well and shows exactly what a person's terminal shows) and a PNG rendered from the
# same capture with its colours (render_png.py; Pillow is installed into a private venv
# under the cache directory when missing).
#
# First the leak suspects and the waste findings on the Java leak fixture (the first
# screen once the dominator tree is ready). Then the walk is the leak hunt: histogram,
# filter, instances, inspector, paths, dominator tree, plus the summary and the keys;
# then the diff view on the Java growth pair; the query pane (`:`) on the leak fixture.
#
# `screenshots/make.sh NAME...` makes only the runs that take those screenshots
# (`screenshots/make.sh query`); HEAPTUI_BIN=PATH runs that binary instead of building
# the release one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$root"
bin="${HEAPTUI_BIN:-}"
if [[ -z "$bin" ]]; then
  cargo build --release -q
  bin="${CARGO_TARGET_DIR:-$root/target}/release/heaptui"
fi
only=("$@")
# Whether one of the screenshots NAME... is asked for (all are, without arguments).
wanted() {
  [[ ${#only[@]} -eq 0 ]] && return 0
  local n o
  for n; do for o in "${only[@]}"; do [[ "$n" == "$o" ]] && return 0; done; done
  return 1
}
dump="fixtures/java/coops/heap-live-jvmgz.hprof.gz"
sock="heaptui-shots-$$"
own_cache=
if [[ -z "${HEAPTUI_CACHE_DIR:-}" ]]; then
  HEAPTUI_CACHE_DIR="$(mktemp -d)"; own_cache="$HEAPTUI_CACHE_DIR"
fi
export HEAPTUI_CACHE_DIR

# Pillow for the PNGs.
py=python3
if ! python3 -c 'import PIL' 2>/dev/null; then
  venv="${XDG_CACHE_HOME:-$HOME/.cache}/heaptui/screenshot-venv"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import PIL' 2>/dev/null; then
    python3 -m venv "$venv" && "$venv/bin/pip" install -q pillow
  fi
  py="$venv/bin/python"
fi
[[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]] || apt-get install -y -q fonts-dejavu-core >/dev/null

t() { tmux -L "$sock" "$@"; }
sock_path=
# tmux leaves its socket file behind; it is removed with the server.
trap 't kill-server 2>/dev/null || true; [[ -z "$sock_path" ]] || rm -f "$sock_path"; [[ -z "$own_cache" ]] || rm -rf "$own_cache"' EXIT
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
shot() {
  sleep "${2:-0.3}"
  t capture-pane -p > "$here/$1.txt"
  t capture-pane -e -p > "$here/.$1.ansi"
  "$py" "$here/render_png.py" "$here/.$1.ansi" "$here/$1.png" "${W:-80}" "${H:-24}"
  rm -f "$here/.$1.ansi"
  echo "wrote screenshots/$1.txt and $1.png"
}
key() { t send-keys "$@"; sleep 0.2; }
# Starts a tmux session running COMMAND at 80x24 (the tmux server with the first).
start() {
  t -f /dev/null new-session -d -x 80 -y 24 "$1"
  [[ -n "$sock_path" ]] || sock_path="$(t display -p '#{socket_path}')"
}

if wanted suspects waste grouped-tree merged-paths split-layout; then
start "$bin fixtures/java/leak/heap-live.hprof.gz"
wait_for "Leak suspects"
shot suspects
key W
wait_for "wasted"
shot waste
# The sessions map (the second suspect) in the dominator tree, its table's 12,000
# entries grouped by class (g); then the merged paths of every Session (P).
key '!'
wait_for "Leak suspects"
key j d
wait_for "Dominator tree — below java.util.HashMap"
key j g
wait_for " × "
shot grouped-tree
key H
wait_for "Class histogram"
key / c o m . e x a m p l e . S e s s i o n Enter
key P
wait_for "Merged paths from GC roots — 12,000 of 12,000"
shot merged-paths
# At 160 columns a list has the selected object's inspector beside it.
key Escape
t resize-window -x 160 -y 45
wait_for "Class histogram"
key Enter
wait_for "Instances of com.example.Session"
wait_for "Inspector — com.example.Session"
W=160 H=45 shot split-layout
t send-keys q
sleep 0.5
fi

if wanted histogram histogram-filter histogram-by-count histogram-by-retained instances \
  inspector paths dominators summary help; then
start "$bin $dump"
# It opens on the leak suspects once the dominator tree is ready; Esc goes back to the
# histogram.
wait_for "Leak suspects"
key Escape
wait_for "Class histogram"
# The index is ready (an HPROF file shows the quick histogram first, its status line
# saying "indexing"), then the dominator tree.
wait_for " objects · "
wait_gone "indexing"
wait_gone "retained sizes: computing"
shot histogram
key / f i x t u r e
wait_for 'filter "fixture"'
shot histogram-filter
key Escape; key s
wait_for "sorted by count"
shot histogram-by-count
key s s
wait_for "sorted by retained"
shot histogram-by-retained
key s
key / f i x t u r e . S e s s i o n Enter
key Enter
wait_for "Instances of dev.heaptui.fixture.Session"
shot instances
key Enter
wait_for "Inspector — dev.heaptui.fixture.Session"
shot inspector
key p
wait_for "Shortest paths to GC roots"
shot paths
key Escape; key Escape; key Escape
wait_for "Class histogram"
key Escape
key d
wait_for "Dominator tree"
key l
wait_for "▾"
shot dominators
key Escape
key i
wait_for "Summary"
shot summary
key Escape; key '?'
wait_for "Keys"
shot help
# q closes the help, then quits.
t send-keys q q
sleep 0.5
fi

# The diff view on the Java pair of fixtures/java/growth: the table, then both sides.
# (q ended the first session, and with it the server.)
if wanted diff diff-sides; then
start "$bin fixtures/java/growth/base.hprof.gz fixtures/java/growth/target.hprof.gz"
wait_for "classes changed"
wait_for "Owners that grew"
key s s
wait_for "sorted by Δ count"
shot diff
key g j Enter
wait_for "TARGET ◆"
key Enter
wait_for "Inspector — "
shot diff-sides
t send-keys q
sleep 0.5
fi

# memlab's three-snapshot view on the Node fixtures: the leak clusters of FINAL.
if wanted leaks; then
start "$bin fixtures/node/baseline.heapsnapshot.gz fixtures/node/target.heapsnapshot.gz fixtures/node/final.heapsnapshot.gz"
wait_for " clusters ("
shot leaks
t send-keys q
sleep 0.5
fi

# The query pane: `:` and a question in SQL on the Java leak fixture, its rows on
# screen (once the dominator tree is ready: it opens on the leak suspects).
if wanted query; then
start "$bin fixtures/java/leak/heap-live.hprof.gz"
wait_for "Leak suspects"
key Escape
wait_for "Class histogram"
key :
wait_for " SQL: "
t send-keys -l "SELECT class, count(*) AS n, sum(shallow) AS bytes FROM objects GROUP BY class ORDER BY bytes DESC LIMIT 15"
sleep 0.2
key Enter
wait_for "Query — 15 rows in "
shot query
t send-keys q
sleep 0.5
fi

# The quick histogram of a large HPROF dump, browsable while its index is built: on the
# dump named by $LARGE_HPROF, or one of 5 M objects that bench/gen-large-hprof.sh makes
# (SCALE 450, 245 MB) and keeps in the cache directory. No index cache, so that the
# index is built.
if wanted histogram-while-indexing; then
large="${LARGE_HPROF:-}"
if [[ -z "$large" ]]; then
  large="${XDG_CACHE_HOME:-$HOME/.cache}/heaptui/screenshot-dump-450.hprof"
  [[ -s "$large" ]] || bench/gen-large-hprof.sh "$large" 450
fi
sleep 0.5
start "env HEAPTUI_NO_CACHE=1 $bin $large"
wait_for "indexing: "
shot histogram-while-indexing 0
t send-keys q
fi
