#!/usr/bin/env bash
# --nccl-version (NCCL's model follows that release's tuning tables), a preset's nic= (the NIC speed reaches
# NCCL's topology search) and a family's lat= (the hop latency reaches NCCL's per-step latency).
. "$(dirname "$0")/../lib_cli.sh"
col() { csv_col "$T_TMP/out" "$1" | head -1; }
near() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not abs(a - b) <= 1e-6 * abs(b))" "$1" "$2"; }

# One H100 node, 1 GiB: NCCL picks NVLS (8 channels, bwIntra 40, bwInter 60 GB/s).
#  2.30: per channel min(40 x 0.85 x 7/8 x 2, 60) = 59.5, bus 476, algbw 476 x 8/14 = 272; lat 25 us (NVLink NVLS step)
#  2.26: min(40, 60) = 40, bus 320, algbw 320 x 5/6; lat 25 us (2.23.4 and 2.24.3 the same on Hopper)
#  2.18: bwIntra 40, bus 320, algbw x 5/6; lat = base 23 us
# (the tuner's own time: --nccl-model tuner; cli_model.sh checks arlab's pipeline fill on top of it)
G=1073741824
for v in "2.30:25:272" "2.26:25:266.66666666666667" "2.24:25:266.66666666666667" "2.23.4:25:266.66666666666667" \
         "2.18:23:266.66666666666667" "default:25:272"; do
  IFS=: read -r ver lat bw <<<"$v"
  opt=(--nccl-version "$ver" --nccl-model tuner)
  [ "$ver" = default ] && opt=(--nccl-model tuner)
  if expect_ok "model nccl $ver" -- model --platform dgx-h100 --size 1GiB --algo nccl --format csv "${opt[@]}"; then
    t_check "$ver: NVLS" test "$(col nccl_algo)" = NVLS
    t_check "$ver: nccl_model_s = $lat us + 1 GiB / $bw GB/s" near "$(col nccl_model_s)" \
        "$(python3 -c "print(($lat + $G / (1000 * $bw)) * 1e-6)")"
  fi
done
expect_ok "2.30.7-1 spelled as NCCL's tag" -- model --platform dgx-h100 --size 1GiB --algo nccl --format csv --nccl-version 2.30.7-1
expect_ok "2.24.3-1 spelled as NCCL's tag" -- model --platform dgx-h100 --size 1GiB --algo nccl --format csv --nccl-version 2.24.3-1
expect_error "2.20-2.22 are not modelled" '--nccl-version: "2.22.3" is not a modelled NCCL release (2.18, 2.19, 2.23 to 2.30)' -- \
    model --platform dgx-h100 --size 1GiB --nccl-version 2.22.3
expect_error "a release not modelled" '--nccl-version: "2.21" is not a modelled NCCL release' -- \
    model --platform dgx-h100 --size 1GiB --nccl-version 2.21
expect_error "not a version" '--nccl-version: "latest"' -- sim --platform dgx-h100 --algo ring --size 1MB --nccl-version latest
t_check "nothing printed before the error" test ! -s "$T_TMP/out"
expect_error "a verb without a platform" 'unknown option "--nccl-version"' -- algos --nccl-version 2.18

# compare --measured: the version moves nccl_model_s (Lambda's 2 x 8 B200 log ran NCCL 2.26.2)
L="$ARLAB_SRC/experiments/reference/logs/dstack_lambda_b200_2node_allreduce.txt"
if expect_ok "compare at 2.26" -- compare --measured "$L" --platform dgx-b200:nodes=2 --algo nccl --format csv --nccl-version 2.26; then
  a=$(csv_col "$T_TMP/out" nccl_model_s | tail -1)
  expect_ok "compare at the default" -- compare --measured "$L" --platform dgx-b200:nodes=2 --algo nccl --format csv
  b=$(csv_col "$T_TMP/out" nccl_model_s | tail -1)
  # 2 GiB - 1 on NVLS_TREE: 2.26 per channel min(48, 48) x 5/6; 2.30 min(48 x 0.74 x 7/8 x 2, 2 x 48, 96) x 16/30
  t_check "2.26 faster than 2.30 at 2 GB on 2 x 8 B200 ($a vs $b)" python3 -c "import sys; sys.exit(not $a < 0.9 * $b)"
fi

