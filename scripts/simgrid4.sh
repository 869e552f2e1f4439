#!/usr/bin/env bash
# Builds SimGrid 4.x from SimGrid's own release (its PyPI source distribution, pinned by version
# and sha256) into a prefix, then builds arlab against it in build-sg4/ and runs the simulator
# tests there. Debian 12 ships SimGrid 3.32 (the default build); this checks the 4.x port.
#
#   scripts/simgrid4.sh [--build-only] [ctest args...]
#
# Env: ARLAB_SG4_PREFIX  where SimGrid goes (default /opt/simgrid-4.1, or ~/.local/simgrid-4.1
#                        when /opt is not writable)
#      ARLAB_CACHE_DIR   where the sdist is kept (default $XDG_CACHE_HOME/arlab or ~/.cache/arlab)
#      ARLAB_SG4_SDIST   a local simgrid-4.1.tar.gz to use instead of downloading it
#      JOBS              parallel jobs (default 2)
# Cached: when the prefix already holds SimGrid 4.1.0 (its version.h and the stamp this script
# writes), nothing is downloaded or built. SimGrid is configured with SMPI, Python, Java, the
# model checker, sthread and LTO off: arlab uses only the s4u API and the C activity sets.
# (SMPI off: `--network IB` and the SMPI comparison need a SimGrid with SMPI.)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

SG_VER=4.1
SG_VER_H=4.1.0 # SIMGRID_VERSION_MAJOR.MINOR.PATCH of that release
SG_SHA256=23ac24cb5b2467f1f051c992ec921b4a9f8f5ac2df16c489bd01bf1c44e6e817
SG_TGZ=simgrid-$SG_VER.tar.gz
# the registry's own file of that release (what `pip download` fetches); pip is the fallback
SG_URL=https://files.pythonhosted.org/packages/b8/32/2dbaab60c222ee33371b82ec73529ab6eaf3a96edcc0b9ea55c8cb427221/$SG_TGZ
jobs=${JOBS:-2}

build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi

if [ -n "${ARLAB_SG4_PREFIX:-}" ]; then
  prefix=$ARLAB_SG4_PREFIX
elif mkdir -p /opt/simgrid-$SG_VER 2>/dev/null && [ -w /opt/simgrid-$SG_VER ]; then
  prefix=/opt/simgrid-$SG_VER
else
  prefix=$HOME/.local/simgrid-$SG_VER
fi
if [ -n "${ARLAB_CACHE_DIR:-}" ]; then
  cache=$ARLAB_CACHE_DIR
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
  cache=$XDG_CACHE_HOME/arlab
else
  cache=$HOME/.cache/arlab
fi
stamp=$prefix/.arlab-simgrid-$SG_SHA256

say() { echo "simgrid4.sh: $*" >&2; }
die() {
  say "$*"
  exit 1
}
sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SG_SHA256" ]; }

installed_version() {
  local h=$prefix/include/simgrid/version.h
  [ -f "$h" ] || return 0
  sed -n 's/^#define SIMGRID_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$h" | paste -sd.
}

fetch_sdist() {
  if [ -n "${ARLAB_SG4_SDIST:-}" ]; then
    sha_ok "$ARLAB_SG4_SDIST" || die "$ARLAB_SG4_SDIST: not SimGrid $SG_VER's sdist (sha256 $SG_SHA256 expected)"
    echo "$ARLAB_SG4_SDIST"
    return
  fi
  local f=$cache/$SG_TGZ
  if sha_ok "$f"; then
    echo "$f"
    return
  fi
  rm -f "$f"
  mkdir -p "$cache"
  local tmp
  tmp=$(mktemp -d "$cache/sg4-pip.XXXXXX")
  say "downloading SimGrid $SG_VER's source distribution"
  if ! curl -fsSL --max-time 120 -o "$tmp/$SG_TGZ" "$SG_URL" &&
    ! python3 -m pip download --quiet --no-deps --no-binary :all: --timeout 30 -d "$tmp" "simgrid==$SG_VER" >&2; then
    rm -rf "$tmp"
    die "could not download $SG_TGZ (curl and pip download failed; offline? set ARLAB_SG4_SDIST to a local $SG_TGZ)"
  fi
  sha_ok "$tmp/$SG_TGZ" || {
    rm -rf "$tmp"
    die "the downloaded $SG_TGZ does not have sha256 $SG_SHA256"
  }
  mv "$tmp/$SG_TGZ" "$f"
  rm -rf "$tmp"
  echo "$f"
}

