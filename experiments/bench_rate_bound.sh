#!/bin/bash
# The cost of NCCL's protocol rate bounds (LL/LL128 caps on each flow) in the SimGrid simulation:
# three nccl runs whose every transfer carries a bound, timed on this build and on older binaries
# in the same run (sim/README.md: rate bounds).
#
#   experiments/bench_rate_bound.sh [ARLAB] [OLD_ARLAB...]
#   RUNS=5 experiments/bench_rate_bound.sh build-test/arlab /tmp/arlab-398ad83 /tmp/arlab-e77116a
#
# Each case runs RUNS times (default 5) per binary, the binaries taking turns (so a change of load
# hits them alike); printed: the median of the whole command's wall-clock (cmd_s) and of the
# simulation's own wall_s column, the min and max cmd_s, the simulated time sim_s, and whether
# sim_s equals the first binary's (same: to 1e-9 relative; a binary from before the bounds differs). Each binary's `--version` line on
# SimGrid says how it bounds a rate. Run it on an otherwise idle machine (one core); it prints
# `uptime`'s load before and after.
set -u
ARLAB=${1:-build/arlab}
shift || true
OLDS=("$@")
RUNS=${RUNS:-5}
BINS=("$ARLAB" "${OLDS[@]}")
for b in "${BINS[@]}"; do [ -x "$b" ] || { echo "bench_rate_bound.sh: no arlab binary at $b" >&2; exit 2; }; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=experiments/lib_bench.sh
. "$(dirname "$0")/lib_bench.sh" # fields

CASES=("dgx-b200:nodes=16 allgather 64MiB" "dgx-a100:nodes=8 allreduce 64MiB" "dgx-h100:nodes=8 allgather 1MiB")
echo "load before: $(uptime)"
for b in "${BINS[@]}"; do echo "$b: $("$b" --version 2>/dev/null | grep '^sim:' || echo 'sim: ?')"; done
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-20s %-10s %-7s %-26s %8s %8s %8s %8s %8s %22s %s\n' platform coll size binary cmd_s cpu_s wall_s min_s max_s sim_s same
for c in "${CASES[@]}"; do
    read -r plat coll size <<<"$c"
    for ((r = 0; r < RUNS; r++)); do
        for i in "${!BINS[@]}"; do
            t0=$(date +%s.%N)
            /usr/bin/time -f '%U %S' -o "$TMP/time" "${BINS[$i]}" sim --platform "$plat" --algo nccl --coll "$coll" \
                --size "$size" --format csv >"$TMP/csv" 2>"$TMP/err"
            rc=$?
            t1=$(date +%s.%N)
            if [ $rc -ne 0 ]; then echo "$plat $coll $size ${BINS[$i]}: failed (exit $rc): $(head -1 "$TMP/err")"; continue; fi
            echo "$t1 - $t0" | bc -l >>"$TMP/cmd.$i"
            awk '{ print $1 + $2 }' "$TMP/time" >>"$TMP/cpu.$i"
            IFS='|' read -r wall sim < <(fields "$TMP/csv" wall_s sim_s)
            echo "$wall" >>"$TMP/wall.$i"
            echo "$sim" >"$TMP/sim.$i"
        done
    done
    ref=$(cat "$TMP/sim.0" 2>/dev/null)
    for i in "${!BINS[@]}"; do
        [ -s "$TMP/cmd.$i" ] || continue
        cmd=$(median <"$TMP/cmd.$i")
        wall=$(median <"$TMP/wall.$i")
        cpu=$(median <"$TMP/cpu.$i")
        mn=$(sort -g "$TMP/cmd.$i" | head -1)
        mx=$(sort -g "$TMP/cmd.$i" | tail -1)
        sim=$(cat "$TMP/sim.$i")
        same=$(awk -v a="$sim" -v b="$ref" 'BEGIN { if (b == "" || !(b > 0)) { print "-"; exit }
            d = (a - b) / b; if (d < 0) d = -d; print (d <= 1e-9 ? "same" : sprintf("differs (%.3g)", d)) }')
        printf '%-20s %-10s %-7s %-26s %8.3f %8.3f %8.3f %8.3f %8.3f %22s %s\n' "$plat" "$coll" "$size" "${BINS[$i]}" \
            "$cmd" "$cpu" "$wall" "$mn" "$mx" "$sim" "$same"
        rm -f "$TMP/cmd.$i" "$TMP/cpu.$i" "$TMP/wall.$i" "$TMP/sim.$i"
    done
done
echo "load after: $(uptime)"
