#!/bin/bash
# `arlab sim`: bad input gets arlab's one-line message before SimGrid
# starts; the CSV has the documented columns; sim = model on a flat ring; the
# network settings and the bottleneck are printed; --check, --trace, --algo
# all with several sizes, --engine naive, --budget. Without SimGrid the verb
# must say so (exit 3). Needs ARLAB and ARLAB_SRC.
. "$ARLAB_SRC/tests/lib_cli.sh"

"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: checking the message only"
  t_good
  t_done
  exit $?
fi

expect_error "unknown platform" "nope" -- sim --platform nope --algo ring --size 1MB
expect_error "unknown algorithm" "magic" -- sim --platform flat:ranks=4 --algo magic --size 1MB
expect_error "bad size" "--size" -- sim --platform flat:ranks=4 --algo ring --size 1XB
expect_error "unknown network model" "--network: unknown model" -- sim --platform flat:ranks=4 --algo ring --size 1MB --network CM03
expect_error "unknown network setting" "unknown setting" -- sim --platform flat:ranks=4 --algo ring --size 1MB --network CM02,foo:1
expect_error "bad engine" "--engine" -- sim --platform flat:ranks=4 --algo ring --size 1MB --engine slow
expect_error "naive engine has no --check" "naive" -- sim --platform flat:ranks=4 --algo ring --size 1MB --engine naive --check
expect_error "missing platform" "--platform" -- sim --algo ring --size 1MB
cat >"$T_TMP/zero.json" <<'EOF'
{"name": "zero", "kind": "tree", "levels": [{"fanout": 4, "bw": "0GBps", "lat": "1us"}]}
EOF
expect_error "zero bandwidth" "bw" -- sim --platform "$T_TMP/zero.json" --algo ring --size 1MB
t_check "no SimGrid output on errors" bash -c "! grep -qi 'simgrid\|xbt\|backtrace' '$T_TMP/err'"

# CSV: columns, and a flat ring where the model's assumptions hold
expect_ok "csv" -- sim --platform flat:ranks=8 --algo ring --size 8MiB --format csv
t_check "csv header" grep -q '^algo,platform,ranks,bytes,sim_s,model_s,rel_err,closed_s,closed_rel_err,transfers,' "$T_TMP/out"
row=$(sed -n 2p "$T_TMP/out")
r1=$(csv_col "$T_TMP/out" algo platform ranks bytes transfers | head -1 | tr '\t' ,)
t_check "ring row: 8 ranks, 8388608 B, 112 transfers ($r1)" test "$r1" = 'ring,flat:ranks=8,8,8388608,112'
vals=$(csv_col "$T_TMP/out" sim_s rel_err | head -1)
t_check "sim = model = 1.20240512 ms ($row)" awk -v r="$vals" 'BEGIN { split(r, f, "\t"); d = f[1] - 0.00120240512; if (d < 0) d = -d; e = f[2]; if (e < 0) e = -e; exit !(d < 1e-15 && e < 1e-9) }'
t_check "network in the csv" grep -q 'network/model:CM02 network/crosstraffic:0 network/TCP-gamma:0 network/solver:maxmin maxmin/precision:1e-12 surf/precision:1e-15 links:SPLITDUPLEX latency:arlab' "$T_TMP/out"

# table: settings, bottleneck, link list, check
expect_ok "table with --check" -- sim --platform bc-ibm-2x4 --algo halving-doubling --size 8MiB --check
t_check "table names the network model" grep -q '^network: network/model:CM02' "$T_TMP/out"
t_check "table names the bottleneck uplink" grep -q 'bottleneck: s1.0-s0.[01] (.*): .* up to 4 transfers at once' "$T_TMP/out"
t_check "table: check exact" grep -q 'check: exact' "$T_TMP/out"
t_check "table: closed form printed" grep -q 'closed form 1.2 ms' "$T_TMP/out"

# --algo all, several sizes, json
expect_ok "all algorithms, two sizes, json" -- sim --platform fr-7 --algo all --size 64KiB,1000004B --format json
n=$(grep -c '"algo":' "$T_TMP/out")
t_check "json: at least 12 rows (got $n)" test "$n" -ge 12
t_check "json: numbers unquoted" grep -q '"sim_s":[0-9]' "$T_TMP/out"

# trace
expect_ok "trace" -- sim --platform flat:ranks=4 --algo ring --size 4KiB --trace "$T_TMP/t.json"
t_check "trace file is trace-event JSON" grep -q '"traceEvents":\[' "$T_TMP/t.json"
n=$(grep -c '"ph":"X"' "$T_TMP/t.json")
t_check "trace: 24 transfers (got $n)" test "$n" -eq 24
t_check "trace ends the array" bash -c "tail -1 '$T_TMP/t.json' | grep -q ']}'"

# naive engine agrees on a ring; budget stops it early
expect_ok "naive" -- sim --platform flat:ranks=16 --algo ring --size 1000004B --engine naive --format csv
naive=$(csv_col "$T_TMP/out" sim_s | head -1)
expect_ok "fast" -- sim --platform flat:ranks=16 --algo ring --size 1000004B --format csv
fast=$(csv_col "$T_TMP/out" sim_s | head -1)
t_check "naive = fast ($naive vs $fast, 1e-12)" awk -v a="$naive" -v b="$fast" 'BEGIN { d=(a-b)/b; if (d<0) d=-d; exit !(b > 0 && d < 1e-12) }'
expect_ok "budget" -- sim --platform flat:ranks=256 --algo ring --size 1MiB --engine naive --budget 20ms --format csv
t_check "budget: complete = 0" test "$(csv_col "$T_TMP/out" complete | head -1)" = 0

# --sync: every row names the semantics; dataflow with --check, --trace and a budget
expect_error "bad --sync" "--sync: give dataflow" -- sim --platform flat:ranks=4 --algo ring --sync barrier
expect_ok "sync default" -- sim --platform fr-7 --algo binomial --size 10MB --format csv
t_check "default sync is dataflow" test "$(csv_col "$T_TMP/out" sync)" = dataflow
expect_ok "sync dataflow" -- sim --platform blueconnect-12 --algo binomial --size 10MB --sync dataflow --check \
  --trace "$T_TMP/df.json" --format csv
read -r s sync chk < <(csv_col "$T_TMP/out" sim_s sync check)
t_check "dataflow row: sync=dataflow, check exact ($sync $chk)" test "$sync $chk" = "dataflow exact"
t_check "binomial dataflow on blueconnect-12: 5.461 ms ($s)" python3 -c "import sys; sys.exit(abs($s-5.461e-3)>1e-9*$s)"
n=$(grep -c '"ph":"X"' "$T_TMP/df.json")
t_check "dataflow trace: 22 transfers (got $n)" test "$n" -eq 22
expect_ok "sync table" -- sim --platform fr-7 --algo ring --size 1MB --sync dataflow
t_check "table names the semantics" grep -q "^semantics: dataflow" "$T_TMP/out"
expect_ok "dataflow budget" -- sim --platform flat:ranks=256 --algo ring --size 1MiB --sync dataflow --no-shortcuts \
  --budget 20ms --format csv
t_check "dataflow budget: complete = 0" test "$(csv_col "$T_TMP/out" complete | head -1)" = 0
t_done
