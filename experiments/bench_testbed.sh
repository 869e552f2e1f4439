#!/bin/bash
# benchmark: measured (arlab-mpi on the emulated cluster) vs simulated vs
# model, after calibration, on
#   2x2     testbed-2x2       2 machines x 2 ranks, 500 Mbit/s uplinks
#   2+3     flexreduce-2m-5   FlexReduce Fig. 2 (2 + 3 ranks), 10 Gb/s x --scale 0.05 = 500 Mbit/s
#   3level  testbed-3level    2 racks x 2 machines x 2 ranks, 500 Mbit/s machine and rack uplinks
# Needs root (network namespaces) and arlab-mpi. Per case and repetition: `arlab testbed run
# --calibrate` (the MPI transport chosen by an exchange test unless TRANSPORT says otherwise; the
# ping-pong/exchange fit -> calibrated platform; then every algorithm), then `arlab compare` on that
# calibrated platform. Per point (case, algorithm, size) the medians over the REPEAT runs of the
# measured and the simulated time; then the acceptance table: per case and size class, the median and
# worst |simulated - measured| / measured over every algorithm and size, and how many pairs of
# algorithms whose measured times differ by more than 10 % the simulation orders alike.
#   ARLAB=build/arlab OUT=out/testbed CASES="2x2 2+3 3level" SIZES=64KB,1MB,8MB,64MB ITERS=3 REPEAT=3 \
#   TRANSPORT=auto experiments/bench_testbed.sh
# TRANSPORT: auto (default), links=N[,eager=B] (given), or none (no --transport option: an arlab that
# predates it, e.g. main's binary for a before/after table). Cases run in the order given, every
# repetition of one case before the next. Bounded: every mpirun by --timeout, the whole script by
# BENCH_BUDGET seconds (default 2400); a case whose runs the budget cut is reported with what it has.
# RESIM=DIR: no testbed run: re-simulate an earlier run's files (DIR/NAME-rK-cal.json and
# NAME-rK-measured.csv, K = 1..REPEAT) with $ARLAB, then the same medians and table (no root needed;
# experiments/testbed_resim.sh runs it before/after). READY (with RESIM): keep (the stored platform as
# it is), auto (compute.message.ready set where the platform's notes name the ready messages in its MPI
# transport, as the calibration now writes it), 1 (set), 0 (removed).
# Figure: $OUT/fig/testbed-calibrated.png (plots/testbed.gp on $OUT/calibrated.csv: every measured
# algorithm, measured points, simulated solid, model dashed).
set -u
ARLAB=${ARLAB:-build/arlab}
OUT=${OUT:-out/testbed}
SIZES=${SIZES:-64KB,1MB,8MB,64MB}
ITERS=${ITERS:-3}
REPEAT=${REPEAT:-3}
CASES=${CASES:-2x2 2+3 3level}
TRANSPORT=${TRANSPORT:-auto}
BUDGET=${BENCH_BUDGET:-2400}
RESIM=${RESIM:-}
READY=${READY:-keep}
ALGOS=${ALGOS:-ring,halving-doubling,blueconnect,flexreduce,ps,binomial}
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
t0=$(date +%s)
case_of() { # short name -> name:platform:scale
    case $1 in
    2x2) echo "testbed-2x2:$SRC/experiments/platforms/testbed-2x2.json:" ;;
    2+3) echo "flexreduce-2m-5:flexreduce-2m-5:0.05" ;;
    3level) echo "testbed-3level:$SRC/experiments/platforms/testbed-3level.json:" ;;
    *) echo "bench_testbed: unknown case '$1' (2x2, 2+3, 3level)" >&2; exit 2 ;;
    esac
}
echo "# bench_testbed: cases $CASES, algorithms $ALGOS, sizes $SIZES, $ITERS timed iterations, $REPEAT repetitions, transport $TRANSPORT"
echo "# load before: $(uptime)"
aflags=(); for a in ${ALGOS//,/ }; do aflags+=(--algo "$a"); done
sflags=(); for z in ${SIZES//,/ }; do sflags+=(--size "$z"); done
names=""
for c in $CASES; do
    IFS=: read -r name plat scale <<<"$(case_of "$c")"
    names="$names $name"
    for r in $(seq "$REPEAT"); do
        b="$OUT/$name-r$r"
        if [ -n "$RESIM" ]; then # re-simulate the stored run
            if ! [ -s "$RESIM/$name-r$r-cal.json" ] || ! [ -s "$RESIM/$name-r$r-measured.csv" ]; then
                echo "# $name run $r: not in $RESIM"; continue
            fi
            python3 - "$RESIM/$name-r$r-cal.json" "$READY" >"$b-cal.json" <<'PY' || { echo "# $name run $r: bad platform"; continue; }
import json, sys
d = json.load(open(sys.argv[1]))
mode = sys.argv[2]
notes = " ".join(d.get("notes", []))
on = mode == "1" or (mode == "auto" and ";ready" in notes)
msg = d.setdefault("compute", {}).setdefault("message", {})
if mode != "keep":
    msg.pop("ready", None)
    if on: msg["ready"] = True
if not msg: d["compute"].pop("message")
if not d["compute"]: d.pop("compute")
json.dump(d, sys.stdout, indent=1)
PY
            cp "$RESIM/$name-r$r-measured.csv" "$b-measured.csv"
            "$ARLAB" compare --platform "$b-cal.json" "${aflags[@]}" "${sflags[@]}" --format csv \
                "$b-measured.csv" >"$b-compare.csv" 2>"$b-compare.err" || echo "# $name run $r: compare failed: $(head -1 "$b-compare.err")"
            continue
        fi
        left=$(( BUDGET - ($(date +%s) - t0) ))
        if [ $left -lt 60 ]; then echo "# $name run $r: skipped (budget spent)"; continue; fi
        sc=(); [ -n "$scale" ] && sc=(--scale "$scale")
        tr=(); [ "$TRANSPORT" != none ] && tr=(--transport "$TRANSPORT")
        s0=$(date +%s)
        timeout --signal=INT $left "$ARLAB" testbed run --platform "$plat" "${sc[@]}" "${tr[@]}" --id bench$$ \
            --calibrate "$b-cal.json" --platform-out "$OUT/$name-shaped.json" --algo "$ALGOS" --size "$SIZES" \
            --iters "$ITERS" --warmup 1 --format csv --out "$b-measured.csv" --timeout $((left - 5)) \
            >"$b-run.txt" 2>&1
        rc=$?
        echo "# $name run $r: exit $rc, $(( $(date +%s) - s0 )) s; $(grep -m1 '^# MPI transport' "$b-run.txt" | cut -c3-)"
        grep -E "^# (fit|shaping)" "$b-run.txt" | sed 's/^/#   /'
        if [ $rc != 0 ]; then tail -3 "$b-run.txt"; rm -f "$b-compare.csv"; continue; fi
        "$ARLAB" compare --platform "$b-cal.json" "${aflags[@]}" "${sflags[@]}" --format csv \
            "$b-measured.csv" >"$b-compare.csv" 2>"$b-compare.err"
    done
done
echo "# load after: $(uptime)"

# per point: medians over the repetitions (compare CSV: algo,platform,ranks,bytes,model_s,sim_s,measured_s,...)
med_awk='function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                       return n == 0 ? "nan" : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) }'
for name in $names; do
    ls "$OUT/$name"-r*-compare.csv >/dev/null 2>&1 || continue
    awk -F, "$med_awk"'
        FNR == 1 { next }
        $6 != "nan" && $7 != "nan" && $6 != "" && $7 != "" {
            k = $1 "," $4; if (!(k in n)) order[++no] = k
            n[k]++; mo[k, n[k]] = $5; si[k, n[k]] = $6; me[k, n[k]] = $7 }
        END { print "algo,bytes,model_s,sim_s,measured_s,runs"
              for (i = 1; i <= no; i++) { k = order[i]
                  for (j = 1; j <= n[k]; j++) { a[j] = mo[k, j]; b[j] = si[k, j]; c[j] = me[k, j] }
                  printf "%s,%s,%s,%s,%d\n", k, med(a, n[k]), med(b, n[k]), med(c, n[k]), n[k] } }' \
        "$OUT/$name"-r*-compare.csv >"$OUT/$name-median.csv"
done

echo
echo "# acceptance: |simulated - measured| / measured on the calibrated platforms; every point the median of its runs"
echo "# pairs: algorithms of one case and size whose measured times differ by > 10 %, ordered alike by the simulation"
printf "%-16s %-10s %6s %8s %8s  %-30s %s\n" case sizes points median worst "worst at" "pairs agree"
accept() { # accept LABEL CLASS FILES...: CLASS bw (>= 8 MB) or small (< 8 MB)
    local label=$1 cls=$2; shift 2
    awk -F, -v label="$label" -v cls="$cls" "$med_awk"'
        FNR == 1 { f++; next }
        { big = $2 >= 8e6; if ((cls == "bw") != big) next
          e = ($4 - $5) / $5; if (e < 0) e = -e
          m++; v[m] = e; if (e > w) { w = e; wat = $1 " " $2 / 1e6 "MB" }
          k = f SUBSEP $2; c[k]++; al[k, c[k]] = $1; s[k, c[k]] = $4; me[k, c[k]] = $5 }
        END { agree = 0; tot = 0; bad = ""
              for (k in c) for (i = 1; i <= c[k]; i++) for (j = i + 1; j <= c[k]; j++) {
                  a = me[k, i]; b = me[k, j]; if (a <= 0 || b <= 0 || (a / b < 1.1 && b / a < 1.1)) continue
                  tot++; if ((a < b) == (s[k, i] < s[k, j])) agree++; else bad = bad " " al[k, i] "/" al[k, j] }
              if (m == 0) exit
              printf "%-16s %-10s %6d %7.1f%% %7.1f%%  %-30s %d/%d%s\n", label, cls == "bw" ? "8-64MB" : "64KB-1MB", m,
                     100 * med(v, m), 100 * w, wat, agree, tot, bad == "" ? "" : " (disagree:" bad ")" }' "$@"
}
all=()
for name in $names; do
    f="$OUT/$name-median.csv"
    [ -s "$f" ] || continue
    all+=("$f")
    accept "$name" bw "$f"
    accept "$name" small "$f"
done
if [ ${#all[@]} -gt 1 ]; then
    accept "all" bw "${all[@]}"
    accept "all" small "${all[@]}"
fi
echo
echo "# per point: case, algorithm, size, model, simulated, measured (medians), |sim - measured| / measured"
for name in $names; do
    f="$OUT/$name-median.csv"
    [ -s "$f" ] || continue
    awk -F, -v name="$name" 'NR > 1 { e = ($4 - $5) / $5; if (e < 0) e = -e
        printf "%-16s %-18s %10d %10.2f %10.2f %10.2f ms %6.1f%%  (%d runs)\n", name, $1, $2, 1e3 * $3, 1e3 * $4, 1e3 * $5, 100 * e, $6 }' "$f"
done

# the calibrated comparison as one CSV for plots/testbed.gp (platform = the measured platform's name)
{
    echo "platform,algo,bytes,model_s,sim_s,measured_s,status"
    for c in $CASES; do
        IFS=: read -r name _ scale <<<"$(case_of "$c")"
        f="$OUT/$name-median.csv"
        [ -s "$f" ] || continue
        label=$name; [ -n "$scale" ] && label="$name@scale=$scale"
        awk -F, -v l="$label" 'NR > 1 {print l "," $1 "," $2 "," $3 "," $4 "," $5 ",ok"}' "$f"
        # the MPI_Allreduce baseline: measured only (no schedule to simulate); median over the runs
        awk -F, "$med_awk"' FNR > 1 && $1 == "mpi-allreduce" { k = $4; if (!(k in n)) o[++no] = k; n[k]++; t[k, n[k]] = $5 }
            END { for (i = 1; i <= no; i++) { k = o[i]; for (j = 1; j <= n[k]; j++) a[j] = t[k, j]
                  printf "%s,mpi-allreduce,%s,nan,nan,%s,ok\n", l, k, med(a, n[k]) } }' l="$label" "$OUT/$name"-r*-measured.csv
    done
} >"$OUT/calibrated.csv"
if command -v gnuplot >/dev/null; then
    mkdir -p "$OUT/fig"
    GNUPLOT_LIB="$SRC/plots" gnuplot -e "data='$OUT/calibrated.csv'; out='$OUT/fig/testbed-calibrated'" "$SRC/plots/testbed.gp" \
        && echo "# figure: $OUT/fig/testbed-calibrated.png (calibrated platforms); 'arlab sweep experiments/testbed.json' for the nominal ones"
fi
echo "# total $(( $(date +%s) - t0 )) s; files in $OUT"
