#!/usr/bin/env bash
# Makes every figure of the papers that arlab reproduces, in one command:
# runs each sweep experiments/NAME.json (arlab sweep), plots it with
# plots/NAME.gp (PNG and PDF under OUT/fig/), then builds OUT/report.html and
# OUT/report.md (arlab report).
#
# usage: experiments/make_figures.sh [--out DIR] [-j N] [--fresh] [--publish] [NAME...]
#   --out DIR   results directory (default: out, which git ignores)
#   -j N        processes per sweep (default: 2)
#   --fresh     delete earlier results of these sweeps first (otherwise a re-run
#               resumes: points already in DIR/NAME.csv are not run again)
#   --publish   copy the PNGs to experiments/figures/ (the images the README and docs/ show)
#   NAME...     only these sweeps (default: every experiments/*.json)
# Env: ARLAB = the arlab binary (default: build/arlab, built if missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=out
jobs=2
fresh=0
publish=0
names=()
while [ $# -gt 0 ]; do
    case "$1" in
    --out) out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --fresh) fresh=1; shift ;;
    --publish) publish=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "make_figures.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
    esac
done
ARLAB=${ARLAB:-$root/build/arlab}
if [ ! -x "$ARLAB" ]; then
    echo "make_figures.sh: building arlab in $root/build" >&2
    cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$root/build" -j "$(nproc)" --target arlab >/dev/null
fi
if [ ${#names[@]} -eq 0 ]; then
    for f in "$root"/experiments/*.json; do names+=("$(basename "$f" .json)"); done
fi
mkdir -p "$out/fig"
status=0
for name in "${names[@]}"; do
    sweep="$root/experiments/$name.json"
    [ -f "$sweep" ] || { echo "make_figures.sh: no sweep $sweep" >&2; exit 2; }
    [ "$fresh" = 1 ] && rm -f "$out/$name.csv" "$out/$name.json"
    # exit status 1 = some rows have errors (they are in the CSV); keep going
    "$ARLAB" sweep "$sweep" --out "$out" -j "$jobs" || { rc=$?; [ $rc -eq 1 ] || exit $rc; status=1; }
done
if command -v gnuplot >/dev/null; then
    for name in "${names[@]}"; do
        gp="$root/plots/$name.gp"
        [ -f "$gp" ] || continue
        GNUPLOT_LIB="$root/plots" gnuplot -e "data='$out/$name.csv'; out='$out/fig/$name'" "$gp"
        echo "figure: $out/fig/$name.svg (embedded in the report), .png, .pdf" >&2
        if [ "$publish" = 1 ]; then
            mkdir -p "$root/experiments/figures"
            cp "$out/fig/$name.png" "$root/experiments/figures/$name.png"
        fi
    done
else
    echo "make_figures.sh: gnuplot not found (apt-get install gnuplot-nox): no figures" >&2
fi
# the reference corpus: published nccl-tests figures beside the presets' predictions
"$ARLAB" fit --reference "$root/experiments/reference/published.csv" --csv >"$out/reference.csv" ||
    { echo "make_figures.sh: arlab fit --reference failed" >&2; rm -f "$out/reference.csv"; status=1; }
"$ARLAB" report "$out"
exit $status
