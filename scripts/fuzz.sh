#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang and runs each for
# FUZZ_SECONDS (default 60) from its seed corpus in tests/fuzz/seeds/<name>/.
# A crash, leak or sanitizer report fails the run; the input is kept in
# build-fuzz/crashes/ (turn it into a regression test). Prints executions per target.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
need=()
command -v clang >/dev/null || need+=(clang)
dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "install ok installed" || need+=(libclang-rt-14-dev)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DARLAB_FUZZ=ON -DARLAB_SIM=OFF -DARLAB_REAL=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')
cmake --build build-fuzz -j "$(nproc)" --target $targets >/dev/null
mkdir -p build-fuzz/crashes
status=0
for t in $targets; do
  name=${t#fuzz_}
  work=build-fuzz/corpus-$name
  mkdir -p "$work"
  seeds=tests/fuzz/seeds/$name
  log=build-fuzz/$t.log
  if ! ASAN_OPTIONS=detect_leaks=1 build-fuzz/tests/$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/crashes/$name- "$work" "$seeds" >"$log" 2>&1; then
    echo "fuzz $name: FAILED (see $log; input in build-fuzz/crashes/)"
    tail -30 "$log"
    status=1
  fi
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
  [ -n "$execs" ] || execs=$(grep -oE '#[0-9]+' "$log" | tail -1 | tr -d '#')
  echo "fuzz $name: ${secs}s, ${execs:-?} executions, corpus $(ls "$work" | wc -l) inputs"
done
exit $status
