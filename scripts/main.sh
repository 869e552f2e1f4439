#!/usr/bin/env bash
# Sets everything up and runs arlab's main job on the built-in presets: the model of every
# algorithm on the BlueConnect paper's 12- and 192-GPU clusters beside today's hardware (one
# 8 x H100 node and four of them on a rail-optimised fabric), then the flow-level simulation
# of every algorithm on today's hardware beside the model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
build/arlab model --platform blueconnect-12 --platform blueconnect-192 --platform dgx-h100 \
  --platform dgx-h100:nodes=4 --size 100MB --algo all "$@"
echo
echo "== simulated (SimGrid, flow-level) beside the model, 100 MB =="
build/arlab sim --platform dgx-h100 --platform dgx-h100:nodes=4 --size 100MB --algo all --brief "$@"
