#!/bin/bash
# The `nccl` schedule against the public H100 logs at 64 KB - 4 MB, uncalibrated and calibrated.
#
#   experiments/bench_h100_logs.sh [BUILD_DIR]
#   OLD=path/to/old/arlab experiments/bench_h100_logs.sh ...   (adds the old binary's simulation on the
#                                                              in-sample calibrated platform)
#
# The logs (experiments/reference/logs, nccl-tests#309): one 2 x 8 HGX H100 cluster on InfiniBand
# (hgx, 2 nodes) and one 8 x H100 cluster on InfiniBand at 2, 4 and 8 nodes (ib). For each log and
# each size of it in 64 KB - 4 MB, `arlab compare --measured LOG --algo nccl` on four platforms, and
# the simulated time of the `nccl` schedule (sim_s) / the measured time:
#   uncal  dgx-h100:nodes=N as it is;
#   in     calibrated on the log itself (`arlab calibrate --from LOG --platform dgx-h100:nodes=N`);
#   lono   leave-one-node-count-out, ib only: calibrated on the ib cluster's two other logs
#          (`calibrate --from A B --platform dgx-h100`), the log's node count predicted;
#   xcl    the other cluster: ib predicted by a calibration on hgx, hgx by one on the three ib logs.
#   rel    dgx-h100:nodes=N as it is, NCCL's model and the `nccl` schedule at the log's NCCL release
#          (`--nccl-version`, logs/MANIFEST.tsv's nccl column: hgx 2.26.2 stated, ib ~2.26 inferred).
# Beside them, NCCL's model on the in-sample calibrated platform (cmodel: its nccl_model_s, the model the
# calibrated schedule follows) and NCCL's pick on the preset at the default release and at the log's. Last,
# per column, the points within 20 % of the measured time (the acceptance of the schedule against these logs).
#
# A few seconds (no simulation over the budget: 4 logs x <= 7 sizes x 5 platforms).
set -u
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
A=$BUILD/arlab
[ -x "$A" ] || { echo "bench_h100_logs: no arlab binary at $A (build first)" >&2; exit 2; }
OLD=${OLD:-}
if [ -n "$OLD" ] && [ ! -x "$OLD" ]; then echo "bench_h100_logs: OLD=$OLD is not an executable" >&2; exit 2; fi
L=$(cd "$(dirname "$0")" && pwd)/reference/logs
HGX=$L/nccl-tests309_hgx_h100_2node_ib_allreduce.txt
IB2=$L/nccl-tests309_h100_2node_ib_allreduce.txt
IB4=$L/nccl-tests309_h100_4node_ib_allreduce.txt
IB8=$L/nccl-tests309_h100_8node_ib_allreduce.txt
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cal() { # OUT FILE... : a calibrated dgx-h100 from the files (the platform's node count from the first file's)
    local out=$1
    shift
    "$A" calibrate --from "$@" --platform dgx-h100 --out "$out" >"$T/cal.log" 2>&1 ||
        { echo "bench_h100_logs: calibrate --from $* failed:" >&2; tail -3 "$T/cal.log" >&2; exit 1; }
}
# rows of one compare: bytes sim_s measured_s nccl_model_s algo/proto, 64 KB - 4 MB
rows() { # BIN PLATFORM LOG [COMPARE OPTIONS]
    local bin=$1 plat=$2 log=$3
    shift 3
    "$bin" compare --measured "$log" --platform "$plat" --algo nccl --format csv "$@" 2>/dev/null |
        awk -F, 'NR > 1 && $4 >= 65536 && $4 <= 4194304 {printf "%d %.9g %.9g %.9g %s/%s\n", $4, $6, $10, $12, $18, $19}'
}

cal "$T/hgx.json" "$HGX"
cal "$T/ib2.json" "$IB2"
cal "$T/ib4.json" "$IB4"
cal "$T/ib8.json" "$IB8"
cal "$T/ib-2.json" "$IB4" "$IB8"
cal "$T/ib-4.json" "$IB2" "$IB8"
cal "$T/ib-8.json" "$IB2" "$IB4"
cal "$T/iball.json" "$IB2" "$IB4" "$IB8"

