#!/usr/bin/env bash
# Builds the fuzz targets and runs each, one after the other, for SECONDS (default 60)
# from its seed corpus. Exits non-zero when any target crashes, leaks past the memory
# limit or times out on an input; the input is left in fuzz/artifacts/TARGET/ and the
# libFuzzer log in fuzz/logs/TARGET.log.
#
#   fuzz/run.sh [SECONDS] [TARGET...]       (targets: hprof v8 go moarvm dart gzip)
#
# Toolchain: cargo-fuzz passes nightly-only rustc flags. With a nightly toolchain
# installed it is used (`cargo +nightly fuzz`); otherwise the stable compiler is told to
# accept them (RUSTC_BOOTSTRAP=1).
#
# Sanitizer: none by default. The readers hold no `unsafe` (only the mmap in source.rs),
# so AddressSanitizer finds nothing that Rust's bounds checks would not already turn into
# a panic, and it makes the targets about 5 times slower. Panics, aborts (an allocation
# that fails), timeouts and the RSS limit are caught either way; only -malloc_limit_mb
# (one allocation over the limit) needs a sanitizer's malloc hooks.
# FUZZ_SANITIZER=address turns ASan on.
#
# One target at a time, one process each: the machine's cores are shared.
set -u
cd "$(dirname "$0")"

secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(hprof v8 go moarvm dart gzip)

if ! command -v cargo-fuzz >/dev/null; then
    echo "fuzz/run.sh: cargo-fuzz is not installed (cargo install cargo-fuzz)" >&2
    exit 2
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz)
else
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
fi
san=(--sanitizer "${FUZZ_SANITIZER:-none}")

"${fuzz[@]}" build -O "${san[@]}" || exit 2
python3 seeds.py corpus || exit 2
mkdir -p logs

failed=()
for t in "${targets[@]}"; do
    case $t in
        gzip) max_len=65536 ;;  # every input is written, decompressed and read back
        *) max_len=131072 ;;
    esac
    mkdir -p "artifacts/$t"
    echo "== $t: ${secs}s"
    "${fuzz[@]}" run -O "${san[@]}" "$t" "corpus/$t" -- \
        -max_total_time="$secs" -max_len="$max_len" -timeout=25 \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
        >"logs/$t.log" 2>&1
    rc=$?
    grep -E '^#[0-9]+ +(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb' "logs/$t.log" | tail -3
    if [ $rc -ne 0 ]; then
        echo "!! $t failed (exit $rc): see fuzz/logs/$t.log and fuzz/artifacts/$t/"
        grep -E '^(==[0-9]+==ERROR|thread .* panicked|SUMMARY)' "logs/$t.log" | head -5
        failed+=("$t")
    fi
done

if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz/run.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz/run.sh: no crash in ${targets[*]}"
