#!/bin/bash
# `arlab report` on a user's own sweeps (no "figures" in the sweep file):
# 1. on the directory of an interrupted sweep: one line naming its part files, the points done and
#    the exact command that resumes it (exit 2), and that command does resume it;
# 2. the report says only what applies to the sweep (file, platforms, algorithms, sizes, provenance):
#    no "Source: -." and none of the papers' boilerplate;
# 3. the default figure: 800 px wide, 14 px text, engineering tick labels (1 KB, 10 MB, 100 µs,
#    10 ms) on both log axes, whose ranges bracket the data by less than a decade.
. "$ARLAB_SRC/tests/lib_cli.sh"
cd "$T_TMP" || exit 1

# 1. interrupted: SIGTERM once a point is in a part file (each point of tree:ranks=4096 takes ~1 s)
cat >intr.json <<'JSON'
{"name": "intr", "backend": "model", "platforms": ["tree:ranks=4096"], "algos": ["ring"],
 "sizes": ["1MB", "10MB", "100MB", "1GB", "2GB", "4GB"]}
JSON
"$ARLAB" sweep intr.json -j 2 --out oi --quiet &
pid=$!
for _ in $(seq 600); do cat oi/.intr.part* 2>/dev/null | grep -q . && break; sleep 0.1; done
kill -TERM $pid
wait $pid
t_check "the sweep was interrupted (exit $?)" test $? = 143
ls -a oi >ls.txt
t_check "part files left: $(tr '\n' ' ' <ls.txt)" grep -q '^\.intr\.part' ls.txt
"$ARLAB" report oi >out.txt 2>err.txt
rc=$?
echo "report: exit $rc: $(cat err.txt)"
t_check "interrupted sweep only: exit 2 ($rc)" test $rc = 2
t_check "one line" test "$(wc -l <err.txt)" = 1
t_check "it says the sweep was interrupted, with the points done" \
  grep -Eq '^arlab: oi: sweep "intr" was interrupted: [1-5] of 6 points done, kept in oi/\.intr\.part' err.txt
t_check "it gives the command that resumes it" \
  grep -q '; resume it with: arlab sweep intr.json -j 2 --out oi --quiet$' err.txt
t_check "no pointer to make_figures.sh" bash -c "! grep -q make_figures err.txt"
t_check "no report written" test ! -e oi/report.md
(cd / && "$ARLAB" report "$T_TMP/oi") 2>err2.txt
t_check "from another directory: cd to where it ran ($(cat err2.txt))" \
  grep -q "; resume it with: cd $T_TMP && arlab sweep intr.json -j 2 --out oi --quiet$" err2.txt
cmd=$(sed 's/.*; resume it with: //' err.txt)
arlab() { "$ARLAB" "$@"; }
eval "$cmd" 2>resume.txt
t_check "the command given resumes it (exit $?: $(cat resume.txt))" test "$(csv_col oi/intr.csv algo | wc -l)" = 6
expect_ok "then the report is built" -- report oi
t_check "and says nothing of an unfinished sweep" bash -c "! grep -q 'nfinished' oi/report.md '$T_TMP/err'"
t_check "no part file, run note or lock left" test -z "$(ls -a oi | grep '^\.intr\.')"

# 2. a user's own sweep: what applies to it, and nothing of the papers
cat >mine.json <<'JSON'
{"name": "mine", "backend": "model", "platforms": ["tree:ranks=16", "flat:ranks=4"],
 "algos": ["ring", "halving-doubling"], "sizes": ["1KB", "1MB", "100MB"]}
JSON
expect_ok "own sweep runs" -- sweep mine.json --out om --quiet
expect_ok "own sweep: report" -- report om
md=om/report.md
t_check "no \"Source: -.\"" bash -c "! grep -q 'Source:' $md"
t_check "no BlueConnect boilerplate" bash -c "! grep -q 'BlueConnect' $md"
t_check "no papers" bash -c "! grep -qi 'paper' $md"
t_check "provenance: file, version, commit, rows" grep -Eq '^Sweep mine \(mine.json\), arlab [^ ]+, commit [^ ]+; 12 rows\.$' $md
t_check "what it ran" grep -qx 'Platforms: tree:ranks=16, flat:ranks=4. Algorithms: ring, halving-doubling. Sizes: 1 KB, 1 MB, 100 MB.' $md
t_check "generated platforms, neutrally" grep -q 'Generated platforms carry their parameters in their spec\.' $md

# 2b. an unfinished sweep beside a finished one: the report is built, with a note and how to resume
printf '0\t%s\n' "$(sed -n 2p oi/intr.csv)" >om/.intr.part1-0 # a row as a part file holds it
"$ARLAB" report om >out.txt 2>err.txt
t_check "beside a finished sweep: exit 0 ($?)" test $? = 0
t_check "a note on stderr ($(cat err.txt))" \
  grep -q '^arlab report: note: om: sweep "intr" was interrupted: 1 point done, kept in om/\.intr\.part1-0' err.txt
t_check "and in the report" grep -q '^\*\*Unfinished:\*\* om: sweep "intr" was interrupted' $md
rm -f om/.intr.part1-0

# 3. the default figure and its script
if ! command -v gnuplot >/dev/null; then
  t_done || exit 1
  echo "SKIP: gnuplot not installed: the default figure was not checked"
  exit 77
fi
svg=om/fig/mine-default.svg
gp=om/fig/mine-default.gp
t_check "the SVG is 800 px wide" grep -q 'width="800"' $svg
sizes=$(grep -o 'font-size="[0-9.]*"' $svg | grep -o '[0-9.]*' | sort -n | uniq | tr '\n' ' ')
t_check "text of 13 px and more, ticks 14 px (font sizes: $sizes)" \
  awk -v s="$sizes" 'BEGIN { n = split(s, a, " "); exit !(n > 0 && a[1] >= 13 && index(" " s, " 14.00 ")) }'
for lab in "1 KB" "10 KB" "100 KB" "1 MB" "10 MB" "100 MB" "10 µs" "100 µs" "1 ms" "10 ms" "100 ms"; do
  t_check "tick label \"$lab\" in the SVG" grep -q ">$lab</tspan>" $svg
done
t_check "no tick label without a unit (100000, 1x10^6, 0.000010)" bash -c "! grep -Eq '> *([0-9.]+|1x10)</tspan>' $svg"
t_check "the script is kept" grep -q "^set xtics ('1 KB' 1e3 0, '10 KB' 1e4 0" $gp
# ranges: data 1 KB .. 100 MB; the axis ends less than a decade beyond the data on each side
read -r x0 x1 < <(grep -m1 '^set xrange' $gp | tr -d '[]' | awk -F'[ :]' '{print $3, $4}')
t_check "x range $x0..$x1 brackets 1e3..1e8 within a decade" \
  awk -v a="$x0" -v b="$x1" 'BEGIN { exit !(a <= 1e3 && a > 1e2 && b >= 1e8 && b < 1e9) }'
grep '^set yrange' $gp | tr -d '[]' | awk -F'[ :]' '{print $3, $4}' >yr.txt
csv_col om/mine.csv platform time_s | awk -F'\t' '$1 == "tree:ranks=16" { print $2 }' | sort -g >t16.txt
read -r y0 y1 < <(head -1 yr.txt)
t_check "y range $y0..$y1 brackets tree:ranks=16's times within a decade" \
  awk -v a="$y0" -v b="$y1" -v lo="$(head -1 t16.txt)" -v hi="$(tail -1 t16.txt)" \
  'BEGIN { exit !(a <= lo && a > lo / 10 && b >= hi && b < hi * 10) }'
t_done
