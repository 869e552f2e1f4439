#!/bin/bash
# The cost walk's speed on the pipelined switch schedules (models/walk.c's event pass: NVLS,
# NVLS_TREE and CollNet stages run concurrently, slice by slice), old binary against new.
#
#   experiments/bench_walk.sh [BUILD_DIR]                  (new binary: BUILD_DIR/arlab, default build)
#   OLD=path/to/old/arlab experiments/bench_walk.sh ...    (pairs every row with an old binary)
#   PLATS="dgx-h100:nodes=16" ALGOS="nvlstree" SIZES="8GB" REPS=5 experiments/bench_walk.sh ...
#
# For each platform, algorithm and size: `arlab model --format csv` wall and CPU (user + system)
# time, medians of REPS runs (3 by default; with OLD the two binaries alternate, run by run, so both
# see the same load), the wall speed-up, and whether both printed the same CSV byte for byte
# ("same"; the walk must not move a digit). On a shared machine the CPU time is the steadier
# figure. collnet needs reducing rail switches: its rows run on PLATFORM,sharp=100GBps. Goal:
# every row under 0.5 s. Default grid: nccl, nvls, nvlstree, collnet at 1 MB, 64 MB, 1 GB, 8 GB on
# dgx-h100:nodes=2,4,8,16 and dgx-b200:nodes=16 (80 rows; about 1 minute new alone, several
# with an old binary whose event pass is slow).
set -u
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
[ $# -eq 0 ] || { echo "bench_walk.sh: unknown argument $1" >&2; exit 2; }
NEW=$BUILD/arlab
[ -x "$NEW" ] || { echo "bench_walk.sh: no $NEW (build first)" >&2; exit 2; }
OLD=${OLD:-}
[ -z "$OLD" ] || [ -x "$OLD" ] || { echo "bench_walk.sh: OLD=$OLD is not executable" >&2; exit 2; }
PLATS=${PLATS:-dgx-h100:nodes=2 dgx-h100:nodes=4 dgx-h100:nodes=8 dgx-h100:nodes=16 dgx-b200:nodes=16}
ALGOS=${ALGOS:-nccl nvls nvlstree collnet}
SIZES=${SIZES:-1MB 64MB 1GB 8GB}
REPS=${REPS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run BIN OUT ARGS...: runs BIN ARGS... > OUT, prints its wall and CPU (user + system) seconds
run() {
    local bin=$1 out=$2
    shift 2
    /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$bin" "$@" --format csv >"$out" 2>/dev/null
    awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$TMP/time"
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-34s %-9s %-6s %8s %8s %8s %8s %8s  %s\n' platform algo size old_wall new_wall speedup old_cpu new_cpu output
slow=0 diff=0 rows=0
for plat in $PLATS; do
    for algo in $ALGOS; do
        p=$plat
        [ "$algo" = collnet ] && p=$plat,sharp=100GBps
        for size in $SIZES; do
            nw=() nc=() ow=() oc=()
            for ((r = 0; r < REPS; r++)); do
                if [ -n "$OLD" ]; then
                    read -r a b < <(run "$OLD" "$TMP/old" model --platform "$p" --algo "$algo" --size "$size")
                    ow+=("$a") oc+=("$b")
                fi
                read -r a b < <(run "$NEW" "$TMP/new" model --platform "$p" --algo "$algo" --size "$size")
                nw+=("$a") nc+=("$b")
            done
            n=$(median "${nw[@]}") ncpu=$(median "${nc[@]}")
            o=- ocpu=- x=- same=-
            if [ -n "$OLD" ]; then
                o=$(median "${ow[@]}") ocpu=$(median "${oc[@]}")
                x=$(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.1fx", (n > 0 ? o / n : 0) }')
                if cmp -s "$TMP/old" "$TMP/new"; then same=same; else same=DIFFERENT diff=$((diff + 1)); fi
            fi
            awk -v n="$n" 'BEGIN { exit !(n >= 0.5) }' && slow=$((slow + 1))
            rows=$((rows + 1))
            printf '%-34s %-9s %-6s %8s %8s %8s %8s %8s  %s\n' "$p" "$algo" "$size" "$o" "$n" "$x" "$ocpu" "$ncpu" "$same"
        done
    done
done
echo "rows: $rows; new at or over 0.5 s wall: $slow${OLD:+; outputs different from the old binary: $diff}"
[ "$diff" = 0 ]
