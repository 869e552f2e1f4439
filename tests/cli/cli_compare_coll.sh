#!/bin/bash
# compare beyond NCCL's all-reduce choice: --coll allgather/reducescatter compares those runs; NCCL's model column
# prices what the run forced (its NCCL log's NCCL_ALGO/NCCL_PROTO, or --nccl-algo/--nccl-proto); a measured row
# with #wrong > 0 is flagged.
. "$ARLAB_SRC/tests/lib_cli.sh"
L="$ARLAB_SRC/experiments/reference/logs"
D="$ARLAB_SRC/tests/data/nccltests"
# all-gather runs (8 x A100): compared, NCCL's model of all-gather beside them
expect_ok "compare --coll allgather" -- compare --measured "$L/superbench_a100_1node_allgather.txt" --coll allgather \
    --platform dgx-a100 --format csv
csv_col "$T_TMP/out" algo bytes model_s nccl_s nccl_model_s nccl_algo >"$T_TMP/ag"
t_check "all-gather: every size (>= 25) of NCCL's choice, each with a model, a measurement and NCCL's model" awk -F'\t' '
  $1 == "nccl" { n++; if (!($3 > 0 && $4 > 0 && $5 > 0 && $6 != "")) bad++ } END { exit !(n >= 25 && !bad) }' "$T_TMP/ag"
# NCCL's model of all-gather, not of all-reduce: at 1 GiB the all-gather moves (n-1)/n of the buffer once, the
# all-reduce twice: NCCL's all-reduce model is > 1.5x its all-gather one
expect_ok "the same sizes as all-reduce" -- compare --measured "$L/superbench_a100_1node_allreduce.txt" \
    --platform dgx-a100 --format csv --algo nccl
csv_col "$T_TMP/out" algo bytes nccl_model_s >"$T_TMP/ar"
t_check "NCCL's model: all-reduce > 1.5 x all-gather at the largest size" python3 - "$T_TMP/ag" "$T_TMP/ar" <<'PY'
import sys
ag = {float(l.split("\t")[1]): float(l.split("\t")[4]) for l in open(sys.argv[1]) if l.startswith("nccl\t")}
ar = {float(l.split("\t")[1]): float(l.split("\t")[2]) for l in open(sys.argv[2]) if l.startswith("nccl\t")}
b = max(set(ag) & set(ar))
sys.exit(not (b >= 2**30 and ar[b] > 1.5 * ag[b]))
PY
expect_ok "compare --coll reducescatter" -- compare --measured "$L/superbench_a100_1node_reducescatter.txt" \
    --coll reducescatter --platform dgx-a100 --format csv --algo nccl
t_check "reduce-scatter: rows compared" test "$(csv_col "$T_TMP/out" nccl_s | grep -c '[0-9]')" -ge 25
expect_error "broadcast: arlab does not model it" 'arlab models all-reduce, all-gather and reduce-scatter' -- \
    compare --measured "$L/superbench_a100_1node_broadcast.txt" --coll broadcast --platform dgx-a100

# --nccl-algo/--nccl-proto: NCCL's model column prices RING/SIMPLE at every size
expect_ok "compare, NCCL's choice" -- compare --measured "$L/superbench_a100_1node_allreduce.txt" --platform dgx-a100 \
    --algo nccl --format csv
csv_col "$T_TMP/out" bytes nccl_model_s nccl_algo nccl_proto >"$T_TMP/free"
expect_ok "compare --nccl-algo ring --nccl-proto simple" -- compare --measured \
    "$L/superbench_a100_1node_allreduce.txt" --platform dgx-a100 --algo nccl --nccl-algo ring --nccl-proto simple --format csv
csv_col "$T_TMP/out" bytes nccl_model_s nccl_algo nccl_proto >"$T_TMP/forced"
t_check "forced: RING/SIMPLE at every size" awk -F'\t' '{ n++; if ($3 != "RING" || $4 != "SIMPLE") bad++ } END { exit !(n >= 25 && !bad) }' "$T_TMP/forced"
t_check "free: NCCL's own choice is not RING/SIMPLE at the smallest size" awk -F'\t' 'NR == 1 { exit !($3 "/" $4 != "RING/SIMPLE") }' "$T_TMP/free"
t_check "forced: slower than NCCL's choice where the choice differs, equal where it is RING/SIMPLE" python3 - "$T_TMP/free" "$T_TMP/forced" <<'PY'
import sys
f = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
g = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
ok = len(f) == len(g) >= 25
for a, b in zip(f, g):
    if a[2:] == ["RING", "SIMPLE"]: ok &= abs(float(a[1]) - float(b[1])) <= 1e-12 * float(a[1])
    else: ok &= float(b[1]) > float(a[1])
sys.exit(not ok)
PY
# a file whose NCCL log forced NCCL_ALGO=Ring, NCCL_PROTO=Simple: the column follows it without an option
expect_ok "compare a run that forced Ring/Simple" -- compare --measured "$D/h100_2node_ring.txt" \
    --platform dgx-h100:nodes=2 --algo nccl --format csv
t_check "the run's own NCCL_ALGO/NCCL_PROTO priced" awk -F'\t' '{ n++; if ($1 != "RING" || $2 != "SIMPLE") bad++ } END { exit !(n >= 4 && !bad) }' \
    <(csv_col "$T_TMP/out" nccl_algo nccl_proto)

# a measured CSV row with #wrong > 0: flagged in the table and on stderr
printf 'algo,platform,ranks,bytes,measured_s,inplace,wrong\nring,,8,1048576,0.0001,1,0\nring,,8,16777216,0.001,1,5\n' >"$T_TMP/m.csv"
expect_ok "compare a CSV with a wrong row" -- compare "$T_TMP/m.csv" --platform dgx-h100 --algo ring --size 1MiB,16MiB
t_check "the wrong row flagged in the table" grep -Eq '^ *ring .* 5 WRONG' "$T_TMP/out"
t_check "one line on stderr says so" grep -q '^arlab compare: 1 row matched a measured run with #wrong > 0' "$T_TMP/err"
t_done
