#!/usr/bin/env bash
# The main job (model comparison on the BlueConnect presets) and plan output.
. "$(dirname "$0")/../lib_cli.sh"
expect_ok "main job csv" -- model --platform blueconnect-12 --platform blueconnect-192 --size 100MB --algo all --format csv
head -1 "$T_TMP/out" >"$T_TMP/hdr"
t_check "csv header" grep -q '^algo,platform,ranks,bytes,model_s,closed_s,walk_s,rel_diff,detail,stages,algbw_GBps,busbw_GBps,nccl_model_s,nccl_algo,nccl_proto,status,why,scenario$' "$T_TMP/hdr"
t_check "ring row on 12 GPUs" grep -q '^ring,blueconnect-12,12,100000000,' "$T_TMP/out"
t_check "two-level row on 192 GPUs" grep -q '^two-level,blueconnect-192,192,100000000,' "$T_TMP/out"
# Eq. 6 on blueconnect-12: 2 (P-1) (a + N/(P minW)); read the model_s value and check it against the walk to 1e-6
csv_col "$T_TMP/out" algo platform model_s walk_s >"$T_TMP/cols"
awk -F'\t' '$1=="ring" && $2=="blueconnect-12" { d=($3-$4)/$3; if (d<0) d=-d; found=1; exit !(d < 1e-6) } END { if (!found) exit 1 }' "$T_TMP/cols"
t_check "ring model equals walk on blueconnect-12" test $? -eq 0
expect_ok "json" -- model --platform blueconnect-12 --algo ring --size 12M --format json
t_check "json parses" python3 -c "import json,sys; r=json.load(open('$T_TMP/out')); assert r[0]['algo']=='ring' and r[0]['ranks']==12 and r[0]['bytes']==48000000"
expect_ok "plan check" -- plan --platform blueconnect-12 --algo two-level --size 1000 --check
t_check "plan validator ok" grep -q '^validator: ok' "$T_TMP/out"
t_check "plan executor ok" grep -q '^host executor: ok' "$T_TMP/out"
t_check "plan call stats" grep -q '^calls per rank' "$T_TMP/out"
expect_ok "plan json" -- plan --platform flat:ranks=5 --algo ring --size 10 --format json
t_check "plan json parses" python3 -c "import json; d=json.load(open('$T_TMP/out')); assert d['schedule']['ranks']==5 and len(d['schedule']['phases'])==2"
expect_ok "platforms" -- platforms
t_check "platform list has presets" grep -q 'blueconnect-192' "$T_TMP/out"
expect_ok "platform show" -- platform show blueconnect-192
t_check "summary names ranks" grep -q '192' "$T_TMP/out"
expect_ok "generated fat-tree 4096" -- model --platform fat-tree --ranks 4096 --algo ring --size 1GiB --format csv
t_check "4096 ranks" grep -q '^ring,.*,4096,' "$T_TMP/out"
# nccl-tests' definitions: algbw = bytes / model_s (GB/s = 1e9 B/s), busbw = algbw x 2(n-1)/n (all-reduce)
csv_col "$T_TMP/out" ranks bytes model_s algbw_GBps busbw_GBps status >"$T_TMP/bw"
t_check "algbw and busbw by nccl-tests' definitions (1e-12)" awk -F'\t' '$6=="ok" { n++; a=$2/$3/1e9; b=a*2*($1-1)/$1;
  if ((a-$4)^2 > (1e-12*a)^2 || (b-$5)^2 > (1e-12*b)^2) bad++ } END { exit !(n > 0 && !bad) }' "$T_TMP/bw"
t_check "no nan in csv" bash -c "! grep -qi nan '$T_TMP/out'"
expect_ok "nccl model column on dgx-h100" -- model --platform dgx-h100 --algo ring --size 1GiB --format csv
csv_col "$T_TMP/out" nccl_model_s nccl_algo >"$T_TMP/n"
# NVLS at 1 GiB (test_nccl_model): the tuner's 25 + 2^30 / 272000 = 3972.58 us plus the pipeline fill of its
# 128 KiB chunks, 2 x 131072 / (40e9 / 16) = 104.8576 us: 4077.44 us
t_check "nccl_model_s is NVLS 4077.44 us at 1 GiB (tuner + fill)" awk -F'\t' '{ d=$1-0.00407744; if (d<0) d=-d; exit !($2=="NVLS" && d < 1e-8) }' "$T_TMP/n"
expect_ok "--nccl-model tuner" -- model --platform dgx-h100 --algo ring --size 1GiB --format csv --nccl-model tuner
csv_col "$T_TMP/out" nccl_model_s nccl_algo >"$T_TMP/n"
t_check "--nccl-model tuner: the tuner's 3972.58 us, the same choice" awk -F'\t' '{ d=$1-0.00397258; if (d<0) d=-d; exit !($2=="NVLS" && d < 1e-8) }' "$T_TMP/n"
expect_ok "--nccl-model arlab (the default, spelled)" -- model --platform dgx-h100 --algo ring --size 1GiB --format csv --nccl-model arlab
csv_col "$T_TMP/out" nccl_model_s >"$T_TMP/n"
t_check "--nccl-model arlab = the default" awk -F'\t' '{ d=$1-0.00407744; if (d<0) d=-d; exit !(d < 1e-8) }' "$T_TMP/n"
# the default on 2 x 8 H100 at 64 MiB picks NVLS_TREE (test_nccl_model: bus 461.6, algbw 461.6 x 16/30 GB/s,
# 66.8 us): the tuner's 66.8 + 2^26 / 246186.67 = 339.393 us, plus NVLS_TREE's fill across nodes, 128 KiB
# chunks over 16 x 8 ops: 2 x 131072 x 128 / 246186.67 = 136.297 us: 475.690 us; --nccl-model tuner: 339.393 us
expect_ok "2 nodes, the default --nccl-model" -- model --platform dgx-h100:nodes=2 --algo ring --size 64MiB --format csv
csv_col "$T_TMP/out" nccl_model_s nccl_algo >"$T_TMP/n"
t_check "the default: NVLS_TREE 475.690 us at 64 MiB on 2 nodes (with NVLS_TREE's fill)" awk -F'\t' '{ d=$1-0.000475690; if (d<0) d=-d; exit !($2=="NVLS_TREE" && d < 1e-9) }' "$T_TMP/n"
expect_ok "2 nodes, --nccl-model tuner" -- model --platform dgx-h100:nodes=2 --algo ring --size 64MiB --format csv --nccl-model tuner
csv_col "$T_TMP/out" nccl_model_s nccl_algo >"$T_TMP/n"
t_check "--nccl-model tuner: NVLS_TREE 339.393 us at 64 MiB on 2 nodes (no fill)" awk -F'\t' '{ d=$1-0.000339393; if (d<0) d=-d; exit !($2=="NVLS_TREE" && d < 1e-9) }' "$T_TMP/n"
expect_error "--nccl-model nvlstree-fill is gone (the default has the fill)" '--nccl-model' -- model --platform dgx-h100:nodes=2 --size 64MiB --nccl-model nvlstree-fill
expect_error "an unknown --nccl-model" '--nccl-model' -- model --platform dgx-h100 --size 1GiB --nccl-model fast
t_done