build_simgrid() {
  local sdist src bld t0
  t0=$(date +%s)
  sdist=$(fetch_sdist)
  src=$(mktemp -d "${TMPDIR:-/tmp}/arlab-sg4.XXXXXX")
  tar xzf "$sdist" -C "$src"
  bld=$src/build
  say "building SimGrid $SG_VER into $prefix (-j$jobs; about 9 CPU minutes)"
  # from inside $src: SimGrid's configure leaves a test_stackgrowth binary in the current directory
  cd "$src"
  nice -n 10 cmake -S "$src/simgrid-$SG_VER" -B "$bld" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -Denable_smpi=OFF -Denable_python=OFF -Denable_java=OFF \
    -Denable_model-checking=OFF -Denable_sthread=OFF -Denable_lto=OFF -Denable_documentation=OFF \
    -Denable_ns3=OFF -Denable_compile_warnings=OFF >"$src/configure.log" 2>&1 ||
    die "SimGrid's configure failed ($src/configure.log)"
  nice -n 10 cmake --build "$bld" -j "$jobs" >"$src/build.log" 2>&1 ||
    die "SimGrid's build failed ($src/build.log)"
  # the library, its headers, simgrid.pc and SimGrid's few tools (88 MB)
  nice -n 10 cmake --install "$bld" >"$src/install.log" 2>&1 ||
    die "SimGrid's install failed ($src/install.log)"
  [ "$(installed_version)" = "$SG_VER_H" ] || die "$prefix holds SimGrid '$(installed_version)' after the install, expected $SG_VER_H"
  touch "$stamp"
  cd "$root"
  rm -rf "$src"
  say "SimGrid $SG_VER installed in $prefix ($(($(date +%s) - t0)) s)"
}

if [ -f "$stamp" ] && [ "$(installed_version)" = "$SG_VER_H" ]; then
  say "SimGrid $SG_VER already in $prefix"
else
  build_simgrid
fi
[ "$build_only" = 1 ] && exit 0

# arlab against it: pkg-config finds simgrid.pc under the prefix (CMAKE_PREFIX_PATH). Its
# answer is cached: a build dir configured against another SimGrid is configured afresh.
dir=build-sg4
cfglog=$(mktemp)
if [ -f "$dir/CMakeCache.txt" ] && ! grep -q "^SIMGRID_PREFIX:INTERNAL=$prefix\$" "$dir/CMakeCache.txt"; then
  rm -f "$dir/CMakeCache.txt"
fi
nice -n 10 cmake -S "$root" -B "$dir" -DARLAB_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$prefix" >"$cfglog" 2>&1 || {
  cat "$cfglog" >&2
  die "arlab's configure against $prefix failed"
}
grep -q "SimGrid backend ON (SimGrid $SG_VER" "$cfglog" || {
  grep "arlab:" "$cfglog" >&2 || true
  die "arlab's configure did not pick SimGrid $SG_VER from $prefix"
}
rm -f "$cfglog"
nice -n 10 cmake --build "$dir" -j "$jobs"
# the simulator tests: tests/sim/sim_*.c and the tests/cli/cli_*.sh that run `arlab sim`
tests=$(
  {
    for f in tests/sim/sim_*.c; do basename "$f" .c; done
    grep -lE '(expect_ok|expect_error|ARLAB|arlab)[^|;]* sim( |$)' tests/cli/cli_*.sh | xargs -n1 basename | sed 's/\.sh$//'
  } | sort -u | paste -sd'|'
)
say "simulator tests on SimGrid $SG_VER: $(echo "$tests" | tr '|' '\n' | wc -l) ($dir, ctest -R)"
cd "$dir" && nice -n 10 ctest --output-on-failure -j "$jobs" -R "^($tests)\$" "$@"
