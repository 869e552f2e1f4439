#!/usr/bin/env bash
# What a new user ran, and what they should get: the commands a first session tried on the
# presets, each with the behaviour it must show (the detailed tests of each behaviour are
# cli_matrix, cli_table_width, cli_units, cli_platform_show, cli_help, cli_man,
# cli_report_user, cli_sweep_lock and sim_scenario).
. "$(dirname "$0")/../lib_cli.sh"
cd "$T_TMP" || exit 1

# 1. switch algorithms with a reduction cost: a number, not a crash
for cmd in "model --platform dgx-h100:nodes=2 --algo nvls --size 1GB --gamma 1e-11" \
  "sim --platform dgx-h100 --algo nccl --size 1GB --gamma 1e-11"; do
  # shellcheck disable=SC2086
  if expect_ok "$cmd" -- $cmd --format csv; then
    t_check "$cmd: a positive time" awk -F, 'NR == 2 { exit !($5 + 0 > 0) }' "$T_TMP/out"
  fi
done

# 2. one number for one thing: a late rank, and model against best
printf '{"name": "late-2ms", "stragglers": [{"rank": 2, "delay": "2ms"}]}\n' >late.json
# (without per-message costs: the ring's closed form exists there, so the why line is the late rank's)
expect_ok "healthy ring" -- model --platform dgx-h100:nodes=4,o=0,g=0 --algo ring --size 1GB --format csv
healthy=$(csv_col "$T_TMP/out" model_s | tail -1)
expect_ok "sim, late rank" -- sim --platform dgx-h100:nodes=4,o=0,g=0 --algo ring,halving-doubling --size 1GB \
  --scenario late.json --format csv
csv_col "$T_TMP/out" algo sim_s model_s >late_sim.csv
expect_ok "model, late rank" -- model --platform dgx-h100:nodes=4,o=0,g=0 --algo ring --size 1GB --scenario late.json \
  --format csv
IFS=$'\t' read -r late why < <(csv_col "$T_TMP/out" model_s why | tail -1)
sim_ring=$(awk -F'\t' '$1 == "ring" { print $2 }' late_sim.csv)
t_check "late rank: model $late = simulated $sim_ring (1e-9)" \
  awk -v a="$late" -v b="$sim_ring" 'BEGIN { d = (a - b) / b; exit !(d < 1e-9 && d > -1e-9) }'
t_check "late rank: the ring is delayed by less than 2 ms ($healthy -> $late: the neighbours' slack)" \
  awk -v h="$healthy" -v l="$late" 'BEGIN { exit !(l - h > 0.5e-3 && l - h < 1.0e-3) }'
t_check "late rank: why says model_s is the walk ($why)" grep -q "model_s is the walk" <<<"$why"
expect_ok "model hd" -- model --platform dgx-h100:nodes=4 --algo halving-doubling --size 1GB --format csv
model_hd=$(csv_col "$T_TMP/out" model_s | tail -1)
expect_ok "best" -- best --platform dgx-h100:nodes=4 --size 1GB --format csv
best_hd=$(csv_col "$T_TMP/out" algo walk_s | awk -F'\t' '$1 == "halving-doubling" { print $2 }')
t_check "halving-doubling: model_s $model_hd = best's walk_s $best_hd" \
  awk -v a="$model_hd" -v b="$best_hd" 'BEGIN { d = (a - b) / b; exit !(d < 1e-9 && d > -1e-9) }'
expect_ok "best table" -- best --platform dgx-h100:nodes=4 --size 1GB
cp "$T_TMP/out" best.txt
line_rank=$(sed -n 's/^BlueConnect on the platform.s own levels (\([^)]*\)) ranks \([0-9]*\):.*/\1 \2/p' best.txt)
read -r params rank <<<"$line_rank"
t_check "best's BlueConnect line names its row's rank ($params, rank $rank)" \
  awk -v r="$rank" -v p="$params" '$1 == r && $2 == "blueconnect" && $3 == p { ok = 1 } END { exit !ok }' best.txt

# 3. whole cells in a pipe
for cmd in algos platforms "best --platform dgx-h100:nodes=4 --size 1GB"; do
  # shellcheck disable=SC2086
  expect_ok "$cmd" -- $cmd
  t_check "$cmd | cat: no cut cell" bash -c "! grep -q '~' '$T_TMP/out'"
done

# 4. the links of a platform, and the closest link name
expect_ok "platform show" -- platform show dgx-h100:nodes=4
t_check "platform show lists the rail links" grep -q "n3.g7-rail7" "$T_TMP/out"
printf '{"name": "typo", "failed_links": ["n1.g3-rial3"]}\n' >typo.json
expect_error "unknown link" 'did you mean "n1.g3-rail3"' -- model --platform dgx-h100:nodes=4 --size 1MB \
  --scenario typo.json

