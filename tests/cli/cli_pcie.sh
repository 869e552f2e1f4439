#!/bin/bash
# The PCIe-box presets (no NVLink, 8 GPUs behind two CPU sockets): peer-to-peer on and off. Their GPU is declared
# ("gpu": "rtx4090"), so NCCL's model applies; with P2P off every transfer is staged through host memory.
. "$ARLAB_SRC/tests/lib_cli.sh"
for P in pcie-8gpu-p2p pcie-8gpu-nop2p; do
  expect_ok "platform show $P" -- platform show "$P"
  t_check "$P: 8 ranks on one machine" grep -q '8 ranks on 1 machine;' "$T_TMP/out"
  t_check "$P: the GPU (RTX 4090, sm 8.9)" grep -q 'GPU: rtx4090 (compute capability 8.9)' "$T_TMP/out"
  expect_ok "model $P" -- model --platform "$P" --size 256MB --algo ring --format csv
  csv_col "$T_TMP/out" model_s nccl_model_s nccl_algo >"$T_TMP/$P"
  t_check "$P: NCCL's model applies (a time and an algorithm)" awk -F'\t' '$2 > 0 && $3 == "RING" { ok = 1 } END { exit !ok }' "$T_TMP/$P"
done
# a ring on 8 GPUs: each GPU's PCIe link carries 2(n-1)/n of the buffer once per direction, and the ring crosses the
# UPI link twice (cpu0 -> cpu1 and back), 22 GB/s < 26 GB/s: the UPI bounds it: 256 MB x 2 x 7/8 / 22 GB/s = 20.4 ms
t_check "P2P on: the ring at the UPI's 22 GB/s (20.36 ms + latency)" awk -F'\t' '{ exit !($1 > 0.02036 && $1 < 0.0206) }' "$T_TMP/pcie-8gpu-p2p"
# P2P off: staged through host memory at 12.9 GB/s each way: at least twice as slow
t_check "P2P off: at least twice the P2P time" paste "$T_TMP/pcie-8gpu-p2p" "$T_TMP/pcie-8gpu-nop2p" \
  | awk -F'\t' '{ exit !($4 > 2 * $1) }'
t_done
