#!/usr/bin/env bash
# `arlab best --emit nccl-tuner FILE`: NCCL's example tuner plugin CSV
# (collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff):
# contiguous inclusive ranges from 0 to --max-bytes per collective, NCCL algorithm/protocol names only, and
# every allreduce range's choice equals the NCCL model's choice ('arlab model' nccl_algo/nccl_proto) inside it.
. "$(dirname "$0")/../lib_cli.sh"
F="$T_TMP/tuner.csv"
expect_ok "emit dgx-h100:nodes=2" -- best --emit nccl-tuner "$F" --platform dgx-h100:nodes=2 --max-bytes 4GiB
t_check "says what it wrote" grep -q "^wrote $F: [0-9]* size ranges" "$T_TMP/out"
t_check "header names arlab's schedules as not expressible" grep -q "^# Only NCCL's own algorithms" "$F"
grep -v '^#' "$F" >"$T_TMP/rows"
t_check "some rows" test "$(wc -l <"$T_TMP/rows")" -ge 3
t_check "10 fields, known names, channels -1, 2 nodes, 16 ranks" awk -F, '
  { n++ }
  NF != 10 || $1 !~ /^(allreduce|allgather|reducescatter)$/ || $4 !~ /^(tree|ring|collnet_direct|collnet_chain|nvls|nvls_tree|pat)$/ \
    || $5 !~ /^(ll|ll128|simple)$/ || $6 != -1 || $7 != 2 || $8 != 16 || $9 != -1 || $10 != -1 { bad++ }
  END { exit !(n > 0 && bad == 0) }' "$T_TMP/rows"
t_check "ranges contiguous from 0 to 4 GiB per collective" awk -F, '
  $1 != c { if (c != "" && last != 4294967296) bad++; c = $1; if ($2 != 0) bad++; last = $3; next }
  { if ($2 != last + 1 || $3 < $2) bad++; last = $3 }
  END { if (last != 4294967296) bad++; exit bad != 0 }' "$T_TMP/rows"
# every allreduce range: the model's choice at the largest power of two inside it
while IFS=, read -r coll lo hi algo proto _; do
  [ "$coll" = allreduce ] || continue
  b=1
  while [ $((b * 2)) -le "$hi" ]; do b=$((b * 2)); done
  [ "$b" -ge "$lo" ] && [ "$b" -ge 4 ] || continue
  expect_ok "model at $b B" -- model --platform dgx-h100:nodes=2 --algo ring --size "${b}B" --format csv
  got=$(csv_col "$T_TMP/out" nccl_algo nccl_proto | tr 'A-Z\t' 'a-z,')
  t_check "allreduce [$lo, $hi]: $algo,$proto = model's choice at $b B ($got)" test "$got" = "$algo,$proto"
done <"$T_TMP/rows"
expect_error "unknown emit kind" 'nccl-tuner FILE' -- best --emit foo "$F" --platform dgx-h100
# --max-bytes through the option table: --max-bytes=S is --max-bytes S; a missing value is named
expect_ok "emit with --max-bytes=4GiB" -- best --emit nccl-tuner "$T_TMP/eq.csv" --platform dgx-h100:nodes=2 --max-bytes=4GiB
t_check "--max-bytes=4GiB writes what --max-bytes 4GiB wrote" cmp -s "$F" "$T_TMP/eq.csv"
expect_error "--max-bytes without a value" 'arlab best: option --max-bytes needs a value' -- best --emit \
    nccl-tuner "$F" --platform dgx-h100:nodes=2 --max-bytes
expect_error "--max-bytes bad size" 'arlab best: --max-bytes: "1XB" is not a size' -- best --emit \
    nccl-tuner "$F" --platform dgx-h100:nodes=2 --max-bytes 1XB
expect_error "a platform NCCL's model cannot describe" 'the same GPU count on every machine' -- best --emit \
    nccl-tuner "$F" --platform fr-5
expect_error "a platform without its GPU" 'compute capability is unknown' -- best --emit nccl-tuner "$F" \
    --platform flat:ranks=8
t_done
