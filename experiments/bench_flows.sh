#!/bin/bash
# Simulator speed against the number of live flows: transfers/s of the SimGrid backend
# when exactly L flows are in SimGrid at once, for L = 16 .. 2048 (4096 when the 2048 run leaves room
# under the cap).
#
#   experiments/bench_flows.sh [ARLAB] [CAP_S]
#
# ARLAB defaults to build/arlab; CAP_S (default 120) caps each run (arlab's --budget, with a hard
# timeout a minute later): a capped run prints the transfers it simulated in that time, their rate
# and "capped", and the larger L of that case are not run (they would be capped too).
# Every run is `arlab sim --algo ring --no-shortcuts --format csv`: no exact shortcut, every transfer
# is a SimGrid flow. Cases, each at every L:
#   round     ring on flat:ranks=L, --size 1GiB --sync round: even blocks, a round's L flows start
#             and end together (2(L-1) rounds of L flows);
#   dataflow  ring on flat:ranks=L, --size 100MB (dataflow, the default): the blocks of 25e6 floats
#             are uneven once L does not divide 25e6 (L >= 128; L <= 64 divides it, so those rows are
#             even blocks), completions then fall at distinct instants (the general case);
#   tree      the same on tree:ranks=L: routes of several links (leaf and spine switches), but the
#             ring order puts at most one flow on each link (the CSV's bottleneck_flows is 1).
# Live flows: a ring of L ranks has L transfers per step, one per rank; under dataflow a rank starts
# its next step once its send and its receive of this one are done, so at most L flows are live.
# The live_max and live_mean columns check it from a --trace of the same run (for L <= TRACE_MAX,
# default 256; "-" above): live_max = the most transfers in flight at one instant, live_mean = the
# sum of the transfers' durations / the simulated time.
# Columns: transfers = the schedule's (all simulated: simgrid_xfers); wall_s = the CSV's wall_s (the
# simulation only: the child process that runs SimGrid, platform construction included);
# transfers/s = transfers / wall_s; rss_MB = the simulating process's peak RSS (peak_rss_kb);
# sim_s = simulated time. Environment: NETWORK=MODEL,key:value,... runs every case under that
# --network (e.g. CM02,network/solver:maxmin; default: arlab's default network, printed at the end);
# CASES="round dataflow tree" picks the cases. Figures depend on the machine's load: run it on an otherwise idle machine
# (it uses one core).
set -u
ARLAB=${1:-build/arlab}
CAP=${2:-120}
TRACE_MAX=${TRACE_MAX:-256}
CASES=${CASES:-round dataflow tree}
for c in $CASES; do
    case $c in round | dataflow | tree) ;; *) echo "bench_flows.sh: unknown case '$c' in CASES (round, dataflow, tree)" >&2; exit 2 ;; esac
done
NET=()
[ -n "${NETWORK:-}" ] && NET=(--network "$NETWORK")
[ -x "$ARLAB" ] || { echo "bench_flows.sh: no arlab binary at $ARLAB (give its path)" >&2; exit 2; }
case $CAP in '' | *[!0-9]*) echo "bench_flows.sh: CAP_S must be a whole number of seconds, not '$CAP'" >&2; exit 2 ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=experiments/lib_bench.sh
. "$(dirname "$0")/lib_bench.sh" # field

# live TRACE: "MAX MEAN" live transfers of a Chrome trace (ts/dur in microseconds, printed to 1e-6;
# an end is moved 2e-6 us earlier so that a transfer that starts as another ends is not counted twice)
live() {
    local mean
    mean=$(awk 'match($0, /"ts":[0-9.e+-]+,"dur":[0-9.e+-]+/) {
        split(substr($0, RSTART, RLENGTH), a, /[:,]/); s += a[4]; e = a[2] + a[4]
        if (n++ == 0 || a[2] < t0) t0 = a[2]; if (e > t1) t1 = e }
        END { printf "%.1f", (t1 > t0 ? s / (t1 - t0) : 0) }' "$1")
    awk 'match($0, /"ts":[0-9.e+-]+,"dur":[0-9.e+-]+/) {
        split(substr($0, RSTART, RLENGTH), a, /[:,]/); printf "%.7f 1\n%.7f -1\n", a[2], a[2] + a[4] - 2e-6 }' "$1" |
        sort -g -k1,1 -k2,2n | awk -v m="$mean" '{ c += $2; if (c > x) x = c } END { print x + 0, m }'
}

