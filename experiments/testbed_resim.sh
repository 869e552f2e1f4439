#!/bin/bash
# Re-simulates a stored bench_testbed.sh run (no testbed, no root): every DIR/NAME-rK-cal.json with its
# NAME-rK-measured.csv through `arlab compare` as bench_testbed.sh does, the medians and the acceptance
# table, once with OLD (an earlier arlab, the stored platforms as they are) and once with ARLAB (the
# platforms with the ready messages as the calibration now writes them: compute.message.ready where the
# run's MPI transport had them, READY=auto). Prints both tables and the 64 KB points side by side.
#   ARLAB=build-test/arlab OLD=/tmp/arlab-old OUT=out/testbed-resim experiments/testbed_resim.sh DIR
# DIR: a bench_testbed.sh OUT directory (default /work/helpers/tbS7, the quiet rerun of 2026-11-28).
# Cases and repetitions: CASES (default "2x2 2+3 3level"), REPEAT (3), SIZES, ALGOS as bench_testbed.sh.
set -u
DIR=${1:-/work/helpers/tbS7}
ARLAB=${ARLAB:-build/arlab}
OLD=${OLD:-}
OUT=${OUT:-out/testbed-resim}
READY=${READY:-auto}
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$DIR" ] || { echo "testbed_resim: no directory $DIR" >&2; exit 2; }
run() { # run LABEL BINARY READY
    mkdir -p "$OUT/$1"
    echo "# $1: $2 (ready: $3)"
    OUT="$OUT/$1" ARLAB="$2" RESIM="$DIR" READY="$3" "$SRC/experiments/bench_testbed.sh" >"$OUT/$1/table.txt" 2>&1
    sed -n '/^# acceptance/,/^$/p' "$OUT/$1/table.txt"
}
[ -n "$OLD" ] && run before "$OLD" keep
run after "$ARLAB" "$READY"
echo "# 64 KB points: case, algorithm, measured, simulated before/after (ms), |sim - measured| / measured before/after"
for f in "$OUT"/after/*-median.csv; do
    name=$(basename "$f" -median.csv)
    b="$OUT/before/$name-median.csv"
    [ -s "$b" ] || b=/dev/null
    awk -F, -v name="$name" 'FNR == NR { if (FNR > 1) old[$1 "," $2] = $4; next }
        FNR > 1 && $2 < 1e6 { k = $1 "," $2; e = ($4 - $5) / $5; e = e < 0 ? -e : e
            eo = k in old ? (old[k] - $5) / $5 : 0; eo = eo < 0 ? -eo : eo
            printf "%-16s %-18s %8.3f %8s %8.3f ms %7s %6.1f%%\n", name, $1, 1e3 * $5, k in old ? sprintf("%.3f", 1e3 * old[k]) : "-",
                1e3 * $4, k in old ? sprintf("%.1f%%", 100 * eo) : "-", 100 * e }' "$b" "$f"
done
