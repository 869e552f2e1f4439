#!/usr/bin/env bash
# The reference corpus: every row of experiments/reference/published.csv predicted from its preset
# (arlab fit --reference). A REGRESSION FIXTURE, not a claim of accuracy: the predicted busbw of every row must
# stay within 1 % (relative) of experiments/reference/predicted.csv; a deliberate change of a preset or of
# NCCL's model updates the fixture with experiments/reference/predict.sh --update.
. "$(dirname "$0")/../lib_cli.sh"
R="$ARLAB_SRC/experiments/reference"
TOL=0.01
expect_ok "fit --reference --csv" -- fit --reference "$R/published.csv" --csv
cp "$T_TMP/out" "$T_TMP/now.csv"
csv_col "$T_TMP/now.csv" line predicted_busbw_GBps status >"$T_TMP/now"
csv_col "$R/predicted.csv" line predicted_busbw_GBps status >"$T_TMP/want"
t_check "every published row predicted (7 rows, status ok)" test "$(awk -F'\t' '$3 == "ok"' "$T_TMP/now" | wc -l)" -eq 7
t_check "same rows as the fixture" test "$(cut -f1 "$T_TMP/now")" = "$(cut -f1 "$T_TMP/want")"
while IFS=$'\t' read -r line want _; do
  got=$(awk -F'\t' -v l="$line" '$1 == l { print $2 }' "$T_TMP/now")
  t_check "line $line: predicted busbw $got within $TOL of $want" \
    awk -v g="$got" -v w="$want" -v t="$TOL" 'BEGIN { d = (g - w) / w; exit !(g != "" && d <= t && d >= -t) }'
done <"$T_TMP/want"
expect_ok "fit --reference (table)" -- fit --reference "$R/published.csv"
t_check "pooled efficiency line" grep -Eq '^  pooled: eff [0-9.]+ over all rows' "$T_TMP/out"
t_check "the >= 512 MB bucket has the 7 rows" grep -Eq '^>= 512 MB +7 ' "$T_TMP/out"
# a tolerance that cannot be met must fail: a fixture moved by 5 % is caught
awk -F, 'NR == 1 { print; next } { $11 = $11 * 1.05; print }' OFS=, "$R/predicted.csv" >"$T_TMP/moved.csv"
csv_col "$T_TMP/moved.csv" line predicted_busbw_GBps >"$T_TMP/moved"
bad=0
while IFS=$'\t' read -r line want; do
  got=$(awk -F'\t' -v l="$line" '$1 == l { print $2 }' "$T_TMP/now")
  awk -v g="$got" -v w="$want" -v t="$TOL" 'BEGIN { d = (g - w) / w; exit !(d <= t && d >= -t) }' || bad=$((bad + 1))
done <"$T_TMP/moved"
t_check "a 5 % move is detected on every row ($bad)" test "$bad" -eq 7
printf 'system,preset,busbw_GBps\nx,no-such-preset,100\n' >"$T_TMP/bad.csv"
expect_ok "an unknown preset is reported, not fatal" -- fit --reference "$T_TMP/bad.csv"
t_check "not predicted: names the preset" grep -q 'not predicted: .*no-such-preset' "$T_TMP/out"
expect_error "--reference with --platform" 'takes no --from' -- fit --reference "$R/published.csv" --platform dgx-h100
t_done
