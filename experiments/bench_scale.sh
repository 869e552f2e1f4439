#!/bin/bash
# targets in one table: wall time and peak memory of each case next
# to its target, "met" or "NOT met" (a case that runs past its cap is stopped
# and reported as such). Figures only: no case is a test.
#
#   experiments/bench_scale.sh [ARLAB] [CAP_SECONDS]
#   OLD=path/to/old/arlab [REPS=3] experiments/bench_scale.sh [ARLAB] [CAP_SECONDS]
#
# ARLAB defaults to build/arlab; CAP_SECONDS (default 120) stops each case.
# Run it on an otherwise idle machine (each case uses one core).
# ONLY=REGEX runs the cases whose label matches (grep -E), e.g. ONLY='ps|treepack'.
# The last rows are rate targets: transfers/s of one simulation (the CSV's transfers / wall_s,
# the simulating child alone), "met" when at least the goal.
# Paired mode, OLD set: each case runs REPS times on each binary, alternating old and
# new, and the table gives the median wall time and peak memory of each, the speedup, the
# verdict (of the new binary) and "same": whether the two binaries printed the same CSV apart
# from wall_s and peak_rss_kb in every repetition ("-" when a run did not finish or the case
# prints no CSV).
set -u
ARLAB=${1:-build/arlab}
CAP=${2:-120}
OLD=${OLD:-}
REPS=${REPS:-3}
ONLY=${ONLY:-}
[ -x "$ARLAB" ] || { echo "bench_scale.sh: no arlab binary at $ARLAB (give its path)" >&2; exit 2; }
[ -z "$OLD" ] || [ -x "$OLD" ] || { echo "bench_scale.sh: no old arlab binary at OLD=$OLD" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=experiments/lib_bench.sh
. "$(dirname "$0")/lib_bench.sh" # fields

# once BIN ARGS...: runs one case once; sets wall, mem and rc (124/130/137: stopped at the cap),
# its stdout in $TMP/out, stderr in $TMP/err
once() {
    local bin=$1
    shift
    timeout -s INT "$CAP" /usr/bin/time -f '%e %M' -o "$TMP/time" "$bin" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    wall="" mem=""
    read -r wall mem < <(grep -v '^Command' "$TMP/time" | tail -1)
}
capped() { [ "$1" -eq 124 ] || [ "$1" -eq 130 ] || [ "$1" -eq 137 ]; }
# nowall CSV: the CSV without its wall_s and peak_rss_kb columns (what two binaries must agree on)
nowall() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s" || $i == "peak_rss_kb") skip[i] = 1 }
        { o = ""; n = 0; for (i = 1; i <= NF; i++) if (!skip[i]) o = o (n++ ? "," : "") $i; print o }' "$1"
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [ -n "$OLD" ]; then
    printf '%-52s %9s %9s %8s %7s %7s %12s  %-8s %s\n' case old_s new_s speedup old_MB new_MB target verdict same
else
    printf '%-52s %10s %9s %12s  %s\n' case wall_s peak_MB target verdict
fi
run() { # run LABEL TARGET_S TARGET_MB ARGS...
    local label=$1 ts=$2 tm=$3
    shift 3
    if [ -n "$ONLY" ] && ! grep -qE -- "$ONLY" <<<"$label"; then return; fi
    [ -n "$OLD" ] && { paired "$label" "$ts" "$tm" "$@"; return; }
    once "$ARLAB" "$@"
    if capped $rc; then
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
paired() { # paired LABEL TARGET_S TARGET_MB ARGS...: REPS runs of each binary, alternating
    local label=$1 ts=$2 tm=$3
    shift 3
    local i same=yes ow=() om=() nw=() nm=() ocap=0 ncap=0 fail=""
    for ((i = 0; i < REPS; i++)); do
        once "$OLD" "$@"
        if capped $rc; then ocap=1; same="-"; else
            [ $rc -eq 0 ] || fail="old exit $rc: $(grep -v '^Command' "$TMP/err" | head -1)"
            ow+=("$wall") om+=("$mem")
            mv "$TMP/out" "$TMP/old"
        fi
        once "$ARLAB" "$@"
        if capped $rc; then ncap=1; same="-"; else
            [ $rc -eq 0 ] || fail="new exit $rc: $(grep -v '^Command' "$TMP/err" | head -1)"
            nw+=("$wall") nm+=("$mem")
            if [ "$same" != "-" ]; then
                if [ "$(head -c 5 "$TMP/out")" != "algo," ]; then same="-"
                elif ! cmp -s <(nowall "$TMP/old") <(nowall "$TMP/out"); then same=NO; fi
            fi
        fi
    done
    local o n oM nM
    o=$(printf '%s\n' "${ow[@]}" | grep . | median) n=$(printf '%s\n' "${nw[@]}" | grep . | median)
    oM=$(printf '%s\n' "${om[@]}" | grep . | median) nM=$(printf '%s\n' "${nm[@]}" | grep . | median)
    [ $ocap = 1 ] && o=">$CAP" oM="-"
    [ $ncap = 1 ] && n=">$CAP" nM="-"
    awk -v l="$label" -v o="$o" -v n="$n" -v om="$oM" -v nm="$nM" -v ts="$ts" -v tm="$tm" -v s="$same" -v f="$fail" 'BEGIN {
        capn = (n ~ /^>/); capo = (o ~ /^>/)
        sp = (capn || n + 0 <= 0) ? "-" : (capo ? ">" sprintf("%.1f", substr(o, 2) / n) : sprintf("%.1f", o / n))
        ok = !capn && (n + 0 < ts + 0) && (tm == "-" || nm / 1024 < tm + 0)
        printf "%-52s %9s %9s %8s %7s %7s %12s  %-8s %s%s\n", l, (capo ? o : sprintf("%.2f", o)), (capn ? n : sprintf("%.2f", n)), sp,
            (om == "-" ? "-" : sprintf("%.0f", om / 1024)), (nm == "-" ? "-" : sprintf("%.0f", nm / 1024)),
            "<" ts "s" (tm == "-" ? "" : ",<" tm "MB"), ok ? "met" : "NOT met", s, (f == "" ? "" : "  " f) }'
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
# (sim/fast_dataflow_cert.c): every one of its 33.5 M transfers costs arithmetic, none SimGrid
run "sim ring, flat:ranks=4096, 1 GiB" 2 - sim --platform flat --ranks 4096 --algo ring --size 1GiB --format csv
run "sim ring, flat:ranks=4096, --sync round" 2 - sim --platform flat --ranks 4096 --algo ring --size $S --sync round --format csv
run "sim ring, flat:ranks=4096 (dataflow, uneven)" 2 - sim --platform flat --ranks 4096 --algo ring --size $S --format csv
run "sim blueconnect, tree:ranks=16384" 30 4096 sim --platform tree --ranks 16384 --algo blueconnect --size $S --format csv
# NCCL's ring under dataflow (the default), even (100 MB) and uneven blocks (100000004 B), with EFA's
# o and g between the machines: the derived dataflow run carries each rank's send and receive sides
# (sim/fast_dataflow_cert.c); its 8 channels drift apart on shared NVLink, so it hands over to the
# per-rank engine, while one channel (and arlab's ring) is derived
run "sim nccl-ring, aws-p5:nodes=32" 0.5 - sim --platform aws-p5:nodes=32 --algo nccl-ring --size $S --format csv
run "sim nccl-ring, aws-p5:nodes=32, 100000004 B" 0.5 - sim --platform aws-p5:nodes=32 --algo nccl-ring --size 100000004B --format csv
run "sim nccl-ring:channels=1, aws-p5:nodes=32, 100000004 B" 0.5 - sim --platform aws-p5:nodes=32 --algo nccl-ring:channels=1 --size 100000004B --format csv
run "sim ring, aws-p5:nodes=32, 100000004 B" 0.5 - sim --platform aws-p5:nodes=32 --algo ring --size 100000004B --format csv
run "sim nccl-ring, aws-p5:nodes=32, --sync round" 0.5 - sim --platform aws-p5:nodes=32 --algo nccl-ring --size $S --sync round --format csv
# --budget honoured within 1 s or 10 %: a run of more than a minute stopped at 2 s (the whole command)
run "sim treepack, tree:ranks=256, --budget 2" 3 - sim --platform tree --ranks 256 --algo treepack --size $S --budget 2 --format csv
# the per-transfer path where no shortcut applies (every transfer a SimGrid flow), against ASTRA-sim
# 2.x's analytical backend on the same cases (144 s, 5.4 GB and 22.9 s, 748 MB; docs/simulator.md)
run "sim ring --no-shortcuts, flat 4096, 50GBps 500ns, 1MiB" 10 1024 sim --platform flat:ranks=4096,bw=50GBps,lat=500ns --algo ring --size 1MiB --no-shortcuts --format csv
run "sim ring+ring --no-shortcuts, 8 x 512, 1MiB" 10 1024 sim --platform tree:fanouts=8x512,bw=50GBps,lat=500ns --algo blueconnect:impl=ring --size 1MiB --no-shortcuts --format csv
# an asymmetric two-level tree of 256 GPUs: 32 machines of 7 and 9 GPUs in turn, every candidate simulated
run "best, 256-rank asymmetric tree (machines 7+9)" 60 - best --platform "machines:gpus=$(printf '7+9+%.0s' $(seq 16) | sed 's/+$//')" --size $S
run "model ring, dgx-h100:nodes=12500 (100 000 GPUs)" 60 8192 model --platform dgx-h100:nodes=12500 --algo ring --size $S --format csv
run "model blueconnect, dgx-h100:nodes=12500" 60 8192 model --platform dgx-h100:nodes=12500 --algo blueconnect --size $S --format csv
run "sim ring, dgx-h100:nodes=12500" 60 8192 sim --platform dgx-h100:nodes=12500 --algo ring --size $S --format csv
run "sim blueconnect, dgx-h100:nodes=12500" 60 8192 sim --platform dgx-h100:nodes=12500 --algo blueconnect --size $S --format csv
# NCCL's planners on the presets at 1024 nodes x 8 GPUs (8192 ranks)
for P in dgx-h100 aws-p5; do
    for A in nccl-ring nccl-tree; do
        run "plan $A, $P:nodes=1024" 10 1024 plan --platform $P:nodes=1024 --algo $A --size $S --format json
        run "model $A, $P:nodes=1024" 120 1024 model --platform $P:nodes=1024 --algo $A --size $S --format csv
    done
done

# rate LABEL GOAL ARGS...: transfers/s of `arlab sim ARGS` against GOAL (at least); with OLD, the
# median of REPS runs of each binary, alternating
rate() {
    local label=$1 goal=$2
    shift 2
    if [ -n "$ONLY" ] && ! grep -qE -- "$ONLY" <<<"$label"; then return; fi
    local i b xf w bins=("$ARLAB") reps=1 ro=() rn=()
    [ -n "$OLD" ] && bins=("$OLD" "$ARLAB") reps=$REPS
    echo "transfers/s (the CSV's transfers / wall_s; a rate, not seconds, in the time columns):"
    for ((i = 0; i < reps; i++)); do
        for b in "${bins[@]}"; do
            once "$b" "$@"
            capped $rc && continue
            [ $rc -eq 0 ] || continue
            IFS='|' read -r xf w < <(fields "$TMP/out" transfers wall_s)
            xf=$(awk -v x="$xf" -v w="$w" 'BEGIN { print (w > 0 ? x / w : 0) }')
            if [ "$b" = "$ARLAB" ]; then rn+=("$xf"); else ro+=("$xf"); fi
        done
    done
    local o n
    o=$(printf '%s\n' "${ro[@]}" | grep . | median) n=$(printf '%s\n' "${rn[@]}" | grep . | median)
    awk -v l="$label" -v o="$o" -v n="$n" -v g="$goal" -v paired="${OLD:+1}" 'BEGIN {
        ok = (n != "-" && n + 0 >= g + 0)
        fo = (o == "-" ? "-" : sprintf("%.0fK", o / 1000)); fn = (n == "-" ? "-" : sprintf("%.0fK", n / 1000))
        if (paired) printf "%-52s %9s %9s %8s %7s %7s %12s  %s\n", l, fo, fn, (o != "-" && n != "-" && o > 0 ? sprintf("%.2f", n / o) : "-"),
            "-", "-", ">=" g / 1000 "K/s", ok ? "met" : "NOT met"
        else printf "%-52s %10s %9s %12s  %s\n", l, fn, "-", ">=" g / 1000 "K/s", ok ? "met" : "NOT met" }'
}
# a ring under dataflow without shortcuts: at most 1024 flows in SimGrid at once (bench_flows.sh: the curve)
rate "transfers/s, ring --no-shortcuts, 1024 live flows" 1000000 sim --platform flat:ranks=1024 --algo ring --size $S --no-shortcuts --format csv
