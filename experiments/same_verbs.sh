#!/usr/bin/env bash
# Two arlab binaries print the same for the verbs best, compare and
# calibrate (its error paths: the measurement needs GPUs): stdout, stderr and the exit status of
# each command below, byte for byte (only wall-clock figures masked). Used to check that restructuring a
# verb changes nothing it prints.
# Usage: experiments/same_verbs.sh OLD NEW [best|compare|calibrate|sweep|opts]   (default: both); run from the source tree.
set -u
cd "$(dirname "$0")/.."
old=${1:?usage: same_verbs.sh OLD NEW [best|compare|calibrate|sweep|opts]} new=${2:?usage: same_verbs.sh OLD NEW [best|compare|calibrate|sweep|opts]}
which=${3:-all}
logs=experiments/reference/logs
cmds=()
if [ "$which" = all ] || [ "$which" = best ]; then
  cmds+=(
    "best --platform dgx-h100:nodes=8 --size 1MB"
    "best --platform dgx-h100:nodes=8 --size 1MB --format csv"
    "best --platform dgx-h100:nodes=8 --size 1MB --format json"
    "best --platform blueconnect-12 --size 100MB --format csv"
    "best --platform blueconnect-12 --size 100MB"
    "best --platform blueconnect-12 --size 100MB --per-algo"
    "best --platform blueconnect-12 --size 100MB --top 5 --format json"
    "best --platform flat:ranks=4 --size 1MB --coll allgather"
    "best --platform flat:ranks=4 --size 1MB --coll reducescatter --format csv"
    "best --platform dgx-h100:nodes=2 --size 64MB --top=3"
    "best --platform dgx-a100 --size 1GB --dtype bf16"
    "best --platform flat:ranks=8 --size 1MB --scenario scenarios/late-rank.json"
    "best --platform flat:ranks=8 --size 1MB --scenario scenarios/late-rank.json --format csv"
    "best --platform flat:ranks=8 --size 1MB --scenario scenarios/slow-gpu.json --per-algo"
    "best --platform flat:ranks=8 --size 1MB --scenario scenarios/background-flow.json --format json"
    "best --platform blueconnect-12 --size 10MB --scenario scenarios/fr10-slow-m1.json"
    "best --platform flat:ranks=64 --size 1MB --top 4"
    "best --platform dgx-h100 --size 1MB --top 0"
    "best --platform dgx-h100 --size 1MB --top"
    "best --platform dgx-h100 --size 1MB --size 2MB"
    "best --platform nosuch --size 1MB"
    "best --platform dgx-h100 --size 1parsec"
    "best --platform dgx-h100"
    "best --platform dgx-h100 --size 1MB --scenario scenarios/nosuch.json"
    "best --platform dgx-h100 --size 1MB --bogus"
  )
fi
if [ "$which" = all ] || [ "$which" = compare ]; then
  while IFS=$'\t' read -r file _coll _ranks _nodes _rows opts plat _fit _cal _nccl; do
    case "$file" in '#'* | '') continue ;; esac
    [ "$plat" = - ] && continue
    [ "$opts" = - ] && opts=""
    cmds+=("compare --measured $logs/$file --platform $plat $opts"
           "compare --measured $logs/$file --platform $plat $opts --format csv")
  done <"$logs/MANIFEST.tsv"
  first=$(awk -F'\t' '!/^#/ && $7 != "-" {print $1" "$7; exit}' "$logs/MANIFEST.tsv")
  set -- $first
  cmds+=(
    "compare --measured $logs/$1 --platform $2 --format json"
    "compare --measured $logs/$1 --platform $2 --coll allgather"
    "compare --measured $logs/$1 --platform $2 --algo ring"
    "compare --measured $logs/$1 --platform $2 --nccl-algo RING --nccl-proto LL128 --format csv"
    "compare --measured $logs/$1"
    "compare --measured /nonexistent.txt --platform dgx-h100"
    "compare --platform dgx-h100"
    "compare --measured $logs/$1 --platform nosuch"
  )
fi
if [ "$which" = all ] || [ "$which" = calibrate ]; then
  cmds+=(
    "calibrate --out /nonexistent/cal.json --fit bogus"
    "calibrate --size 1MB,2MB"
    "calibrate --out /nonexistent/cal.json --size 1MB"
    "calibrate --out /nonexistent/cal.json --size 1parsec,2MB"
    "calibrate --out /nonexistent/cal.json --size 1MB,2MB --fit abs"
    "calibrate --out /nonexistent/cal.json --size 1MB,2MB --format csv"
  )
