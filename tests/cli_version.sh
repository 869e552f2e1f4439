#!/bin/bash
# `arlab --version` names the version, the git commit at configure time and
# every backend with whether this build has it; a misspelt verb gets one line
# with the closest verb ("did you mean") and exit status 2 (bad input).
. "$ARLAB_SRC/tests/lib_cli.sh"

if expect_ok "arlab --version" -- --version; then
  cat "$T_TMP/out"
  t_check "first line is 'arlab VERSION'" grep -qE '^arlab [0-9]+\.[0-9]+\.[0-9]+$' <(head -1 "$T_TMP/out")
  t_check "names the commit (hex, or unknown outside git)" grep -qE '^commit ([0-9a-f]{7,}(-dirty)?|unknown);' "$T_TMP/out"
  for b in model sim real nccl mpi/testbed; do
    t_check "lists backend $b as built or not" grep -qE "[ ,]$b \((arlab-mpi )?(built|not built)" "$T_TMP/out"
  done
fi

misspelt() { # misspelt WORD WANT ("" = no suggestion)
  "$ARLAB" "$1" >"$T_TMP/o" 2>"$T_TMP/e"
  local rc=$?
  t_check "arlab $1: exit 2 (got $rc)" test "$rc" = 2
  t_check "arlab $1: one line on stderr" test "$(wc -l <"$T_TMP/e")" = 1
  if [ -n "$2" ]; then
    t_check "arlab $1 suggests $2" grep -qF "did you mean \"$2\"?" "$T_TMP/e"
  else
    t_check "arlab $1 suggests nothing" sh -c "! grep -q 'did you mean' '$T_TMP/e'"
  fi
}
misspelt simm sim
misspelt modle model
misspelt sweeep sweep
misspelt xyzzy ""
t_done
