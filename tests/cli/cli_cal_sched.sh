#!/usr/bin/env bash
# A calibration reaches the `nccl` schedule's time, not only NCCL's model: calibrated on the public 4 x 8 H100
# InfiniBand log (nccl-tests#309), the schedule's NCCL steps take the fit's latency factor as NCCL's model on the
# calibrated platform does, so the simulated time follows the calibrated model and the log at 1-4 MB.
. "$(dirname "$0")/../lib_cli.sh"
LOG="$ARLAB_SRC/experiments/reference/logs/nccl-tests309_h100_4node_ib_allreduce.txt"
CAL="$T_TMP/cal.json"
expect_ok "calibrate on the 4-node log" -- calibrate --from "$LOG" --platform dgx-h100:nodes=4 --out "$CAL"
# the inter-node class's latency factor the fit wrote (1.13 on this log: NCCL's tree priced x0.85 on these
# H100s, its simple TREE pattern, the bandwidth takes more of the middle sizes than the 1.43 fitted without it)
LAT=$(awk '/"inter":/ { on = 1 } on && /"lat":/ { gsub(/[^0-9.eE+-]/, "", $2); print $2; exit }' "$CAL")
t_check "an inter-node latency factor > 1.1 written ($LAT)" awk -v f="$LAT" 'BEGIN { exit !(f + 0 > 1.1) }'

# 8 B: NCCL's latencies alone (steps and base), so the calibrated time is the fit's factor x the preset's time
expect_ok "sim 8 B, preset" -- sim --platform dgx-h100:nodes=4 --algo nccl --size 8 --format csv
U=$(csv_col "$T_TMP/out" sim_s nccl_algo nccl_proto)
expect_ok "sim 8 B, calibrated" -- sim --platform "$CAL:nodes=4" --algo nccl --size 8 --format csv
C=$(csv_col "$T_TMP/out" sim_s nccl_algo nccl_proto)
t_check "8 B: the same pick, TREE/LL ($U / $C)" test "$(cut -f2- <<<"$U")" = "$(cut -f2- <<<"$C")"
t_check "8 B: calibrated sim = $LAT x the preset's to 1e-3 ($U -> $C)" \
  awk -v u="$(cut -f1 <<<"$U")" -v c="$(cut -f1 <<<"$C")" -v f="$LAT" \
  'BEGIN { d = c / (u * f) - 1; exit !(u > 0 && d < 1e-3 && d > -1e-3) }'

# the log's 1, 2 and 4 MB rows: the calibrated schedule within 20 % of the measured times (the preset's: 0.82, 0.63,
# 0.72 of them; 2 MB excepted: the log's step from 1 to 2 MB is NCCL 2.25-2.27 leaving the tree for NVLS_TREE,
# which the default release's calibration does not follow, 0.71) and within 10 % of the calibrated NCCL model it
# follows
expect_ok "compare, preset" -- compare --measured "$LOG" --platform dgx-h100:nodes=4 --algo nccl --format csv
csv_col "$T_TMP/out" bytes sim_s >"$T_TMP/uncal"
expect_ok "compare, calibrated" -- compare --measured "$LOG" --platform "$CAL:nodes=4" --algo nccl --format csv
csv_col "$T_TMP/out" bytes sim_s nccl_s nccl_model_s >"$T_TMP/cal"
for b in 1048576 2097152 4194304; do
  c=$(awk -F'\t' -v b=$b '$1 == b' "$T_TMP/cal")
  u=$(awk -F'\t' -v b=$b '$1 == b { print $2 }' "$T_TMP/uncal")
  t_check "$b B: a calibrated row ($c)" test -n "$c"
  [ $b = 2097152 ] || t_check "$b B: calibrated sim within 20 % of the measured NCCL time ($c)" \
    awk -F'\t' '{ r = $2 / $3; exit !($3 > 0 && r > 0.8 && r < 1.2) }' <<<"$c"
  t_check "$b B: calibrated sim within 10 % of the calibrated NCCL model ($c)" \
    awk -F'\t' '{ r = $2 / $4; exit !($4 > 0 && r > 0.9 && r < 1.1) }' <<<"$c"
  t_check "$b B: calibrated sim > the preset's by >= 10 % ($u)" \
    awk -F'\t' -v u="$u" '{ exit !(u > 0 && $2 > 1.1 * u) }' <<<"$c"
done
t_done
