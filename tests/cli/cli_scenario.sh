#!/usr/bin/env bash
# --scenario FILE.json on model, sim and best (scenarios/README.md): every output names
# the scenario, sim runs delays and flows under dataflow, model adds the delay and says flows are
# not in the walk, best ranks by simulation under delays; refusals in one line.
# Ring on flat:ranks=4, 100 MB: T0 = 6 (2 us + 25 MB / 12.5 GB/s) = 0.012012 s (tests/sim/sim_scenario.c).
. "$(dirname "$0")/../lib_cli.sh"
. "$(dirname "$0")/../lib_csv.sh"
S=$ARLAB_SRC/scenarios
near() { python3 -c "import sys; g,w=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(g-w)<=1e-9*w else 1)" "$1" "$2"; }
# vary_sweep DESC NAME SPEC SCENARIO VARY SIZE WANT [EXTRA]: the ring swept on SPEC with SCENARIO (in $T_TMP) over
# the axis VARY (JSON members), sim and model: 6 rows; each row's time_s within 1e-9 of WANT (JSON: the platform's
# last "=VALUE" -> seconds), and the Python expression EXTRA over the row r and its value v true
vary_sweep() {
  printf '{"name": "%s", "backend": ["sim", "model"],\n "platforms": [{"spec": "%s", "scenario": "%s", "vary": {%s}}],\n "algos": ["ring"], "sizes": ["%s"]}\n' \
    "$2" "$3" "$4" "$5" "$6" >"$T_TMP/$2.json"
  expect_ok "$1: runs" -- sweep "$T_TMP/$2.json" --out "$T_TMP/$2" --quiet || return
  t_check "$1: 6 rows, each at its time" python3 - "$T_TMP/$2/$2.csv" "$7" "${8:-True}" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = json.loads(sys.argv[2])
ok = len(rows) == 6
for r in rows:
    v = r["platform"].rsplit("=", 1)[-1]
    ok = ok and v in want and abs(float(r["time_s"]) - want[v]) <= 1e-9 * want[v] and eval(sys.argv[3], {}, {"r": r, "v": v})
sys.exit(0 if ok else 1)
PY
  return 0
}

if expect_ok "sim late rank" -- sim --platform flat:ranks=4 --algo ring --size 100MB --scenario "$S/late-rank.json" --format csv; then
  read -r t m sy sc < <(csv_col "$T_TMP/out" sim_s model_s sync scenario)
  t_check "sim: T0 + 1 ms = 0.013012 (got $t)" near "$t" 0.013012
  t_check "sim: model_s adds the delay (got $m)" near "$m" 0.013012
  t_check "sim: ran under dataflow ($sy)" test "$sy" = dataflow
  t_check "sim: scenario column ($sc)" test "$sc" = late-rank-2
fi
if expect_ok "sim flow" -- sim --platform flat:ranks=4 --algo ring --size 100MB --scenario "$S/background-flow.json"; then
  t_check "sim table names the scenario" grep -q "^scenario: bg-0-1-quarter" "$T_TMP/out"
  t_check "sim table: 16.012 ms (bandwidth term x 4/3)" grep -q "sim 16.0 ms" "$T_TMP/out"
fi
if expect_ok "model flow" -- model --platform flat:ranks=4 --algo ring --size 100MB --scenario "$S/background-flow.json" --format csv; then
  read -r m why sc < <(csv_col "$T_TMP/out" model_s why scenario | tr '\t' '|' | awk -F'|' '{print $1, ($2 ~ /not in the walk/ ? "noted" : "missing"), $3}')
  t_check "model: flows not in the walk (0.012012, got $m)" near "$m" 0.012012
  t_check "model: the note says flows are not in the walk" test "$why" = noted
  t_check "model: scenario column" test "$sc" = bg-0-1-quarter
fi
if expect_ok "sim failed NVLink" -- sim --platform p3.8xlarge --algo ring --size 100MB --scenario "$S/p3-nvlink-down.json" --format csv; then
  read -r t b < <(csv_col "$T_TMP/out" sim_s bottleneck | tr '\t' '|' | awk -F'|' '{print $1, $2}')
  t_check "p3.8xlarge without gpu0-gpu1: 0.006012 (got $t)" near "$t" 0.006012
  t_check "the new bottleneck is gpu0-gpu2 ($b)" test "$b" = "gpu0-gpu2 (gpu0->gpu2)"
fi
if expect_ok "best late rank" -- best --platform flat:ranks=4 --size 100MB --scenario "$S/late-rank.json" --format csv; then
  t_check "best: sim_s and scenario columns" csv_col "$T_TMP/out" sim_s scenario
  t_check "best: ranked by sim_s (ascending)" python3 - "$T_TMP/out" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["sim_s"] not in ("", "nan")]
