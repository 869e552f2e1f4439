#!/usr/bin/env bash
# `arlab real` end to end without a GPU: the arlab command built against the
# host fakes of CUDA and NCCL (tests/fake/, target arlab_fake: 4 fake GPUs,
# single-process launch). Checks the options and outputs: the
# timing convention, placement and launch overhead in every output, the CSV
# columns, nccl-tests' format, --graph refused cleanly, exit codes.
# Env: ARLAB_FAKE (the binary).
set -u
A=$ARLAB_FAKE
. "$(dirname "$0")/../lib_check.sh" # check_rc DESC STATUS, $checks, $fail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. table: header lines say timing and placement; every row exact
"$A" real --launch single --platform machines:gpus=2+2 --algo all --size 4099 --iters 2 --warmup 1 >"$tmp/t.txt" 2>"$tmp/t.err"
check_rc "table run exits 0 ($(tail -3 "$tmp/t.err"))" $?
grep -q '^# timing arlab: median over iterations of the max over ranks' "$tmp/t.txt"; check_rc "table names the timing" $?
grep -q '^# placement=one-gpu-per-rank transport=nccl-auto' "$tmp/t.txt"; check_rc "table names the placement" $?
grep -q 'launch = the empty schedule' "$tmp/t.txt"; check_rc "table explains the launch column" $?

# 2. CSV: the new columns, #wrong 0 everywhere, empty_s measured
"$A" real --launch single --platform machines:gpus=2+2 --algo all --size 4099,1000 --iters 2 --warmup 1 \
  --timing nccl-tests --format csv >"$tmp/r.csv" 2>"$tmp/r.err"
check_rc "csv run exits 0 ($(tail -3 "$tmp/r.err"))" $?
head -1 "$tmp/r.csv" | grep -q ',vs_nccl,empty_s,timing,placement,transport,graph$'; check_rc "CSV header ends with the new columns" $?
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["wrong"] != "0" || $c["timing"] != "nccl-tests" || $c["placement"] != "one-gpu-per-rank" ||
               !($c["empty_s"] >= 0) || $c["min_s"] != $c["measured_s"] { print }' "$tmp/r.csv")
check_rc "every CSV row: #wrong 0, timing nccl-tests, placement, empty_s, one mean: $bad" "$([[ -z $bad ]]; echo $?)"
rows=$(awk 'NR > 1' "$tmp/r.csv" | wc -l)
check_rc "CSV rows ($rows >= 20)" "$((rows < 20))"

# 3. nccl-tests' format: one document per algorithm, the exact header lines
"$A" real --launch single --platform machines:gpus=2+2 --algo ring --algo two-level --size 4KiB,64KiB --iters 2 \
  --warmup 1 --format nccl-tests >"$tmp/n.txt" 2>"$tmp/n.err"
check_rc "nccl-tests format exits 0 ($(tail -3 "$tmp/n.err"))" $?
docs=$(grep -c '^# nThread 1 nGpus 1 minBytes 4096 maxBytes 65536 step: 0(bytes) warmup iters: 1 iters: 2 agg iters: 1 validation: 1 graph: 0$' "$tmp/n.txt")
check_rc "three documents (baseline, ring, two-level): $docs" "$([[ $docs == 3 ]]; echo $?)"
grep -q '^#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong$' "$tmp/n.txt"
check_rc "nccl-tests column header" $?
n=$(grep -Ec '^ +(4096|65536) +(1024|16384) +float +sum +-1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +0 +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$' "$tmp/n.txt")
check_rc "six data rows with #wrong 0 in both halves ($n)" "$([[ $n == 6 ]]; echo $?)"
d=$(grep -c '^#  Rank  [0-3] Group  0 Pid ' "$tmp/n.txt")
check_rc "device lines: 4 per document ($d)" "$([[ $d == 12 ]]; echo $?)"
grep -q '^# Out of bounds values : 0 OK$' "$tmp/n.txt"; check_rc "footer" $?
grep -q '^# Avg bus bandwidth    : ' "$tmp/n.txt"; check_rc "avg busbw line" $?
grep -q '^# arlab real: algo ring, 4 ranks, lowering auto$' "$tmp/n.txt"; check_rc "arlab comment names the algorithm" $?
grep -q 'timing arlab; placement=one-gpu-per-rank' "$tmp/n.txt"; check_rc "nccl-tests output names timing and placement" $?
"$A" real --launch single --algo ring --size 4096 --format nccl-tests --placement in >/dev/null 2>"$tmp/p.err"
check_rc "nccl-tests format with one placement is refused (exit 2)" "$([[ $? == 2 ]]; echo $?)"

# 4. errors: --graph with one process driving 4 GPUs is refused; a bad --timing
"$A" real --launch single --algo ring --size 4096 --graph >/dev/null 2>"$tmp/g.err"
rc=$?
check_rc "--graph under the single launch: exit 3 ($rc)" "$([[ $rc == 3 ]]; echo $?)"
grep -q 'one rank per process' "$tmp/g.err"; check_rc "--graph message" $?
"$A" real --launch single --algo ring --size 4096 --timing fast >/dev/null 2>"$tmp/x.err"
check_rc "--timing fast: exit 2" "$([[ $? == 2 ]]; echo $?)"
grep -q 'not one of arlab, nccl-tests' "$tmp/x.err"; check_rc "--timing message" $?

# 5. round fusion: fewer NCCL groups, still exact
s0=$("$A" real --dry-run --platform blueconnect-12 --algo pipelined-ring --size 1MB --format csv | awk -F, 'NR == 2 { print $7 }')
s1=$("$A" real --dry-run --platform blueconnect-12 --algo pipelined-ring --size 1MB --fuse --format csv | awk -F, 'NR == 2 { print $7 }')
check_rc "pipelined-ring on blueconnect-12: 88 NCCL groups, 22 fused ($s0, $s1)" "$([[ $s0 == 88 && $s1 == 22 ]]; echo $?)"
"$A" real --launch single --platform machines:gpus=2+2 --algo all --size 4099 --iters 1 --warmup 1 --fuse --format csv \
  >"$tmp/f.csv" 2>"$tmp/f.err"
check_rc "--fuse run exits 0 ($(tail -3 "$tmp/f.err"))" $?
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["wrong"] != "0" { print }' "$tmp/f.csv")
check_rc "--fuse: every row #wrong 0: $bad" "$([[ -z $bad ]]; echo $?)"

# 6. calibrate through real/rcalib_run.c (one host: the intra-machine class only)
"$A" calibrate --launch single --platform machines:gpus=2+2 --size 8B,4KB,64KB --iters 3 --warmup 1 \
  --out "$tmp/cal.json" >"$tmp/cal.txt" 2>"$tmp/cal.err"
check_rc "calibrate exits 0 ($(tail -3 "$tmp/cal.err"))" $?
grep -q '^# intra-machine fit' "$tmp/cal.txt"; check_rc "intra fit printed" $?
grep -q '^# inter-machine fit' "$tmp/cal.txt"; check_rc "inter fit printed (machines from --platform)" $?
"$A" platform show "$tmp/cal.json" >/dev/null 2>&1; check_rc "the calibrated platform loads" $?

echo "real_cli_fake: $checks checks, $fail failed"
exit $((fail > 0))
