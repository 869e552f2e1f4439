#!/bin/bash
# NCCL's cost model (nccl_model_s) against the public nccl-tests logs of experiments/reference/logs:
# the median |error| of the model's time per log and per size bucket (< 64 KB, 64 KB - 64 MB,
# >= 64 MB), uncalibrated, NCCL's own choice of algorithm and protocol at each size.
#
#   experiments/bench_nccl_model_corpus.sh [ARLAB] [-- EXTRA ARGS TO compare]
#
# ARLAB defaults to build/arlab. Extra arguments (e.g. --nccl-version 2.18) go to every
# `arlab compare --measured`; `-- --nccl-model tuner` gives the tuner's own time, without arlab's
# pipeline fill (docs/models.md, NCCL's model). Three tables: every log at the default release (or EXTRA's), then each
# log at the NCCL release its source states (logs/MANIFEST.tsv's nccl column, X.Y.Z) where arlab models it
# (--nccl-version), then at the release stated or inferred (~X.Y; reference/README.md says how). The logs and
# platforms are those of logs/MANIFEST.tsv's compare column (all-reduce: compare compares all-reduce only). A log's fabric
# (logs/CLUSTERS.tsv: IB, RoCE, EFA, TCPXO, NVLink only) is printed beside it: the goal (10 % at >= 64 MB,
# 20 % in the middle) is for InfiniBand, RoCE and one NVSwitch node. nvswitch-1p: one NVSwitch node
# driven by one process and one thread (nccl-tests -g 8), outside the goal's group: the host launches
# every GPU's kernel in turn, a cost NCCL's model does not price (logs/README.md says why per log).
set -u
here=$(cd "$(dirname "$0")" && pwd)
ARLAB=${1:-"$here/../build/arlab"}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
EXTRA=("$@")
L=$here/reference/logs
[ -x "$ARLAB" ] || { echo "bench_nccl_model_corpus.sh: no $ARLAB" >&2; exit 2; }
# log | platform | fabric: every all-reduce log of logs/MANIFEST.tsv with a compare platform, its fabric from
# logs/CLUSTERS.tsv (a log without one is refused: its group would be unknown)
RUNS=$(awk -F'\t' 'FNR == 1 { f++ } /^#/ || NF < 3 { next }
    f == 1 { fab[$1] = $2; next }
    $2 == "all_reduce" && $7 != "-" {
        if (!($1 in fab)) {
            print "bench_nccl_model_corpus.sh: " $1 ": no fabric in CLUSTERS.tsv" >"/dev/stderr"; bad = 1 }
        print $1 "|" $7 "|" fab[$1] }
    END { exit bad }' "$L/CLUSTERS.tsv" "$L/MANIFEST.tsv") || exit 2
# release LOG MODE: the log's NCCL release from MANIFEST.tsv's nccl column where arlab models it (MODE 1: stated
# only; 2: stated or inferred, the "~" dropped), else "-"
release() {
    local v
    v=$(awk -F'\t' -v f="$1" '$1 == f { print $10; exit }' "$L/MANIFEST.tsv")
    case $v in '' | -) echo -; return ;; '~'*) [ "$2" = 2 ] || { echo -; return; }; v=${v#\~} ;; esac
    "$ARLAB" model --platform dgx-h100 --size 1MiB --algo nccl --nccl-version "$v" >/dev/null 2>&1 && echo "$v" || echo -
}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
report() { # $1 = 1: each log at the NCCL release its source states, 2: stated or inferred (the default where none
# is known or modelled)
rm -f "$tmp/rows"
# every row: log fabric bucket |err| err release ("-": the default)
while IFS='|' read -r log plat fab; do
    vopt=()
    ver=-
    [ "$1" != 0 ] && ver=$(release "$log" "$1")
    [ "$ver" != - ] && vopt=(--nccl-version "$ver")
    "$ARLAB" compare --measured "$L/$log" --platform "$plat" --algo nccl --format csv "${vopt[@]}" "${EXTRA[@]}" \
        2>/dev/null >"$tmp/out.csv" || { echo "# $log: compare failed" >&2; continue; }
    awk -F, -v lg="$log" -v fab="$fab" -v ver="$ver" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $(c["nccl_s"]) != "" && $(c["nccl_model_s"]) != "" {
            b = $(c["bytes"]) + 0; m = $(c["nccl_s"]) + 0; p = $(c["nccl_model_s"]) + 0
            if (m <= 0) next
            k = b < 65536 ? "small" : b < 67108864 ? "mid" : "large"
            e = (p - m) / m; printf "%s %s %s %.6f %.6f %s\n", lg, fab, k, (e < 0 ? -e : e), e, ver }' "$tmp/out.csv" >>"$tmp/rows"
done <<<"$RUNS"
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit } printf "%.1f", 100 * (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
printf '%-48s %-11s %9s %9s %9s %8s %s\n' "$2" fabric '<64KB' '64KB-64MB' '>=64MB' 'signed' nccl
for log in $(awk '{ print $1 }' "$tmp/rows" | uniq); do
    fab=$(awk -v l="$log" '$1 == l { print $2; exit }' "$tmp/rows")
    ver=$(awk -v l="$log" '$1 == l { print $6; exit }' "$tmp/rows")
    s=$(awk -v l="$log" '$1 == l && $3 == "small" { print $4 }' "$tmp/rows" | median)
    m=$(awk -v l="$log" '$1 == l && $3 == "mid" { print $4 }' "$tmp/rows" | median)
    g=$(awk -v l="$log" '$1 == l && $3 == "large" { print $4 }' "$tmp/rows" | median)
    sg=$(awk -v l="$log" '$1 == l && $3 != "small" { print $5 }' "$tmp/rows" | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%+.1f", 100 * v[int((NR + 1) / 2)] }')
    printf '%-48s %-11s %8s%% %8s%% %8s%% %7s%% %s\n' "$log" "$fab" "$s" "$m" "$g" "$sg" "$ver"
done
echo "# median |error| of nccl_model_s over every row of the group (signed: median error at >= 64 KB; + = model slower)"
for grp in "ib roce nvswitch ib-sharp|IB/RoCE/NVSwitch" "efa tcpxo|EFA/TCPXO" "nvswitch-1p|one process, all GPUs" \
    "ib roce nvswitch ib-sharp efa tcpxo nvswitch-1p|all"; do
    fabs=${grp%%|*} name=${grp##*|}
    sel() { awk -v f=" $fabs " -v k="$1" 'index(f, " " $2 " ") && $3 == k { print $4 }' "$tmp/rows"; }
    printf '%-48s %-11s %8s%% %8s%% %8s%%\n' "$name" "" "$(sel small | median)" "$(sel mid | median)" "$(sel large | median)"
done
}
report 0 "NCCL ${EXTRA[*]:-2.30.7 (default)}, every log"
echo
report 1 "each log at its stated NCCL version"
echo
report 2 "each log at its stated or inferred NCCL version"
