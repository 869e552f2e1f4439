#!/usr/bin/env bash
# NCCL's rings as arlab schedules against NCCL's own model: for every collective, preset and node
# count, the simulated time of nccl-ring and of nccl (NCCL's pick, planned), their ratio to NCCL's
# model (nccl_model_s; 1 = equal, > 1: the schedule is slower) and the busbw of each.
# Usage: experiments/bench_nccl_rings.sh [ARLAB] [OLD_ARLAB]   (OLD_ARLAB: a second binary, e.g. an
# older build, whose nccl row is printed beside, for a before/after).
# Goal (issue of NCCL's multi-node algorithms): within 10 % of NCCL's model at >= 64 MB.
set -u
A=${1:-build-test/arlab}
OLD=${2:-}
SIZES=${SIZES:-"64MB 1GB 8GB"}
PRESETS=${PRESETS:-"dgx-h100 dgx-h100:nodes=2 dgx-h100:nodes=4 dgx-h100:nodes=8 dgx-h100:nodes=16 dgx-b200:nodes=2 dgx-b200:nodes=4 dgx-a100:nodes=2"}
COLLS=${COLLS:-"allgather reducescatter allreduce"}
row() { # binary algo platform coll size -> "sim_s busbw nccl_model_s"
  "$1" sim --platform "$3" --coll "$4" --size "$5" --algo "$2" --format csv 2>/dev/null |
    python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))
if not r or r[0]["status"] != "ok": print("- - -"); sys.exit()
print(r[0]["sim_s"], r[0]["busbw_GBps"], r[0]["nccl_model_s"])'
}
printf '%-18s %-13s %5s %10s %8s %8s %7s %8s %7s' platform coll size nccl_model nm_busbw ring_bw ring/nm nccl_bw nccl/nm
[ -n "$OLD" ] && printf ' %9s %8s' old_nccl old/nm
printf '\n'
for P in $PRESETS; do
  for C in $COLLS; do
    for S in $SIZES; do
      read -r rs rb nm < <(row "$A" nccl-ring "$P" "$C" "$S")
      read -r ns nb _ < <(row "$A" nccl "$P" "$C" "$S")
      line=$(python3 -c "
import sys
rs, rb, nm, ns, nb = sys.argv[1:6]
f = lambda x: float(x) if x != '-' else float('nan')
nm_bw = f(rb) * f(rs) / f(nm) if nm != '-' else float('nan')
print('%10.4g %8.1f %8.1f %7.3f %8.1f %7.3f' % (f(nm), nm_bw, f(rb), f(rs) / f(nm), f(nb), f(ns) / f(nm)))
" "$rs" "$rb" "$nm" "$ns" "$nb")
      printf '%-18s %-13s %5s %s' "$P" "$C" "$S" "$line"
      if [ -n "$OLD" ]; then
        read -r os ob _ < <(row "$OLD" nccl "$P" "$C" "$S")
        python3 -c "
import sys
os_, ob, nm = sys.argv[1:4]
f = lambda x: float(x) if x != '-' else float('nan')
print(' %9.1f %8.3f' % (f(ob), f(os_) / f(nm)), end='')" "$os" "$ob" "$nm"
      fi
      printf '\n'
    done
  done
done
