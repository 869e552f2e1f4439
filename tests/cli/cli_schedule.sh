#!/bin/bash
# User-written schedules: `--schedule FILE` (= `--algo schedule:file=FILE`)
# on model, sim and plan. Columns are read by name.
#
# experiments/schedules/two-rings.json: 4 ranks, two rings in opposite directions,
# each on half of the buffer. On flat:ranks=4 (every rank one 12.5 GB/s link to a
# switch, 1 us per link) each step sends S/8 on each ring, and a rank's uplink
# carries both rings' flows at once (one to each neighbour), so a step takes
# 2 us + 2 x (S/8) / 12.5e9 = 2 us + (S/4) / 12.5e9: exactly one ring's step.
#   two-rings = ring = 2(P-1) x (2 us + S/(P B)) = 6 x (2e-6 + 25e6 / 12.5e9) = 0.012012 s at S = 100 MB.
# blueconnect-12 planned for 24 elements and written out by `arlab plan --format json`
# (the whole document, schedule under "schedule") reads back and, scaled to 96 MB
# (24e6 elements = 1e6 x 24), prices exactly like BlueConnect planned at 96 MB.
. "$ARLAB_SRC/tests/lib_cli.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < t) }'; }
TR=$ARLAB_SRC/experiments/schedules/two-rings.json
want=$(awk 'BEGIN { printf "%.17g", 6 * (2e-6 + 25e6 / 12.5e9) }')

if expect_ok "model --schedule two-rings" -- model --platform flat:ranks=4 --schedule "$TR" --algo ring --size 100MB --format csv; then
  cp "$T_TMP/out" "$T_TMP/m.csv"
  read -r algo model walk status < <(csv_col "$T_TMP/m.csv" algo model_s walk_s status | head -1 | tr '\t' ' ')
  ring=$(csv_col "$T_TMP/m.csv" algo closed_s | awk -F'\t' '$1 == "ring" { print $2 }')
  echo "two-rings: algo=$algo model_s=$model walk_s=$walk ring closed_s=$ring expected=$want"
  t_check "row named schedule:file=..." test "$algo" = "schedule:file=$TR"
  t_check "status ok" test "$status" = ok
  t_check "two-rings walk $walk equals the arithmetic $want to 1e-12" close "$walk" "$want" 1e-12
  t_check "ring's closed form $ring equals the same arithmetic" close "$ring" "$want" 1e-12
fi

"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: sim case not run"
elif expect_ok "sim --schedule two-rings" -- sim --platform flat:ranks=4 --schedule "$TR" --size 100MB --format csv; then
  read -r sim complete < <(csv_col "$T_TMP/out" sim_s complete | tr '\t' ' ')
  echo "sim: sim_s=$sim"
  t_check "simulated $sim equals the arithmetic $want to 1e-12" close "$sim" "$want" 1e-12
  t_check "sim completed" test "$complete" = 1
fi

if expect_ok "plan --schedule --check" -- plan --platform flat:ranks=4 --schedule "$TR" --size 40 --check; then
  t_check "validator ok" grep -q "^validator: ok" "$T_TMP/out"
  t_check "host executor: exact sums at 40 elements (scale 5)" grep -q "^host executor: ok" "$T_TMP/out"
fi

# the whole `arlab plan --format json` document reads back; scaled, it is the planned schedule
if expect_ok "plan blueconnect-12 as JSON" -- plan --algo blueconnect --platform blueconnect-12 --size 24 --format json; then
  cp "$T_TMP/out" "$T_TMP/bc.json"
  if expect_ok "model the written plan at 96 MB" -- model --platform blueconnect-12 --schedule "$T_TMP/bc.json" \
      --algo blueconnect --size 96MB --format csv; then
    read -r a b < <(csv_col "$T_TMP/out" walk_s | tr '\n' ' ')
    echo "blueconnect-12 96 MB: loaded walk_s=$a planned walk_s=$b"
    t_check "loaded and scaled ($a) = planned ($b) to 1e-12" close "$a" "$b" 1e-12
  fi
fi

# nccl-ring's all-gather (a per-member block layout, "offs") written out reads back as an all-gather
# (--coll), validated as one; scaled, it is the planned schedule; as an all-reduce it is refused
if expect_ok "plan nccl-ring all-gather as JSON" -- plan --algo nccl-ring --coll allgather --platform dgx-h100:nodes=2 \
    --size 512 --format json; then
  cp "$T_TMP/out" "$T_TMP/ag.json"
  t_check "the JSON carries the layout" grep -q '"offs":\[' "$T_TMP/ag.json"
  if expect_ok "model the written all-gather at 512 MB" -- model --platform dgx-h100:nodes=2 --coll allgather \
      --schedule "$T_TMP/ag.json" --algo nccl-ring --size 512MB --format csv; then
    read -r a b < <(csv_col "$T_TMP/out" walk_s | tr '\n' ' ')
    echo "nccl-ring all-gather 512 MB: loaded walk_s=$a planned walk_s=$b"
    t_check "loaded and scaled ($a) = planned ($b) to 1e-12" close "$a" "$b" 1e-12
  fi
  expect_error "an all-gather file asked as an all-reduce" "the schedule performs allgather, not allreduce" -- \
    model --platform dgx-h100:nodes=2 --schedule "$T_TMP/ag.json" --size 512MB
fi

# bad input: one line each, non-zero exit
python3 - "$TR" "$T_TMP" <<'PY'
import json, sys
src, d = sys.argv[1], sys.argv[2]
s = json.load(open(src)); s["phases"] = s["phases"][:1]; json.dump(s, open(d + "/rs_only.json", "w"))
s = json.load(open(src)); s["phases"][0]["ops"][1]["members"][3] = 9; json.dump(s, open(d + "/badrank.json", "w"))
s = json.load(open(src)); s["phases"][1]["ops"][0]["kind"] = "all-gater"; json.dump(s, open(d + "/badkind.json", "w"))
open(d + "/trunc.json", "w").write(open(src).read()[:200])
PY
expect_error "ranks differ" "the schedule has 4 ranks, platform flat:ranks=8 has 8" -- model --platform flat:ranks=8 --schedule "$TR"
expect_error "size not a multiple" "written for 8 elements; sizes must be a multiple of it (asked 12 elements)" -- \
  model --platform flat:ranks=4 --schedule "$TR" --size 12
expect_error "missing file" "/nonexistent/s.json" -- model --platform flat:ranks=4 --schedule /nonexistent/s.json
expect_error "not an all-reduce" "not an all-reduce: schedule two-rings: at the end rank 0 holds undefined elements" -- \
  model --platform flat:ranks=4 --schedule "$T_TMP/rs_only.json"
expect_error "member out of range" '$.phases[0].ops[1].members[3]: expected an integer in 0..3' -- \
  sim --platform flat:ranks=4 --schedule "$T_TMP/badrank.json"
expect_error "unknown op kind" '$.phases[1].ops[0].kind: unknown value "all-gater"' -- \
  plan --platform flat:ranks=4 --schedule "$T_TMP/badkind.json"
expect_error "truncated JSON" "malformed JSON" -- model --platform flat:ranks=4 --schedule "$T_TMP/trunc.json"
expect_error "schedule without its file" "schedule: give its file" -- model --platform flat:ranks=4 --algo schedule
expect_error "comma in the file name" "cannot be named" -- model --platform flat:ranks=4 --schedule a,b.json
t_done
