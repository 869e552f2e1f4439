#!/bin/bash
# nvls / nvlstree / collnet across nodes: pipelined by default (NCCL's chunk size and channel
# count, algos/switch_common.c), near the NVSwitch's bound; exact on every preset with a reducing
# NVSwitch and on random rail fabrics; walk = simulation on the network alone, pipelined or not.
#
# The bound of dgx-h100:nodes=2, nvls, S = 1 GB (1e9 bytes), 2 nodes x 8 GPUs:
#   inside a node every GPU sends its whole buffer up for the reduce-scatter and the NVSwitch
#   absorbs 8 S into sums at R = 2240 GB/s (the preset's reduce_bw): 8 S / R = 3.571 ms, whatever
#   the pipeline; NVLink (1.125 S per GPU and direction at 18 x 20.6 = 370.8 GB/s: 3.03 ms) and the
#   NIC (the ring of 2 nodes moves S/8 per direction at 48 GB/s: 2.60 ms) are below it.
#   Pipelined, the stages overlap: the time is the bound plus the pipeline's fill (NCCL's 120 steps
#   of 16 channels x 8 heads x 64 KiB at 1 GB as 16 slices x 8 chunks: 2 slices of fill and one
#   chunk per slice, at most (18/16)(9/8) = 1.27 x the bound, less since the first and last steps
#   carry one stage each). Asserted: bound <= sim <= 1.2 x bound. Without pipelining (slices=1)
#   the three stages add up: RS 8S/R, the ring S/8/48 GB/s, AG S/370.8 GB/s: >= 8.9 ms.
. "$ARLAB_SRC/tests/lib_cli.sh"

within() { awk -v a="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/) exit 1; exit !(a >= lo && a <= hi) }'; }
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d <= t) }'; }

bound=$(awk 'BEGIN { printf "%.17g", 8 * 1e9 / 2240e9 }')
hi=$(awk -v b="$bound" 'BEGIN { printf "%.17g", 1.2 * b }')
if expect_ok "nvls on dgx-h100:nodes=2 at 1 GB" -- sim --platform dgx-h100:nodes=2 --algo nvls --size 1GB --format csv; then
  read -r simt walk < <(csv_col "$T_TMP/out" sim_s model_s | tr '\t' ' ')
  echo "nvls dgx-h100:nodes=2 1 GB: sim $simt walk $walk, bound 8S/R = $bound"
  t_check "pipelined nvls: bound $bound <= sim $simt <= 1.2 x bound" within "$simt" "$bound" "$hi"
  t_check "the walk ($walk) is at or above the simulation ($simt): it adds the per-message costs" \
    within "$walk" "$(awk -v s="$simt" 'BEGIN { printf "%.17g", s * (1 - 1e-9) }')" 1
fi
if expect_ok "nvls:slices=1 on dgx-h100:nodes=2 at 1 GB" -- sim --platform dgx-h100:nodes=2 --algo nvls:slices=1 --size 1GB --format csv; then
  read -r simt < <(csv_col "$T_TMP/out" sim_s)
  t_check "unpipelined nvls ($simt) is the three stages' sum, >= 8.9 ms" within "$simt" 8.9e-3 1
fi
if expect_ok "nvlstree plans NCCL's steps" -- plan --platform dgx-h100:nodes=2 --algo nvlstree --size 1GB; then
  t_check "1 GB: 16 channels x 8 heads x 128 KiB = 60 steps as 6 switch chunks, slices and tree chunks by the estimate" \
    grep -q "slices=64 (auto: estimate) chunks=6 (auto) (NCCL: 16 channels x 8 heads x 128 KiB chunks = 60 steps) tree chunks=1 (estimate)" "$T_TMP/out"
fi
# pipelined on more than two nodes, the trees run edge by edge: a slice crosses one tree edge per step,
# up h levels and down h, K + 2h + 1 steps (tests/cli/cli_nvlstree_edges.sh has the times by hand)
if expect_ok "nvlstree:slices=4 on dgx-h100:nodes=4" -- plan --platform dgx-h100:nodes=4 --algo nvlstree:slices=4 --size 64MiB; then
  t_check "4 slices, h = 2: 9 steps" grep -q "^schedule nvlstree .*slices=4 .*, 9 phases" "$T_TMP/out"
  t_check "step 4: slices 0-3 on the trees' levels" \
    grep -q "^phase 4 step 4: trees edge by edge (double binary tree per rail) slices 0-3: 64 ops" "$T_TMP/out"
  t_check "step 4: tree reduce and broadcast ops" test "$(grep -c "^  \(reduce\|broadcast\) *tree" "$T_TMP/out")" -ge 4
