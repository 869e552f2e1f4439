#!/usr/bin/env bash
# Sets everything up, builds with warnings as errors and runs the whole test suite.
# ARLAB_SANITIZE=1 builds and runs it under AddressSanitizer + UBSan (build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
dir=build-test
flags=(-DARLAB_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${ARLAB_SANITIZE:-0}" = 1 ]; then
  dir=build-asan
  flags+=(-DARLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
cd "$dir" && ctest --output-on-failure -j "$(nproc)" "$@"