fi
if [ "$which" = all ] || [ "$which" = sweep ]; then
  # a small grid (model backend), run into a fresh --out for each binary
  printf '%s\n' '{"name": "sv", "backend": "model", "platforms": ["flat:ranks=4", "dgx-h100"],' \
    '"algos": ["ring", "halving-doubling", "nvls"], "sizes": ["1MB", "16MB"]}' >"${TMPDIR:-/tmp}/same_verbs_sv.json"
  sv="${TMPDIR:-/tmp}/same_verbs_sv.json" svout="${TMPDIR:-/tmp}/same_verbs_out"
  cmds+=(
    "sweep $sv --out $svout"
    "sweep $sv --out $svout --quiet -j 2"
    "sweep $sv --out $svout --jobs=2"
    "sweep $sv --out $svout -j"
    "sweep $sv --out $svout -j0"
    "sweep -h"
    "sweep"
    "sweep /nonexistent.json"
  )
fi
# wall clock: "N s of wall time", and a sweep's progress lines (their rates, elapsed time, ETA and
# how many of them are drawn depend on timing)
if [ "$which" = all ] || [ "$which" = opts ]; then # the common options' parser (cli/opts.c)
  cmds+=(
    "model --platform flat:ranks=4 --algo ring,halving-doubling --size 1MB,16MB --format csv"
    "model --platform=flat:ranks=4 --algo=ring --size=1MB --dtype bf16 --coll allgather"
    "model --platform flat:ranks=4 --algo ring -b 8 -e 1MB -f 4 --format json"
    "model --platform flat:ranks=4 --algo ring --size 1MB, --format csv"
    "model --platform flat:ranks=4 --algo ring --size 1MB --dtype f99"
    "model --platform flat:ranks=4 --algo ring --size 1MB --format xml"
    "model --platform flat:ranks=4 --algo ring --size 1MB --coll nosuch"
    "model --platform flat:ranks=4 --algo ring --size 1MB --nccl-version 9.9"
    "model --platform flat:ranks=4 --algo ring --size 1MB --ranks 0"
    "model --platform flat:ranks=4 --algo ring --size 1MB --ranks=8"
    "model --platform flat:ranks=4 --algo ring --size 1MB --platfrom x"
    "model --platform flat:ranks=4 --algo ring --size 1MB --iters 3"
    "model --platform flat:ranks=4 --algo ring --size 1MB --format="
    "model --platform flat:ranks=4 --algo ring --size"
    "model --platform flat:ranks=4 --algo ring --size 1MB stray"
    "sim --platform flat:ranks=4 --algo ring --size 1MB --gamma 2"
    "sim --platform flat:ranks=4 --algo ring --size 1MB --gamma -1"
    "sim --platform flat:ranks=4 --algo ring --size 1MB --budget forever"
    "sim --platform flat:ranks=4 --schedule a,b.json --size 1MB"
    "sim --platform flat:ranks=4 --algo ring --size 1MB --check=1"
    "real --dry-run --platform flat:ranks=4 --algo ring --size 1MB --iters 0"
    "real --dry-run --platform flat:ranks=4 --algo ring --size 1MB --warmup -1"
  )
fi
mask() { sed -E -e 's/[0-9.]+ ?(s|ms) (of )?wall( time| clock)?/<wall>/g' -e '/^[^ ]+: [0-9]+\/[0-9]+ points \(/d'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0
for c in "${cmds[@]}"; do
  rm -rf "${svout:-/nonexistent}"
  # shellcheck disable=SC2086
  "$old" $c >"$tmp/o.out" 2>"$tmp/o.err"
  echo "rc=$?" >>"$tmp/o.err"
  rm -rf "${svout:-/nonexistent}"
  # shellcheck disable=SC2086
  "$new" $c >"$tmp/n.out" 2>"$tmp/n.err"
  echo "rc=$?" >>"$tmp/n.err"
  if cmp -s <(mask <"$tmp/o.out") <(mask <"$tmp/n.out") && cmp -s <(mask <"$tmp/o.err") <(mask <"$tmp/n.err"); then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "DIFFERS: arlab $c"
    diff <(mask <"$tmp/o.out"; mask <"$tmp/o.err") <(mask <"$tmp/n.out"; mask <"$tmp/n.err") | head -10
  fi
done
echo "same_verbs: $same commands print the same, $differ differ ($which)"
[ "$differ" = 0 ]