# fit follows the release too, and says which it fitted
if expect_ok "fit at 2.26" -- fit --from "$L" --platform dgx-b200 --nccl-version 2.26.2 --boot 10; then
  t_check "fit names NCCL 2.26.2" grep -q "(NCCL model 2.26.2," "$T_TMP/out"
fi
expect_error "fit: a release not modelled" '--nccl-version: "2.22"' -- fit --from "$L" --platform dgx-b200 --nccl-version 2.22

# A family's lat= reaches NCCL's model. dgx-h100:nodes=2 at 8 B: TREE/LL, lat = 6.8 + 2 (7 x 0.6 + log2(2) x net),
# net = 5.0 us (+ the hop's excess over 2 us: lat=10us gives 2 x 10 = 20 us between two GPUs, +18 us);
# bw = min(8 x 48 x 0.92 x 1/3.8, 39) x 0.85 x 0.5 = 16.575 GB/s (a NIC per H100: NCCL's simple TREE pattern,
# x0.85; 8 B: below the tree correction's first size).
for v in "-:5.0" ",lat=10us:23.0"; do
  IFS=: read -r spec net <<<"$v"
  [ "$spec" = - ] && spec=""
  if expect_ok "model dgx-h100:nodes=2$spec" -- model --platform "dgx-h100:nodes=2$spec" --size 8B --algo nccl --format csv; then
    t_check "TREE/LL" test "$(col nccl_algo)/$(col nccl_proto)" = TREE/LL
    t_check "nccl_model_s with net step $net us" near "$(col nccl_model_s)" \
        "$(python3 -c "print((6.8 + 2 * (7 * 0.6 + $net) + 8 / (1000 * 16.575)) * 1e-6)")"
  fi
done

# A preset's nic=: the NIC generation reaches NCCL's search (2 x 8 B200, 8 GiB, NVLS_TREE): 800 Gb/s NICs
# (100 GB/s) lift the NVLS graph's bwIntra from 48 to 80 GB/s, the per-channel bandwidth to the cap 96.
expect_ok "dgx-b200:nodes=2" -- model --platform dgx-b200:nodes=2 --size 8GiB --algo nccl --format csv
t400=$(col nccl_model_s)
expect_ok "dgx-b200:nodes=2,nic=800Gbps" -- model --platform dgx-b200:nodes=2,nic=800Gbps --size 8GiB --algo nccl --format csv
t800=$(col nccl_model_s)
t_check "nic=800Gbps: nccl_model_s = 66.8 us + 8 GiB / (8 x 96 x 16/30 GB/s)" near "$t800" \
    "$(python3 -c "print((66.8 + 8589934592 / (1000 * 8 * 96 * 16 / 30)) * 1e-6)")"
t_check "nic=800Gbps faster than the preset's 400 Gb/s ($t800 vs $t400)" python3 -c "import sys; sys.exit(not $t800 < 0.8 * $t400)"
expect_error "a bad nic=" "nic" -- model --platform dgx-b200:nodes=2,nic=fast --size 8GiB --algo nccl
# The nccl row at small sizes: the tuner's protocol on the ops (the detail's proto=, not the planner's none),
# LL's stream pieces (the count the walk finds fastest, ar_nccl_tree_ll_pieces: 8 B one, 1 KB and 64 000 B two),
# the step's excess over the hop only:
# on 2 x 8 H100 within 20 % of nccl_model_s from 8 B to 64 KB (the NVLink hop, 0.6 us, is LL's own step, so
# the detail names no hop that makes it slower), and flat from 8 B to 1 KB.
if expect_ok "nccl small sizes" -- model --platform dgx-h100:nodes=2 --size 8B,1KB,64KB --algo nccl --format csv; then
  if python3 - "$T_TMP/out" <<'PY'; then t_good; else t_bad "nccl row at 8 B - 64 KB: protocol, chunks, within 20 % of nccl_model_s, flat"; fi
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3, rows
for r, k in zip(rows, (1, 2, 2)):
    m, n = float(r["model_s"]), float(r["nccl_model_s"])
    assert r["nccl_algo"] == "TREE" and r["nccl_proto"] == "LL", r
    assert "proto=ll:" in r["detail"] and f" {k} chunks" in r["detail"] and "slower than nccl_model_s" not in r["detail"], r["detail"]
    assert 0.8 * n <= m <= 1.2 * n, (r["bytes"], m, n)
assert float(rows[1]["model_s"]) < 1.01 * float(rows[0]["model_s"]), rows
PY
fi
t_done