fi
# on two nodes (h = 1) the trees' reduce and broadcast are stages of their own: in one step slice t + 1 goes
# up while slice t comes down (K + 3 steps), each tree op pipelined in its chunks
if expect_ok "nvlstree:slices=4 on dgx-h100:nodes=2" -- plan --platform dgx-h100:nodes=2 --algo nvlstree:slices=4 --size 64MiB; then
  t_check "4 slices: 7 steps" grep -q "^schedule nvlstree .*slices=4 .*, 7 phases" "$T_TMP/out"
  t_check "step 2: slice 1 up the trees beside slice 0 down" \
    grep -q "^phase 2 step 2: RS in node (NVSwitch) slice 2; reduce up the trees (double binary tree per rail) slice 1; broadcast down the trees slice 0: 34 ops" "$T_TMP/out"
fi
# proto=simple: NCCL's Simple on the trees across nodes only (the NVSwitch ops carry none); none by default
if expect_ok "nvlstree:proto=simple plans" -- plan --platform dgx-h100:nodes=2 --algo nvlstree:proto=simple,slices=2 --size 1MiB --format json; then
  t_check "the tree ops carry Simple, the switch ops nothing" test "$(python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['schedule']
print(sorted({(o['impl'], o.get('proto', '-')) for ph in s['phases'] for o in ph['ops']}))" "$T_TMP/out")" = "[('switch', '-'), ('tree', 'simple')]"
fi
if expect_ok "nvlstree plans without a protocol by default" -- plan --platform dgx-h100:nodes=2 --algo nvlstree:slices=2 --size 1MiB --format json; then
  t_check "no op carries a protocol" test "$(grep -c '"proto"' "$T_TMP/out")" = 0
fi
expect_error "nvlstree:proto=ll refused" "proto=ll: expected none, simple, fill or auto" -- plan --platform dgx-h100:nodes=2 --algo nvlstree:proto=ll --size 1MiB
# nvlstree's slices and tree chunks by the estimate (algos/switch_common.c tree_split) against NCCL's tuner
# for its own NVLS_TREE (nccl_model_s with --nccl-model tuner, the pick there: without NCCL's protocols the
# schedule runs its own slices at the links' speed and pays no NCCL fill, which the default model adds): on 2 nodes the schedule runs at NCCL's model (64 MiB:
# 0.978 x, was 1.251 x with NCCL's split of sqrt(2U) slices and 4h tree chunks); on 8 nodes each slice's
# trees run edge by edge, filling once, the first and last slices ramped, and every step pays its hop and
# about half of its four messages' o = 3.44 us on an inner node: 1.239 x (1.328 x with slices of one size;
# 1.674 x with each slice's trees refilling, slice t + 1 up beside slice t down; 1.907 x with the trees'
# all-reduce in one step; docs/algorithms.md)
for case in "2 0.90 1.10" "8 1.0 1.30"; do
  read -r n lo hi <<<"$case"
  if expect_ok "nvlstree on dgx-h100:nodes=$n at 64 MiB" -- sim --platform "dgx-h100:nodes=$n" --algo nvlstree --size 64MiB --format csv --nccl-model tuner; then
    read -r simt ncm walk < <(csv_col "$T_TMP/out" sim_s nccl_model_s model_s | tr '\t' ' ')
    r=$(awk -v a="$simt" -v b="$ncm" 'BEGIN { printf "%.4f", a / b }')
    echo "nvlstree dgx-h100:nodes=$n 64 MiB: sim $simt, NCCL's model $ncm: $r x"
    t_check "nodes=$n: sim / NCCL's model $r in [$lo, $hi]" within "$r" "$lo" "$hi"
    t_check "nodes=$n: walk $walk = sim $simt to 1e-9" close "$walk" "$simt" 1e-9
  fi
