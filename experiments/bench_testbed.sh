#!/bin/bash
# benchmark: measured (arlab-mpi on the emulated cluster) vs simulated
# vs model, after calibration, for ring, halving-doubling, two-level,
# BlueConnect, FlexReduce, tree packing and MPI_Allreduce on
#   (a) testbed-2x2       2 machines x 2 ranks, 500 Mbit/s uplinks
#   (b) flexreduce-2m-5   FlexReduce Fig. 2 (2 + 3 ranks), 10 Gb/s x --scale 0.05 = 500 Mbit/s
#   (c) testbed-3level    2 racks x 2 machines x 2 ranks, 500 Mbit/s machine and rack uplinks
# Needs root (network namespaces) and arlab-mpi. Per case: `arlab testbed run
# --calibrate` (ping-pong fit -> calibrated platform, then every algorithm),
# then `arlab compare` on the calibrated platform. Prints, per algorithm, the
# median and worst |measured - simulated| / measured over the sizes, and
# whether the ranking by simulation matches the measured one (pairs of
# algorithms whose measured times differ by more than 10 %).
#   ARLAB=build/arlab OUT=out/testbed SIZES=64KB,1MB,8MB,64MB ITERS=3 experiments/bench_testbed.sh
# Bounded: every mpirun by --timeout, the whole script by BENCH_BUDGET seconds (default 540).
# Figure: $OUT/fig/testbed-calibrated.png (plots/testbed.gp on $OUT/calibrated.csv); the sweep
# experiments/testbed.json imports the same measurements against the platforms as shaped.
set -u
ARLAB=${ARLAB:-build/arlab}
OUT=${OUT:-out/testbed}
SIZES=${SIZES:-64KB,1MB,8MB,64MB}
ITERS=${ITERS:-3}
BUDGET=${BENCH_BUDGET:-540}
ALGOS=ring,halving-doubling,two-level,blueconnect,flexreduce,treepack
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
t0=$(date +%s)
cases="testbed-2x2:$SRC/experiments/platforms/testbed-2x2.json: flexreduce-2m-5:flexreduce-2m-5:0.05 testbed-3level:$SRC/experiments/platforms/testbed-3level.json:"
i=0
for c in $cases; do
    IFS=: read -r name plat scale <<<"$c"
    i=$((i + 1))
    left=$(( BUDGET - ($(date +%s) - t0) ))
    if [ $left -lt 30 ]; then echo "# $name: skipped (budget spent)"; continue; fi
    sc=(); [ -n "$scale" ] && sc=(--scale "$scale")
    echo "# $name: testbed run (budget left ${left}s)"
    timeout --signal=INT $left "$ARLAB" testbed run --platform "$plat" "${sc[@]}" --id bench$i \
        --calibrate "$OUT/$name-cal.json" --platform-out "$OUT/$name-shaped.json" --algo $ALGOS --size "$SIZES" \
        --iters "$ITERS" --warmup 1 --format csv --out "$OUT/$name-measured.csv" --timeout $((left - 5)) \
        >"$OUT/$name-run.txt" 2>&1
    rc=$?
    grep -E "^# (shaping|calibrated|inter|scale)|machine [0-9]" "$OUT/$name-run.txt"
    if [ $rc != 0 ]; then echo "# $name: testbed run exited $rc (see $OUT/$name-run.txt)"; tail -3 "$OUT/$name-run.txt"; continue; fi
    aflags=(); for a in ${ALGOS//,/ }; do aflags+=(--algo "$a"); done
    sflags=(); for z in ${SIZES//,/ }; do sflags+=(--size "$z"); done
    for p in cal shaped; do
        "$ARLAB" compare --platform "$OUT/$name-$p.json" "${aflags[@]}" "${sflags[@]}" --format csv \
            "$OUT/$name-measured.csv" >"$OUT/$name-compare-$p.csv" 2>"$OUT/$name-compare-$p.err"
    done
    # the MPI_Allreduce baseline: measured only (no schedule to simulate)
    awk -F, 'NR > 1 && $1 == "mpi-allreduce" {print "mpi-allreduce," $2 "," $3 "," $4 ",nan,nan," $5 ",nan,nan,nan," $12}' \
        "$OUT/$name-measured.csv" >>"$OUT/$name-compare-cal.csv"
done

# Summary: compare CSV columns algo,platform,ranks,bytes,model_s,sim_s,measured_s,sim_err,measured_err,nccl_s,wrong
echo
echo "# |measured - simulated| / measured per algorithm, calibrated platforms (median, worst over sizes; bw-bound = sizes >= 8 MB)"
printf "%-16s %-18s %8s %8s %10s %10s\n" case algo median worst "med(bw)" "worst(bw)"
for c in $cases; do
    IFS=: read -r name _ _ <<<"$c"
    f="$OUT/$name-compare-cal.csv"
    [ -s "$f" ] || continue
    awk -F, -v name="$name" '
        function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                       return n == 0 ? -1 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) }
        NR > 1 && $6 != "nan" && $7 != "nan" && $7 > 0 {
            e = ($7 - $6) / $7; if (e < 0) e = -e
            n[$1]++; v[$1, n[$1]] = e; if (e > w[$1]) w[$1] = e
            if ($4 >= 8e6) { nb[$1]++; vb[$1, nb[$1]] = e; if (e > wb[$1]) wb[$1] = e }
            order[$1] = 1
        }
        END { for (a in order) { k = 0; for (i = 1; i <= n[a]; i++) x[++k] = v[a, i]; m = med(x, k); delete x
                                 k = 0; for (i = 1; i <= nb[a]; i++) x[++k] = vb[a, i]; mb = med(x, k); delete x
                                 if (nb[a]) bw = sprintf("%9.1f%% %9.1f%%", 100 * mb, 100 * wb[a]); else bw = sprintf("%10s %10s", "-", "-")
                                 printf "%-16s %-18s %7.1f%% %7.1f%% %s\n", name, a, 100 * m, 100 * w[a], bw } }' "$f" | sort
