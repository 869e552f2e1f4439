#!/usr/bin/env bash
# A platform declares its GPU ("gpu": a model or sm_NN in a file; gpu= or sm= on a family or a
# rail fabric), so NCCL's model applies to any platform; without one, NCCL's model says so.
. "$(dirname "$0")/../lib_cli.sh"
cd "$T_TMP" || exit 1
gpu_line() { "$ARLAB" platform show "$1" | sed -n 's/^  GPU: //p'; }
t_check "dgx-h100 declares an H100" test "$(gpu_line dgx-h100)" = "h100 (compute capability 9.0)"
t_check "blueconnect-192 declares a P100" test "$(gpu_line blueconnect-192)" = "p100 (compute capability 6.0)"
t_check "fr-5 declares a GTX 1080 Ti" test "$(gpu_line fr-5)" = "gtx1080ti (compute capability 6.1)"
t_check "a rail fabric keeps its preset's GPU" test "$(gpu_line dgx-h100:nodes=2)" = "h100 (compute capability 9.0)"
t_check "gpu= on a rail fabric overrides it" test "$(gpu_line dgx-h100:nodes=2,gpu=h200)" = "h200 (compute capability 9.0)"
t_check "gpu= on a family" test "$(gpu_line flat:ranks=8,gpu=rtx4090)" = "rtx4090 (compute capability 8.9)"
t_check "sm= on a family" test "$(gpu_line machines:gpus=4+4,sm=89)" = "sm_89 (compute capability 8.9)"
t_check "a family without one declares none" test -z "$(gpu_line flat:ranks=8)"
expect_error "an unknown GPU" 'is not a known GPU' -- platform show flat:ranks=8,gpu=rtx9999
expect_error "gpu= and sm= together" 'not both' -- platform show flat:ranks=8,gpu=h100,sm=90
printf '{"name": "box", "kind": "graph", "gpu": "rtx9090", "gpus": 2, "links": [{"a": "gpu0", "b": "gpu1", "bw": "10GBps", "lat": "1us"}]}\n' >bad.json
expect_error "an unknown GPU in a file names its key" 'bad.json: gpu:' -- platform show bad.json
sed 's/rtx9090/rtx4090/' bad.json >box.json
# NCCL's model: the same 8-GPU flat box, with and without its GPU
expect_ok "NCCL's model with the GPU" -- model --platform flat:ranks=8,gpu=rtx4090 --algo nccl --size 1GB --format csv
t_check "NCCL's choice is known with the GPU" test -n "$(csv_col "$T_TMP/out" nccl_model_s | tail -1)"
expect_ok "NCCL's model without" -- model --platform flat:ranks=8 --algo ring --size 1GB --format csv
t_check "NCCL's choice is empty without the GPU" test -z "$(csv_col "$T_TMP/out" nccl_model_s | tail -1)"
expect_ok "a user's file with its GPU" -- model --platform box.json --algo nccl --size 1MB --format csv
t_check "NCCL's model applies to a user's file" test -n "$(csv_col "$T_TMP/out" nccl_model_s | tail -1)"
expect_ok "round trip of gpu" -- platform show box.json --format json
t_check "platform show --format json keeps the GPU" grep -q '"gpu": "rtx4090"' "$T_TMP/out"
t_done
