#!/usr/bin/env bash
# `arlab fit` on a hand-written nccl-tests file: the fit, the size buckets, LOSO; #wrong > 0 rows left out with a warning.
. "$(dirname "$0")/../lib_cli.sh"
D="$(dirname "$0")/../data/nccltests"
expect_ok "fit h100 1 node" -- fit --from "$D/h100_1node_allreduce.txt" --platform dgx-h100 --boot 100
t_check "6 records" grep -q 'to 6 all_reduce records' "$T_TMP/out"
t_check "latency row" grep -q '^latency_scale ' "$T_TMP/out"
t_check "bandwidth row" grep -q '^bandwidth_scale ' "$T_TMP/out"
t_check "bucket < 1 MB has 2" grep -q '^< 1 MB  *2 ' "$T_TMP/out"
t_check "bucket 1-64 MB has 2" grep -q '^1-64 MB  *2 ' "$T_TMP/out"
t_check "bucket 64-512 MB has 1" grep -q '^64-512 MB  *1 ' "$T_TMP/out"
t_check "bucket >= 512 MB has 1" grep -q '^>= 512 MB  *1 ' "$T_TMP/out"
t_check "loso line" grep -q '^leave-one-size-out prediction error: median' "$T_TMP/out"
t_check "per algorithm/protocol table" grep -q '^per algorithm/protocol bandwidth efficiency' "$T_TMP/out"
t_check "NVLS/SIMPLE group of 3, identified" grep -q '^NVLS  *SIMPLE  *3  *no .* yes$' "$T_TMP/out"
# the fit's table and the calibration agree: RING/LL (the links' reference) is identified through the intra-node
# links bandwidth (1 MB carries it), NVLS/SIMPLE through the NVSwitch's rate
t_check "RING/LL group of 3, identified as the calibration's links bandwidth" grep -q '^RING  *LL  *3  *no .* yes$' "$T_TMP/out"
t_check "calibration: intra-node links bandwidth identified" grep -Eq '^intra-node +6 +[0-9.]+ +\[ *[0-9.]+, +[0-9.]+\] +[0-9.]+ +\[ *[0-9.]+, +[0-9.]+\]$' "$T_TMP/out"
t_check "calibration: the NVSwitch's rate of 3 records, identified" grep -Eq '^intra-nvls +3 .*NVLS \(NVSwitch reduce/multicast\) rate$' "$T_TMP/out"
t_check "one node count: LONCO not run" grep -q '^leave-one-node-count-out: not run' "$T_TMP/out"
# 1 and 2 nodes (the 16-rank run on dgx-h100:nodes=2): leave-one-node-count-out
expect_ok "fit 1+2 nodes" -- fit --from "$D/h100_1node_allreduce.txt" "$D/h100_2node_ring.txt" --platform dgx-h100 \
    --boot 50
t_check "10 records" grep -q 'to 10 all_reduce records' "$T_TMP/out"
t_check "LONCO: 1 node held out, 6 records" grep -Eq '^ 1 node +6 +[0-9.]+ +[0-9.]+$' "$T_TMP/out"
t_check "LONCO: 2 nodes held out, 4 records" grep -Eq '^ 2 nodes +4 +[0-9.]+ +[0-9.]+$' "$T_TMP/out"
t_check "intra-node class = the one-node fit (0.8209, 0.8518; in-place times)" \
  grep -Eq '^  intra-node \(1-node runs\) +n +6  latency 0\.8209 .* bandwidth 0\.8518 ' "$T_TMP/out"
t_check "inter-node class of 4 records" grep -Eq '^  inter-node \(multi-node runs\) n +4 ' "$T_TMP/out"
RAIL=$(sed -n "s/^multi-node platform with the per node class fit: --platform '\(.*\)' (N: node count)$/\1/p" "$T_TMP/out")
BI=$(awk '$1 == "inter-node" { for (i = 1; i < NF; i++) if ($i == "bandwidth") print $(i + 1) }' "$T_TMP/out")
cp "$T_TMP/out" "$T_TMP/out12"
t_check "rail spec printed" test -n "$RAIL"
t_check "NIC = 48 GB/s (dgx-h100 preset's NIC) x inter bandwidth $BI" \
  awk -v r="$RAIL" -v b="$BI" 'BEGIN { if (!match(r, /nic=[0-9.e+]+GBps/)) exit 1; v = substr(r, RSTART + 4, RLENGTH - 8) + 0;
    d = v / (48 * b) - 1; exit !(b != "" && d < 1e-3 && d > -1e-3) }'
