#!/usr/bin/env bash
# The documented column lists are the column tables: scripts/doc_columns.sh finds each list
# (docs/sweeps-and-reports.md: sweep results; docs/cli.md: arlab sim, model, best) equal to
# `arlab help columns sweep|sim|model|best`, and the tables have the columns readers rely on.
# Needs ARLAB and ARLAB_SRC.
. "$(dirname "$0")/lib_cli.sh"
if ARLAB="$ARLAB" "$ARLAB_SRC/scripts/doc_columns.sh" >"$T_TMP/script" 2>&1; then
  t_check "documented column lists are current" true
else
  t_check "documented column lists are current: $(tr '\n' ' ' <"$T_TMP/script")" false
fi
expect_ok "help columns sweep" -- help columns sweep
for c in time_s model_s key busbw_GBps nccl_proto; do
  t_check "sweep columns list $c" grep -q "^| \`$c\` |" "$T_TMP/out"
done
t_check "sweep list has one row per column (46)" test "$(grep -c '^| `' "$T_TMP/out")" = 46
expect_ok "help columns sim" -- help columns sim
for c in sim_s model_s rel_err bottleneck status why sync scenario; do
  t_check "sim columns list $c" grep -q "^| \`$c\` |" "$T_TMP/out"
done
expect_ok "sim csv" -- sim --platform flat:ranks=4 --algo ring --size 1MB --format csv
t_check "sim's CSV header is the listed columns, in order" test \
  "$(head -1 "$T_TMP/out")" = "$("$ARLAB" help columns sim | sed -n 's/^| `\([^`]*\)`.*/\1/p' | paste -sd,)"
expect_ok "help columns model" -- help columns model
for c in model_s closed_s walk_s stages nccl_model_s why; do
  t_check "model columns list $c" grep -q "^| \`$c\` |" "$T_TMP/out"
done
expect_ok "model csv" -- model --platform flat:ranks=4 --algo ring --size 1MB --format csv
t_check "model's CSV header is the listed columns, in order" test \
  "$(head -1 "$T_TMP/out")" = "$("$ARLAB" help columns model | sed -n 's/^| `\([^`]*\)`.*/\1/p' | paste -sd,)"
expect_ok "help columns best" -- help columns best
for c in rank params walk_s closed_s vs_nccl sim_s scenario; do
  t_check "best columns list $c" grep -q "^| \`$c\` |" "$T_TMP/out"
done
expect_ok "best csv" -- best --platform flat:ranks=4 --size 1MB --format csv
t_check "best's CSV header is the listed columns, in order" test \
  "$(head -1 "$T_TMP/out")" = "$("$ARLAB" help columns best | sed -n 's/^| `\([^`]*\)`.*/\1/p' | paste -sd,)"
expect_error "help columns needs a table" "give sweep" -- help columns
t_done
