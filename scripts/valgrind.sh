#!/usr/bin/env bash
# Runs a few end-to-end arlab commands under valgrind memcheck; any error or
# leak fails. Usage: scripts/valgrind.sh [BUILD_DIR] (default build-test).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build-test}/arlab
command -v valgrind >/dev/null || { SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo;
  $SUDO apt-get install -y -qq --no-install-recommends valgrind >/dev/null; }
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible)
run() {
  local rc=0
  "${vg[@]}" "$bin" "$@" >/dev/null 2>"$tmp" || rc=$?
  if [ "$rc" -eq 99 ] || grep -q '==[0-9]*==' "$tmp"; then
    echo "valgrind: FAILED: arlab $*"; cat "$tmp"; status=1
  else
    echo "valgrind: 0 errors, 0 leaks: arlab $* (exit $rc)"
  fi
}
tmp=$(mktemp)
status=0
run model --platform blueconnect-12 --size 100MB --algo all
run plan --platform machines:gpus=2+3+2 --algo two-level --size 1000 --check
run platform show p2.16xlarge --format json
run best --platform blueconnect-12 --size 1MB
run trees --platform p3.16xlarge
if "$bin" sim --help >/dev/null 2>&1; then
  run sim --platform fr-5 --algo flexreduce --size 1000 --check     # the forked SimGrid child runs under memcheck too
fi
run model --platform nosuch                      # an error path
run model --platform blueconnect-12 --size -1   # another
rm -f "$tmp"
exit $status
