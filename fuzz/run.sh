#!/usr/bin/env bash
# Builds the fuzz targets and runs each, one after the other, for SECONDS (default 60)
# from its seed corpus. Exits non-zero when any target crashes, leaks past the memory
# limit or times out on an input (1), or when the build or the seeds fail (2); the input
# is left in fuzz/artifacts/TARGET/ and the libFuzzer log in fuzz/logs/TARGET.log.
#
#   fuzz/run.sh [SECONDS] [TARGET...]       (targets: hprof v8 go moarvm dart gzip)
#
# Prints one line per target that can be quoted (executions, exec/s, final cov/ft,
# corpus size, peak RSS, result), again all together at the end, with the build and
# seed times.
#
# Toolchain: cargo-fuzz passes nightly-only rustc flags. With a nightly toolchain
# installed it is used (`cargo +nightly fuzz`); otherwise the stable compiler is told to
# accept them (RUSTC_BOOTSTRAP=1). FUZZ_TOOLCHAIN=stable forces the latter (CI does, so
# that it runs the same way where only stable is installed), FUZZ_TOOLCHAIN=nightly the
# former.
#
# Build: release (-O), opt-level 3, one codegen unit (cargo-fuzz's default: the fastest
# fuzzer, the slowest build), no debug assertions (cargo-fuzz leaves them off with -O).
# FUZZ_CODEGEN_UNITS=N and FUZZ_OPT_LEVEL=N build with N instead (CI uses 16 and 1: a
# 60 s run gains more from a shorter build than it loses in executions);
# FUZZ_DEBUG_ASSERTIONS=1 turns debug assertions and overflow checks on (-a).
#
# Sanitizer: none by default. The readers hold no `unsafe` (only the mmap in source.rs),
# so AddressSanitizer finds nothing that Rust's bounds checks would not already turn into
# a panic, and it makes the targets about 5 times slower. Panics, aborts (an allocation
# that fails), timeouts and the RSS limit are caught either way; only -malloc_limit_mb
# (one allocation over the limit) needs a sanitizer's malloc hooks.
# FUZZ_SANITIZER=address turns ASan on.
#
# Inputs: the seeds come from the repository's fixtures (seeds.py; plus ../shared/corpus
# when it is beside the checkout, skipped when it is not) and whatever fuzz/corpus/
# already holds from earlier runs here.
#
# One target at a time, one process each: the machine's cores are shared.
set -u
cd "$(dirname "$0")"

secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(hprof v8 go moarvm dart gzip)

if ! command -v cargo-fuzz >/dev/null; then
    echo "fuzz/run.sh: cargo-fuzz is not installed (cargo install cargo-fuzz --locked)" >&2
    exit 2
fi
toolchain=${FUZZ_TOOLCHAIN:-}
if [ -z "$toolchain" ]; then
    if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
        toolchain=nightly
    else
        toolchain=stable
    fi
fi
if [ "$toolchain" = nightly ]; then
    fuzz=(cargo +nightly fuzz)
else
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
fi
# The same options for build and run: any difference makes `run` build again.
opts=(-O --sanitizer "${FUZZ_SANITIZER:-none}")
[ -n "${FUZZ_CODEGEN_UNITS:-}" ] && opts+=(--codegen-units "$FUZZ_CODEGEN_UNITS")
[ "${FUZZ_DEBUG_ASSERTIONS:-0}" = 1 ] && opts+=(--debug-assertions)
[ -n "${FUZZ_OPT_LEVEL:-}" ] && export CARGO_PROFILE_RELEASE_OPT_LEVEL=$FUZZ_OPT_LEVEL

t0=$SECONDS
echo "== build (${fuzz[*]} build ${opts[*]}, opt-level ${FUZZ_OPT_LEVEL:-3})"
"${fuzz[@]}" build "${opts[@]}" || exit 2
build_s=$((SECONDS - t0))
t0=$SECONDS
python3 seeds.py corpus || exit 2
seeds_s=$((SECONDS - t0))
echo "fuzz/run.sh: build ${build_s} s, seeds ${seeds_s} s"
mkdir -p logs

# One line from a target's log: executions, rate, final coverage, corpus, peak RSS.
summary() {
    local t=$1 log=$2 result=$3 secs_run=$4
    local execs rate rss cov ft corp
    execs=$(grep -a '^stat::number_of_executed_units:' "$log" | awk '{print $2}')
    rate=$(grep -a '^stat::average_exec_per_sec:' "$log" | awk '{print $2}')
    rss=$(grep -a '^stat::peak_rss_mb:' "$log" | awk '{print $2}')
    local last
    last=$(grep -aE '^#[0-9]+[[:space:]]+(INITED|NEW|REDUCE|pulse|DONE)' "$log" | tail -1)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$last")
    [ -z "$execs" ] && execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
    [ -z "$rss" ] && rss=$(sed -nE 's/.* rss: ([0-9]+)Mb.*/\1/p' <<<"$last")
    printf '%-6s %4ss  %9s execs  %6s/s  cov %5s  ft %6s  corpus %5s  peak RSS %4s MB  %s\n' \
        "$t" "$secs_run" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
        "${rss:-?}" "$result"
}

# One target: its log in logs/T.log, its summary line in logs/T.line, its exit in
# logs/T.rc.
run_one() {
    local t=$1 max_len t0 rc result
    case $t in
        gzip) max_len=65536 ;;  # every input is written, decompressed and read back
        *) max_len=131072 ;;
    esac
    mkdir -p "artifacts/$t" "corpus/$t"
    t0=$SECONDS
    "${fuzz[@]}" run "${opts[@]}" "$t" "corpus/$t" -- \
        -max_total_time="$secs" -max_len="$max_len" -timeout=25 \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
        >"logs/$t.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then result=ok; else result="FAILED (exit $rc)"; fi
    summary "$t" "logs/$t.log" "$result" $((SECONDS - t0)) >"logs/$t.line"
    echo $rc >"logs/$t.rc"
}

# FUZZ_JOBS targets at a time (default 1: one core each; CI runs two on its two cores).
jobs=${FUZZ_JOBS:-1}
failed=()
lines=()
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
    batch=("${targets[@]:i:jobs}")
    echo "== ${batch[*]}: ${secs}s"
    for t in "${batch[@]}"; do run_one "$t" & done
    wait
    for t in "${batch[@]}"; do
        line=$(cat "logs/$t.line")
        echo "$line"
        lines+=("$line")
        if [ "$(cat "logs/$t.rc")" != 0 ]; then
            echo "!! $t failed: see fuzz/logs/$t.log and fuzz/artifacts/$t/"
            grep -aE '^(==[0-9]+==ERROR|thread .* panicked|SUMMARY|error)' "logs/$t.log" | head -5
            failed+=("$t")
        fi
    done
done

echo "== fuzz/run.sh $secs: build ${build_s} s, seeds ${seeds_s} s"
printf '%s\n' "${lines[@]}"
if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz/run.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz/run.sh: no crash in ${targets[*]}"
