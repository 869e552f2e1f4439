#!/bin/bash
# The MPI backend's ready messages (the platform's compute.message.ready) through the command line:
# the JSON key and its one-line error, the description, and a ring and halving-doubling on two
# machines of two GPUs by hand (tests/sim/sim_ready.c derives them): walk = simulation.
. "$ARLAB_SRC/tests/lib_cli.sh"
. "$ARLAB_SRC/tests/lib_csv.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < t) }'; }

# machines:gpus=2+2, 10 GB/s, 2 us per link as JSON, then with "ready": true
expect_ok "json of machines:gpus=2+2" -- platform show machines:gpus=2+2,intra=10GBps,inter=10GBps,lat=2us --format json
cp "$T_TMP/out" "$T_TMP/plain.json"
t_check "the plain platform has no ready messages" bash -c "! grep -q ready '$T_TMP/plain.json'"
python3 -c "
import json
d = json.load(open('$T_TMP/plain.json'))
d.setdefault('compute', {}).setdefault('message', {})['ready'] = True
json.dump(d, open('$T_TMP/ready.json', 'w'))
d['compute']['message']['ready'] = 'yes'
json.dump(d, open('$T_TMP/bad.json', 'w'))"
expect_ok "show the platform with ready messages" -- platform show "$T_TMP/ready.json"
t_check "the description names them" grep -q "ready messages: a transfer between machines not following its pair's data" "$T_TMP/out"
expect_ok "its JSON" -- platform show "$T_TMP/ready.json" --format json
t_check "json: compute.message.ready true" python3 -c "
import json, sys
sys.exit(json.load(open('$T_TMP/out'))['compute']['message'].get('ready') is not True)"
expect_error "ready not a boolean" "compute.message.ready: must be true or false" -- platform show "$T_TMP/bad.json"

# by hand (sim_ready.c): ring 198 -> 206 us, halving-doubling 224 -> 232 us at 1 MB (its rounds within a
# machine do not wait)
for c in "ring 198e-6 206e-6" "halving-doubling 224e-6 232e-6"; do
  read -r algo off on <<<"$c"
  for f in plain ready; do
    want=$off; [ $f = ready ] && want=$on
    if expect_ok "sim $algo on $f" -- sim --platform "$T_TMP/$f.json" --algo "$algo" --size 1MB --format csv; then
      read -r sim model closed < <(csv_col "$T_TMP/out" sim_s model_s closed_s | tr '\t' ' ')
      t_check "$algo $f: sim $sim = $want (1e-9)" close "$sim" "$want" 1e-9
      t_check "$algo $f: model $model = $want (1e-9)" close "$model" "$want" 1e-9
      # the closed forms have no ready-message term: none where the platform has them
      if [ $f = ready ]; then t_check "$algo $f: no closed form ($closed)" bash -c "! close '$closed' '$want' 1e-3 && ! close '$closed' '$off' 1e-3"
      else t_check "$algo $f: a closed form ($closed)" close "$closed" "$closed" 1e-9; fi
    fi
  done
done
t_done
