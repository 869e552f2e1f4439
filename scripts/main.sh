#!/usr/bin/env bash
# Sets everything up and runs arlab's main job on the built-in presets:
# the model comparison of every algorithm on the BlueConnect 12- and 192-GPU clusters.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
build/arlab model --platform blueconnect-12 --platform blueconnect-192 --size 100MB --algo all "$@"