done
echo
echo "# ranking: pairs of algorithms (same case and size) whose measured times differ by > 10 %: does simulation order them the same?"
for c in $cases; do
    IFS=: read -r name _ _ <<<"$c"
    f="$OUT/$name-compare-cal.csv"
    [ -s "$f" ] || continue
    awk -F, -v name="$name" '
        NR > 1 && $6 != "nan" && $7 != "nan" { k = $4; n[k]++; al[k, n[k]] = $1; s[k, n[k]] = $6; m[k, n[k]] = $7 }
        END { for (k in n) { agree = 0; tot = 0; bad = ""
                for (i = 1; i <= n[k]; i++) for (j = i + 1; j <= n[k]; j++) {
                    a = m[k, i]; b = m[k, j]; if (a <= 0 || b <= 0) continue
                    if (a / b < 1.1 && b / a < 1.1) continue
                    tot++; if ((a < b) == (s[k, i] < s[k, j])) agree++; else bad = bad " " al[k, i] "/" al[k, j] }
                printf "%-16s %10d B: %d/%d pairs ordered alike%s\n", name, k, agree, tot, bad == "" ? "" : "; disagree:" bad } }' "$f" | sort -k2 -n
done
# the calibrated comparison as one CSV for plots/testbed.gp (platform = the measured platform's name)
{
    echo "platform,algo,bytes,model_s,sim_s,measured_s,status"
    for c in $cases; do
        IFS=: read -r name _ scale <<<"$c"
        f="$OUT/$name-compare-cal.csv"
        [ -s "$f" ] || continue
        label=$name; [ -n "$scale" ] && label="$name@scale=$scale"
        awk -F, -v l="$label" 'NR > 1 {print l "," $1 "," $4 "," $5 "," $6 "," $7 ",ok"}' "$f"
    done
} >"$OUT/calibrated.csv"
if command -v gnuplot >/dev/null; then
    mkdir -p "$OUT/fig"
    GNUPLOT_LIB="$SRC/plots" gnuplot -e "data='$OUT/calibrated.csv'; out='$OUT/fig/testbed-calibrated'" "$SRC/plots/testbed.gp" \
        && echo "# figure: $OUT/fig/testbed-calibrated.png (calibrated platforms); 'arlab sweep experiments/testbed.json' for the nominal ones"
fi
echo "# total $(( $(date +%s) - t0 )) s; files in $OUT"