t = [float(r["sim_s"]) for r in rows]
sys.exit(0 if len(t) >= 5 and t == sorted(t) and all(r["scenario"] == "late-rank-2" for r in rows) else 1)
PY
fi
expect_ok "fr-10 degraded" -- sim --platform fr-10 --algo flexreduce --size 4MB --check --scenario "$S/fr10-slow-m1.json" --format csv &&
  t_check "flexreduce on the survivors: exact" test "$(csv_col "$T_TMP/out" ranks check | tr '\t' ' ')" = "9 exact"

# a slow-computing straggler (scenarios/slow-gpu.json: rank 3 reduces at half rate). Ring on flat:ranks=8,
# 80 MB, gamma 5e-11 s/B (tests/sim/sim_scenario.c has the derivation): T = 2 us + 10 MB / 12.5 GB/s = 8.02e-4,
# g = 5e-4; all at full rate T_1 = 7 (T + g) + 7 T = 0.014728; rank 3 at f: T_1 + g (1/f - 1) = 0.015228.
for en in fast naive; do
  if expect_ok "sim slow GPU ($en)" -- sim --platform flat:ranks=8 --algo ring --size 80MB --gamma 5e-11 --engine $en --scenario "$S/slow-gpu.json" --format csv; then
    read -r t m sy sc < <(csv_col "$T_TMP/out" sim_s model_s sync scenario)
    t_check "slow GPU ($en): sim 0.015228 (got $t)" near "$t" 0.015228
    t_check "slow GPU ($en): model_s (the walk) 0.015228 (got $m)" near "$m" 0.015228
    t_check "slow GPU ($en): dataflow, scenario column ($sy $sc)" test "$sy $sc" = "dataflow slow-gpu-3"
  fi
done
if expect_ok "model slow GPU" -- model --platform flat:ranks=8 --algo ring --size 80MB --gamma 5e-11 --scenario "$S/slow-gpu.json" --format csv; then
  read -r m w < <(csv_col "$T_TMP/out" model_s walk_s)
  t_check "model slow GPU: model_s = walk_s = 0.015228 (got $m $w)" near "$m" 0.015228
fi
expect_error "slow GPU needs a rate" "needs a reduction rate" -- sim --platform flat:ranks=8 --algo ring --scenario "$S/slow-gpu.json"
expect_error "slow GPU lockstep refused" "--sync dataflow only" -- sim --platform flat:ranks=8 --algo ring --gamma 5e-11 --sync round --scenario "$S/slow-gpu.json"
echo '{"name":"x","stragglers":[{"rank":1,"rate":1.5}]}' >"$T_TMP/bad.json"
expect_error "bad fraction" 'stragglers[0].rate: a fraction of the rank'"'"'s reduction rate in (0, 1] (got 1.5)' -- model --platform flat:ranks=4 --scenario "$T_TMP/bad.json"
# best: flat:ranks=8 with compute.reduce 20 GB/s (gamma 5e-11). Without the scenario the walk ranks ps
# (0.014704) before ring (0.014728); with rank 3 slow the simulation ranks ring (0.015228) before ps (0.018204)
printf '{"name":"flat8c","kind":"tree","levels":[{"fanout":8,"bw":"12.5GBps","lat":"1us"}],"compute":{"reduce":"20GBps"}}' >"$T_TMP/flat8c.json"
if expect_ok "best slow GPU" -- best --platform "$T_TMP/flat8c.json" --size 80MB --scenario "$S/slow-gpu.json" --format csv; then
  t_check "best slow GPU: ranked by sim_s, ring 0.015228 before ps" python3 - "$T_TMP/out" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["sim_s"] not in ("", "nan")]
t = [float(r["sim_s"]) for r in rows]
pos = {r["algo"]: i for i, r in reversed(list(enumerate(rows)))}
ring = float(rows[pos["ring"]]["sim_s"])
ok = len(t) >= 10 and t == sorted(t) and all(r["scenario"] == "slow-gpu-3" for r in rows)
sys.exit(0 if ok and abs(ring - 0.015228) <= 1e-9 * ring and pos["ring"] < pos["ps"] else 1)
PY
fi
# jobs with a slow GPU: two 4-rank rings on flat8c's halves, rank 3 (job 0) at f = 0.5. 4 ranks, s = 20 MB:
# T = 2e-6 + 2e7 / 12.5e9 = 1.602e-3, g = 1e-3; job 1: 3 (T + g) + 3 T = 0.012612; job 0: + g = 0.013612,
# the same alone (its sub-platform keeps the slow GPU)
cat >"$T_TMP/jobs-slow.json" <<'JSON'
{"name": "jobs-slow", "stragglers": [{"rank": 3, "rate": 0.5}],
 "jobs": [{"ranks": [0, 1, 2, 3], "algo": "ring"}, {"ranks": [4, 5, 6, 7], "algo": "ring"}]}
