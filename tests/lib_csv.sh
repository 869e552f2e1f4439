# CSV helpers for tests/cli/cli_*.sh (sourced; named lib_* so the cli_*.sh test glob skips it).
# csv_col FILE NAME [NAME...]: the named columns of a CSV with a header line
# (quoted fields handled), one row per line, tab-separated. Columns are found
# by NAME, never by position; an unknown name fails the call (exit 2).
csv_col() {
  python3 - "$@" <<'PY'
import csv, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
path, names = sys.argv[1], sys.argv[2:]
with open(path, newline='') as f:
    rows = list(csv.reader(f))
if not rows:
    sys.exit(2)
head = rows[0]
missing = [n for n in names if n not in head]
if missing:
    print("csv_col: %s has no column %s" % (path, ", ".join(missing)), file=sys.stderr)
    sys.exit(2)
idx = [head.index(n) for n in names]
for r in rows[1:]:
    print("\t".join(r[i] if i < len(r) else "" for i in idx))
PY
}
