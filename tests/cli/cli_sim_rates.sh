#!/usr/bin/env bash
# More distinct protocol rate bounds than the bridge's pool of 32 cap links (sim/README.md: rate bounds).
#
# A user-written schedule on dgx-h100:nodes=2,o=0,g=0 (16 ranks): phase "ll 1" then, per protocol (LL,
# LL128), phases of c ring all-reduce ops (c = 2..40 for LL, 1..40 for LL128), every op on its own
# slice of 1024 elements. NCCL's per-channel cap of a phase depends on its channel count c, so the
# phases ask for more than 32 distinct rates (the bound of every flow of a phase: a protocol's cap).
# - Where `arlab --version` says the bound is per flow (SimGrid 3.32 with its internal headers), the
#   fast engine runs the whole schedule, and under --sync round (a barrier between phases, so phase
#   times add up) its time equals the sum of three parts that each fit the pool (every part starts
#   with the same "ll 1" phase, which pays NCCL's base latency once a schedule: whole = A + B + C -
#   2 x the "ll 1" phase alone), to 1e-9: no flow ran unbounded. And SimGrid's bmf solver runs a
#   bounded schedule (no pool link in its routes) to fairbottleneck's time.
# - Where it says "pool link", the fast engine stops with one line.
#   The naive engine's mailbox comms are bounded per flow there too (the send or receive whose start
#   matches the comm bounds it): it runs the whole schedule to the fast engine's time, to 1e-9.
# - Where it says "pool link", the naive engine's mailbox comms take the pool too: it stops with
#   one line, before it runs a flow unbounded.
# Skipped (77) without the SimGrid backend.
. "$(dirname "$0")/../lib_cli.sh"
"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: skipped"
  exit 77
fi
PLAT=dgx-h100:nodes=2,o=0,g=0

# gen FILE "PHASE...": PHASE is PROTO:C (C ring all-reduce ops of 64 elements a rank, their members the
# ring 0..7 8..15 rotated by the op's index inside each node); prints the schedule's element count
gen() {
  local f=$1
  shift
  awk -v spec="$*" 'BEGIN {
    n = split(spec, ph, " "); off = 0
    printf "{\"algo\":\"rates\",\"detail\":\"\",\"collective\":\"allreduce\",\"ranks\":16,\"elem_bytes\":4,\"phases\":["
    for (k = 1; k <= n; k++) {
      split(ph[k], pc, ":")
      printf "%s{\"label\":\"%s %d\",\"ops\":[", (k > 1 ? "," : ""), pc[1], pc[2]
      for (i = 0; i < pc[2]; i++) {
        printf "%s{\"kind\":\"all-reduce\",\"impl\":\"ring\",\"offset\":%d,\"count\":1024,\"chunks\":1,\"proto\":\"%s\",\"members\":[", (i ? "," : ""), off, pc[1]
        for (r = 0; r < 16; r++) printf "%s%d", (r ? "," : ""), (r + i) % 8 + 8 * int(r / 8)
        printf "]}"
        off += 1024
      }
      printf "]}"
    }
    printf "],\"count\":%d}\n", off
    print off > "/dev/stderr"
  }' >"$f" 2>"$f.count"
  cat "$f.count"
}
seq_ph() { local p=$1 a=$2 b=$3 c; for ((c = a; c <= b; c++)); do printf '%s:%d ' "$p" "$c"; done; }

nW=$(gen "$T_TMP/whole.json" "ll:1 $(seq_ph ll 2 40) $(seq_ph ll128 1 40)")
nA=$(gen "$T_TMP/a.json" "ll:1 $(seq_ph ll 2 30)")
nB=$(gen "$T_TMP/b.json" "ll:1 $(seq_ph ll 31 40) $(seq_ph ll128 1 20)")
nC=$(gen "$T_TMP/c.json" "ll:1 $(seq_ph ll128 21 40)")
n0=$(gen "$T_TMP/p0.json" ll:1)

# sim_s of schedule file $1 of $2 elements, lockstep, fast engine ("" when it fails)
sim_t() {
  "$ARLAB" sim --platform $PLAT --schedule "$1" --size "$2" --sync round --format csv >"$T_TMP/s.csv" 2>"$T_TMP/s.err" &&
    csv_col "$T_TMP/s.csv" sim_s | head -1
}