# 5. a failed NIC: NCCL's ring re-plans on the other seven (about 8/7 slower on the rails), not 1.94x
printf '{"name": "nic-down", "failed_links": ["n0.g0-rail0"]}\n' >nic.json
expect_ok "nccl-ring healthy" -- sim --platform dgx-h100:nodes=2 --algo nccl-ring --size 1GB --format csv
h=$(csv_col "$T_TMP/out" sim_s | tail -1)
expect_ok "nccl-ring, a NIC down" -- sim --platform dgx-h100:nodes=2 --algo nccl-ring --size 1GB --scenario nic.json \
  --format csv
d=$(csv_col "$T_TMP/out" sim_s | tail -1)
t_check "failed NIC: $d / $h in (1, 8/7]" awk -v h="$h" -v d="$d" 'BEGIN { r = d / h; exit !(r > 1 && r <= 8 / 7 + 1e-9) }'

# 6. nothing printed before an error
printf '%s\n' "$ARLAB_SRC/experiments/schedules/two-rings.json" >/dev/null
expect_error "schedule of another rank count" "the schedule has 4 ranks" -- model --platform flat:ranks=8 \
  --schedule "$ARLAB_SRC/experiments/schedules/two-rings.json" --size 1MB
t_check "schedule of another rank count: nothing on stdout" test ! -s "$T_TMP/out"
expect_error "misspelt algorithm in csv" 'did you mean "ring"' -- model --platform flat:ranks=8 --algo rng \
  --size 1MB --format csv
t_check "misspelt algorithm: no CSV header on stdout" test ! -s "$T_TMP/out"

# 7. help
expect_ok "compare --help" -- compare --help
t_check "compare's usage names --measured and --plot" bash -c "grep -q -- '--measured' '$T_TMP/out' && grep -q -- '--plot' '$T_TMP/out'"
expect_ok "sim --help" -- sim --help
for opt in --chunks --coll --model-only --digits --brief; do
  t_check "sim's usage names $opt" bash -c "sed -n '1,/^[A-Z]/p' '$T_TMP/out' | grep -q -- '$opt'"
done
expect_error "arlab hlep" 'did you mean "help"' -- hlep

# 8. a user's own sweep and its report: no paper boilerplate
cat >mine.json <<'EOF'
{"name": "mine", "platforms": ["flat:ranks=4"], "algos": ["ring"], "sizes": ["1MB"], "backend": "model"}
EOF
if expect_ok "sweep" -- sweep mine.json --out res --quiet && expect_ok "report" -- report res; then
  t_check "the report of a user's sweep has no 'Source: -.' nor paper boilerplate" \
    bash -c "! grep -Eq 'Source: -\.|Fig\. 6 cluster sizes' res/report.md"
fi

# 9. one format per column in compare's table
expect_ok "compare --measured" -- compare --measured "$ARLAB_SRC/tests/data/nccltests/h100_1node_allreduce.txt" \
  --platform dgx-h100 --algo nccl
t_check "compare's table prints times with units, no exponents" \
  bash -c "grep -q 'µs' '$T_TMP/out' && ! grep -Eq '[0-9]e-[0-9]' '$T_TMP/out'"

# 10. the main job: what applies, NCCL's model on the papers' presets, one footer for the rest
expect_ok "main job's model" -- model --platform blueconnect-12 --platform blueconnect-192 --size 100MB --algo all
cp "$T_TMP/out" main.txt
t_check "no unsupported row in the table" bash -c "! grep -q 'unsupported' main.txt"
t_check "one footer line per platform for what does not apply" \
  test "$(grep -c '^not applicable on blueconnect-1[29]*2*:' main.txt)" = 2
t_check "NCCL's choice is known on the P100 presets (no ?/?)" bash -c "! grep -q '?/?' main.txt"
expect_ok "main job's model, csv" -- model --platform blueconnect-12 --platform blueconnect-192 --size 100MB \
  --algo all --format csv
csv_col "$T_TMP/out" nccl_model_s >nccl_s.txt
t_check "NCCL's model applies on the P100 presets (nccl_model_s on all $(wc -l <nccl_s.txt) rows)" \
  bash -c "test -s nccl_s.txt && ! grep -qv '^[0-9]' nccl_s.txt"
expect_ok "main job's simulation" -- sim --platform dgx-h100 --size 100MB --algo all --brief
t_check "the simulation table fits 100 columns" bash -c "awk 'length(\$0) > 100 && !/^not applicable/ { bad = 1 } END { exit bad }' '$T_TMP/out'"
t_done
