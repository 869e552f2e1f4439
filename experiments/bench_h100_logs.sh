#!/bin/bash
# The `nccl` schedule against the public multi-node H100 logs on InfiniBand or RoCE at 64 KB - 4 MB,
# uncalibrated and calibrated, per cluster.
#
#   experiments/bench_h100_logs.sh [BUILD_DIR]
#   OLD=path/to/old/arlab experiments/bench_h100_logs.sh ...   (adds the old binary's simulation on the
#                                                              in-sample calibrated platform)
#
# The logs: every all-reduce log of experiments/reference/logs/MANIFEST.tsv whose compare platform is
# dgx-h100:nodes=N with N >= 2 and whose fabric (logs/CLUSTERS.tsv) is ib or roce, with its cluster
# (CLUSTERS.tsv: the logs of one machine room). For each log and each size of it in 64 KB - 4 MB,
# `arlab compare --measured LOG --algo nccl` on these platforms, and the simulated time of the `nccl`
# schedule (sim_s) / the measured time:
#   uncal  dgx-h100:nodes=N as it is;
#   in     calibrated on the log itself (`arlab calibrate --from LOG --platform dgx-h100`);
#   lono   leave-one-node-count-out: calibrated on the other logs of the log's cluster, the log's node count
#          predicted ("-" for a cluster of one log);
#   xcl    the other clusters: calibrated on every log of the other clusters;
#   rel    dgx-h100:nodes=N as it is, NCCL's model and the `nccl` schedule at the log's NCCL release
#          (`--nccl-version`, MANIFEST.tsv's nccl column, the "~" dropped; "-" where arlab does not model
#          that release).
# Beside them, NCCL's model (nccl_model_s / the measured time) on the preset at the default release (nm) and
# at the log's release (rnm), NCCL's model on the in-sample calibrated platform (cmodel: the model the
# calibrated schedule follows) and NCCL's pick on the preset at the default release and at the log's. Last,
# per cluster and in all, per column, the points within 20 % of the measured time (the acceptance of the
# schedule against these logs).
#
# A few seconds (no simulation over the budget: <= 7 sizes per log, 5 platforms and one calibration or
# three per log).
set -u
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
A=$BUILD/arlab
[ -x "$A" ] || { echo "bench_h100_logs: no arlab binary at $A (build first)" >&2; exit 2; }
OLD=${OLD:-}
if [ -n "$OLD" ] && [ ! -x "$OLD" ]; then echo "bench_h100_logs: OLD=$OLD is not an executable" >&2; exit 2; fi
L=$(cd "$(dirname "$0")" && pwd)/reference/logs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the logs, one a line: file nodes cluster release ("-" when none is known)
awk -F'\t' 'FNR == 1 { f++ } /^#/ || NF < 3 { next }
    f == 1 { fab[$1] = $2; cl[$1] = $3; next }
    $2 == "all_reduce" && $7 ~ /^dgx-h100:nodes=[0-9]+$/ {
        n = substr($7, 16) + 0
        if (n >= 2 && (fab[$1] == "ib" || fab[$1] == "roce")) { v = $10; sub(/^~/, "", v); print $1, n, cl[$1], v } }' \
    "$L/CLUSTERS.tsv" "$L/MANIFEST.tsv" >"$T/logs"
[ -s "$T/logs" ] ||
    { echo "bench_h100_logs: no multi-node dgx-h100 InfiniBand/RoCE log in $L/MANIFEST.tsv" >&2; exit 1; }

cal() { # OUT FILE... : a calibrated dgx-h100 from the files
    local out=$1
    shift
    [ -f "$out" ] && return 0
    "$A" calibrate --from "$@" --platform dgx-h100 --out "$out" >"$T/cal.log" 2>&1 ||
        { echo "bench_h100_logs: calibrate --from $* failed:" >&2; tail -3 "$T/cal.log" >&2; exit 1; }
}
# rows of one compare: bytes sim_s measured_s nccl_model_s algo/proto, 64 KB - 4 MB
rows() { # BIN PLATFORM LOG [COMPARE OPTIONS]
    local bin=$1 plat=$2 log=$3
    shift 3
    "$bin" compare --measured "$log" --platform "$plat" --algo nccl --format csv "$@" 2>/dev/null |
        awk -F, 'NR > 1 && $4 >= 65536 && $4 <= 4194304 {
            printf "%d %.9g %.9g %.9g %s/%s\n", $4, $6, $10, $12, $18, $19 }'
}
none() { awk '{print $1, "nan", $3, "nan", "-"}' "$T/u"; } # a column that does not apply to the log
# the calibration on a set of logs, one platform file per set (named by the logs' lines in $T/logs): lono, the
# other logs of the cluster of line I; xcl, the logs of every other cluster; "-" when the set is empty
calset() { # VAR lono|xcl I CLUSTER
    local sel
    sel=$(awk -v k="$2" -v me="$3" -v c="$4" '(k == "lono" && $3 == c && NR != me) || (k == "xcl" && $3 != c) {
        print NR, $1 }' "$T/logs")
    if [ -z "$sel" ]; then printf -v "$1" %s -; return; fi
    local key files=()
    key=$(awk '{ printf "-%d", $1 }' <<<"$sel")
    while read -r _ f; do files+=("$L/$f"); done <<<"$sel"
    cal "$T/set$key.json" "${files[@]}"
    printf -v "$1" %s "$T/set$key.json"
}