expect_ok "the rail spec loads (2 nodes)" -- model --platform "${RAIL/nodes=N/nodes=2}" --algo ring --size 1MB
cp "$T_TMP/out12" "$T_TMP/out"
# the 2-node run forces NCCL_ALGO=Ring and NCCL_PROTO=Simple (its NCCL log): its 4 rows are RING/SIMPLE
t_check "forced RING/SIMPLE group" grep -Eq '^RING +SIMPLE +4 +yes ' "$T_TMP/out"
t_check "intra/inter not separated" grep -q 'the runs span 1..2 nodes' "$T_TMP/out"
expect_error "16 ranks on a 8-rank 2-node platform" 'run has 16 ranks' -- fit --from "$D/h100_2node_ring.txt" \
    --platform bc-ibm-2x4
# rows with #wrong > 0 are left out of the fit, one line says how many
expect_ok "wrong rows left out" -- fit --from "$D/wrong.txt" --platform dgx-h100 --boot 20
t_check "one warning line naming the count" grep -Eq '^arlab fit: [0-9]+ rows? with #wrong > 0 \(wrong results\) left out of the fit$' "$T_TMP/err"
expect_error "no --from" 'usage' -- fit --platform dgx-h100
# calibrate --from: the calibrated platform JSON (links scaled by the fit), accepted by model, sim and best
CAL="$T_TMP/cal.json"
expect_ok "calibrate from nccl-tests" -- calibrate --from "$D/h100_1node_allreduce.txt" --platform dgx-h100 \
    --boot 100 --out "$CAL"
t_check "one node: inter-node not identifiable" grep -q 'inter-node latency and bandwidth: NOT identifiable' "$T_TMP/out"
t_check "wrote the platform" grep -q "^wrote $CAL" "$T_TMP/out"
# the preset's links stay as they are; "calibration" holds the per-class factors the loader applies
BS=$(awk '$1 == "intra-node" {print $7}' "$T_TMP/out")
LS=$(awk '$1 == "intra-node" {print $3}' "$T_TMP/out")
t_check "inter-node kept at 1, said so" grep -Eq '^inter-node +0 +1\.0000 .*NOT identified: no multi-node runs' "$T_TMP/out"
t_check "the preset's NVLink link is unchanged (20.6 GB/s)" grep -q '"bw":[[:space:]]*20600000000,' "$CAL"
python3 - "$CAL" "$BS" "$LS" <<'PY' || t_bad "calibration block: intra = the printed intra-node factors, inter = 1"
import json, sys
d = json.load(open(sys.argv[1])); c = d["calibration"]
assert abs(c["intra"]["bw"] - float(sys.argv[2])) < 1e-4 and abs(c["intra"]["lat"] - float(sys.argv[3])) < 1e-4
assert c["inter"] == {"lat": 1, "bw": 1} and c["base"] == "dgx-h100"
assert 0.8 < c["intra"]["nvls"] <= 1.2 and d["nccl"]["efficiency"]["NVLS/SIMPLE"] == 1, (c, d["nccl"])
PY
t_check "per algorithm/protocol efficiencies in the notes" grep -q 'NVLS/SIMPLE [0-9.]* \[' "$CAL"
t_check "named dgx-h100-calibrated" grep -q '"name":.*"dgx-h100-calibrated"' "$CAL"
expect_ok "model on the calibrated platform" -- model --platform "$CAL" --size 100MB --algo ring --format csv
t_check "model names it" grep -q 'dgx-h100-calibrated' "$T_TMP/out"
expect_ok "sim on the calibrated platform" -- sim --platform "$CAL" --size 100MB --algo ring
expect_ok "best on the calibrated platform" -- best --platform "$CAL" --size 100MB

