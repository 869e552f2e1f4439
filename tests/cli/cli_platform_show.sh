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
# `platform show --format json` loads back: for every preset (and generated, rail and calibrated forms), the shown
# document as --platform gives the same numbers as the platform itself (every algorithm's time, NCCL's model)
"$ARLAB" platforms --format csv | tail -n +2 | cut -d, -f1 >"$T_TMP/presets"
t_check "the presets listed" test "$(wc -l <"$T_TMP/presets")" -ge 20
cols() { cut -d, -f1,3-8,13-16 "$1"; }
n=0
for P in $(cat "$T_TMP/presets") dgx-h100:nodes=2 aws-p5:nodes=3 "tree:fanouts=4x4" "torus:dims=4x4" rail:nodes=2; do
  "$ARLAB" platform show "$P" --format json >"$T_TMP/shown.json" 2>"$T_TMP/err" || { t_bad "show $P: $(head -1 "$T_TMP/err")"; continue; }
  "$ARLAB" model --platform "$P" --size 1MB,256MB --algo all --format csv >"$T_TMP/a.csv" 2>/dev/null
  if ! "$ARLAB" model --platform "$T_TMP/shown.json" --size 1MB,256MB --algo all --format csv >"$T_TMP/b.csv" 2>"$T_TMP/err"; then
    t_bad "the shown $P loads: $(head -1 "$T_TMP/err")"; continue
  fi
  if cmp -s <(cols "$T_TMP/a.csv") <(cols "$T_TMP/b.csv") && test -s "$T_TMP/a.csv"; then n=$((n + 1)); else
    t_bad "the shown $P gives other numbers: $(diff <(cols "$T_TMP/a.csv") <(cols "$T_TMP/b.csv") | head -2 | tr '\n' ' ')"; fi
done
t_check "every preset's shown JSON loads back with the same numbers ($n)" test "$n" -eq $(( $(wc -l <"$T_TMP/presets") + 5 ))
# the shown JSON of a calibrated file: the factors already on the links are not applied twice
printf '{"name":"c","kind":"tree","gpu":"h100","levels":[{"fanout":8,"bw":"20.6GBps","lanes":18,"lat":"1us"}],"calibration":{"intra":{"lat":1.5,"bw":0.8,"nvls":0.7}}}' >"$T_TMP/c.json"
"$ARLAB" platform show "$T_TMP/c.json" --format json >"$T_TMP/c_shown.json"
t_check "calibrated: the shown JSON says applied_to_links and keeps the NVSwitch's rate" grep -q '"applied_to_links": true' "$T_TMP/c_shown.json"
"$ARLAB" model --platform "$T_TMP/c.json" --size 64MB --algo all --format csv | cut -d, -f1,3-8,13-16 >"$T_TMP/ca"
"$ARLAB" model --platform "$T_TMP/c_shown.json" --size 64MB --algo all --format csv | cut -d, -f1,3-8,13-16 >"$T_TMP/cb"
t_check "calibrated: the same numbers (links and NCCL's model)" cmp -s "$T_TMP/ca" "$T_TMP/cb"
t_done
