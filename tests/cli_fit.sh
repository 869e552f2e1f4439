#!/usr/bin/env bash
# `arlab fit` (issue 14) on a hand-written nccl-tests file: the fit, the size buckets, LOSO; #wrong > 0 refused.
. "$(dirname "$0")/lib_cli.sh"
D="$(dirname "$0")/data/nccltests"
expect_ok "fit h100 1 node" -- fit --from "$D/h100_1node_allreduce.txt" --platform dgx-h100 --boot 100
t_check "6 records" grep -q 'to 6 all_reduce records' "$T_TMP/out"
t_check "latency row" grep -q '^latency_scale ' "$T_TMP/out"
t_check "bandwidth row" grep -q '^bandwidth_scale ' "$T_TMP/out"
t_check "bucket < 1 MB has 2" grep -q '^< 1 MB  *2 ' "$T_TMP/out"
t_check "bucket 1-64 MB has 2" grep -q '^1-64 MB  *2 ' "$T_TMP/out"
t_check "bucket 64-512 MB has 1" grep -q '^64-512 MB  *1 ' "$T_TMP/out"
t_check "bucket >= 512 MB has 1" grep -q '^>= 512 MB  *1 ' "$T_TMP/out"
t_check "loso line" grep -q '^leave-one-size-out prediction error: median' "$T_TMP/out"
expect_error "wrong refused" 'wrong.txt:' -- fit --from "$D/wrong.txt" --platform dgx-h100
expect_error "no --from" 'usage' -- fit --platform dgx-h100
t_done
