#!/usr/bin/env bash
# The README is the front door: at most 120 lines, the two commands first, its preset table the
# one scripts/readme_presets.sh makes from `arlab platforms`, every local link to a file that
# exists, and its quick start runs (on the tests' nccl-tests files).
. "$(dirname "$0")/../lib_cli.sh"
R="$ARLAB_SRC/README.md"
t_check "README has at most 120 lines ($(wc -l <"$R"))" test "$(wc -l <"$R")" -le 120
t_check "the first command is the main job" bash -c "sed -n 4p '$R' | grep -q '^./scripts/main.sh '"
t_check "the second command runs the tests" bash -c "sed -n 5p '$R' | grep -q '^./scripts/test.sh '"
ARLAB="$ARLAB" "$ARLAB_SRC/scripts/readme_presets.sh" >"$T_TMP/presets"
python3 - "$R" "$T_TMP/presets" >"$T_TMP/in_readme" <<'PY'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
a = s.index("\n", s.index("<!-- presets:")) + 1
print(s[a:s.index("<!-- end of presets -->")], end="")
PY
t_check "the preset table is scripts/readme_presets.sh's (run it with --write)" cmp -s "$T_TMP/presets" "$T_TMP/in_readme"
t_check "every preset is listed ($(grep -c '^| `' "$T_TMP/presets") rows)" \
  test "$(grep -c '^| `' "$T_TMP/presets")" = "$("$ARLAB" platforms --format csv | tail -n +2 | wc -l)"
for md in "$R" "$ARLAB_SRC"/docs/*.md; do
  dir=$(dirname "$md")
  for link in $(grep -o '](\([^)#]*\))' "$md" | sed 's/^](\(.*\))$/\1/' | grep -v '^https\?:'); do
    t_check "$(basename "$md"): link $link exists" test -e "$dir/$link"
  done
done
# the quick start, on the tests' nccl-tests files
D="$ARLAB_SRC/tests/data/nccltests"
expect_ok "quick start: model" -- model --platform dgx-h100 --size 1GB
expect_ok "quick start: sim" -- sim --platform dgx-h100 --size 1GB --brief
expect_ok "quick start: compare" -- compare --measured "$D/h100_1node_allreduce.txt" --platform dgx-h100
expect_ok "quick start: best" -- best --platform dgx-h100:nodes=4 --size 1GB
expect_ok "quick start: calibrate" -- calibrate --from "$D/h100_2node_ring.txt" --platform dgx-h100:nodes=2 \
  --out "$T_TMP/my.json"
t_done