# The round trip through the CLI (h14g): test_ntfit --synth writes nccl-tests files synthesised from NCCL's model
# with intra-node latency x1.5, bandwidth x0.85, inter-node x1.3, x0.7, efficiencies NVLS 0.9, TREE 0.8 and 1 %
# noise (tests/unit/test_ntfit.c); calibrate; compare on the written JSON (1 node) and on FILE:nodes=2 predicts the
# runs where NCCL chose itself (nccl_model_s, NCCL's choice) within the noise: median < 1 %, every size < 3 %.
SYN="$(dirname "$ARLAB")/tests/test_ntfit"
t_check "test_ntfit is built" test -x "$SYN"
mkdir -p "$T_TMP/syn" && "$SYN" --synth "$T_TMP/syn"
expect_ok "calibrate on the synthesised runs" -- calibrate --from "$T_TMP/syn"/cal_*.txt --platform dgx-h100 \
    --boot 100 --out "$T_TMP/syn.json"
t_check "intra-node factors near 1.5 / 0.85" awk '$1 == "intra-node" { ok = $3 > 1.47 && $3 < 1.53 && $7 > 0.83 && $7 < 0.87 } END { exit !ok }' "$T_TMP/out"
t_check "inter-node factors near 1.3 / 0.7" awk '$1 == "inter-node" { ok = $3 > 1.27 && $3 < 1.33 && $7 > 0.68 && $7 < 0.72 } END { exit !ok }' "$T_TMP/out"
t_check "multi-node use printed" grep -q "2 nodes: --platform $T_TMP/syn.json:nodes=2" "$T_TMP/out"
expect_ok "platform show the calibrated file" -- platform show "$T_TMP/syn.json:nodes=2" --format json
python3 - "$T_TMP/out" <<'PY' || t_bad "platform show: the calibration applied, the efficiencies"
import json, sys
d = json.load(open(sys.argv[1])); c = d["calibration"]
assert c["applied_to_links"] is True and c["base"] == "dgx-h100" and 0.68 < c["inter"]["bw"] < 0.72, c
# NVLS rides on the NVSwitch's rate: 0.85 x 0.9 on one node; its efficiency is the reference's 1
assert 0.75 < c["intra"]["nvls"] < 0.78 and d["nccl"]["efficiency"]["NVLS/SIMPLE"] == 1, (c, d["nccl"])
nic = [l for l in d["links"] if l["a"].startswith("n0.g0") and l["b"] == "rail0"][0]
assert abs(nic["bw_Bps"] - 48e9 * c["inter"]["bw"]) < 1, nic
PY
for pair in "1node:$T_TMP/syn.json" "2node:$T_TMP/syn.json:nodes=2"; do
  expect_ok "compare on the calibrated ${pair%%:*}" -- compare --measured "$T_TMP/syn/cal_${pair%%:*}_auto.txt" \
      --platform "${pair#*:}" --algo ring --format csv
  csv_col "$T_TMP/out" nccl_model_err >"$T_TMP/err_${pair%%:*}"
  t_check "${pair%%:*}: 14 sizes, |nccl_model_err| median < 1 %, max < 3 %" python3 - "$T_TMP/err_${pair%%:*}" <<'PY'
