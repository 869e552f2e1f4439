#!/bin/bash
# `arlab platform show P` lists every link (name, ends, lanes, bandwidth, latency) in a table after the
# summary: the names a scenario's links[].link and failed_links use; a scenario naming no link gets the
# closest link name and the command that lists them (`arlab platform show P`, which works as printed).
. "$ARLAB_SRC/tests/lib_cli.sh"

P=dgx-h100:nodes=4
expect_ok "platform show $P" -- platform show "$P"
cp "$T_TMP/out" "$T_TMP/show"
expect_ok "platform show $P --format json" -- platform show "$P" --format json
miss=$(python3 - "$T_TMP/show" "$T_TMP/out" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read().split("\n")
links = json.load(open(sys.argv[2]))["links"]
rows = {l.split()[0]: l.split() for l in text if l and not l.startswith(" ") and len(l.split()) >= 8}
bad = []
for k in links:
    r = rows.get(k["name"])
    # link a b lanes <lane bw> <unit> <capacity> <unit> <lat> <unit> class
    if not r or r[1:4] != [k["a"], k["b"], str(k["lanes"])]: bad.append(k["name"]); continue
    lane = float(r[4]) * {"GB/s": 1e9, "MB/s": 1e6, "TB/s": 1e12}[r[5]]
    lat = float(r[8]) * {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3}[r[9]]
    if abs(lane - k["bw_Bps"]) > 1e-3 * k["bw_Bps"] or abs(lat - k["lat_s"]) > 1e-3 * k["lat_s"]: bad.append(k["name"])
print(len(links) if not bad else "wrong or missing: " + " ".join(bad[:5]))
PY
)
t_check "every link of $P in the table with its ends, lanes, bandwidth and latency ($miss)" test "$miss" = 64
t_check "the links table's header" grep -q "^link  *a  *b  *lanes  *lane_GBps  *capacity_GBps  *lat_s  *class" "$T_TMP/show"
t_check "an inter-machine rail link shown" grep -Eq "^n3.g7-rail7 +n3.g7 +rail7 +1 +48 GB/s +48 GB/s +1 µs +inter-machine" "$T_TMP/show"
expect_ok "platform show dgx-h100" -- platform show dgx-h100
t_check "a preset's notes (its sources) shown" grep -q "^  - NVLink 4 line rate: 25 GB/s" "$T_TMP/out"
expect_ok "--links 2" -- platform show "$P" --links 2
t_check "--links 2: two rows, then how many more" grep -q "^\.\.\. 62 more" "$T_TMP/out"
expect_ok "--format csv: the links" -- platform show fr-5 --format csv
t_check "--format csv: header and one row per link" bash -c "head -1 '$T_TMP/out' | grep -qx 'link,a,b,lanes,lane_GBps,capacity_GBps,lat_s,class' && test \$(wc -l <'$T_TMP/out') -gt 5"
expect_error "--links without a count" "--links: give a count" -- platform show fr-5 --links x

# a misspelt link in a scenario: the closest name and a command that works
printf '{"name":"x","links":[{"link":"n1.g3-rail4","factor":0.5}]}' >"$T_TMP/slow.json"
expect_error "slowed link misspelt" 'names no link of platform dgx-h100:nodes=4: did you mean "n1.g3-rail3"?' -- \
  model --platform "$P" --size 1MB --algo ring --scenario "$T_TMP/slow.json"
cmd=$(sed -n "s/.*'\(arlab platform show [^']*\)'.*/\1/p" "$T_TMP/err")
t_check "the error names 'arlab platform show $P' ($cmd)" test "$cmd" = "arlab platform show $P"
# shellcheck disable=SC2086
"$ARLAB" ${cmd#arlab } >"$T_TMP/o2" 2>&1
t_check "the command it names works and lists n1.g3-rail3" grep -q "^n1.g3-rail3 " "$T_TMP/o2"
printf '{"name":"x","failed_links":["n1-g3-rail3"]}' >"$T_TMP/fail.json"
expect_error "failed link misspelt" 'did you mean "n1.g3-rail3"? (every link: '"'arlab platform show $P')" -- \
  sim --platform "$P" --size 1MB --algo ring --scenario "$T_TMP/fail.json"
printf '{"name":"x","links":[{"match":"zz*","factor":0.5}]}' >"$T_TMP/glob.json"
expect_error "a glob matching no link" "(every link: 'arlab platform show fr-5')" -- \
  model --platform fr-5 --size 1MB --algo ring --scenario "$T_TMP/glob.json"
t_done
