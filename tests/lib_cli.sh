# Helpers for tests/cli/cli_*.sh (sourced; named lib_* so the cli_*.sh test glob skips it). ARLAB is the arlab binary, ARLAB_SRC the source tree.
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


# csv_col FILE NAME...: columns by name (tests/lib_csv.sh)
. "$(dirname "${BASH_SOURCE[0]}")/lib_csv.sh"