import sys
v = sorted(abs(float(x)) for x in open(sys.argv[1]).read().split())
print("nccl_model_err: median %.4f max %.4f" % (v[len(v) // 2], v[-1]), file=sys.stderr)
sys.exit(not (len(v) == 14 and v[len(v) // 2] < 0.01 and v[-1] < 0.03))
PY
done
# a multi-node fit on the fabric itself (--platform dgx-h100:nodes=2, the 2-node runs only): the intra-node class
# has no data (factor 1, said so); the file is dgx-h100's document with the block; FILE:nodes=2 is the fabric
expect_ok "calibrate on dgx-h100:nodes=2" -- calibrate --from "$T_TMP/syn"/cal_2node_*.txt \
    --platform dgx-h100:nodes=2 --boot 100 --out "$T_TMP/syn2.json"
t_check "intra-node not identified, said so" grep -Eq '^intra-node +0 +1\.0000 .*NOT identified: no one-node runs' "$T_TMP/out"
t_check "inter-node factors near 1.3 / 0.7" awk '$1 == "inter-node" { ok = $3 > 1.27 && $3 < 1.33 && $7 > 0.67 && $7 < 0.72 } END { exit !ok }' "$T_TMP/out"
t_check "points to FILE:nodes=2" grep -q "the fabric of the runs: arlab model/sim/best --platform $T_TMP/syn2.json:nodes=2" "$T_TMP/out"
python3 - "$T_TMP/syn2.json" <<'PY' || t_bad "syn2.json: dgx-h100-calibrated, intra 1, base dgx-h100"
import json, sys
d = json.load(open(sys.argv[1])); c = d["calibration"]
assert d["name"] == "dgx-h100-calibrated" and c["intra"] == {"lat": 1, "bw": 1} and c["base"] == "dgx-h100"
assert d["levels"][0]["fanout"] == 8
PY
expect_ok "compare on the fabric" -- compare --measured "$T_TMP/syn/cal_2node_auto.txt" \
    --platform "$T_TMP/syn2.json:nodes=2" --algo ring --format csv
t_check "fabric: |nccl_model_err| < 3 % at every size" python3 -c '
import sys; v = [abs(float(x)) for x in sys.stdin.read().split()]; sys.exit(not (len(v) == 14 and max(v) < 0.03))' \
    < <(csv_col "$T_TMP/out" nccl_model_err)

# the loader refuses a bad block with one line (model, and FILE:nodes=N)
python3 - "$T_TMP/syn.json" "$T_TMP/bad.json" "$T_TMP/bad2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["nccl"]["efficiency"]["RING/SIMPLE"] = 0
json.dump(d, open(sys.argv[2], "w"))
d["nccl"]["efficiency"] = {"WARP/SIMPLE": 0.9}
json.dump(d, open(sys.argv[3], "w"))
PY
expect_error "efficiency 0 refused" 'bad.json: nccl.efficiency.RING/SIMPLE: must be a factor in (0, 100] (got 0)' -- \
    model --platform "$T_TMP/bad.json" --size 1MB --algo ring
expect_error "unknown algorithm refused" 'nccl.efficiency: unknown algorithm in "WARP/SIMPLE"' -- \
    model --platform "$T_TMP/bad2.json:nodes=2" --size 1MB --algo ring

# compare --plot with two platforms (1 node, 2 nodes): one figure, every platform's lines and measured points
FIG="$T_TMP/two.svg"
if command -v gnuplot >/dev/null; then
  expect_ok "compare --plot, two platforms" -- compare --measured "$T_TMP/syn/cal_1node_auto.txt" \
      "$T_TMP/syn/cal_2node_auto.txt" --platform "$T_TMP/syn.json" --platform "$T_TMP/syn.json:nodes=2" --algo ring --plot "$FIG"
  t_check "svg written" grep -q '<svg' "$FIG"
else
  expect_error "compare --plot without gnuplot" 'cannot run gnuplot' -- compare --measured \
      "$T_TMP/syn/cal_1node_auto.txt" "$T_TMP/syn/cal_2node_auto.txt" --platform "$T_TMP/syn.json" \
      --platform "$T_TMP/syn.json:nodes=2" --plot "$FIG"
fi
rows() { awk -v b="\$$1 <<" 'index($0, b) == 1 { f = 1; next } /^EOD/ { f = 0 } f' "$FIG.gp" | wc -l; }
t_check "measured points of platform 0 (8 ranks): 14" test "$(rows nccl_p0_0_0)" -eq 14
t_check "measured points of platform 1 (16 ranks): 14" test "$(rows nccl_p1_0_0)" -eq 14
t_check "model line of each platform: 14 sizes" test "$(rows model_p0_0_0)" -eq 14 -a "$(rows model_p1_0_0)" -eq 14
t_check "platform 0 solid, titled" grep -q 'model_p0_0_0 with lines lw 2 dt 1 title "model ring \[dgx-h100-calibrated, 8 ranks\]"' "$FIG.gp"
t_check "platform 1 dashed, titled" grep -q 'model_p1_0_0 with lines lw 2 dt 2 title "model ring \[.*syn.json:nodes=2, 16 ranks\]"' "$FIG.gp"
t_check "measured: a marker per platform" grep -q 'nccl_p1_0_0 with points pt 5 .*measured NCCL \[.*nodes=2, 16 ranks\]' "$FIG.gp"
t_check "busbw of platform 1 = bytes / time x 2 x 15 / 16 (16 ranks)" python3 - "$FIG.gp" <<'PY'
import sys
blocks, cur = {}, None
for line in open(sys.argv[1]):
    if line.startswith("$") and "<<" in line: cur = line.split()[0][1:]; blocks[cur] = []
    elif line.startswith("EOD"): cur = None
    elif cur: blocks[cur].append([float(x) for x in line.split()])
t, b = blocks["nccl_p1_0_0"], blocks["nccl_p1_0_1"]
ok = len(t) == len(b) == 14 and all(abs(bb[1] - tt[0] / (tt[1] * 1e-6) * 30 / 16 / 1e9) <= 1e-9 * bb[1] for tt, bb in zip(t, b))
sys.exit(not ok)
PY
# the preset itself (no calibration) is off by the factors: the same check fails there
expect_ok "compare on the preset" -- compare --measured "$T_TMP/syn/cal_2node_auto.txt" --platform dgx-h100:nodes=2 \
    --algo ring --format csv
t_check "the preset misses by > 10 % somewhere" python3 -c '
import sys; v = [abs(float(x)) for x in sys.stdin.read().split()]; sys.exit(not max(v) > 0.1)' \
    < <(csv_col "$T_TMP/out" nccl_model_err)

# An NVLS-dominated node whose ring sizes are too noisy to give the links' bandwidth (test_ntfit --synth: latency
# x1.3, links x0.9, the NVSwitch's rate x0.77 = a ~370 GB/s NVLS plateau; +-30 % noise below 1 MB, 1 % above):
# the NVSwitch's rate is a calibration class of its own, written as calibration.intra.nvls, and compare on the
# written JSON has, per size bucket, the median error the calibration printed (before: NVLS kept at the preset's
# rate, 22 % off at every size >= 64 MB while the fit section said its bandwidth was identified)
NV="$T_TMP/syn/nvls370_noisy_1node_auto.txt"
expect_ok "calibrate the NVLS node" -- calibrate --from "$NV" --platform dgx-h100 --out "$T_TMP/nv.json"
t_check "the NVSwitch's rate: a class, identified, 0.77 inside its interval" awk '$1 == "intra-nvls" {
    gsub(/[\[\],]/, " "); ok = $2 == 14 && $4 <= 0.77 && 0.77 <= $5 && !/NOT/ } END { exit !ok }' "$T_TMP/out"
t_check "fit section: NVLS/SIMPLE identified, as the calibration" grep -Eq '^NVLS +SIMPLE +14 +no .* yes$' "$T_TMP/out"
t_check "identifiability: the NVSwitch's rate identified" grep -q '^  NVLS (NVSwitch) rate, intra-node: identified$' "$T_TMP/out"
sed -n 's/^calibrated prediction .*median by size: //p' "$T_TMP/out" >"$T_TMP/nv_cal"
python3 - "$T_TMP/nv.json" <<'PY' || t_bad "nv.json: calibration.intra.nvls written, NVLS/SIMPLE's efficiency the reference's 1"
import json, sys
d = json.load(open(sys.argv[1])); c = d["calibration"]["intra"]
assert 0.7 < c["nvls"] < 0.84 and c["bw"] == 1 and d["nccl"]["efficiency"]["NVLS/SIMPLE"] == 1, d
PY
expect_ok "compare on the written JSON" -- compare --measured "$NV" --platform "$T_TMP/nv.json" --format csv
t_check "compare's median per bucket = the calibration's (1 %), >= 64 MB within 2 %" python3 - "$T_TMP/out" "$T_TMP/nv_cal" <<'PY'
import csv, re, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["algo"] == "nccl" and r["nccl_s"]]
got = {}
for r in rows:
    b = float(r["bytes"]); k = 0 if b < 65536 else 1 if b < 64 * 2**20 else 2
    got.setdefault(k, []).append(abs(float(r["nccl_model_err"])))
cal = [float(x) for x in re.findall(r"([0-9.]+) \(\d+\)", open(sys.argv[2]).read())]
med = [statistics.median(got[k]) for k in sorted(got)]
print("compare", ["%.4f" % m for m in med], "calibration", cal, file=sys.stderr)
sys.exit(not (len(rows) == 32 and len(cal) == 3 and all(abs(a - b) <= 5e-5 + 0.01 * b for a, b in zip(med, cal))
              and med[2] < 0.02))
PY
t_done
