#!/usr/bin/env bash
# nccl-ring and nccl-tree: the cost walk equals the (lockstep, --sync round) SimGrid simulation to 1e-9
# where no link carries unequal flows (a size every channel, tree chunk and ring
# block divides evenly) on the new presets, multi-node rail versions and a rail
# fabric. Skipped (77) without the SimGrid backend.
. "$(dirname "$0")/../lib_cli.sh"
. "$(dirname "$0")/../lib_csv.sh"
"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: skipped"
  exit 77
fi
# (On the network alone: with the multi-node presets' per-message costs --sync round simulates lockstep
# rounds that pay o and g, where the walk prices a schedule this small under dataflow; tests/sim/sim_logp.c
# compares them.)
for P in dgx-a100 dgx-h100 dgx-b200 aws-p4d gb200-nvl72 dgx-h100:nodes=2,o=0,g=0 aws-p5:nodes=3,o=0,g=0 \
         dgx-b200:nodes=4,o=0,g=0 rail:nodes=3,gpus=4; do
  if expect_ok "sim on $P" -- sim --platform $P --algo nccl-ring:channels=4 --algo nccl-tree:channels=2,chunks=4 \
       --size 4608000 --sync round --format csv; then
    n=$(csv_col "$T_TMP/out" algo | wc -l)
    t_check "$P: two rows" [ "$n" -eq 2 ]
    while IFS=$'\t' read -r a rel; do
      t_check "$P $a: walk = sim (rel_err $rel)" python3 -c "import sys; sys.exit(not abs(float('$rel')) < 1e-9)"
    done < <(csv_col "$T_TMP/out" algo rel_err)
  fi
done

# nccl-ring's reduce-scatter and all-gather (a per-member block layout: channel c owns slice c of
# every rank's block): walk = simulation to 1e-9 in both engines, with 4 channels and (one node) NCCL's
# count. (NCCL's count across nodes, 8 channels: a GPU's NVLink port carries the PXN relay of one channel,
# limited by its rail, beside the other channels' NVLink flows, so the max-min simulation is ~1 % faster
# than the walk, as for the all-reduce.)
for P in dgx-h100 dgx-h100:nodes=2,o=0,g=0 aws-p5:nodes=3,o=0,g=0 dgx-b200:nodes=4,o=0,g=0 rail:nodes=3,gpus=4; do
  A=nccl-ring
  case $P in *nodes=*) A=nccl-ring:channels=2,proto=simple ;; esac
  for c in reducescatter allgather; do
    for en in fast naive; do
      if expect_ok "sim nccl-ring --coll $c on $P ($en)" -- sim --platform $P --coll $c --engine $en --sync round \
           --algo $A --algo nccl-ring:channels=4 --size 4608000 --format csv; then
        n=$(csv_col "$T_TMP/out" algo | wc -l)
        t_check "$P $c $en: two rows" [ "$n" -eq 2 ]
        while IFS=$'\t' read -r a rel; do
          t_check "$P $c $en $a: walk = sim (rel_err $rel)" python3 -c "import sys; sys.exit(not abs(float('$rel')) < 1e-9)"
        done < <(csv_col "$T_TMP/out" algo rel_err)
      fi
    done
  done
done

# Protocols: the simulator prices LL, LL128 and Simple as the walk does (wire bytes = bytes /
# NCCL's factor, a per-step latency after every transfer (its excess over the hop's), the base latency once per phase), in both
# engines. Without the protocol's effect the LL tree would simulate at the no-protocol time; check that
# it does not, and that the two engines agree, lockstep and dataflow (LL128's wire bytes are rounded to
# whole bytes per transfer: 1e-6), and for Simple (two-sided) that walk = lockstep sim. (LL and LL128 send
# one-sidedly under dataflow, models/model.h ar_op_async, which the walk follows, not lockstep rounds; and
# the chunked tree's concurrent pieces are uneven under dataflow, where the walk estimates.)
for pr in ll ll128 simple; do
  tol=1e-9 more=1.1
  # LL128: bandwidth x 120/128 (+6.7 %) and its steps' excess over the 2 us hops (NVLink 1.25 us: none)
  [ $pr = ll128 ] && tol=1e-6 more=1.05
  # Simple: the tree's pattern factor (a NIC per H100: NCCL's simple TREE pattern, x0.85) makes its wire
  # bytes fractional too, rounded to whole bytes per transfer as LL128's
  [ $pr = simple ] && tol=1e-6
  for sy in round dataflow; do
    fsim=
    for en in fast naive; do
      if expect_ok "sim nccl-tree proto=$pr ($en, $sy)" -- sim --platform dgx-h100:nodes=2,o=0,g=0 --engine $en --sync $sy \
           --algo nccl-tree:channels=2,chunks=4,proto=$pr --algo nccl-tree:channels=2,chunks=4 --size 4608000 --format csv; then
        read -r rel1 sim1 < <(csv_col "$T_TMP/out" rel_err sim_s | head -1)
        read -r sim0 < <(csv_col "$T_TMP/out" sim_s | tail -1)
        [ $pr = simple ] && [ $sy = round ] &&
          t_check "proto=$pr $en: walk = sim (rel_err $rel1)" python3 -c "import sys; sys.exit(not abs($rel1) < $tol)"
        t_check "proto=$pr $en $sy: the protocol costs time ($sim1 vs $sim0 s)" python3 -c "import sys; sys.exit(not $sim1 > $more * $sim0)"
        if [ -z "$fsim" ]; then fsim=$sim1; else
          t_check "proto=$pr $sy: naive = fast ($sim1 vs $fsim s)" python3 -c "import sys; sys.exit(not abs($sim1 / $fsim - 1) < $tol)"
        fi
      fi
    done
  done