printf '%-4s %5s %8s %9s | %9s %6s | %9s %6s %9s | %9s %6s | %9s %6s' log nodes bytes meas_us uncal_us /meas \
    in_us /meas cmodel_us lono_us /meas xcl_us /meas
[ -n "$OLD" ] && printf ' | %9s %6s' old_in_us /meas
printf ' | %9s %6s %6s %s\n' rel_us /meas nccl 'pick (preset; at the release)'
for spec in "hgx 2 $HGX hgx - iball" "ib 2 $IB2 ib2 ib-2 hgx" "ib 4 $IB4 ib4 ib-4 hgx" "ib 8 $IB8 ib8 ib-8 hgx"; do
    set -- $spec
    name=$1 n=$2 log=$3 in=$4 lono=$5 xcl=$6
    rows "$A" "dgx-h100:nodes=$n" "$log" >"$T/u"
    rows "$A" "$T/$in.json:nodes=$n" "$log" >"$T/i"
    if [ "$lono" = - ]; then awk '{print $1, "nan", $3, "nan", "-"}' "$T/u" >"$T/l"; else rows "$A" "$T/$lono.json:nodes=$n" "$log" >"$T/l"; fi
    rows "$A" "$T/$xcl.json:nodes=$n" "$log" >"$T/x"
    if [ -n "$OLD" ]; then rows "$OLD" "$T/$in.json:nodes=$n" "$log" >"$T/o"; else awk '{print $1, "nan", "nan", "nan", "-"}' "$T/u" >"$T/o"; fi
    # the log's release, stated or inferred (the "~" dropped)
    rel=$(awk -F'\t' -v f="${log##*/}" '$1 == f { print $10; exit }' "$L/MANIFEST.tsv")
    rel=${rel#\~}
    case $rel in '' | -) awk '{print $1, "nan", $3, "nan", "-"}' "$T/u" >"$T/r" ;;
    *) rows "$A" "dgx-h100:nodes=$n" "$log" --nccl-version "$rel" >"$T/r" ;; esac
    paste -d' ' "$T/u" "$T/i" "$T/l" "$T/x" "$T/o" "$T/r" |
        awk -v name="$name" -v n="$n" -v old="${OLD:+1}" -v rel="${rel:--}" '
        function r(s, m) { return s == "nan" ? "-" : sprintf("%.3f", s / m) }
        function us(s) { return s == "nan" ? "-" : sprintf("%.1f", s * 1e6) }
        { m = $3
          printf "%-4s %5d %8d %9.1f | %9s %6s | %9s %6s %9s | %9s %6s | %9s %6s", name, n, $1, m * 1e6,
                 us($2), r($2, m), us($7), r($7, m), us($9), us($12), r($12, m), us($17), r($17, m)
          if (old) printf " | %9s %6s", us($22), r($22, m)
          printf " | %9s %6s %6s %s; %s\n", us($27), r($27, m), rel, $5, $30 }'
done | tee "$T/table"
awk -v old="${OLD:+1}" '
    function ok(x) { return x != "-" && x >= 0.8 && x <= 1.2 }
    { n++; u += ok($7); i += ok($10); if ($14 != "-") { nl++; l += ok($14) }; x += ok($17); if (old) o += ok($20)
      v = old ? $23 : $20; rl += ok(v) }
    END { printf "within 20 %% of the measured time: uncalibrated %d/%d, in-sample %d/%d, leave-one-node-count-out %d/%d, other cluster %d/%d", u, n, i, n, l, nl, x, n
          printf ", uncalibrated at the log'"'"'s NCCL release %d/%d", rl, n
          if (old) printf ", old binary in-sample %d/%d", o, n
          printf "\n" }' "$T/table"
