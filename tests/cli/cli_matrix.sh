#!/usr/bin/env bash
# Every algorithm on one platform of every kind and family, under every collective, with and
# without a reduction cost (--gamma), under both --sync semantics, through model, sim and best.
# Nothing may crash (under the ASan build a bad read aborts the command), every row is "ok" or a
# one-line "unsupported", and every "ok" row has finite positive times. The size does not divide
# evenly (750001 f32 elements), so uneven blocks and tails are exercised too.
. "$(dirname "$0")/../lib_cli.sh"

plats=(flat:ranks=6 tree:fanouts=3x2 fat-tree:ranks=16 torus:dims=2x2,gpus=2 machines:gpus=3+2
  dgx-h100 dgx-h100:nodes=2 aws-p5:nodes=2 p3.16xlarge pfn-mn1 fr-5 blueconnect-12)
pargs=()
for p in "${plats[@]}"; do pargs+=(--platform "$p"); done
size=3000004

# check_rows FILE DESC TIMECOL...: every row ok or unsupported, ok rows with times in (0, 1e6) s;
# prints the failures on stdout and "ok unsupported" on stderr
check_rows() {
  python3 - "$@" <<'PY'
import csv, math, sys
path, desc, cols = sys.argv[1], sys.argv[2], sys.argv[3:]
ok = uns = bad = 0
for r in csv.DictReader(open(path)):
    st = r["status"]
    if st == "unsupported":
        uns += 1
        continue
    if st != "ok":
        print("%s: %s on %s: status %r (%s)" % (desc, r["algo"], r["platform"], st, r.get("why", "")))
        bad += 1
        continue
    ok += 1
    for c in cols:
        try:
            v = float(r[c])
        except ValueError:
            v = float("nan")
        if not (math.isfinite(v) and 0 < v < 1e6):
            print("%s: %s on %s: %s = %r" % (desc, r["algo"], r["platform"], c, r[c]))
            bad += 1
print(ok, uns, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

total_ok=0
for coll in allreduce reducescatter allgather; do
  for gamma in 0 1e-11; do
    g=()
    [ "$gamma" = 0 ] || g=(--gamma "$gamma")
    desc="model --coll $coll --gamma $gamma"
    if expect_ok "$desc" -- model "${pargs[@]}" --algo all --size $size --coll $coll "${g[@]}" --format csv; then
      out=$(check_rows "$T_TMP/out" "$desc" model_s walk_s 2>"$T_TMP/counts") && t_good || t_bad "$out"
      read -r ok _ <"$T_TMP/counts"
      total_ok=$((total_ok + ok))
    fi
    for sync in round dataflow; do
      desc="sim --coll $coll --gamma $gamma --sync $sync"
      if expect_ok "$desc" -- sim "${pargs[@]}" --algo all --size $size --coll $coll "${g[@]}" --sync $sync \
        --format csv; then
        out=$(check_rows "$T_TMP/out" "$desc" sim_s model_s 2>"$T_TMP/counts") && t_good || t_bad "$out"
        read -r ok _ <"$T_TMP/counts"
        total_ok=$((total_ok + ok))
      fi
    done
  done
  expect_ok "best --coll $coll" -- best --platform dgx-h100:nodes=2 --size $size --coll $coll --format csv
done

# The switch algorithms with a reduction cost: the walk prices the GPUs' reductions of the
# inter-node steps (the switch's own reduction is its virtual link), within 1 % of the simulation.
# Unpipelined (slices=1): pipelined, a phase mixes stages and the walk's lockstep rounds are an
# upper bound of the simulation (algos/switch_common.c).
if expect_ok "nvls --gamma sim" -- sim --platform dgx-h100:nodes=2 --algo nvls:slices=1 --size 1GB --gamma 1e-11 --format csv; then
  read -r s m < <(csv_col "$T_TMP/out" sim_s model_s | tail -1 | tr , ' ')
  t_check "nvls on 2 nodes with --gamma: model $m within 1 % of sim $s" \
    awk -v s="$s" -v m="$m" 'BEGIN { d = (m - s) / s; exit !(s > 0 && d < 0.01 && d > -0.01) }'
  t_check "nvls with --gamma is slower than without (GPU reductions of the inter-node ring)" \
    awk -v s="$s" 'BEGIN { exit !(s > 0.0091) }'
fi

# every kind of row ran: the floor is the count of ok rows when it was set (all twelve platforms)
echo "ok rows: $total_ok"
t_check "at least 1548 ok rows across the matrix (got $total_ok)" test "$total_ok" -ge 1548
t_done