"$ARLAB" --version >"$T_TMP/ver" 2>&1
if grep -q "rate bound per flow" "$T_TMP/ver"; then
  tW=$(sim_t "$T_TMP/whole.json" "$nW")
  t_check "fast engine runs 80 phases' bounds: $(head -c 300 "$T_TMP/s.err")" test -n "$tW"
  tA=$(sim_t "$T_TMP/a.json" "$nA")
  tB=$(sim_t "$T_TMP/b.json" "$nB")
  tC=$(sim_t "$T_TMP/c.json" "$nC")
  t0=$(sim_t "$T_TMP/p0.json" "$n0")
  echo "whole $tW; parts $tA $tB $tC; ll 1 alone $t0"
  t_check "whole $tW = A + B + C - 2 x (ll 1) to 1e-9" awk -v w="$tW" -v a="$tA" -v b="$tB" -v c="$tC" -v z="$t0" \
    'BEGIN { if (w == "" || a == "" || b == "" || c == "" || z == "" || !(w > 0)) exit 1; s = a + b + c - 2 * z
             d = (w - s) / w; if (d < 0) d = -d; exit !(d < 1e-9) }'
  # the parts' own sum of times is not the whole's: the check above is not one that holds anyway
  t_check "the parts differ from one another" awk -v a="$tA" -v b="$tB" -v c="$tC" 'BEGIN { exit !(a != b && b != c) }'
  # SimGrid's bmf solver with bounded flows: no pool link in the routes (it found no allocation with
  # one); the same time as fairbottleneck, which pays SimGrid's latency too
  for solver in bmf fairbottleneck; do
    if expect_ok "nccl LL128 on $solver" -- sim --platform dgx-h100:nodes=2 --algo nccl --coll allgather --size 1MiB \
         --network "CM02,network/solver:$solver" --format csv; then
      csv_col "$T_TMP/out" sim_s | head -1 >"$T_TMP/$solver"
    fi
  done
  t_check "bmf $(cat "$T_TMP/bmf" 2>/dev/null) = fairbottleneck $(cat "$T_TMP/fairbottleneck" 2>/dev/null) to 1e-9" \
    awk -v a="$(cat "$T_TMP/bmf" 2>/dev/null)" -v b="$(cat "$T_TMP/fairbottleneck" 2>/dev/null)" \
    'BEGIN { if (a == "" || !(b > 0)) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }'
  # the naive engine's mailbox comms are bounded per flow too: the whole schedule, to the fast engine's time
  if expect_ok "naive engine runs 80 phases' bounds" -- sim --platform $PLAT --schedule "$T_TMP/whole.json" \
       --size "$nW" --engine naive --sync round --format csv; then
    tn=$(csv_col "$T_TMP/out" sim_s | head -1)
    t_check "naive whole $tn = fast whole $tW to 1e-9" awk -v a="$tn" -v b="$tW" \
      'BEGIN { if (a == "" || !(b > 0)) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }'
  fi
else
  t_check "this build bounds through the pool: $(tail -1 "$T_TMP/ver")" grep -q "rate bound pool link" "$T_TMP/ver"
  expect_error "fast engine past the pool" "more distinct protocol rate bounds" -- \
    sim --platform $PLAT --schedule "$T_TMP/whole.json" --size "$nW" --sync round --format csv
  expect_error "naive engine past the pool" "more distinct protocol rate bounds" -- \
    sim --platform $PLAT --schedule "$T_TMP/whole.json" --size "$nW" --engine naive --format csv
fi
# a part that fits the pool runs on the naive engine, to the fast engine's time
if expect_ok "naive engine within the pool" -- sim --platform $PLAT --schedule "$T_TMP/c.json" --size "$nC" \
     --engine naive --sync round --format csv; then
  tn=$(csv_col "$T_TMP/out" sim_s | head -1)
  tf=$(sim_t "$T_TMP/c.json" "$nC")
  t_check "naive $tn = fast $tf to 1e-9" awk -v a="$tn" -v b="$tf" \
    'BEGIN { if (a == "" || !(b > 0)) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }'
fi
# Under network/weight-S every build bounds through the pool (CM02 adds weight-S / bandwidth of the pool
# link to a flow's penalty). The naive engine's fairbottleneck solver (which ignores penalties) takes from
# a FATPIPE link only the smallest increment of its flows, so the pool alone let nvlstree:proto=auto's
# NVSwitch stages past NCCL's bound beside the trees on dgx-h100:nodes=2 at 16 MiB (209.1 us); with
# Comm::set_rate's bound kept (TCP-gamma) it runs to the walk's 215.979 us (tests/sim/sim_proto_rate.c
# derives the switch steps by hand), to 1e-9.
if expect_ok "naive engine under weight-S" -- sim --platform dgx-h100:nodes=2 --algo nvlstree:proto=auto \
     --size 16MiB --engine naive --network CM02,network/weight-S:8775 --format csv; then
  tn=$(csv_col "$T_TMP/out" sim_s | head -1)
  tm=$(csv_col "$T_TMP/out" model_s | head -1)
  t_check "naive under weight-S $tn = walk $tm to 1e-9" awk -v a="$tn" -v b="$tm" \
    'BEGIN { if (a == "" || !(b > 0)) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }'
fi
t_done
