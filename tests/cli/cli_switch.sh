#!/bin/bash
# Switches that reduce from the command line: the presets' NVLink SHARP,
# nvls on dgx-h100 at 8 GB against the published ~480 GB/s busbw (nccl-tests#212,
# within +-10 %), `arlab algos` lists the planners, bad input is one line.
#
# nvls on one node, 8 GB (S = 8e9 bytes), 64 chunks (one per 4 MiB, at most 64),
# NVLink B = 18 x 20.6 GB/s = 370.8 GB/s, latency 0.3 us per link, NVSwitch R = 2240 GB/s:
#   rounds 0..63 are led by the reduction, 8 (S/64) / R; round 64 by the last chunk down, (S/64) / B;
#   every round one link up or down: 0.3 us  =>  T = 19.5 us + 8 S / R + S / (64 B)
. "$ARLAB_SRC/tests/lib_cli.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < t) }'; }

want=$(awk 'BEGIN { S = 8e9; printf "%.17g", 19.5e-6 + 8 * S / 2240e9 + S / 64 / 370.8e9 }')
if expect_ok "model nvls on dgx-h100" -- model --platform dgx-h100 --algo nvls --size 8GB --format csv; then
  read -r walk busbw < <(csv_col "$T_TMP/out" walk_s busbw_GBps | tr '\t' ' ')
  echo "nvls dgx-h100 8 GB: walk_s=$walk (arithmetic $want) busbw=$busbw GB/s (published ~480)"
  t_check "walk $walk equals the arithmetic $want to 1e-9" close "$walk" "$want" 1e-9
  t_check "busbw $busbw within 10 % of the published 480 GB/s" close "$busbw" 480 0.10
fi
if expect_ok "arlab algos" -- algos; then
  for a in nvls nvlstree collnet; do t_check "algos lists $a" grep -q "^ *$a " "$T_TMP/out"; done
fi
if expect_ok "platform show dgx-h100" -- platform show dgx-h100; then
  t_check "dgx-h100 shows its reducing switch" grep -q "reducing switches: 1" "$T_TMP/out"
fi
if expect_ok "nccl on dgx-h100" -- model --platform dgx-h100 --algo nccl --size 8GB --format csv; then
  t_check "nccl plans NVLS with nvls" grep -q "NVLS/SIMPLE -> nvls" "$T_TMP/out"
fi
if expect_ok "nccl on dgx-h100:nodes=4" -- model --platform dgx-h100:nodes=4 --algo nccl --size 1GB --format csv; then
  t_check "nccl plans NVLS_TREE with nvlstree" grep -q "NVLS_TREE/SIMPLE -> nvlstree" "$T_TMP/out"
fi
# dgx-h100 without its reduce_bw: NCCL's tuner still picks NVLS, nvls refuses, nccl falls back and says why
sed 's/, "reduce_bw": "[0-9]*GBps"//' "$ARLAB_SRC/platforms/dgx-h100.json" >"$T_TMP/h100.json"
if expect_ok "nccl on dgx-h100 without reduce_bw" -- model --platform "$T_TMP/h100.json" --algo nccl --size 8GB --format csv; then
  t_check "falls back to ring/tree, saying nvls refused" grep -q "no reducing NVSwitch.*best of ring/tree" "$T_TMP/out"
fi
printf '{"name": "x", "kind": "tree", "levels": [{"fanout": 2, "bw": "1GBps", "lat": "1us", "reduce_bw": 0}]}' >"$T_TMP/zero.json"
expect_error "reduce_bw 0" 'levels[0].reduce_bw' -- model --platform "$T_TMP/zero.json" --algo ring --size 1MB
expect_error "sharp=0" "sharp" -- model --platform dgx-h100:nodes=2,sharp=0 --algo ring --size 1MB
expect_error "nvls without a reducing NVSwitch" "no reducing NVSwitch" -- plan --platform dgx-a100 --algo nvls --size 1MB
expect_error "collnet without sharp" "sharp=RATE" -- plan --platform dgx-h100:nodes=2 --algo collnet --size 1MB
# a schedule whose switch op names a GPU: dgx-h100's nodes are s0.0 (the NVSwitch), then g0 (node 1)
printf '{"ranks": 8, "count": 8, "elem_bytes": 4, "phases": [{"ops": [{"kind": "all-reduce", "impl": "switch", "offset": 0, "count": 8, "members": [0,1,2,3,4,5,6,7], "switch": 1}]}]}' >"$T_TMP/gpu.json"
expect_error "switch op naming a GPU by index" "is a GPU, not a switch" -- model --platform dgx-h100 --schedule "$T_TMP/gpu.json" --size 32
sed 's/"switch": 1/"switch": "g0"/' "$T_TMP/gpu.json" >"$T_TMP/gpuname.json"
expect_error "switch op naming a GPU" '"g0" is a GPU of platform dgx-h100, not a switch' -- model --platform dgx-h100 --schedule "$T_TMP/gpuname.json" --size 32
sed 's/"switch": 1/"switch": "nope"/' "$T_TMP/gpu.json" >"$T_TMP/noname.json"
expect_error "switch op naming no node" 'switch "nope" is no node of platform dgx-h100' -- model --platform dgx-h100 --schedule "$T_TMP/noname.json" --size 32
sed 's/"switch": 1/"switch": "s0.0"/' "$T_TMP/gpu.json" >"$T_TMP/ok.json"
if expect_ok "sim --check a schedule file naming its switch" -- sim --platform dgx-h100 --schedule "$T_TMP/ok.json" --size 32 --check --format csv; then
  read -r chk simt walkt < <(csv_col "$T_TMP/out" check sim_s model_s | tr '\t' ' ')
  t_check "exact ($chk), sim $simt = walk $walkt" test "$chk" = exact -a "$simt" = "$walkt"
fi
expect_error "switch op on a platform whose switch cannot reduce" "cannot reduce" -- model --platform dgx-a100 --schedule "$T_TMP/ok.json" --size 32
t_done
