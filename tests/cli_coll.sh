#!/usr/bin/env bash
# --coll allreduce|reducescatter|allgather: plan --check on presets, model's
# RS/AG ring = half its all-reduce, busbw = algbw (n-1)/n, refusals in one line.
. "$(dirname "$0")/lib_cli.sh"
. "$(dirname "$0")/lib_csv.sh"
for P in dgx-a100 aws-p4d gb200-nvl72 fr-5; do
  for c in reducescatter allgather; do
    for a in ring pipelined-ring; do
      if expect_ok "plan $a --coll $c on $P" -- plan --platform $P --algo $a --coll $c --size 10007 --check; then
        t_check "$a $c $P: validator" grep -q "^validator: ok" "$T_TMP/out"
        t_check "$a $c $P: host executor" grep -q "^host executor: ok" "$T_TMP/out"
      fi
    done
  done
done
expect_error "binomial serves all-reduce only" "binomial does not serve reducescatter" -- \
  plan --platform dgx-a100 --algo binomial --coll reducescatter
expect_error "hd RS needs a power of two" "power-of-two" -- plan --platform fr-5 --algo halving-doubling --coll allgather
expect_error "bad --coll" "is not a collective" -- model --platform dgx-a100 --coll gather
expect_error "sim --check with RS" "--check verifies all-reduce" -- sim --platform dgx-a100 --coll reducescatter --check
expect_ok "plan json" -- plan --platform dgx-a100 --algo ring --coll allgather --format json
t_check "json names the collective" grep -q '"collective":"allgather"' "$T_TMP/out"
expect_ok "algos" -- algos --format csv
t_check "algos: ring serves all three" grep -q '^ring,.*allreduce,reducescatter,allgather' "$T_TMP/out"

for P in dgx-a100 aws-p5; do
  for c in allreduce reducescatter allgather; do
    "$ARLAB" model --platform $P --algo ring --size 100MB --coll $c --format csv >"$T_TMP/$c.csv" 2>"$T_TMP/err" ||
      t_bad "model --coll $c on $P: $(cat "$T_TMP/err")"
  done
  ar=$(csv_col "$T_TMP/allreduce.csv" model_s)
  for c in reducescatter allgather; do
    read -r m alg bus ranks < <(csv_col "$T_TMP/$c.csv" model_s algbw_GBps busbw_GBps ranks)
    t_check "$P $c ring = half the all-reduce ring" python3 -c "import sys; sys.exit(abs($m-$ar/2)>1e-9*$ar)"
    t_check "$P $c busbw = algbw (n-1)/n" python3 -c "import sys; sys.exit(abs($bus-$alg*($ranks-1)/$ranks)>1e-5*$bus)"
  done
done
t_done