done
# Simple's tree without a pattern factor (A100: NCCL's balanced tree): whole wire bytes, walk = sim to 1e-9
for en in fast naive; do
  if expect_ok "sim nccl-tree proto=simple on dgx-a100:nodes=2 ($en)" -- sim --platform dgx-a100:nodes=2,o=0,g=0 \
       --engine $en --sync round --algo nccl-tree:channels=2,chunks=4,proto=simple --size 4608000 --format csv; then
    read -r rel1 < <(csv_col "$T_TMP/out" rel_err | head -1)
    t_check "a100 proto=simple $en: walk = sim (rel_err $rel1)" python3 -c "import sys; sys.exit(not abs($rel1) < 1e-9)"
  fi
done

# The base latency once per operation (tuning.cc adds baseLat once): nccl-ring's all-reduce with LL on
# dgx-h100 at 8 B, two phases (reduce-scatter, all-gather) of 2 (8 - 1) = 14 rounds in all, each the larger of
# the 0.6 us hop (two 0.3 us links) and LL's 0.6 us NVLink step: 2.30's baseLat[RING][LL] 6.6 us + 14 x 0.6 us
# = 15.0 us, NCCL's own ring LL latency on one node (not 21.6 with the base in both phases; the 8 bytes'
# transfer time is below 1e-9 s).
for en in fast naive; do
  if expect_ok "sim nccl-ring proto=ll at 8 B ($en)" -- sim --platform dgx-h100 --engine $en \
       --algo nccl-ring:proto=ll --size 8B --format csv; then
    read -r rel1 sim1 < <(csv_col "$T_TMP/out" rel_err sim_s | head -1)
    t_check "ring LL $en: walk = sim (rel_err $rel1)" python3 -c "import sys; sys.exit(not abs($rel1) < 1e-9)"
    t_check "ring LL $en: 6.6 + 14 x 0.6 us ($sim1 s)" python3 -c "import sys; sys.exit(not abs($sim1 - 15.0e-6) < 1e-9)"
  fi
done

# NVLS's latency: on one node at 16 MiB NCCL picks NVLS; the pick's switch op carries Simple, which both
# engines charge as the walk does, once before the phase: NCCL's 25 us (tuning.cc hwLat[NVLINK][NVLS])
# less the op's 0.6 us hop (GPU -> NVSwitch -> GPU), so nccl = nvls + 24.4 us and walk = sim. On a
# Blackwell node: on Hopper the pick's transfers also run at NCCL's NVLS op rate (sim_proto_rate).
for en in fast naive; do
  if expect_ok "sim nccl vs nvls on dgx-b200 ($en)" -- sim --platform dgx-b200 --engine $en --algo nccl --algo nvls \
       --size 16MiB --format csv; then
    read -r rel1 sim1 < <(csv_col "$T_TMP/out" rel_err sim_s | head -1)
    read -r rel0 sim0 < <(csv_col "$T_TMP/out" rel_err sim_s | tail -1)
    t_check "NVLS $en: walk = sim (rel_err $rel1)" python3 -c "import sys; sys.exit(not abs($rel1) < 1e-9)"
    t_check "NVLS $en: nccl = nvls + 24.4 us ($sim1 vs $sim0 s)" python3 -c "import sys; sys.exit(not abs($sim1 - $sim0 - 24.4e-6) < 1e-12)"
  fi
done
# NCCL's tree on dgx-a100:nodes=16 at 64 / 128 MiB (TREE/LL128): NCCL's wiring (a balanced tree graph: heads=auto
# runs pairs, 16 channels, each pair at its search channel's share of NCCL's tree rate), its pipeline chunks from
# NCCL's chunk size (72 000 B on 16 channels at 64 MiB: 59 a channel), every tree's broadcast following its
# reduce chunk by chunk (one pipeline of 2 depth + chunks - 1 rounds, core/lower.h). 128 MiB: 1.00 x NCCL's
# model (one head a channel, rail: 1.21 x, an inner node's NIC carrying three chunks a round); the dataflow
# walk within 2 % of the dataflow simulation.
if expect_ok "sim nccl on dgx-a100:nodes=16 at 128 MiB" -- sim --platform dgx-a100:nodes=16 --algo nccl --size 128MiB --format csv; then
  read -r rel simt ncm < <(csv_col "$T_TMP/out" rel_err sim_s nccl_model_s | tr '\t' ' ')
  t_check "sim / NCCL's model ($simt / $ncm) within 10 %" python3 -c "import sys; r = $simt / $ncm; sys.exit(not 0.9 < r < 1.1)"
  t_check "walk within 2 % of sim (rel_err $rel)" python3 -c "import sys; sys.exit(not abs($rel) < 0.02)"
fi
if expect_ok "plan nccl on dgx-a100:nodes=16 at 64 MiB" -- plan --platform dgx-a100:nodes=16 --algo nccl --size 64MiB; then
  t_check "TREE -> nccl-tree, pairs, in 59 chunks" grep -q "TREE/LL128 -> nccl-tree (channels=16 .*59 chunks, channels c and c + ceil" "$T_TMP/out"
fi
t_done
