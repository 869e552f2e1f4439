#!/bin/bash
# Per-message costs (LogGP o and g, the platform's compute.message) through the command line:
# the presets' values, o=/g= on a rail fabric, the JSON description, one-line errors, the walk of a
# two-node ring by hand, --sync round taking them off, and best naming the cost term.
. "$ARLAB_SRC/tests/lib_cli.sh"
. "$ARLAB_SRC/tests/lib_csv.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < t) }'; }

# the presets: InfiniBand o = 3.44 us, EFA 12.1 us, between nodes; a paper's preset has none
expect_ok "show dgx-h100:nodes=2" -- platform show dgx-h100:nodes=2
t_check "dgx-h100:nodes=2: o 3.44 us, g 1.72 us between machines" \
  grep -q "per-message costs (LogGP): o 3.44 us at each end, g 1.72 us between one endpoint's messages (transfers between machines)" "$T_TMP/out"
expect_ok "show aws-p5:nodes=2" -- platform show aws-p5:nodes=2
t_check "aws-p5:nodes=2: o 12.1 us" grep -q "o 12.1 us" "$T_TMP/out"
expect_ok "show blueconnect-12" -- platform show blueconnect-12
t_check "a paper's preset has no per-message cost" bash -c "! grep -q 'per-message' '$T_TMP/out'"
expect_ok "show dgx-h100:nodes=2,o=0,g=0" -- platform show dgx-h100:nodes=2,o=0,g=0
t_check "o=0,g=0: none" bash -c "! grep -q 'per-message' '$T_TMP/out'"

# the JSON description carries them
expect_ok "json of dgx-h100:nodes=2,o=3us,g=4us" -- platform show dgx-h100:nodes=2,o=3us,g=4us --format json
cp "$T_TMP/out" "$T_TMP/p.json"
t_check "json: compute.message" python3 -c "
import json, sys
m = json.load(open('$T_TMP/p.json'))['compute']['message']
sys.exit(not (abs(m['o'] - 3e-6) < 1e-18 and abs(m['g'] - 4e-6) < 1e-18 and m['transfers'] == 'inter-machine'))"

# errors: one line naming the key
expect_error "o out of range" "a per-message cost must be in [0, 1 s)" -- platform show dgx-h100:nodes=2,o=2s
expect_error "o not a time" "dgx-h100:nodes=2,o=fast: o" -- platform show dgx-h100:nodes=2,o=fast
printf '{"name":"x","kind":"tree","levels":[{"fanout":4,"bw":"10GBps","lat":"1us"}],"compute":{"message":{"o":"1us","gap":"1us"}}}\n' >"$T_TMP/bad1.json"
expect_error "unknown key in compute.message" 'compute.message: unknown key "gap"' -- platform show "$T_TMP/bad1.json"
printf '{"name":"x","kind":"tree","levels":[{"fanout":4,"bw":"10GBps","lat":"1us"}],"compute":{"message":{"o":-1}}}\n' >"$T_TMP/bad2.json"
expect_error "a negative o" "compute.message.o: a time must not be negative" -- platform show "$T_TMP/bad2.json"
printf '{"name":"x","kind":"tree","levels":[{"fanout":4,"bw":"10GBps","lat":"1us"}],"compute":{"message":{"o":"1us","transfers":"some"}}}\n' >"$T_TMP/bad3.json"
expect_error "bad transfers" 'must be "inter-machine" or "all"' -- platform show "$T_TMP/bad3.json"

# by hand: rail:nodes=2,gpus=1 (two GPUs, one NIC link each to the rail switch: alpha = 2 us,
# 10 GB/s), o = 1 us, g = 0.5 us, 1 MB: a ring of 2 is 2 steps of o + alpha + 500 KB / 10 GB/s + o
# = 2 x 54 us = 108 us (alpha-beta: 104 us); walk = closed form = simulation
want=$(awk 'BEGIN { printf "%.17g", 2 * (1e-6 + 2e-6 + 500e3 / 10e9 + 1e-6) }')
if expect_ok "sim ring on rail:nodes=2,gpus=1 with o and g" -- sim --platform rail:nodes=2,gpus=1,nic=10GBps,o=1us,g=0.5us \
     --algo ring --size 1MB --format csv; then
  read -r sim model closed < <(csv_col "$T_TMP/out" sim_s model_s closed_s | tr '\t' ' ')
  t_check "ring: sim $sim = $want (1e-9)" close "$sim" "$want" 1e-9
  t_check "ring: model $model = $want (1e-9)" close "$model" "$want" 1e-9
  t_check "ring: closed form $closed = $want (1e-9)" close "$closed" "$want" 1e-9
