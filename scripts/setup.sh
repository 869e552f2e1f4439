#!/usr/bin/env bash
# Installs what arlab needs from Debian's packages, only what is missing.
# Idempotent and quiet when everything is there. Uses sudo when not root.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libcjson-dev libgsl-dev libglpk-dev libsimgrid-dev
      gnuplot-nox libopenmpi-dev openmpi-bin)
# Optional extras for the hardening and report tooling (never fatal if absent)
optional=(clang valgrind chromium fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
want_opt=()
if [ "${ARLAB_SETUP_OPTIONAL:-0}" = 1 ]; then
  for p in "${optional[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || want_opt+=("$p")
  done
fi
[ ${#missing[@]} -eq 0 ] && [ ${#want_opt[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "arlab setup: installing ${missing[*]} ${want_opt[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#want_opt[@]} -gt 0 ]; then
  $SUDO apt-get install -y -qq --no-install-recommends "${want_opt[@]}" >/dev/null || \
    echo "arlab setup: optional packages not installed: ${want_opt[*]}" >&2
fi
