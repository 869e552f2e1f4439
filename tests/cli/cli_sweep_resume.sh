#!/bin/bash
# Honest resume: rows store platform_hash, version and network; a resumed sweep runs
# again the points whose platform file changed, that another arlab version computed, or (sim)
# that ran under another network configuration, and says how many; untouched points resume.
. "$ARLAB_SRC/tests/lib_cli.sh"
cd "$T_TMP" || exit 1
cat >p.json <<'JSON'
{"name": "two", "kind": "tree", "root": {"name": "root", "children": [
  {"name": "m0", "bw": "10GBps", "lat": "1us", "child_bw": "100GBps", "child_lat": "1us", "gpus": 2},
  {"name": "m1", "bw": "10GBps", "lat": "1us", "child_bw": "100GBps", "child_lat": "1us", "gpus": 2}]}}
JSON
cat >s.json <<'JSON'
{"name": "res", "backend": "model", "platforms": ["p.json", "fr-5"], "algos": ["ring"], "sizes": ["100MB"]}
JSON
expect_ok "first run" -- sweep s.json --out o --quiet
t1=$(csv_col o/res.csv platform model_s | awk -F'\t' '$1 == "two" { print $2 }')
expect_ok "resume, nothing changed" -- sweep s.json --out o
t_check "nothing run again" grep -q "(0 points run, 2 resumed)" "$T_TMP/err"
sed -i 's/"bw": "10GBps", "lat": "1us", "child_bw"/"bw": "5GBps", "lat": "1us", "child_bw"/' p.json
expect_ok "resume after the platform file changed" -- sweep s.json --out o
cat "$T_TMP/err"
t_check "says one point is stale because its platform changed" \
  grep -q "running again 1 point(s) whose rows are stale: 0 computed by another arlab version, 1 on a platform that has changed" "$T_TMP/err"
t_check "that point ran, the other resumed" grep -q "(1 points run, 1 resumed)" "$T_TMP/err"
t2=$(csv_col o/res.csv platform model_s | awk -F'\t' '$1 == "two" { print $2 }')
echo "ring on two: before $t1, after halving m0's uplink $t2"
t_check "the new row reflects the change ($t1 -> $t2)" awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b > a * 1.5) }'
# another arlab version computed a row: run again
python3 - o/res.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
v = rows[0].index("version")
for r in rows[1:]:
    if r[rows[0].index("platform")] == "fr-5": r[v] = "0.0.1"
csv.writer(open(sys.argv[1], "w", newline="")).writerows(rows)
PY
expect_ok "resume after a version change" -- sweep s.json --out o
t_check "the fr-5 row is run again (version)" grep -q "running again 1 point(s) whose rows are stale: 1 computed by another arlab version" "$T_TMP/err"
t_done
