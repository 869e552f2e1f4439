#!/bin/bash
# CTest real_built_cli: the commands around real/ in whichever build this is (AR_REAL_HOST=1: configured
# with ARLAB_REAL=ON, the real/ host library built; 0: ARLAB_REAL=OFF, see .ci/run). In every build
# `arlab fit`, `arlab calibrate --from` and `arlab compare` read nccl-tests output (calib/ is always
# built). Without real/, the commands that need it say so in one line naming what is missing, print
# nothing on stdout, and exit 3 (unsupported); with it, `arlab real --dry-run` plans without a GPU.
# Env: ARLAB, ARLAB_SRC, AR_REAL_HOST.
. "$ARLAB_SRC/tests/lib_cli.sh"
D=$ARLAB_SRC/tests/data/nccltests
case "${AR_REAL_HOST:-}" in
0 | 1) ;;
*)
  echo "real_built_cli: AR_REAL_HOST must be 0 or 1 (got '${AR_REAL_HOST:-}')"
  exit 1
  ;;
esac

# calib/ in every build: the fit of NCCL's model to an nccl-tests log, and the log compared with the model
expect_ok "fit reads nccl-tests output" -- fit --from "$D/h100_1node_allreduce.txt" --platform dgx-h100 --boot 20
t_check "fit prints the per-class calibration" grep -q '^intra-node ' "$T_TMP/out"
expect_ok "calibrate --from writes the calibrated platform" -- calibrate --from "$D/h100_1node_allreduce.txt" \
  --platform dgx-h100 --boot 20 --out "$T_TMP/cal.json"
t_check "calibrated platform: a JSON platform with links" grep -q '"bw"' "$T_TMP/cal.json"
expect_ok "compare reads nccl-tests output" -- compare --measured "$D/h100_1node_allreduce.txt" --platform dgx-h100 \
  --format csv
n=$(awk -F, 'NR > 1 && $1 == "nccl" && $10 > 0' "$T_TMP/out" | wc -l)
t_check "compare: NCCL's measured time at the log's 6 sizes ($n rows)" test "$n" = 6

# exit status 3 (AR_EUNSUPPORTED), one stderr line with needle, empty stdout
unsupported() { # unsupported DESC NEEDLE -- ARGS...
  local desc=$1 needle=$2
  shift 3
  "$ARLAB" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
  local rc=$?
  if [ $rc != 3 ]; then t_bad "$desc: exit status $rc (want 3): $(head -c 300 "$T_TMP/err")"; return; fi
  if [ "$(wc -l <"$T_TMP/err")" != 1 ] || ! grep -qF -- "$needle" "$T_TMP/err"; then
    t_bad "$desc: stderr \"$(head -c 300 "$T_TMP/err")\" is not one line with \"$needle\""
    return
  fi
  if [ -s "$T_TMP/out" ]; then t_bad "$desc: printed on stdout: $(head -c 300 "$T_TMP/out")"; return; fi
  t_good
}

if [ "$AR_REAL_HOST" = 0 ]; then
  unsupported "real --dry-run without real/" "built without the real/ backend (configure with ARLAB_REAL=ON)" -- \
    real --dry-run --algo ring --platform flat:ranks=4 --size 64KB
  unsupported "real without real/" "arlab real: built without CUDA/NCCL" -- real --algo ring --platform flat:ranks=4
  unsupported "calibrate (measuring) without real/" "arlab calibrate: built without CUDA/NCCL" -- \
    calibrate --out "$T_TMP/cal2.json"
  ARLAB_MPI= unsupported "testbed run without arlab-mpi" "arlab-mpi not found (build arlab with ARLAB_REAL=ON" -- \
    testbed run --platform flat:ranks=4 --id realoff
  expect_ok "version" -- version
  t_check "version: nccl not built, arlab-mpi not built and why" \
    grep -Eq 'nccl \(not built\).*arlab-mpi not built \((configured with ARLAB_REAL=OFF|no Open MPI at configure time)\)' \
    "$T_TMP/out"
else
  expect_ok "real --dry-run plans without a GPU" -- real --dry-run --algo ring --platform flat:ranks=4 --size 64KB
  t_check "real --dry-run: the plan of ring" grep -q 'ring' "$T_TMP/out"
fi
t_done
