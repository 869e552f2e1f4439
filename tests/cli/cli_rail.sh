#!/bin/bash
# Rail-optimised fabrics at scale: routes come from the structure, so
# a 100 000-GPU fabric loads, and BlueConnect decomposes along the fabric's two
# levels (GPUs of a node, then nodes on their rails). Columns are read by name.
#
# BlueConnect on dgx-h100:nodes=2, 100 MB (S = 1e8 bytes), decomposition 8x2, HD:
#   stage 0 (NVSwitch, w0 = 18 x 20.6 GB/s = 370.8 GB/s, alpha = 2 NVLink links x 0.3 us):
#     RS = log2(8) x 0.6 us + (7/8) x 1e8 / 370.8e9
#   stage 1 (rail, w1/8 = one 48 GB/s NIC, alpha = 2 us), data S/8 = 12.5 MB:
#     RS = 1 x 2 us + (1/2) x 12.5e6 / 48e9
#   all-gathers cost the same: total = 2 x (3.8 us + 0.875e8/370.8e9 + 6.25e6/48e9)
# Ring on dgx-h100:nodes=12500 (P = 100 000), closed form: 2(P-1) x (2.6 us + S/P / 48e9)
# (alpha = the longest route, 4 links: 2 NVLink of 0.3 us, 2 NIC of 1 us; every cross-node transfer
# crosses one NIC). The arithmetic is
# alpha-beta: the fabrics are given without per-message costs (o=0,g=0).
. "$ARLAB_SRC/tests/lib_cli.sh"
. "$ARLAB_SRC/tests/lib_csv.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < t) }'; }

bc=$(awk 'BEGIN { printf "%.17g", 2 * (3.8e-6 + 0.875e8 / 370.8e9 + 6.25e6 / 48e9) }')
if expect_ok "model blueconnect on dgx-h100:nodes=2" -- model --platform dgx-h100:nodes=2,o=0,g=0 --algo blueconnect --size 100MB --format csv; then
  cp "$T_TMP/out" "$T_TMP/bc.csv"
  read -r closed walk detail < <(csv_col "$T_TMP/bc.csv" closed_s walk_s detail | tr '\t' ' ')
  echo "blueconnect: closed_s=$closed walk_s=$walk expected=$bc ($detail)"
  t_check "closed form $closed equals the arithmetic $bc to 1e-9" close "$closed" "$bc" 1e-9
  t_check "walk $walk equals the arithmetic $bc to 1e-9" close "$walk" "$bc" 1e-9
  t_check "decomposed 8x2 along the fabric's levels" grep -q "decomp=8x2" "$T_TMP/bc.csv"
fi

"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: model only"
elif expect_ok "sim blueconnect on dgx-h100:nodes=4" -- sim --platform dgx-h100:nodes=4,o=0,g=0 --algo blueconnect --size 100MB --format csv; then
  read -r sim closed complete < <(csv_col "$T_TMP/out" sim_s closed_s complete | tr '\t' ' ')
  echo "sim: sim_s=$sim closed_s=$closed"
  t_check "simulated $sim equals the closed form $closed to 1e-12" close "$sim" "$closed" 1e-12
  t_check "sim completed" test "$complete" = 1
fi

ring=$(awk 'BEGIN { P = 100000; printf "%.17g", 2 * (P - 1) * (2.6e-6 + 1e8 / P / 48e9) }')
if expect_ok "model ring on a 100 000-GPU rail fabric" -- model --platform dgx-h100:nodes=12500,o=0,g=0 --algo ring --size 100MB --format csv; then
  read -r ranks closed < <(csv_col "$T_TMP/out" ranks closed_s | tr '\t' ' ')
  echo "100k ring: ranks=$ranks closed_s=$closed expected=$ring"
  t_check "100 000 ranks" test "$ranks" = 100000
  t_check "ring closed form $closed equals the arithmetic $ring to 1e-9" close "$closed" "$ring" 1e-9
fi
t_done
