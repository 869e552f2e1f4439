#!/bin/bash
# SimGrid's own speed options: the same simulations under each network solver and update
# mechanism, their wall time and whether the simulated time stays exact.
#
#   experiments/bench_simgrid_opts.sh [ARLAB] [CAP_S]
#
# ARLAB defaults to build/arlab; CAP_S (default 120) caps each run (--budget, with a hard timeout a
# minute later); a capped run prints "capped". Settings, each named in full on --network (a key not
# named keeps its default: network/optim is SimGrid's Lazy, i.e. lazy action management with
# selective update, unless Full is named; maxmin/precision is SimGrid's 1e-5 unless named):
#   default                       no --network: arlab's default (its network string is printed first)
#   fairbottleneck                CM02,network/solver:fairbottleneck
#   fairbottleneck Full           CM02,network/solver:fairbottleneck,network/optim:Full
#   maxmin                        CM02,network/solver:maxmin
#   maxmin Full                   CM02,network/solver:maxmin,network/optim:Full
#   maxmin 1e-13                  CM02,network/solver:maxmin,maxmin/precision:1e-13
#   bmf                           CM02,network/solver:bmf
# Columns: transfers = the schedule's; in_sg = the transfers SimGrid simulated (simgrid_xfers +
# probe_xfers: a shortcut's probe is a SimGrid run too; fewer than transfers where exact shortcuts
# applied). Every row is compared with the default row of its case: wall_s (the CSV's wall_s: the
# simulation only), speed = default wall_s / wall_s, sim_s to 17 digits and |rel| =
# |sim_s / default sim_s - 1| ("exact" when <= 1e-12). A setting that fails prints its error line.
# Wall times depend on the machine's load: run it on an otherwise idle machine (it uses one core).
set -u
ARLAB=${1:-build/arlab}
CAP=${2:-120}
[ -x "$ARLAB" ] || { echo "bench_simgrid_opts.sh: no arlab binary at $ARLAB (give its path)" >&2; exit 2; }
case $CAP in '' | *[!0-9]*) echo "bench_simgrid_opts.sh: CAP_S must be a whole number of seconds, not '$CAP'" >&2; exit 2 ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=experiments/lib_bench.sh
. "$(dirname "$0")/lib_bench.sh" # field

"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 --format csv >"$TMP/csv" 2>/dev/null
echo "default network: $(field network "$TMP/csv")"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo

SETTINGS=(
    "default|"
    "fairbottleneck|CM02,network/solver:fairbottleneck"
    "fairbottleneck Full|CM02,network/solver:fairbottleneck,network/optim:Full"
    "maxmin|CM02,network/solver:maxmin"
    "maxmin Full|CM02,network/solver:maxmin,network/optim:Full"
    "maxmin 1e-13|CM02,network/solver:maxmin,maxmin/precision:1e-13"
    "bmf|CM02,network/solver:bmf"
)

printf '%-30s %-20s %9s %7s %9s %24s %10s %s\n' case setting transfers in_sg wall_s sim_s '|rel|' note
run_case() { # run_case LABEL ARGS...
    local label=$1
    shift
    local dwall="" dsim="" entry name net
    for entry in "${SETTINGS[@]}"; do
        name=${entry%%|*}
        net=${entry#*|}
        local extra=()
        [ -n "$net" ] && extra=(--network "$net")
        timeout $((CAP + 60)) "$ARLAB" sim "$@" "${extra[@]}" --budget "${CAP}s" --digits 17 --format csv \
            >"$TMP/csv" 2>"$TMP/err"
        local rc=$?
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            printf '%-30s %-20s capped (killed %d s past the cap of %d s)\n' "$label" "$name" 60 "$CAP"
            continue
        fi
        if [ $rc -ne 0 ]; then
            printf '%-30s %-20s failed (exit %d): %s\n' "$label" "$name" $rc "$(head -1 "$TMP/err")"
            continue
        fi
        local xf sx px wall sim complete
        IFS='|' read -r xf sx px wall sim complete < <(fields "$TMP/csv" transfers simgrid_xfers probe_xfers wall_s sim_s complete)
        sx=$((sx + px))
        if [ "$complete" = 0 ]; then
            awk -v l="$label" -v n="$name" -v c="$CAP" -v g="$sx" -v w="$wall" 'BEGIN {
                printf "%-30s %-20s capped at %d s: %d transfers simulated, %.0f/s\n", l, n, c, g, (w > 0 ? g / w : 0) }'
            continue
        fi
        if [ "$name" = default ]; then
            dwall=$wall
            dsim=$sim
        fi
        awk -v l="$label" -v n="$name" -v x="$xf" -v g="$sx" -v w="$wall" -v s="$sim" -v dw="$dwall" -v ds="$dsim" 'BEGIN {
            if (ds == "") { printf "%-30s %-20s %9d %7d %9.3f %24.17g %10s %s\n", l, n, x, g, w, s, "-", "(no default row)"; exit }
            r = s / ds - 1; if (r < 0) r = -r
            note = (r <= 1e-12 ? "exact" : "differs")
            note = note sprintf(", %.2fx the default'"'"'s speed", (w > 0 ? dw / w : 0))
            printf "%-30s %-20s %9d %7d %9.3f %24.17g %10.3g %s\n", l, n, x, g, w, s, r, note }'
    done
}

run_case "ps tree:ranks=128" --platform tree:ranks=128 --algo ps
run_case "treepack tree:ranks=128" --platform tree:ranks=128 --algo treepack
run_case "ring flat:512 100MB nosc" --platform flat:ranks=512 --algo ring --size 100MB --no-shortcuts
run_case "ring flat:1024 1GiB nosc round" --platform flat:ranks=1024 --algo ring --size 1GiB --no-shortcuts --sync round
run_case "blueconnect blc-192 c16 nosc" --platform blueconnect-192 --algo blueconnect --chunks 16 --no-shortcuts
run_case "flexreduce fr-7 c64" --platform fr-7 --algo flexreduce --chunks 64
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
