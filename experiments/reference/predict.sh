#!/usr/bin/env bash
# Predicts every row of published.csv from its preset with NCCL's cost model (arlab fit --reference,
# calib/ntref.h), prints predicted vs published busbw with the error, the presets' bandwidth efficiency
# fitted to the corpus and the leave-one-out error per size bucket. With --update, rewrites
# predicted.csv, the regression fixture of tests/cli/cli_reference.sh (run it after a deliberate change).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ARLAB=${ARLAB:-"$here/../../build/arlab"}
"$ARLAB" fit --reference "$here/published.csv"
if [ "${1:-}" = "--update" ]; then
  "$ARLAB" fit --reference "$here/published.csv" --csv >"$here/predicted.csv"
  echo "wrote $here/predicted.csv"
fi
