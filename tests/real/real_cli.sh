#!/usr/bin/env bash
# CLI checks of the real/ verbs that need no GPU: `arlab real --dry-run`
# (every rank's NCCL program through the host fake of NCCL, exact results),
# the messages of `arlab real`/`arlab calibrate` without a usable GPU or CUDA
# build, and `arlab compare` with a measured CSV. Env: ARLAB (the binary).
set -u
. "$(dirname "$0")/../lib_check.sh" # check_rc DESC STATUS, $checks, $fail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. dry runs: every applicable algorithm, three lowerings, two platforms, exact
for plat in "machines:gpus=2+2" "machines:gpus=3+2" "flat:ranks=5"; do
  for low in auto p2p native; do
    "$ARLAB" real --dry-run --platform "$plat" --algo all --size 1001,64KB --lowering $low --format csv \
      >"$tmp/dry.csv" 2>"$tmp/dry.err"
    rc=$?
    check_rc "dry-run $plat $low exits 0 (got $rc: $(head -c 300 "$tmp/dry.err"))" $rc
    rows=$(awk -F, 'NR > 1' "$tmp/dry.csv" | wc -l)
    check_rc "dry-run $plat $low has rows ($rows)" $((rows < 8))
    bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                   $c["sim_wrong"] != "0" || $c["status"] != "ok" { print }' "$tmp/dry.csv")
    check_rc "dry-run $plat $low: every row exact and ok: $bad" "$([[ -z $bad ]]; echo $?)"
  done
done
head -1 "$tmp/dry.csv" | grep -q '^algo,platform,ranks,bytes,lowering,' ; check_rc "dry-run CSV header" $?

# the table shows the communicators and NCCL calls
"$ARLAB" real --dry-run --platform machines:gpus=2+2 --algo two-level --lowering native --size 4099 >"$tmp/t.txt" 2>&1
check_rc "dry-run table exits 0" $?
grep -q 'ncclReduce on comm 0 root 0' "$tmp/t.txt"; check_rc "table: ncclReduce on a machine comm" $?
grep -q 'ncclAllReduce on comm 2' "$tmp/t.txt"; check_rc "table: masters all-reduce on its own comm" $?
grep -q 'ranks 0,2 (split 1, color 0' "$tmp/t.txt"; check_rc "table: masters comm split in layer 1" $?

# bad options
"$ARLAB" real --dry-run --lowering ring >/dev/null 2>"$tmp/e"; rc=$?
check_rc "bad --lowering: exit 2 (got $rc)" "$([[ $rc == 2 ]]; echo $?)"
grep -q 'not one of auto, p2p, native' "$tmp/e"; check_rc "bad --lowering message" $?
"$ARLAB" real --dry-run --algo nosuch >/dev/null 2>&1; rc=$?
check_rc "unknown algorithm: exit 2 (got $rc)" "$([[ $rc == 2 ]]; echo $?)"

# 2. without a GPU (or without CUDA) real and calibrate refuse with a clear message
if ! nvidia-smi -L >/dev/null 2>&1; then
  "$ARLAB" real --algo ring --size 4KB >/dev/null 2>"$tmp/e"; rc=$?
  check_rc "real without GPU: exit 3 (got $rc)" "$([[ $rc == 3 ]]; echo $?)"
  grep -Eq 'built without CUDA/NCCL|no CUDA GPU on this machine' "$tmp/e"; check_rc "real without GPU: message ($(cat "$tmp/e"))" $?
  "$ARLAB" calibrate --out "$tmp/c.json" >/dev/null 2>"$tmp/e"; rc=$?
  check_rc "calibrate without GPU: exit 3 (got $rc)" "$([[ $rc == 3 ]]; echo $?)"
  grep -Eq 'built without CUDA/NCCL|no CUDA GPU on this machine' "$tmp/e"; check_rc "calibrate message" $?
fi

# 3. compare: model and measured side by side from a CSV of `arlab real`
cat >"$tmp/m.csv" <<'EOF'
algo,platform,ranks,bytes,measured_s,model_s,rel_err,min_s,max_s,algbw_GBps,busbw_GBps,wrong,inplace,dtype,iters,lowering,nccl_s,vs_nccl
nccl-allreduce,x,4,1000000,0.0002,nan,nan,0.0002,0.0002,5,7.5,0,1,f32,20,nccl,0.0002,1
ring,x,4,1000000,0.00025,nan,nan,0.0002,0.0003,4,6,0,1,f32,20,auto,0.0002,1.25
ring,x,4,1000000,0.00099,nan,nan,0.0002,0.0003,4,6,0,0,f32,20,auto,0.0002,4.95
EOF
"$ARLAB" compare --platform machines:gpus=2+2 --algo ring --algo two-level --size 1MB --format csv "$tmp/m.csv" \
  >"$tmp/c.csv" 2>"$tmp/e"
check_rc "compare exits 0 ($(cat "$tmp/e"))" $?
head -1 "$tmp/c.csv" | grep -q '^algo,platform,ranks,bytes,model_s,sim_s,measured_s,sim_err,measured_err,nccl_s,wrong$'
check_rc "compare header" $?
model=$("$ARLAB" model --platform machines:gpus=2+2 --algo ring --size 1MB --format csv | awk -F, 'NR == 2 { print $5 }')
awk -F, -v m="$model" 'NR == 2 && $1 == "ring" && $7 == 0.00025 && $10 == 0.0002 && $11 == 0 {
    e = (0.00025 - m) / m; d = $9 - e; if (d < 0) d = -d; ok = d < 1e-3 * (e < 0 ? -e : e) && ($5 - m) * ($5 - m) < 1e-24 }
    END { exit ok ? 0 : 1 }' "$tmp/c.csv"
check_rc "compare: ring row has the in-place measurement, the model of 'arlab model' and their error ($(sed -n 2p "$tmp/c.csv"))" $?
awk -F, 'NR == 3 && $1 == "two-level" && $7 == "" { ok = 1 } END { exit ok ? 0 : 1 }' "$tmp/c.csv"
check_rc "compare: no measurement -> empty" $?
"$ARLAB" compare --algo ring >/dev/null 2>&1; rc=$?
check_rc "compare without --platform: exit 2 (got $rc)" "$([[ $rc == 2 ]]; echo $?)"
"$ARLAB" compare --platform flat:ranks=4 "$tmp/nope.csv" >/dev/null 2>&1; rc=$?
check_rc "compare with a missing CSV: exit 4 (got $rc)" "$([[ $rc == 4 ]]; echo $?)"

echo "real_cli: $checks checks, $fail failed"
exit $((fail > 0))