done
if expect_ok "nvls plans B200's channels" -- plan --platform dgx-b200:nodes=4 --algo nvls --size 8GB; then
  t_check "8 GB on B200: 32 channels, 128 KiB chunks" grep -q "NCCL: 32 channels x 8 heads x 128 KiB chunks = 239 steps" "$T_TMP/out"
fi

# walk = simulation to 1e-9 on the network alone (o=0,g=0: the simulator runs switch schedules without
# per-message costs, which the walk prices, core/schedule.h): where the stages do not mix (slices=1), also
# with per-block switch chunks, and pipelined, where a phase mixes a switch stage on one slice with the
# ring or the trees across nodes on another (the walk runs each op at its own pace, models/walk.c)
for spec in "nvls:slices=1 dgx-h100:nodes=2,o=0,g=0" "nvlstree:slices=1 dgx-b200:nodes=3,o=0,g=0" "nvls:slices=1 rail:nodes=3,gpus=4,nvls=300GBps" \
  "nvls dgx-h100:nodes=2,o=0,g=0" "nvls dgx-h100:nodes=4,o=0,g=0" "nvlstree dgx-h100:nodes=4,o=0,g=0" "nvlstree dgx-h100:nodes=16,o=0,g=0" \
  "nvls:slices=5,chunks=3 rail:nodes=3,gpus=4,nvls=300GBps,nic=20GBps" "nvlstree:slices=4,chunks=5 dgx-b200:nodes=3,o=0,g=0"; do
  read -r algo plat <<<"$spec"
  if expect_ok "$algo on $plat at 64 MB" -- sim --platform "$plat" --algo "$algo" --size 64MB --format csv; then
    read -r simt walk < <(csv_col "$T_TMP/out" sim_s model_s | tr '\t' ' ')
    t_check "$algo on $plat: walk $walk = sim $simt to 1e-9" close "$simt" "$walk" 1e-9
  fi
done

# validator + host executor (plan --check) and the simulator's data (sim --check) exact, pipelined
# (explicit slices and chunks at an odd element count: uneven slices, blocks and pieces; and the
# automatic split at 16 MB), on every preset with a reducing NVSwitch and on random rail fabrics
plats="dgx-h100:nodes=2 dgx-h100:nodes=3,sharp=100GBps dgx-b200:nodes=4,sharp=100GBps aws-p5:nodes=2,sharp=50GBps"
RANDOM=27
for _ in 1 2 3; do
  plats="$plats rail:nodes=$((2 + RANDOM % 4)),gpus=$((2 + RANDOM % 6)),nvls=$((100 + RANDOM % 400))GBps,sharp=$((10 + RANDOM % 90))GBps,nic=$((10 + RANDOM % 40))GBps"
done
for plat in $plats; do
  for algo in nvls:slices=5,chunks=3 nvlstree:slices=4,chunks=5 collnet:slices=3,chunks=4; do
    case $algo:$plat in collnet*:dgx-h100:nodes=2) continue ;; esac # no sharp= there
    if expect_ok "plan --check $algo on $plat" -- plan --platform "$plat" --algo "$algo" --size 4003 --check; then
      t_check "$algo on $plat: validator exact" grep -q "^validator: ok" "$T_TMP/out"
      t_check "$algo on $plat: host executor exact" grep -q "^host executor: ok" "$T_TMP/out"
    fi
    if expect_ok "sim --check $algo on $plat" -- sim --platform "$plat" --algo "$algo" --size 4003 --check --format csv; then
      t_check "$algo on $plat: sim --check exact" test "$(csv_col "$T_TMP/out" check)" = exact
    fi
  done
done
for plat in dgx-h100:nodes=2 "rail:nodes=3,gpus=4,nvls=300GBps,sharp=40GBps"; do
  if expect_ok "sim --check nvlstree (auto) on $plat at 16 MB" -- sim --platform "$plat" --algo nvlstree,nvls --size 4M --check --format csv; then
    t_check "nvlstree and nvls pipelined (auto) on $plat: sim --check exact" test "$(csv_col "$T_TMP/out" check | sort -u)" = exact
  fi
done
t_done
