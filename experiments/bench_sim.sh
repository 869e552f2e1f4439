#!/bin/bash
# Speed of the SimGrid backend: arlab's fast engine against the naive
# baseline (one SimGrid actor per GPU, one mailbox message per transfer, 64 KiB
# actor stacks, a SimGrid barrier per op round), side by side, in one run.
#
#   experiments/bench_sim.sh [ARLAB] [NAIVE_BUDGET]
#
# ARLAB defaults to build/arlab; NAIVE_BUDGET (default 60s) caps each naive run
# (--budget): a capped run reports the transfers it simulated in that time and
# its rate, marked "capped" (the naive 4096-rank ring needs several minutes).
# Columns: wall = the simulation itself (the child process that runs SimGrid,
# platform construction included); cmd = the whole command (planning, the cost
# walk for model_s, fork); transfers/s = transfers of the schedule / wall;
# peak RSS = the simulating process (getrusage) and the whole command tree
# (/usr/bin/time). Run it on an otherwise idle machine: it uses one core.
set -u
ARLAB=${1:-build/arlab}
BUDGET=${2:-60s}
[ -x "$ARLAB" ] || { echo "bench_sim.sh: no arlab binary at $ARLAB (give its path)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=experiments/lib_bench.sh
. "$(dirname "$0")/lib_bench.sh" # field

printf '%-44s %-6s %10s %9s %8s %12s %9s %9s %14s %9s %s\n' case engine transfers wall_s cmd_s transfers/s rss_MB tree_MB sim_s rel_model note
bench() { # bench LABEL ENGINE ARGS...
    local label=$1 engine=$2
    shift 2
    local extra=()
    [ "$engine" = naive ] && extra=(--engine naive --budget "$BUDGET")
    /usr/bin/time -f '%e %M' -o "$TMP/time" "$ARLAB" sim "$@" "${extra[@]}" --format csv >"$TMP/csv" 2>"$TMP/err"
    local rc=$?
    if [ $rc -ne 0 ]; then
        printf '%-44s %-6s failed (exit %d): %s\n' "$label" "$engine" $rc "$(grep -v '^Command' "$TMP/err" | head -1)"
        return
    fi
    local xf wall rss sim rel complete cmd tree note
    IFS='|' read -r xf wall rss sim rel complete < <(fields "$TMP/csv" transfers wall_s peak_rss_kb sim_s rel_err complete)
    read -r cmd tree <"$TMP/time"
    note=""
    [ "$complete" = 0 ] && note="capped at $BUDGET: partial"
    awk -v l="$label" -v e="$engine" -v x="$xf" -v w="$wall" -v c="$cmd" -v r="$rss" -v t="$tree" -v s="$sim" \
        -v q="$rel" -v n="$note" 'BEGIN {
        printf "%-44s %-6s %10d %9.2f %8.2f %12.0f %9.0f %9.0f %14.9g %9s %s\n", l, e, x, w, c, (w > 0 ? x / w : 0),
               r / 1024, t / 1024, s, q, n }'
}

case_pair() { # case_pair LABEL ARGS...
    local label=$1
    shift
    bench "$label" fast "$@"
    bench "$label" naive "$@"
}

case_pair "ring, flat 4096 GPUs, 1 GiB" --platform flat:ranks=4096 --algo ring --size 1GiB
case_pair "ring, flat 4096 GPUs, 100 MB (uneven)" --platform flat:ranks=4096 --algo ring --size 100MB
case_pair "blueconnect 16 chunks/op, blueconnect-192" --platform blueconnect-192 --algo blueconnect --chunks 16 --size 100MB
case_pair "blueconnect ring, 16 chunks/op, blc-192" --platform blueconnect-192 --algo blueconnect:impl=ring --chunks 16 --size 100MB
case_pair "pipelined-ring:chunks=16, blueconnect-192" --platform blueconnect-192 --algo pipelined-ring:chunks=16 --size 100MB
case_pair "blueconnect ring, 8x32x64 = 16384, 1 GiB" --platform tree:fanouts=8x32x64 --algo blueconnect:impl=ring --size 1GiB
case_pair "blueconnect ring, 8x32x64, 100 MB (uneven)" --platform tree:fanouts=8x32x64 --algo blueconnect:impl=ring --size 100MB
bench "blueconnect (ring+hd), 8x32x64, 100 MB" fast --platform tree:fanouts=8x32x64 --algo blueconnect --size 100MB
echo
echo "network: $("$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 --format csv 2>/dev/null | tail -1 | awk -F, '{ print $NF }')"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