JSON
if expect_ok "jobs with a slow GPU" -- sim --platform "$T_TMP/flat8c.json" --size 80MB --scenario "$T_TMP/jobs-slow.json" --format csv; then
  while read -r j t a; do
    w=$([ "$j" = 0 ] && echo 0.013612 || echo 0.012612)
    t_check "job $j: $w together (got $t)" near "$t" "$w"
    t_check "job $j: $w alone (got $a)" near "$a" "$w"
  done < <(csv_col "$T_TMP/out" job sim_s alone_s)
fi
if expect_ok "best without the scenario" -- best --platform "$T_TMP/flat8c.json" --size 80MB --format csv; then
  t_check "best by the walk: ps before ring" python3 - "$T_TMP/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pos = {r["algo"]: i for i, r in reversed(list(enumerate(rows)))}
sys.exit(0 if pos["ps"] < pos["ring"] else 1)
PY
fi
# a sweep over the slow GPU's fraction: f = 1, 0.5, 0.8 -> 0.014728, 0.015228, 0.014853 (sim and model)
cp "$S/slow-gpu.json" "$T_TMP/slow.json"
vary_sweep "sweep over the slow GPU's fraction: T_1 + g (1/f - 1)" slow-sweep "$T_TMP/flat8c.json" slow.json \
  '"stragglers[0].rate": [1, 0.5, 0.8]' 80MB '{"1": 0.014728, "0.5": 0.015228, "0.8": 0.014853}'
# the same sweep on flat:ranks=8 with only the simulator's gamma: the platform has no reduction rate, so every
# row is an error saying so (it used to abort the sweep with "out of memory")
sed "s|\"$T_TMP/flat8c.json\"|\"flat:ranks=8\"|; s|\"sizes\": \[\"80MB\"\]}|\"sizes\": [\"80MB\"], \"sim\": {\"gamma\": 5e-11}}|" \
  "$T_TMP/slow-sweep.json" >"$T_TMP/swg.json"
"$ARLAB" sweep "$T_TMP/swg.json" --out "$T_TMP/swg" --quiet >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
t_check "sweep without a reduction rate: non-zero exit ($rc)" test "$rc" -ge 1 -a "$rc" -lt 128
t_check "sweep without a reduction rate: error rows that say why" python3 - "$T_TMP/swg/slow-sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r for r in rows if r["platform"].endswith("=0.5") or r["platform"].endswith("=0.8")]
ok = len(rows) == 6 and len(bad) == 4
ok = ok and all(r["status"] == "error" and "needs a reduction rate" in r["message"] for r in bad)
sys.exit(0 if ok else 1)
PY

echo '{"name":"x","stragglers":[{"rank":1,"delay":"5 parsecs"}]}' >"$T_TMP/bad.json"
expect_error "bad delay" 'stragglers[0].delay: "5 parsecs" is not a time' -- model --platform flat:ranks=4 --scenario "$T_TMP/bad.json"
expect_error "missing file" "nope.json" -- sim --platform flat:ranks=4 --scenario "$T_TMP/nope.json"
expect_error "lockstep refused" "--sync dataflow only" -- sim --platform flat:ranks=4 --algo ring --sync round --scenario "$S/late-rank.json"
expect_error "naive refused" "fast engine only" -- sim --platform flat:ranks=4 --algo ring --engine naive --scenario "$S/late-rank.json"
echo '{"name":"t","failed_links":["s0.0-g1"]}' >"$T_TMP/tree.json"
expect_error "tree cannot reroute" "cannot reroute" -- model --platform flat:ranks=4 --scenario "$T_TMP/tree.json"
expect_error "unknown link" "names no link" -- model --platform flat:ranks=4 --scenario "$S/p3-nvlink-down.json"

