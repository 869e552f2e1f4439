#!/usr/bin/env bash
# GPU CLI test: `arlab real`, `arlab calibrate` and `arlab compare` end to end
# with 4 ranks on this machine's GPUs (real/launch_local.sh: one process per
# rank; ranks share GPUs with their own NCCL_HOSTID when there are fewer than
# 4). Exit 77 (skipped) only when arlab has no CUDA/NCCL backend or the
# machine has no GPU (exit 3 with "no CUDA GPU on this machine": no driver
# installed, no device); any other CUDA error (exit 8, AR_EBACKEND, e.g. a
# driver too old) fails. Env: ARLAB (the binary), ARLAB_SRC (the source tree).
set -u
probe=$("$ARLAB" real --launch single --algo ring --size 4KB --iters 1 --warmup 0 --format csv 2>&1)
rc=$?
if [[ $rc == 3 ]] && grep -Eq 'built without CUDA/NCCL|no CUDA GPU on this machine' <<<"$probe"; then
  echo "real_gpu_cli: skipped: $(grep -Eo 'built without CUDA/NCCL|no CUDA GPU on this machine.*' <<<"$probe" | head -1)"
  exit 77
fi
. "$(dirname "$0")/../lib_check.sh" # check_rc DESC STATUS, $checks, $fail
check_rc "single-process probe run exits 0 (got $rc: $probe)" $rc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
launch=("$ARLAB_SRC/real/launch_local.sh" 4 --)
export ARLAB_LOG_DIR=$tmp/logs

# 1. every algorithm beside ncclAllReduce, in and out of place, an odd size and 1 MiB
"${launch[@]}" "$ARLAB" real --platform machines:gpus=2+2 --algo all --size 4099,1MiB --iters 5 --warmup 2 \
  --format csv --out "$tmp/real.csv" >"$tmp/real.stdout" 2>"$tmp/real.err"
rc=$?
check_rc "4-rank arlab real exits 0 (got $rc: $(tail -5 "$tmp/real.err"))" $rc
rows=$(awk -F, 'NR > 1' "$tmp/real.csv" 2>/dev/null | wc -l)
check_rc "CSV has rows ($rows)" $((rows < 20))
cmp -s "$tmp/real.csv" "$tmp/real.stdout"; check_rc "--format csv on stdout equals --out" $?
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["wrong"] != "0" || !($c["measured_s"] > 0) || !($c["min_s"] <= $c["measured_s"]) ||
               !($c["measured_s"] <= $c["max_s"]) || !($c["busbw_GBps"] > 0) { print }' "$tmp/real.csv")
check_rc "every row: #wrong 0 and sane times: $bad" "$([[ -z $bad ]]; echo $?)"
n=$(grep -c '^nccl-allreduce,' "$tmp/real.csv")
check_rc "baseline rows: 2 sizes x 2 placements ($n)" "$([[ $n == 4 ]]; echo $?)"
for a in ring halving-doubling two-level blueconnect flexreduce; do
  grep -q "^$a," "$tmp/real.csv"; check_rc "$a measured" $?
done

# 2. point-to-point and native lowerings, f16
for low in p2p native; do
  "${launch[@]}" "$ARLAB" real --platform machines:gpus=2+2 --algo all --size 4099 --iters 2 --warmup 1 \
    --placement in --lowering $low --format csv >"$tmp/l.csv" 2>"$tmp/l.err"
  check_rc "lowering $low exits 0 ($(tail -3 "$tmp/l.err"))" $?
done
"${launch[@]}" "$ARLAB" real --platform machines:gpus=2+2 --algo ring --algo two-level --size 4099 --dtype f16 \
  --iters 2 --warmup 1 --format csv >"$tmp/h.csv" 2>"$tmp/h.err"
check_rc "f16 exits 0 ($(tail -3 "$tmp/h.err"))" $?

# 3. calibration, then compare with the measurements
"${launch[@]}" "$ARLAB" calibrate --platform machines:gpus=2+2 --size 8B,4KB,64KB,1MiB,4MiB --iters 5 --warmup 2 \
  --out "$tmp/cal.json" >"$tmp/cal.txt" 2>"$tmp/cal.err"
check_rc "calibrate exits 0 ($(tail -3 "$tmp/cal.err"))" $?
"$ARLAB" platform show "$tmp/cal.json" >/dev/null 2>&1; check_rc "calibrated platform loads" $?
grep -q 'intra-machine fit' "$tmp/cal.txt"; check_rc "calibrate prints the intra fit" $?
grep -q 'inter-machine fit' "$tmp/cal.txt"; check_rc "calibrate prints the inter fit" $?
"$ARLAB" compare --platform "$tmp/cal.json" --algo ring --algo two-level --size 4099,1MiB --format csv "$tmp/real.csv" \
  >"$tmp/cmp.csv" 2>"$tmp/cmp.err"
check_rc "compare exits 0" $?
m=$(awk -F, 'NR > 1 && $7 > 0 && $5 > 0' "$tmp/cmp.csv" | wc -l)
check_rc "compare has model and measured times for 4 rows ($m)" "$([[ $m == 4 ]]; echo $?)"
echo "--- measured (real.csv) ---"
show() { if command -v column >/dev/null; then column -s, -t; else tr , "\t"; fi; }
show <"$tmp/real.csv" | cut -c1-200
echo "--- compare ---"
show <"$tmp/cmp.csv"
echo "real_gpu_cli: $checks checks, $fail failed"
exit $((fail > 0))
