#!/usr/bin/env bash
# Compute costs on the command line: model --gamma, a platform's "compute", the
# pfn-mn1 preset and experiments/pfn_pipeline.sh, bad compute objects.
# By hand (tests/sim/sim_pipeline.c has the derivation): flat:ranks=8, 256 MB, gamma 1e-10:
# ring (P-1)(2T + g) = 7 (2 x 2.562 + 3.2) ms = 58.268 ms; pipelined ring, 4 sub-chunks: 39.092 ms.
. "$(dirname "$0")/../lib_cli.sh"
expect_ok "model --gamma" -- model --platform flat:ranks=8 --algo ring --algo pipelined-ring:chunks=4 --size 256MB \
  --gamma 1e-10 --format csv
csv_col "$T_TMP/out" algo closed_s walk_s >"$T_TMP/cols"
t_check "model --gamma: ring 58.268 ms, pipelined 39.092 ms (closed and walk, 1e-9)" awk -F'\t' '
  { w = $1 == "ring" ? 58.268e-3 : 39.092e-3; for (i = 2; i <= 3; i++) if (($i - w)^2 > (1e-9 * w)^2) bad++; n++ }
  END { exit !(n == 2 && !bad) }' "$T_TMP/cols"
expect_ok "sim --sync dataflow --gamma" -- sim --platform flat:ranks=8 --algo pipelined-ring:chunks=4 --size 256MB \
  --gamma 1e-10 --sync dataflow --format csv
csv_col "$T_TMP/out" sim_s >"$T_TMP/cols"
t_check "sim: 39.092 ms" awk '{ exit !(($1 - 39.092e-3)^2 < (1e-9 * 39.092e-3)^2) }' "$T_TMP/cols"
expect_ok "sim --engine naive --sync dataflow --gamma" -- sim --platform flat:ranks=8 --algo pipelined-ring:chunks=4 \
  --size 256MB --gamma 1e-10 --sync dataflow --engine naive --format csv
csv_col "$T_TMP/out" sim_s engine >"$T_TMP/cols"
t_check "naive: 39.092 ms" awk '{ exit !($2 == "naive" && ($1 - 39.092e-3)^2 < (1e-9 * 39.092e-3)^2) }' "$T_TMP/cols"
expect_error "naive --gamma under round" "only under --sync dataflow" -- sim --platform flat:ranks=8 --algo ring \
  --size 1MB --gamma 1e-10 --engine naive --sync round
expect_ok "platform show pfn-mn1" -- platform show pfn-mn1 --format json
t_check "pfn-mn1 carries its compute rate" python3 -c "import json; d=json.load(open('$T_TMP/out')); assert abs(d['compute']['reduce']-5.855e9) < 1 and d['ranks'] == 8 and d['machines'] == 8"
# the experiment: the plain ring (c = 1) is (P-1)(2T + g) with T = 2 us + 32e6/13.636e9 s, g = 32e6/5.855e9 s
"$ARLAB_SRC/experiments/pfn_pipeline.sh" "$ARLAB" >"$T_TMP/exp" 2>"$T_TMP/err"
t_check "pfn_pipeline.sh runs" test $? -eq 0
t_check "pfn_pipeline.sh: ring = (P-1)(2T+g) = 71.140 ms" awk '$1 == "ring" {
  T = 2e-6 + 32e6 / (2 * 6.818e9); g = 32e6 / 5.855e9; w = 7 * (2 * T + g) * 1e3; found = 1; exit !(($4 - w)^2 < 1e-6) }
  END { if (!found) exit 1 }' "$T_TMP/exp"
t_check "pfn_pipeline.sh: best pipelined ring 1.347x" grep -q '^best: pipelined-ring:chunks=16, 1.347x' "$T_TMP/exp"
# staged: the plain ring is (P-1)(2(d+T) + 2h + g), d = h = 32e6/12e9, g = 32e6/244e9
t_check "pfn_pipeline.sh, staged: ring = (P-1)(2(d+T)+2h+g) = 108.467 ms" awk '$1 == "pfn-mn1-staged," { on = 1 } on && $1 == "ring" {
  T = 2e-6 + 32e6 / (2 * 6.818e9); d = 32e6 / 12e9; g = 32e6 / 244e9; w = 7 * (2 * (d + T) + 2 * d + g) * 1e3; found = 1
  exit !(($4 - w)^2 < 1e-6) } END { if (!found) exit 1 }' "$T_TMP/exp"
t_check "pfn_pipeline.sh, staged: best 1.533x" grep -q '^best: pipelined-ring:chunks=8, 1.533x' "$T_TMP/exp"
printf '{"name":"x","kind":"tree","levels":[{"fanout":2,"bw":"1GBps","lat":"1us"}],"compute":{"reduce":"fast"}}' >"$T_TMP/bad.json"
expect_error "bad compute.reduce" 'compute.reduce: "fast" is not a rate' -- model --platform "$T_TMP/bad.json" --size 1MB
printf '{"name":"x","kind":"tree","levels":[{"fanout":2,"bw":"1GBps","lat":"1us"}],"compute":{"launch":"1us","x":1}}' >"$T_TMP/bad.json"
expect_error "unknown compute key" 'compute: unknown key "x"' -- sim --platform "$T_TMP/bad.json" --size 1MB
t_done