# jobs sharing the fabric, one simulation (lab/jobs.h). tree:fanouts=4x2: 2 machines of 4 GPUs, GPU links
# 32 GB/s, machine uplinks 12.5 GB/s, 1 us each. Job A = ring over 0,1,4,5, job B = ring over 2,3,6,7, 100 MB:
# s = 25 MB per step, 6 steps; the steps 1->4 and 5->0 (A), 3->6 and 7->2 (B) cross both uplinks (4 links,
# 4 us). Alone: 6 (4e-6 + 25e6/12.5e9) = 0.012024. Together each uplink direction carries one flow of each
# job, 6.25 GB/s each: 6 (4e-6 + 25e6/6.25e9) = 0.024024 for both (slowdown 1.998).
# Disjoint halves of flat:ranks=8 share nothing: each job = the 4-rank ring alone, 0.012012, job 1 from
# its start at 1 ms.
cat >"$T_TMP/jobs.json" <<'JSON'
{"name": "shared-uplinks", "jobs": [{"ranks": [0, 1, 4, 5], "algo": "ring"}, {"ranks": [2, 3, 6, 7], "algo": "ring"}]}
JSON
if expect_ok "two jobs on shared uplinks" -- sim --platform tree:fanouts=4x2 --size 100MB --scenario "$T_TMP/jobs.json" --format csv; then
  csv_col "$T_TMP/out" job sim_s alone_s scenario >"$T_TMP/j.tsv"
  t_check "two rows" test "$(wc -l <"$T_TMP/j.tsv")" -eq 2
  while read -r j t a sc; do
    t_check "job $j: 0.024024 together (got $t)" near "$t" 0.024024
    t_check "job $j: 0.012024 alone (got $a)" near "$a" 0.012024
    t_check "job $j: scenario column" test "$sc" = shared-uplinks
  done <"$T_TMP/j.tsv"
fi
cat >"$T_TMP/jobs2.json" <<'JSON'
{"name": "halves", "jobs": [{"ranks": [0, 1, 2, 3], "algo": "ring"}, {"ranks": [4, 5, 6, 7], "algo": "ring", "start": "1ms"}]}
JSON
if expect_ok "two jobs on disjoint halves" -- sim --platform flat:ranks=8 --size 100MB --scenario "$T_TMP/jobs2.json" --format csv; then
  while read -r j st t; do
    t_check "job $j (start $st): 0.012012 from its start (got $t)" near "$t" 0.012012
  done < <(csv_col "$T_TMP/out" job start_s sim_s)
fi
echo '{"name":"j","jobs":[{"ranks":[0,1],"algo":"ring"},{"ranks":[1,2],"algo":"ring"}]}' >"$T_TMP/jobs3.json"
expect_error "jobs share ranks" "already in jobs[0]" -- sim --platform flat:ranks=4 --scenario "$T_TMP/jobs3.json"
expect_error "model refuses jobs" "only in a simulation" -- model --platform flat:ranks=4 --scenario "$T_TMP/jobs.json"

# sweeps: a platform entry with a scenario and a vary axis over stragglers[0].delay (0, 1, 2 ms):
# sim and model both give T0 + d = 0.012012, 0.013012, 0.014012; the key names the variant (resume)
cp "$S/late-rank.json" "$T_TMP/late.json"
if vary_sweep "sweep over a scenario parameter: T0 + d" late-sweep flat:ranks=4 late.json \
  '"stragglers[0].delay": ["0ms", "1ms", "2ms"]' 100MB '{"0ms": 0.012012, "1ms": 0.013012, "2ms": 0.014012}' \
  '"+scenario=late.json@stragglers[0].delay=" in r["key"] and (r["backend"] != "sim" or v == "0ms" or "dataflow" in r["network"])'; then
  expect_ok "sweep resumes" -- sweep "$T_TMP/late-sweep.json" --out "$T_TMP/late-sweep"
  t_check "sweep: every row resumed" grep -q "6 rows (0 points run, 6 resumed)" "$T_TMP/err"
fi
sed 's/stragglers\[0\]/stragglers[1]/' "$T_TMP/late-sweep.json" >"$T_TMP/sw2.json"
expect_error "sweep: vary path must exist" "platforms[0].scenario" -- sweep "$T_TMP/sw2.json" --out "$T_TMP/swo2"
echo '{"name":"v","platforms":[{"spec":"flat:ranks=4","scenario":"late.json","vary":{"a":[1],"b":[2]}}],"algos":["ring"],"sizes":["1MB"]}' >"$T_TMP/sw3.json"
expect_error "sweep: one vary path" "platforms[0].vary: must be an object with one scenario path" -- sweep "$T_TMP/sw3.json" --out "$T_TMP/swo3"
echo '{"name":"v","platforms":[{"spec":"flat:ranks=4","vary":{"a":[1]}}],"algos":["ring"],"sizes":["1MB"]}' >"$T_TMP/sw4.json"
expect_error "sweep: vary needs a scenario" "needs \"scenario\"" -- sweep "$T_TMP/sw4.json" --out "$T_TMP/swo4"
t_done
