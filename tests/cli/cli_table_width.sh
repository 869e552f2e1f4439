#!/bin/bash
# The human tables cut cells only on a terminal: a pipe or a file gets every cell whole (as git, ls and
# kubectl do), whatever $COLUMNS says; on an 80-column terminal (a pseudo-terminal, tests/lib_pty.py) cells
# are cut with "~" but the rows stay distinct and the row's name (the first named text column) stays whole.
. "$ARLAB_SRC/tests/lib_cli.sh"
PTY="python3 $ARLAB_SRC/tests/lib_pty.py --no-int --cols 80 --timeout 60 --"

# whole: every cell of the CSV appears whole in the table (text cells; numbers have their own format)
whole() { # whole DESC TABLE CSV COLUMN...
  local desc=$1 table=$2 csv=$3
  shift 3
  local miss
  miss=$(python3 - "$table" "$csv" "$@" <<'PY'
import csv, sys
table = open(sys.argv[1], encoding="utf-8").read()
rows = list(csv.DictReader(l for l in open(sys.argv[2], encoding="utf-8") if not l.startswith("#")))
miss = [r[c] for r in rows for c in sys.argv[3:] if r[c] and r[c] not in table]
print(len(rows) if not miss else "missing: " + " | ".join(miss[:3]))
PY
)
  t_check "$desc: every cell whole ($miss)" test "${miss#missing}" = "$miss" -a "${miss:-0}" != 0
}

for cols in "" 80; do
  env ${cols:+COLUMNS=$cols} "$ARLAB" algos >"$T_TMP/t" 2>&1
  "$ARLAB" algos --format csv >"$T_TMP/c"
  whole "algos | cat${cols:+ (COLUMNS=$cols)}" "$T_TMP/t" "$T_TMP/c" name label params summary collectives
  t_check "algos | cat${cols:+ (COLUMNS=$cols)}: no cell cut" bash -c "! grep -q '~' '$T_TMP/t'"
  env ${cols:+COLUMNS=$cols} "$ARLAB" platforms >"$T_TMP/t" 2>&1
  "$ARLAB" platforms --format csv >"$T_TMP/c"
  whole "platforms | cat${cols:+ (COLUMNS=$cols)}" "$T_TMP/t" "$T_TMP/c" name description
done
"$ARLAB" best --platform dgx-h100:nodes=2 --size 100MB >"$T_TMP/t" 2>&1
"$ARLAB" best --platform dgx-h100:nodes=2 --size 100MB --top 30 --format csv >"$T_TMP/c"
whole "best | cat" "$T_TMP/t" "$T_TMP/c" algo params slowest
"$ARLAB" model --platform dgx-h100:nodes=2 --size 100MB >"$T_TMP/t" 2>&1
t_check "model | cat: collnet's reason whole" grep -q "collnet (has no reducing rail switch for GPU 0 of every node)" "$T_TMP/t"

# on an 80-column terminal: cut, but the rows are told apart and their names whole
table_rows() { # table_rows FILE HEADER-START END-PATTERN: the table's rows (CR removed)
  tr -d '\r' <"$1" | awk -v h="$2" -v e="$3" 'index($0, h) == 1 { on = 1; next } on && ($0 == "" || $0 ~ e) { exit } on'
}
$PTY "$ARLAB" best --platform dgx-h100:nodes=2 --size 100MB >"$T_TMP/p" 2>&1
table_rows "$T_TMP/p" "rank  algo" '^\.\.\.' | sed 's/^ *[0-9]* *//' >"$T_TMP/rows"
n=$(wc -l <"$T_TMP/rows")
d=$(sort -u "$T_TMP/rows" | wc -l)
t_check "best on 80 columns: 30 rows ($n)" test "$n" -eq 30
t_check "best on 80 columns: cells are cut" grep -q '~' "$T_TMP/rows"
t_check "best on 80 columns: every row distinct ($d of $n)" test "$d" -eq "$n"
t_check "best on 80 columns: algorithm names whole" bash -c "! grep -q '^[a-z-]*~' '$T_TMP/rows'"
$PTY "$ARLAB" algos >"$T_TMP/p" 2>&1
table_rows "$T_TMP/p" "name " '^$' >"$T_TMP/rows"
n=$(wc -l <"$T_TMP/rows")
d=$(sort -u "$T_TMP/rows" | wc -l)
t_check "algos on 80 columns: cells are cut" grep -q '~' "$T_TMP/rows"
t_check "algos on 80 columns: every row distinct ($d of $n)" test "$d" -eq "$n" -a "$n" -ge 15
table_rows "$T_TMP/p" "algo  " '^$' | awk '{ print $1, $2 }' >"$T_TMP/rows"
n=$(wc -l <"$T_TMP/rows")
d=$(sort -u "$T_TMP/rows" | wc -l)
t_check "algos' parameters on 80 columns: (algo, key) distinct ($d of $n)" test "$d" -eq "$n" -a "$n" -ge 8
t_done
