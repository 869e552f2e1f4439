#!/bin/bash
# `arlab compare` (a one-point sweep through lab/compare.h): model_s is arlab
# model's, measured times come from the one measured-CSV reader (columns by
# name, in any order, extra columns ignored; in-place rows preferred), and a
# CSV without the needed columns is refused with one line. Needs ARLAB and ARLAB_SRC.
. "$ARLAB_SRC/tests/lib_cli.sh"

cat >"$T_TMP/meas.csv" <<'EOF2'
# measured by hand
extra,bytes,algo,ranks,measured_s,inplace,wrong,platform
x,1000000,ring,5,0.002,0,0,fr-5
y,1000000,ring,5,0.003,1,7,fr-5
z,1000000,nccl-allreduce,5,0.0025,1,0,fr-5
EOF2
expect_ok "compare csv" -- compare --platform fr-5 --algo ring --algo binomial --size 1MB --format csv "$T_TMP/meas.csv"
csv_col "$T_TMP/out" algo model_s measured_s nccl_s wrong >"$T_TMP/c"
expect_ok "model csv" -- model --platform fr-5 --algo ring --algo binomial --size 1MB --format csv
csv_col "$T_TMP/out" algo model_s >"$T_TMP/m"
for a in ring binomial; do
  cm=$(awk -F'\t' -v a=$a '$1 == a { print $2 }' "$T_TMP/c")
  mm=$(awk -F'\t' -v a=$a '$1 == a { print $2 }' "$T_TMP/m")
  t_check "$a: compare's model_s = model's ($cm vs $mm)" test -n "$cm" -a "$cm" = "$mm"
done
t_check "ring: the in-place row is matched (measured 0.003, nccl 0.0025, wrong 7)" \
  awk -F'\t' '$1 == "ring" { ok = ($3 - 0.003)^2 < 1e-30 && ($4 - 0.0025)^2 < 1e-30 && $5 == 7 } END { exit !ok }' "$T_TMP/c"
t_check "binomial: no measurement (empty: the missing-value convention)" \
  awk -F'\t' '$1 == "binomial" { n++; ok = $3 == "" } END { exit !(n == 1 && ok) }' "$T_TMP/c"
printf 'algo,bytes\nring,1\n' >"$T_TMP/bad.csv"
expect_error "csv without measured_s" "must name algo, ranks, bytes and measured_s" -- compare --platform fr-5 --algo ring --size 1MB "$T_TMP/bad.csv"
t_done
