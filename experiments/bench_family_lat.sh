#!/bin/bash
# The `nccl` all-reduce schedule against NCCL's model where the hops are slower than NCCL's tables assume.
#
#   experiments/bench_family_lat.sh [BUILD_DIR]
#   OLD=path/to/old/arlab experiments/bench_family_lat.sh ...   (pairs every row with an old binary)
#
# dgx-h100:nodes=N,lat=L (every link L: a network hop 2 L, NCCL's model adds what it has beyond its 2 us
# reference to each step) for N = 2, 4, 8, L = 2, 5, 20 us, at 64 KB, 1 MB and 16 MB: NCCL's pick, its
# model (nccl_us), the walk (walk_us) and the simulation (sim_us, --sync dataflow), and NCCL's model /
# the simulation (r, > 1: the schedule is faster); with OLD the old binary's walk, simulation and r beside
# them. Last, the median |r - 1| and the rows within 10 % and 20 %. 27 simulations (54 with OLD), a few
# seconds.
set -u
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
A=$BUILD/arlab
[ -x "$A" ] || { echo "bench_family_lat: no arlab binary at $A (build first)" >&2; exit 2; }
OLD=${OLD:-}
if [ -n "$OLD" ] && [ ! -x "$OLD" ]; then echo "bench_family_lat: OLD=$OLD is not an executable" >&2; exit 2; fi

# one row: sim_s model_s nccl_model_s pick, or "- - - -"
row() {
  "$1" sim --platform "$2" --algo nccl --size "$3" --sync dataflow --format csv 2>/dev/null | python3 -c '
import csv, sys
r = next(csv.DictReader(sys.stdin), None)
print(" ".join([r["sim_s"], r["model_s"], r["nccl_model_s"], r["nccl_algo"] + "/" + r["nccl_proto"]]) if r else "- - - -")'
}

for n in 2 4 8; do
  for l in 2us 5us 20us; do
    for sz in 64KB 1MB 16MB; do
      pl="dgx-h100:nodes=$n,lat=$l"
      new=$(row "$A" "$pl" "$sz")
      old=$([ -n "$OLD" ] && row "$OLD" "$pl" "$sz" || echo "- - - -")
      echo "$pl $sz $new $old"
    done
  done
done | python3 -c '
import statistics, sys
def us(x):
    return float(x) * 1e6 if x != "-" else float("nan")
head = "%-26s %5s %-17s %8s %8s %8s %7s" % ("platform", "size", "pick", "nccl_us", "walk_us", "sim_us", "r")
old_any = False
rows = []
for line in sys.stdin:
    pl, sz, s, w, m, pick, os_, ow, om, _ = line.split()
    rows.append((pl, sz, pick, us(m), us(w), us(s), us(ow), us(os_)))
    old_any = old_any or os_ != "-"
print(head + ("  %8s %8s %7s" % ("old_walk", "old_sim", "old_r") if old_any else ""))
rn, ro = [], []
for pl, sz, pick, m, w, s, ow, os_ in rows:
    r = m / s if s == s else float("nan")
    line = "%-26s %5s %-17s %8.1f %8.1f %8.1f %7.3f" % (pl, sz, pick, m, w, s, r)
    if old_any:
        q = m / os_ if os_ == os_ else float("nan")
        line += "  %8.1f %8.1f %7.3f" % (ow, os_, q)
        if q == q:
            ro.append(abs(q - 1))
    if r == r:
        rn.append(abs(r - 1))
    print(line)
def summary(name, v):
    if v:
        print("%s: median |r - 1| %.3f, within 10 %% %d/%d, within 20 %% %d/%d" % (
            name, statistics.median(v), sum(x <= 0.1 for x in v), len(v), sum(x <= 0.2 for x in v), len(v)))
summary("new", rn)
summary("old", ro)'
