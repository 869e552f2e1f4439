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
t_check "per algorithm/protocol table" grep -q '^per algorithm/protocol bandwidth efficiency' "$T_TMP/out"
t_check "NVLS/SIMPLE group of 3, identified" grep -q '^NVLS  *SIMPLE  *3  *no .* yes$' "$T_TMP/out"
t_check "RING/LL group of 3 (latency-bound: not identified)" grep -q '^RING  *LL  *3  *no .*NO (kept at 1' "$T_TMP/out"
t_check "one node count: LONCO not run" grep -q '^leave-one-node-count-out: not run' "$T_TMP/out"
# 1 and 2 nodes (the 16-rank run on dgx-h100:nodes=2): leave-one-node-count-out
expect_ok "fit 1+2 nodes" -- fit --from "$D/h100_1node_allreduce.txt" "$D/h100_2node_ring.txt" --platform dgx-h100 \
    --boot 50
t_check "10 records" grep -q 'to 10 all_reduce records' "$T_TMP/out"
t_check "LONCO: 1 node held out, 6 records" grep -Eq '^ 1 node +6 +[0-9.]+ +[0-9.]+$' "$T_TMP/out"
t_check "LONCO: 2 nodes held out, 4 records" grep -Eq '^ 2 nodes +4 +[0-9.]+ +[0-9.]+$' "$T_TMP/out"
t_check "intra-node class = the one-node fit (0.8346, 0.8500)" \
  grep -Eq '^  intra-node \(1-node runs\) +n +6  latency 0\.8346 .* bandwidth 0\.8500 ' "$T_TMP/out"
t_check "inter-node class of 4 records" grep -Eq '^  inter-node \(multi-node runs\) n +4 ' "$T_TMP/out"
RAIL=$(sed -n "s/^multi-node platform with the per node class fit: --platform '\(.*\)' (N: node count)$/\1/p" "$T_TMP/out")
BI=$(awk '$1 == "inter-node" {print $11}' "$T_TMP/out")
cp "$T_TMP/out" "$T_TMP/out12"
t_check "rail spec printed" test -n "$RAIL"
t_check "NIC = 48 GB/s (dgx-h100 preset's NIC) x inter bandwidth $BI" \
  awk -v r="$RAIL" -v b="$BI" 'BEGIN { if (!match(r, /nic=[0-9.e+]+GBps/)) exit 1; v = substr(r, RSTART + 4, RLENGTH - 8) + 0;
    d = v / (48 * b) - 1; exit !(b != "" && d < 1e-3 && d > -1e-3) }'
expect_ok "the rail spec loads (2 nodes)" -- model --platform "${RAIL/nodes=N/nodes=2}" --algo ring --size 1MB
cp "$T_TMP/out12" "$T_TMP/out"
t_check "forced RING groups" grep -Eq '^RING +SIMPLE +2 +yes ' "$T_TMP/out"
t_check "intra/inter not separated" grep -q 'the runs span 1..2 nodes' "$T_TMP/out"
expect_error "16 ranks on a 8-rank 2-node platform" 'run has 16 ranks' -- fit --from "$D/h100_2node_ring.txt" \
    --platform bc-ibm-2x4
expect_error "wrong refused" 'wrong.txt:' -- fit --from "$D/wrong.txt" --platform dgx-h100
expect_error "no --from" 'usage' -- fit --platform dgx-h100
# calibrate --from: the calibrated platform JSON (links scaled by the fit), accepted by model, sim and best
CAL="$T_TMP/cal.json"
expect_ok "calibrate from nccl-tests" -- calibrate --from "$D/h100_1node_allreduce.txt" --platform dgx-h100 \
    --boot 100 --out "$CAL"
t_check "one node: inter-node not identifiable" grep -q 'inter-node latency and bandwidth: NOT identifiable' "$T_TMP/out"
t_check "wrote the platform" grep -q "^wrote $CAL" "$T_TMP/out"
BS=$(awk '$1 == "bandwidth_scale" {print $2}' "$T_TMP/out")
LS=$(awk '$1 == "latency_scale" {print $2}' "$T_TMP/out")
BW=$(sed -n 's/.*"bw":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$CAL" | head -1)
LAT=$(sed -n 's/.*"lat":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$CAL" | head -1)
t_check "bw = 20.6 GB/s x bandwidth_scale" awk -v b="$BW" -v s="$BS" 'BEGIN { d = b / 20.6e9 - s; exit !(d < 1e-4 && d > -1e-4 && s != "") }'
t_check "lat = 1 us x latency_scale" awk -v l="$LAT" -v s="$LS" 'BEGIN { d = l / 1e-6 - s; exit !(d < 1e-4 && d > -1e-4 && s != "") }'
t_check "per algorithm/protocol efficiencies in the notes" grep -q 'NVLS/SIMPLE 0\.8[0-9]* \[' "$CAL"
t_check "named dgx-h100-calibrated" grep -q '"name":.*"dgx-h100-calibrated"' "$CAL"
expect_ok "model on the calibrated platform" -- model --platform "$CAL" --size 100MB --algo ring --format csv
t_check "model names it" grep -q 'dgx-h100-calibrated' "$T_TMP/out"
expect_ok "sim on the calibrated platform" -- sim --platform "$CAL" --size 100MB --algo ring
expect_ok "best on the calibrated platform" -- best --platform "$CAL" --size 100MB
t_done
