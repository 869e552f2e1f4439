#!/usr/bin/env bash
# The documented column lists are the column tables: scripts/doc_columns.sh finds each list
# (docs/sweeps-and-reports.md: sweep results; docs/cli.md: arlab sim, model, best) equal to
# `arlab help columns sweep|sim|model|best`, and the tables have the columns readers rely on.
# Needs ARLAB and ARLAB_SRC.
. "$(dirname "$0")/../lib_cli.sh"
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
# each verb's table: its list names the columns readers rely on, and its CSV header is the list, in order
verb_columns() { # verb_columns VERB "COLUMNS..." ARGS...
  local verb=$1 cols=$2
  shift 2
  expect_ok "help columns $verb" -- help columns "$verb"
  for c in $cols; do
    t_check "$verb columns list $c" grep -q "^| \`$c\` |" "$T_TMP/out"
  done
  expect_ok "$verb csv" -- "$verb" "$@" --format csv
  t_check "$verb's CSV header is the listed columns, in order" test \
    "$(head -1 "$T_TMP/out")" = "$("$ARLAB" help columns "$verb" | sed -n 's/^| `\([^`]*\)`.*/\1/p' | paste -sd,)"
}
verb_columns sim "sim_s model_s rel_err bottleneck status why sync scenario" --platform flat:ranks=4 --algo ring --size 1MB
verb_columns model "model_s closed_s walk_s stages nccl_model_s why" --platform flat:ranks=4 --algo ring --size 1MB
verb_columns best "rank params walk_s closed_s vs_nccl sim_s scenario" --platform flat:ranks=4 --size 1MB
expect_error "help columns needs a table" "give sweep" -- help columns
t_done