printf '%-6s %5s %8s %9s | %9s %6s | %9s %6s %9s | %9s %6s | %9s %6s' cluster nodes bytes meas_us uncal_us /meas \
    in_us /meas cmodel_us lono_us /meas xcl_us /meas
[ -n "$OLD" ] && printf ' | %9s %6s' old_in_us /meas
printf ' | %9s %6s %6s | %6s %6s | %s\n' rel_us /meas nccl nm rnm 'pick (preset; at the release)'
i=0
while read -r file n cluster rel; do
    i=$((i + 1))
    log=$L/$file
    cal "$T/in$i.json" "$log"
    calset lono lono "$i" "$cluster"
    calset xcl xcl "$i" "$cluster"
    rows "$A" "dgx-h100:nodes=$n" "$log" >"$T/u"
    rows "$A" "$T/in$i.json:nodes=$n" "$log" >"$T/i"
    if [ "$lono" = - ]; then none >"$T/l"; else rows "$A" "$lono:nodes=$n" "$log" >"$T/l"; fi
    if [ "$xcl" = - ]; then none >"$T/x"; else rows "$A" "$xcl:nodes=$n" "$log" >"$T/x"; fi
    if [ -n "$OLD" ]; then rows "$OLD" "$T/in$i.json:nodes=$n" "$log" >"$T/o"; else none >"$T/o"; fi
    # the log's release where arlab models it
    [ "$rel" != - ] && ! "$A" model --platform dgx-h100 --size 1MiB --algo nccl --nccl-version "$rel" >/dev/null 2>&1 &&
        rel="$rel(not modelled)"
    case $rel in
    - | *'(not modelled)') none >"$T/r" ;;
    *) rows "$A" "dgx-h100:nodes=$n" "$log" --nccl-version "$rel" >"$T/r" ;;
    esac
    paste -d' ' "$T/u" "$T/i" "$T/l" "$T/x" "$T/o" "$T/r" |
        awk -v name="$cluster" -v n="$n" -v old="${OLD:+1}" -v rel="${rel%(not modelled)}" '
        function r(s, m) { return s == "nan" ? "-" : sprintf("%.3f", s / m) }
        function us(s) { return s == "nan" ? "-" : sprintf("%.1f", s * 1e6) }
        { m = $3
          printf "%-6s %5d %8d %9.1f | %9s %6s | %9s %6s %9s | %9s %6s | %9s %6s", name, n, $1, m * 1e6,
                 us($2), r($2, m), us($7), r($7, m), us($9), us($12), r($12, m), us($17), r($17, m)
          if (old) printf " | %9s %6s", us($22), r($22, m)
          printf " | %9s %6s %6s | %6s %6s | %s; %s\n", us($27), r($27, m), rel, r($4, m), r($29, m), $5, $30 }'
done <"$T/logs" | tee "$T/table"
# per cluster, then in all: the points within 20 % per column ("-" ratios left out of that column's count)
awk -v old="${OLD:+1}" '
    function add(k, c, x) { if (x != "-") { tot[k, c]++; in20[k, c] += x >= 0.8 && x <= 1.2 } }
    function line(k, c, j) { printf "%-8s", k
        for (j = 1; j <= nc; j++) printf " %7s", (k, col[j]) in tot ? in20[k, col[j]] "/" tot[k, col[j]] : "-"
        printf "\n" }
    BEGIN { nc = split("u i l x r nm rnm" (old ? " o" : ""), col) }
    { o = old ? 3 : 0
      if (!($1 in seen)) { seen[$1] = 1; keys[++nk] = $1 }
      for (q = 0; q < 2; q++) { k = q ? "all" : $1
          add(k, "u", $7); add(k, "i", $10); add(k, "l", $14); add(k, "x", $17); if (old) add(k, "o", $20)
          add(k, "r", $(20 + o)); add(k, "nm", $(23 + o)); add(k, "rnm", $(24 + o)) } }
    END { printf "within 20 %% of the measured time (points):\n"
          printf "%-8s %7s %7s %7s %7s %7s %7s %7s%s\n", "cluster", "uncal", "in", "lono", "xcl", "rel", "nm", "rnm",
              old ? "  old_in" : ""
          for (j = 1; j <= nk; j++) line(keys[j])
          line("all") }' "$T/table"
