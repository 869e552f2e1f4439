#!/usr/bin/env bash
# nccl-ring and nccl-tree: the cost walk equals the SimGrid simulation to 1e-9
# where no link carries unequal flows (a size every channel, tree chunk and ring
# block divides evenly) on the new presets, multi-node rail versions and a rail
# fabric. Skipped (77) without the SimGrid backend.
. "$(dirname "$0")/lib_cli.sh"
. "$(dirname "$0")/lib_csv.sh"
"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: skipped"
  exit 77
fi
for P in dgx-a100 dgx-h100 dgx-b200 aws-p4d gb200-nvl72 dgx-h100:nodes=2 aws-p5:nodes=3 dgx-b200:nodes=4 \
         rail:nodes=3,gpus=4; do
  if expect_ok "sim on $P" -- sim --platform $P --algo nccl-ring:channels=4 --algo nccl-tree:channels=2,chunks=4 \
       --size 4608000 --format csv; then
    n=$(csv_col "$T_TMP/out" algo | wc -l)
    t_check "$P: two rows" [ "$n" -eq 2 ]
    while IFS=$'\t' read -r a rel; do
      t_check "$P $a: walk = sim (rel_err $rel)" python3 -c "import sys; sys.exit(not abs(float('$rel')) < 1e-9)"
    done < <(csv_col "$T_TMP/out" algo rel_err)
  fi
done
t_done
