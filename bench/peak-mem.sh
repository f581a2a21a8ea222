#!/usr/bin/env bash
# Runs a command and reports its peak memory split as the kernel counts it: RssAnon (the
# process's own memory) and RssFile (pages of mapped files, e.g. heaptui's map of the
# dump, which are page cache and stay the file's), sampled from /proc/PID/status every
# 20 ms, plus VmHWM (peak RSS, both together). The command's stdout goes to stdout; the
# figures go to stderr as one line of JSON:
#   {"wall_seconds":..,"peak_rss_anon_kb":..,"peak_rss_file_kb":..,"vm_hwm_kb":..,"exit":..}
# Usage: bench/peak-mem.sh CMD [ARGS...]
set -uo pipefail
# Times indexing, not reading the index back from the cache (src/cache.rs).
export HEAPTUI_NO_CACHE=1
[[ $# -ge 1 ]] || { sed -n '2,9p' "$0" >&2; exit 2; }
start=$(date +%s.%N)
"$@" &
pid=$!
anon=0; file=0; hwm=0
while kill -0 "$pid" 2>/dev/null; do
    if [[ -r /proc/$pid/status ]]; then
        while read -r k v _; do
            case $k in
                RssAnon:) (( v > anon )) && anon=$v ;;
                RssFile:) (( v > file )) && file=$v ;;
                VmHWM:) (( v > hwm )) && hwm=$v ;;
            esac
        done < /proc/$pid/status 2>/dev/null
    fi
    sleep 0.02
done
wait "$pid"; rc=$?
end=$(date +%s.%N)
printf '{"wall_seconds":%.2f,"peak_rss_anon_kb":%d,"peak_rss_file_kb":%d,"vm_hwm_kb":%d,"exit":%d}\n' \
    "$(echo "$end - $start" | bc)" "$anon" "$file" "$hwm" "$rc" >&2
exit "$rc"
