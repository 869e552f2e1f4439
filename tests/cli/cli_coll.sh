#!/usr/bin/env bash
# --coll allreduce|reducescatter|allgather: plan --check on presets, model's
# RS/AG ring = half its all-reduce, busbw = algbw (n-1)/n, refusals in one line.
. "$(dirname "$0")/../lib_cli.sh"
. "$(dirname "$0")/../lib_csv.sh"
for P in dgx-a100 aws-p4d gb200-nvl72 fr-5; do
  for c in reducescatter allgather; do
    for a in ring pipelined-ring; do
      if expect_ok "plan $a --coll $c on $P" -- plan --platform $P --algo $a --coll $c --size 10007 --check; then
        t_check "$a $c $P: validator" grep -q "^validator: ok" "$T_TMP/out"
        t_check "$a $c $P: host executor" grep -q "^host executor: ok" "$T_TMP/out"
      fi
    done
  done
done
expect_error "binomial serves all-reduce only" "binomial does not serve reducescatter" -- \
  plan --platform dgx-a100 --algo binomial --coll reducescatter
expect_error "hd RS needs a power of two" "power-of-two" -- plan --platform fr-5 --algo halving-doubling --coll allgather
expect_error "bad --coll" "is not a collective" -- model --platform dgx-a100 --coll gather
expect_error "sim --check with RS" "--check verifies all-reduce" -- sim --platform dgx-a100 --coll reducescatter --check
expect_ok "plan json" -- plan --platform dgx-a100 --algo ring --coll allgather --format json
t_check "json names the collective" grep -q '"collective":"allgather"' "$T_TMP/out"
expect_ok "algos" -- algos --format csv
t_check "algos: ring serves all three" grep -q '^ring,.*allreduce,reducescatter,allgather' "$T_TMP/out"

for P in dgx-a100 aws-p5; do
  for c in allreduce reducescatter allgather; do
    "$ARLAB" model --platform $P --algo ring --size 100MB --coll $c --format csv >"$T_TMP/$c.csv" 2>"$T_TMP/err" ||
      t_bad "model --coll $c on $P: $(cat "$T_TMP/err")"
  done
  ar=$(csv_col "$T_TMP/allreduce.csv" model_s)
  for c in reducescatter allgather; do
    read -r m alg bus ranks < <(csv_col "$T_TMP/$c.csv" model_s algbw_GBps busbw_GBps ranks)
    t_check "$P $c ring = half the all-reduce ring" python3 -c "import sys; sys.exit(abs($m-$ar/2)>1e-9*$ar)"
    t_check "$P $c busbw = algbw (n-1)/n" python3 -c "import sys; sys.exit(abs($bus-$alg*($ranks-1)/$ranks)>1e-5*$bus)"
  done
done

# best --coll: only the algorithms serving the collective, busbw with (n-1)/n, NCCL's choice for it
expect_ok "best --coll reducescatter" -- best --platform dgx-a100 --size 100MB --coll reducescatter --format csv
t_check "best RS: pat ranked" grep -q '^[0-9]*,pat,' "$T_TMP/out"
t_check "best RS: ring ranked" grep -q '^[0-9]*,ring,' "$T_TMP/out"
t_check "best RS: no all-reduce-only algorithm (binomial, blueconnect)" bash -c "! grep -qE '^[0-9-]*,(binomial|blueconnect|two-level|treepack),' '$T_TMP/out'"
cp "$T_TMP/out" "$T_TMP/best.csv"
"$ARLAB" model --platform dgx-a100 --algo ring --size 100MB --coll reducescatter --format csv >"$T_TMP/m.csv" ||
  t_bad "model ring RS"
python3 - "$T_TMP/best.csv" "$T_TMP/m.csv" <<'PY' || t_bad "best --coll: rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = next(csv.DictReader(open(sys.argv[2])))
ring = next(r for r in rows if r["algo"] == "ring")
walk, alg, bus = float(ring["walk_s"]), float(ring["algbw_GBps"]), float(ring["busbw_GBps"])
assert abs(walk - float(m["walk_s"])) <= 1e-9 * walk, (walk, m["walk_s"])         # the RS ring's walk, not the AR's
assert abs(bus - alg * 7 / 8) <= 1e-5 * bus, (alg, bus)                             # 8 ranks: busbw = algbw 7/8
assert abs(float(ring["nccl_model_s"]) - float(m["nccl_model_s"])) <= 1e-9 * float(m["nccl_model_s"])
print("best --coll reducescatter: ring walk %.6g s = model's, busbw %.4g = algbw x 7/8" % (walk, bus))
PY
expect_ok "best --coll allgather" -- best --platform dgx-a100 --size 1MB --coll allgather
t_check "best AG: title names the collective" grep -q "== best allgather on dgx-a100" "$T_TMP/out"
t_done
