#!/bin/bash
# NCCL's cost model (models/nccl_model.c, tuning constants of NCCL 2.30.7) against
# the public nccl-tests measurements in the presets' "reference" blocks.
#
#   experiments/bench_nccl_reference.sh [BUILD_DIR] [--format csv] [PRESET...]
#
# BUILD_DIR defaults to build (it must hold tests/nccl_reference, built with the
# suite). Presets default to the six modern ones. For every reference point it
# prints the published busbw, the model's busbw for the same collective, size,
# ranks and algorithm ("default" = NCCL's own choice; RING/NVLS = NCCL_ALGO
# forced, protocol still chosen), both by nccl-tests' definition (busbw = algbw x
# 2(n-1)/n for all-reduce), and the relative error. Then a per-size sweep of the
# model's choice on each preset (what NCCL would pick, and its busbw), so the
# size ramp can be read beside the large-size points, and the same on multi-node
# rail fabrics (ring ceiling = the NICs' effective sum). Runs in about a second.
# Last, arlab's own nvls schedule by the walk against the published NVLS points.
set -u
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
FMT=table
if [ $# -gt 1 ] && [ "$1" = --format ]; then FMT=$2; shift 2; fi
DRIVER=$BUILD/tests/nccl_reference
[ -x "$DRIVER" ] || { echo "bench_nccl_reference.sh: no $DRIVER (build the suite first)" >&2; exit 2; }
PRESETS=("$@")
[ ${#PRESETS[@]} -gt 0 ] || PRESETS=(dgx-a100 aws-p4d dgx-h100 aws-p5 dgx-b200 gb200-nvl72)
"$DRIVER" --format "$FMT" "${PRESETS[@]}" || exit $?
[ "$FMT" = table ] || exit 0
echo
echo "# acceptance: 8xA100 ring, 8xH100 ring and NVLS within +-10 % of the published busbw"
"$DRIVER" --check 10 dgx-a100 aws-p4d dgx-h100 aws-p5 >/dev/null || exit 1
echo
echo "# NCCL's choice per size (all-reduce, reduce-scatter, all-gather), model busbw in GB/s"
"$DRIVER" --sweep "${PRESETS[@]}"
echo
echo "# several nodes on rail fabrics (core/platform/platform_rail.c): the forced ring's busbw tends to the"
echo "# node's effective NIC sum (8 x 24 = 192 GB/s A100/HDR, 8 x 48 = 384 GB/s H100/B200/NDR)"
"$DRIVER" --sweep dgx-a100:nodes=2 dgx-h100:nodes=2 dgx-h100:nodes=16 dgx-b200:nodes=4
if [ -x "$BUILD/arlab" ]; then
  echo
  echo "# arlab's own nvls schedule (NVSwitch reduction, presets' reduce_bw) by the cost walk vs published NVLS busbw"
  printf '%-12s %8s %14s %14s %8s\n' preset size published_GBps walk_busbw err
  for pp in dgx-h100:480 aws-p5:480; do
    pre=${pp%%:*} pub=${pp##*:}
    bus=$("$BUILD/arlab" model --platform "$pre" --algo nvls --size 8GB --format csv 2>/dev/null |
      awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "busbw_GBps") c = i } NR == 2 { print $c }')
    awk -v p="$pre" -v b="$bus" -v q="$pub" 'BEGIN { printf "%-12s %8s %14.1f %14.1f %+7.1f%%\n", p, "8GB", q, b, 100 * (b - q) / q }'
  done
fi
