#!/usr/bin/env bash
# Makes a large Go heap dump (runtime/debug.WriteHeapDump from Go 1.19) of a program of its
# own (bench/go-large/main.go): about MILLIONS million objects (default 5).
# Usage: bench/gen-large-go.sh OUT.dump [MILLIONS]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m -- "${1:?usage: gen-large-go.sh OUT.dump [MILLIONS]}")
MILLIONS=${2:-5}
command -v go >/dev/null || apt-get install -y -q golang-go >/dev/null
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
cp "$ROOT/bench/go-large/main.go" "$ROOT/bench/go-large/go.mod" "$WORK/"
(cd "$WORK" && GOPROXY=off GOFLAGS=-mod=mod go build -trimpath -o prog .)
"$WORK/prog" "$OUT" "$MILLIONS"
ls -la "$OUT"
