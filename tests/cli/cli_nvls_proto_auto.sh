#!/bin/bash
# nvls:proto=auto and nvlstree:proto=auto run what NCCL_ALGO=NVLS / NVLS_TREE runs, the schedule the
# `nccl` pick plans where NCCL's tuner picks that algorithm: the same walk and simulated time to 1e-9.
#   one node (dgx-h100 8 MB, dgx-b200 64 MiB: NCCL picks NVLS): Simple on the switch op, NCCL's NVLS
#     latency (25 us) once, less the op's own hop; reduce-scatter and all-gather through the switch
#     likewise (NCCL picks RING for them on these presets: only the latency is checked);
#   across nodes (dgx-h100:nodes=2 4 MB, dgx-b200:nodes=2 8 MB with the Blackwell NVLS_TREE
#     correction; NCCL picks NVLS_TREE): the same latency on the first switch op and NCCL's Simple
#     network step on the first slice's trees (proto=fill).
# proto=auto costs more than the plain schedule (proto=none, the default) by at least NCCL's latency
# less a hop (20 us), and the switch op carries Simple.
. "$ARLAB_SRC/tests/lib_cli.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d <= t) }'; }
above() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { exit !(a + 0 >= b + d) }'; }

for row in "dgx-h100 allreduce 8000000 nvls NVLS" "dgx-b200 allreduce 67108864 nvls NVLS" \
  "dgx-h100:nodes=2 allreduce 4000000 nvlstree NVLS_TREE" \
  "dgx-b200:nodes=2 allreduce 8000000 nvlstree NVLS_TREE"; do
  read -r plat coll sz algo want <<<"$row"
  if expect_ok "sim nccl $coll on $plat, $sz B" -- sim --platform "$plat" --coll $coll --algo nccl --size ${sz}B --format csv; then
    read -r nsim nwalk pick < <(csv_col "$T_TMP/out" sim_s model_s nccl_algo | tr '\t' ' ')
    t_check "$plat $coll $sz B: NCCL picks $want ($pick)" test "$pick" = "$want"
    if expect_ok "sim $algo:proto=auto $coll on $plat" -- sim --platform "$plat" --coll $coll --algo $algo:proto=auto --size ${sz}B --format csv; then
      read -r asim awalk < <(csv_col "$T_TMP/out" sim_s model_s | tr '\t' ' ')
      echo "$plat $coll $sz B: nccl sim $nsim walk $nwalk; $algo:proto=auto sim $asim walk $awalk"
      t_check "$plat $coll: $algo:proto=auto sim $asim = nccl's $nsim to 1e-9" close "$asim" "$nsim" 1e-9
      t_check "$plat $coll: $algo:proto=auto walk $awalk = nccl's $nwalk to 1e-9" close "$awalk" "$nwalk" 1e-9
    fi
    if expect_ok "sim $algo (proto=none) $coll on $plat" -- sim --platform "$plat" --coll $coll --algo $algo --size ${sz}B --format csv; then
      plain=$(csv_col "$T_TMP/out" sim_s)
      t_check "$plat $coll: proto=auto ($nsim) >= plain ($plain) + 20 us" above "$nsim" "$plain" 20e-6
    fi
  fi
done

for coll in reducescatter allgather; do
  if expect_ok "sim nvls:proto=auto $coll" -- sim --platform dgx-h100 --coll $coll --algo nvls:proto=auto --size 8MB --format csv; then
    asim=$(csv_col "$T_TMP/out" sim_s)
    if expect_ok "sim nvls $coll" -- sim --platform dgx-h100 --coll $coll --algo nvls --size 8MB --format csv; then
      plain=$(csv_col "$T_TMP/out" sim_s)
      t_check "dgx-h100 $coll: proto=auto ($asim) >= plain ($plain) + 20 us" above "$asim" "$plain" 20e-6
    fi
  fi
done

# nvls across nodes (NCCL runs it with CollNet only; not picked on these presets): the same latency once,
# on the first step's switch op
if expect_ok "sim nvls:proto=auto on dgx-h100:nodes=2" -- sim --platform dgx-h100:nodes=2 --algo nvls:proto=auto --size 1MB --format csv; then
  asim=$(csv_col "$T_TMP/out" sim_s)
  if expect_ok "sim nvls on dgx-h100:nodes=2" -- sim --platform dgx-h100:nodes=2 --algo nvls --size 1MB --format csv; then
    plain=$(csv_col "$T_TMP/out" sim_s)
    t_check "dgx-h100:nodes=2: nvls:proto=auto ($asim) >= plain ($plain) + 10 us" above "$asim" "$plain" 10e-6
  fi
fi

if expect_ok "plan nvls:proto=auto on dgx-h100" -- plan --platform dgx-h100 --algo nvls:proto=auto --size 8MB --format json; then
  t_check "the one switch op carries Simple" test "$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['schedule']
print(sorted({(o['impl'], o.get('proto', '-')) for ph in s['phases'] for o in ph['ops']}))" "$T_TMP/out")" = "[('switch', 'simple')]"
fi
if expect_ok "plan nvlstree:proto=auto on dgx-h100:nodes=2" -- plan --platform dgx-h100:nodes=2 --algo nvlstree:proto=auto,slices=2 --size 1MiB --format json; then
  t_check "the first step's switch ops (one per node) and the first slice's trees (8 rails x 2 trees x up and down) carry Simple" test "$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['schedule']
ops=[o for ph in s['phases'] for o in ph['ops']]
print(sum(1 for o in ops if o['impl']=='switch' and o.get('proto')=='simple'), sum(1 for o in ops if o['impl']=='tree' and o.get('proto')=='simple'), sum(1 for o in ops if o['impl']=='tree'))" "$T_TMP/out")" = "2 32 64"
fi
expect_error "nvls:proto=simple refused" "proto=simple: expected none or auto" -- plan --platform dgx-h100 --algo nvls:proto=simple --size 1MiB
t_done