fi
# --sync round prices them too (the fast engine's lockstep rounds: one message per side per step)
"$ARLAB" sim --platform rail:nodes=2,gpus=1,nic=10GBps,o=1us,g=0.5us --algo ring --size 1MB --sync round --format csv \
  >"$T_TMP/out" 2>"$T_TMP/err"
t_check "--sync round: exit 0" test $? -eq 0
t_check "--sync round: nothing on stderr" test ! -s "$T_TMP/err"
read -r sim model < <(csv_col "$T_TMP/out" sim_s model_s | tr '\t' ' ')
t_check "--sync round: ring $sim = $want (1e-9)" close "$sim" "$want" 1e-9
t_check "--sync round: model $model = $want (1e-9)" close "$model" "$want" 1e-9
expect_error "--sync round, naive engine" "simulated by the naive engine under --sync dataflow only" -- \
  sim --platform rail:nodes=2,gpus=1,nic=10GBps,o=1us,g=0.5us --algo ring --size 1MB --sync round --engine naive

# best names the cost term where a schedule beats NCCL's choice by more than 20 %
expect_ok "best on dgx-h100:nodes=8 at 1 MB" -- best --platform dgx-h100:nodes=8 --size 1MB --top 3
t_check "best: why faster than NCCL's choice" grep -q "^why faster than NCCL's" "$T_TMP/out"
t_check "best: the per-message costs in its time" grep -q "their per-message costs (o 3.44 us, g 1.72 us) are in its time" "$T_TMP/out"
# ... and splits both times into a latency and a transfer term (NCCL's latency: its model's per-call term,
# ar_nccl_table_terms, checked by hand in test_nccl_model): each split adds up to its printed time (3
# significant digits), and the term it names is the larger part of the difference
t_check "best: the two splits add up, the latency term named" python3 - "$T_TMP/out" <<'PY'
import re, sys
line = next(l for l in open(sys.argv[1]) if l.startswith("why faster than NCCL's"))
m = re.search(r"\(([\d.]+) us vs ([\d.]+) us\): NCCL's time is ([\d.]+) us of latency .*? and ([\d.]+) us of "
              r"transfers, this schedule's ([\d.]+) us of latency .*? and ([\d.]+) us of transfers: most of the "
              r"([\d.]+) us is NCCL's (latency|bandwidth) term \(([\d.]+) us\)", line)
assert m, line
own, nccl, nl, nx, ol, ox, diff, term, d = m.groups()
own, nccl, nl, nx, ol, ox, diff, d = map(float, (own, nccl, nl, nx, ol, ox, diff, d))
ok = abs(nl + nx - nccl) <= 0.002 * nccl and abs(ol + ox - own) <= 0.002 * own and abs(nccl - own - diff) <= 0.002 * nccl
ok = ok and term == "latency" and abs((nl - ol) - d) <= 0.002 * nccl and d > (nx - ox)
sys.exit(0 if ok else 1)
PY

# NCCL's protocols: a round costs NCCL's per-step latency, which holds its per-message costs, so an op with a
# protocol (the nccl row: TREE/LL at 8 B) is priced on the network alone, in the walk and the simulation;
# an algorithm without one (ring) pays o and g
for v in ",o=0,g=0" ""; do
  expect_ok "sim nccl, ring on dgx-h100:nodes=2$v" -- sim --platform "dgx-h100:nodes=2$v" --algo nccl,ring --size 8B --format csv
  csv_col "$T_TMP/out" algo sim_s model_s | tr '\t' ' ' >"$T_TMP/rows$v"
done
read -r _ s0 m0 < <(grep '^nccl ' "$T_TMP/rows,o=0,g=0")
read -r _ s1 m1 < <(grep '^nccl ' "$T_TMP/rows")
t_check "nccl (TREE/LL): the walk without o, g ($m1 = $m0)" close "$m1" "$m0" 1e-12
t_check "nccl (TREE/LL): the simulation without o, g ($s1 = $s0)" close "$s1" "$s0" 1e-12
read -r _ r0 _ < <(grep '^ring ' "$T_TMP/rows,o=0,g=0")
read -r _ r1 _ < <(grep '^ring ' "$T_TMP/rows")
t_check "ring pays o, g between nodes ($r1 > $r0 + 2 us)" python3 -c "import sys; sys.exit(not $r1 > $r0 + 2e-6)"
t_done