printf '%-9s %6s %8s %9s %10s %9s %12s %7s %14s %s\n' case live live_max live_mean transfers wall_s transfers/s rss_MB sim_s note
capped=""
bench() { # bench CASE L ARGS...  (prints one row; sets capped=CASE when the run was capped)
    local name=$1 L=$2
    shift 2
    timeout $((CAP + 60)) "$ARLAB" sim --algo ring "$@" "${NET[@]}" --no-shortcuts --budget "${CAP}s" --format csv >"$TMP/csv" 2>"$TMP/err"
    local rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        printf '%-9s %6d capped (killed %d s past the cap of %d s)\n' "$name" "$L" 60 "$CAP"
        capped=$name
        return
    fi
    if [ $rc -ne 0 ]; then
        printf '%-9s %6d failed (exit %d): %s\n' "$name" "$L" $rc "$(head -1 "$TMP/err")"
        return
    fi
    local xf sx wall rss sim complete note lmax="-" lmean="-"
    IFS='|' read -r xf sx wall rss sim complete < <(fields "$TMP/csv" transfers simgrid_xfers wall_s peak_rss_kb sim_s complete)
    note=""
    if [ "$complete" = 0 ]; then
        note="capped at $CAP s: partial, $sx of $((2 * L * (L - 1))) transfers"
        capped=$name
        xf=$sx
    elif [ "$L" -le "$TRACE_MAX" ]; then
        if "$ARLAB" sim --algo ring "$@" "${NET[@]}" --no-shortcuts --format csv --trace "$TMP/trace.json" >/dev/null 2>&1; then
            read -r lmax lmean < <(live "$TMP/trace.json")
        fi
        rm -f "$TMP/trace.json"
    fi
    [ "$sx" = "$xf" ] || note="$note (only $sx of $xf transfers in SimGrid)"
    awk -v c="$name" -v L="$L" -v a="$lmax" -v b="$lmean" -v x="$xf" -v w="$wall" -v r="$rss" -v s="$sim" -v n="$note" 'BEGIN {
        printf "%-9s %6d %8s %9s %10d %9.3f %12.0f %7.1f %14.9g %s\n", c, L, a, b, x, w, (w > 0 ? x / w : 0), r / 1024, s, n }'
    last_wall=$wall
}

for c in $CASES; do
    capped=""
    last_wall=0
    for L in 16 32 64 128 256 512 1024 2048 4096; do
        if [ -n "$capped" ]; then
            printf '%-9s %6d capped (not run: a smaller L of this case reached the cap)\n' "$c" "$L"
            continue
        fi
        # 4096 has 4x the transfers of 2048, each no cheaper: run it only if that fits under the cap
        if [ "$L" -eq 4096 ] && awk -v w="$last_wall" -v c="$CAP" 'BEGIN { exit !(4 * w > c) }'; then
            printf '%-9s %6d capped (not run: 4 x the 2048 run'\''s %.0f s passes the cap of %d s)\n' "$c" "$L" "$last_wall" "$CAP"
            continue
        fi
        case $c in
        round) bench "$c" "$L" --platform "flat:ranks=$L" --size 1GiB --sync round ;;
        dataflow) bench "$c" "$L" --platform "flat:ranks=$L" --size 100MB ;;
        tree) bench "$c" "$L" --platform "tree:ranks=$L" --size 100MB ;;
        esac
    done
done
echo
echo "network: $("$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 "${NET[@]}" --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $(c["network"]) }')"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
