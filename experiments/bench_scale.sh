#!/bin/bash
# Issue 18's targets in one table: wall time and peak memory of each case next
# to its target, "met" or "NOT met" (a case that runs past its cap is stopped
# and reported as such). Figures only: no case is a test.
#
#   experiments/bench_scale.sh [ARLAB] [CAP_SECONDS]
#
# ARLAB defaults to build/arlab; CAP_SECONDS (default 120) stops each case.
# Run it on an otherwise idle machine (each case uses one core).
set -u
ARLAB=${1:-build/arlab}
CAP=${2:-120}
[ -x "$ARLAB" ] || { echo "bench_scale.sh: no arlab binary at $ARLAB (give its path)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

printf '%-52s %10s %9s %12s  %s\n' case wall_s peak_MB target verdict
run() { # run LABEL TARGET_S TARGET_MB ARGS...
    local label=$1 ts=$2 tm=$3
    shift 3
    timeout -s INT "$CAP" /usr/bin/time -f '%e %M' -o "$TMP/time" "$ARLAB" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    local wall mem
    read -r wall mem < <(grep -v '^Command' "$TMP/time" | tail -1)
    if [ $rc -eq 124 ] || [ $rc -eq 130 ] || [ $rc -eq 137 ]; then
        printf '%-52s %10s %9s %12s  NOT met: stopped at the %d s cap\n' "$label" ">$CAP" "-" "<${ts}s" "$CAP"
        return
    fi
    if [ $rc -ne 0 ]; then
        printf '%-52s %10s %9s %12s  failed (exit %d): %s\n' "$label" "${wall:--}" "-" "<${ts}s" $rc \
            "$(grep -v '^Command' "$TMP/err" | head -1)"
        return
    fi
    awk -v l="$label" -v w="$wall" -v m="$mem" -v ts="$ts" -v tm="$tm" 'BEGIN {
        mb = m / 1024; ok = (w + 0 < ts + 0) && (tm == "-" || mb < tm + 0)
        printf "%-52s %10.2f %9.0f %12s  %s\n", l, w, mb, "<" ts "s" (tm == "-" ? "" : ",<" tm "MB"), ok ? "met" : "NOT met" }'
}

S=100MB
run "model --algo all, tree:ranks=1024" 10 - model --platform tree --ranks 1024 --algo all --size $S --format csv
run "best, tree:ranks=1024" 30 - best --platform tree --ranks 1024 --size $S
run "sim ps, tree:ranks=256" 5 - sim --platform tree --ranks 256 --algo ps --size $S --format csv
run "sim treepack, tree:ranks=256" 5 - sim --platform tree --ranks 256 --algo treepack --size $S --format csv
run "sim ps, tree:ranks=1024" 60 - sim --platform tree --ranks 1024 --algo ps --size $S --format csv
run "sim treepack, tree:ranks=1024" 60 - sim --platform tree --ranks 1024 --algo treepack --size $S --format csv
# a ring with even blocks (1 GiB) is certified under dataflow (sim/README.md); with uneven blocks
# (100 MB) ranks drift apart and the dataflow run is derived from the lockstep durations
# (sim/engine_cert.c): every one of its 33.5 M transfers costs arithmetic, none SimGrid
run "sim ring, flat:ranks=4096, 1 GiB" 2 - sim --platform flat --ranks 4096 --algo ring --size 1GiB --format csv
run "sim ring, flat:ranks=4096, --sync round" 2 - sim --platform flat --ranks 4096 --algo ring --size $S --sync round --format csv
run "sim ring, flat:ranks=4096 (dataflow, uneven)" 2 - sim --platform flat --ranks 4096 --algo ring --size $S --format csv
run "sim blueconnect, tree:ranks=16384" 30 4096 sim --platform tree --ranks 16384 --algo blueconnect --size $S --format csv
run "model ring, dgx-h100:nodes=12500 (100 000 GPUs)" 60 8192 model --platform dgx-h100:nodes=12500 --algo ring --size $S --format csv
run "model blueconnect, dgx-h100:nodes=12500" 60 8192 model --platform dgx-h100:nodes=12500 --algo blueconnect --size $S --format csv
run "sim ring, dgx-h100:nodes=12500" 60 8192 sim --platform dgx-h100:nodes=12500 --algo ring --size $S --format csv
run "sim blueconnect, dgx-h100:nodes=12500" 60 8192 sim --platform dgx-h100:nodes=12500 --algo blueconnect --size $S --format csv
# issue 13: NCCL's planners on the presets at 1024 nodes x 8 GPUs (8192 ranks)
for P in dgx-h100 aws-p5; do
    for A in nccl-ring nccl-tree; do
        run "plan $A, $P:nodes=1024" 10 1024 plan --platform $P:nodes=1024 --algo $A --size $S --format json
        run "model $A, $P:nodes=1024" 120 1024 model --platform $P:nodes=1024 --algo $A --size $S --format csv
    done
done
