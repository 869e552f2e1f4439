# Helpers for tests/cli_*.sh (sourced; named lib_* so the cli_*.sh test glob skips it). ARLAB is the arlab binary, ARLAB_SRC the source tree.
set -u
: "${ARLAB:?set ARLAB to the arlab binary}"
: "${ARLAB_SRC:?set ARLAB_SRC to the source dir}"
T_PASS=0
T_FAIL=0
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT

t_bad() { printf 'FAIL: %s\n' "$*" >&2; T_FAIL=$((T_FAIL + 1)); }
t_good() { T_PASS=$((T_PASS + 1)); }

# expect_error DESC NEEDLE -- ARGS...: exit status 1..127, exactly one stderr line containing NEEDLE.
expect_error() {
  local desc=$1 needle=$2
  shift 3
  "$ARLAB" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
  local rc=$? lines
  lines=$(wc -l <"$T_TMP/err")
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then t_bad "$desc: exit status $rc (want 1..127)"; return; fi
  if [ "$lines" -ne 1 ]; then t_bad "$desc: $lines stderr lines: $(head -c 600 "$T_TMP/err")"; return; fi
  if ! grep -qF -- "$needle" "$T_TMP/err"; then t_bad "$desc: stderr \"$(cat "$T_TMP/err")\" lacks \"$needle\""; return; fi
  t_good
}

# expect_ok DESC -- ARGS...: exit status 0; stdout saved in $T_TMP/out.
expect_ok() {
  local desc=$1
  shift 2
  "$ARLAB" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
  local rc=$?
  if [ "$rc" -ne 0 ]; then t_bad "$desc: exit status $rc: $(head -c 600 "$T_TMP/err")"; return 1; fi
  t_good
}

t_check() { # t_check DESC CONDITION-COMMAND...
  local desc=$1
  shift
  if "$@"; then t_good; else t_bad "$desc"; fi
}

t_done() {
  echo "$(basename "$0"): $T_PASS passed, $T_FAIL failed"
  [ "$T_FAIL" -eq 0 ]
}

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
