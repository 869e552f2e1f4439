#!/usr/bin/env bash
# Installs what arlab needs from Debian's packages, only what is missing.
# Idempotent and quiet when everything is there. Uses sudo when not root.
#   scripts/setup.sh          build and run arlab
#   scripts/setup.sh --test   also what the test suite and CI use: chromium (the report
#                             check), valgrind (memcheck), clang + libFuzzer (fuzzing),
#                             man-db, groff-base and bsdextrautils (col: the man page check)
set -euo pipefail
pkgs=(build-essential cmake pkg-config libcjson-dev libgsl-dev libglpk-dev libsimgrid-dev
      gnuplot-nox fonts-dejavu-core libopenmpi-dev openmpi-bin)
if [ "${1:-}" = "--test" ]; then
  pkgs+=(chromium valgrind clang libclang-rt-14-dev man-db groff-base bsdextrautils)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "arlab setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
