#!/usr/bin/env bash
# `arlab compare --measured FILE... --platform P [--plot F]`: nccl-tests files as NCCL rows and MPI
# baseline rows ("mpi-allreduce") side by side with model, sim and NCCL's model; sizes default to the measured
# ones; the relative errors are against the measured NCCL time; the gnuplot figure is written.
. "$(dirname "$0")/../lib_cli.sh"
D="$ARLAB_SRC/tests/data/nccltests"
cat >"$T_TMP/mpi.csv" <<'EOF2'
algo,platform,ranks,bytes,measured_s,inplace,wrong
mpi-allreduce,dgx-h100,8,1048576,0.0001,1,0
EOF2
expect_ok "compare --measured" -- compare --measured "$D/h100_1node_allreduce.txt" "$T_TMP/mpi.csv" \
    --platform dgx-h100 --algo ring --format csv
csv_col "$T_TMP/out" algo bytes model_s sim_s nccl_s nccl_model_s mpi_s model_vs_nccl nccl_model_err mpi_vs_nccl \
    >"$T_TMP/c"
t_check "the 6 measured sizes, algo ring" test "$(awk -F'\t' '$1 == "ring"' "$T_TMP/c" | wc -l)" -eq 6
# 1 MiB: in-place 25.10 us preferred over out-of-place 25.40 us
t_check "1 MiB: nccl_s = 25.10 us (in-place)" awk -F'\t' '$2 == 1048576 { ok = ($5 - 25.10e-6)^2 < 1e-24 } END { exit !ok }' "$T_TMP/c"
t_check "1 MiB: mpi_s = 100 us, mpi_vs_nccl = 100/25.1 - 1" \
  awk -F'\t' '$2 == 1048576 { ok = ($7 - 1e-4)^2 < 1e-24 && ($10 - (100 / 25.1 - 1))^2 < 1e-4 } END { exit !ok }' "$T_TMP/c"
t_check "8 B: no MPI row (empty)" awk -F'\t' '$2 == 8 { ok = $7 == "" } END { exit !ok }' "$T_TMP/c"
t_check "model_vs_nccl = model_s / nccl_s - 1 at every size" \
  awk -F'\t' '{ n++; if (($8 - ($3 / $5 - 1))^2 < 1e-4) ok++ } END { exit !(n == 6 && ok == 6) }' "$T_TMP/c"
expect_ok "model csv" -- model --platform dgx-h100 --algo ring --size 1MiB --format csv
nm=$(csv_col "$T_TMP/out" nccl_model_s)
t_check "nccl_model_s = model's nccl_model_s ($nm)" \
  awk -F'\t' -v m="$nm" '$2 == 1048576 { ok = m != "" && ($6 - m)^2 < 1e-24 * m * m } END { exit !ok }' "$T_TMP/c"
t_check "nccl_model_err = nccl_model_s / nccl_s - 1" \
  awk -F'\t' '$2 == 1048576 { ok = ($9 - ($6 / $5 - 1))^2 < 1e-4 } END { exit !ok }' "$T_TMP/c"
if command -v gnuplot >/dev/null; then
  expect_ok "compare --plot svg" -- compare --measured "$D/h100_1node_allreduce.txt" --platform dgx-h100 \
      --algo ring --plot "$T_TMP/fig.svg"
  t_check "svg written" grep -q '<svg' "$T_TMP/fig.svg"
  t_check "measured as points, model as a line" grep -q 'measured NCCL' "$T_TMP/fig.svg.gp"
  t_check "busbw panel" grep -q 'busbw (GB/s)' "$T_TMP/fig.svg.gp"
fi
expect_error "--plot with a bad extension" '.png or .svg' -- compare --measured "$D/h100_1node_allreduce.txt" \
    --platform dgx-h100 --plot "$T_TMP/fig.pdf"
expect_error "--measured of another rank count" 'no measured all-reduce of 5 ranks' -- compare \
    --measured "$D/h100_1node_allreduce.txt" --platform fr-5
expect_error "--measured without a file" 'needs at least one file' -- compare --measured --platform dgx-h100
expect_error "a truncated nccl-tests file" 'truncated_row.txt' -- compare --measured "$D/truncated_row.txt" \
    --platform dgx-h100
t_done
