#!/bin/bash
# `arlab --version` names the version, the git commit at configure time and
# every backend with whether this build has it; a misspelt verb, preset,
# family or algorithm gets one line with the closest name ("did you mean") and
# exit status 2 (bad input); nothing is suggested when nothing is near.
. "$ARLAB_SRC/tests/lib_cli.sh"

if expect_ok "arlab --version" -- --version; then
  cat "$T_TMP/out"
  t_check "first line is 'arlab VERSION'" grep -qE '^arlab [0-9]+\.[0-9]+\.[0-9]+$' <(head -1 "$T_TMP/out")
  t_check "names the commit (hex, or unknown outside git)" grep -qE '^commit ([0-9a-f]{7,}(-dirty)?|unknown);' "$T_TMP/out"
  for b in model sim real nccl mpi/testbed; do
    t_check "lists backend $b as built or not" grep -qE "[ ,]$b \((arlab-mpi )?(built|not built)" "$T_TMP/out"
  done
  # with the SimGrid backend, its version, whether SimGrid 3.32's completion scan is off the path, and how a
  # protocol's rate bound is put on a flow (its own max-min bound, or a pool link: sim/README.md)
  if grep -qE '[ ,]sim \(built' "$T_TMP/out"; then
    t_check "says SimGrid's version and the completion-scan fix" grep -qE '^sim: SimGrid [0-9]+\.[0-9]+\.[0-9]+, completion-scan fix (on|off)' "$T_TMP/out"
    t_check "says how a rate bound is set" grep -qE '^sim: SimGrid .*, rate bound (per flow|pool link) \(' "$T_TMP/out"
  fi
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

# presets, families and algorithms: the same one line, exit 2
near() { # near DESC WANT ARGS...
  local desc=$1 want=$2
  shift 2
  "$ARLAB" "$@" >"$T_TMP/o" 2>"$T_TMP/e"
  local rc=$?
  t_check "$desc: exit 2 (got $rc)" test "$rc" = 2
  if [ -n "$want" ]; then
    t_check "$desc suggests $want: $(cat "$T_TMP/e")" grep -qF "did you mean \"$want\"?" "$T_TMP/e"
  else
    t_check "$desc suggests nothing: $(cat "$T_TMP/e")" sh -c "! grep -q 'did you mean' '$T_TMP/e'"
  fi
}
near "preset dgx-h10" dgx-h100 model --platform dgx-h10 --size 1MB
near "family fat-tre" fat-tree model --platform fat-tre --size 1MB
near "platform nosuchthing" "" model --platform nosuchthing --size 1MB
near "algorithm rng" ring model --platform dgx-h100 --algo rng --size 1MB
near "algorithm blueconect" blueconnect plan --platform dgx-h100 --algo blueconect
near "parameter decmp" decomp model --platform blueconnect-12 --algo blueconnect:decmp=3x4 --size 1MB
near "algorithm zzzzzz" "" model --platform dgx-h100 --algo zzzzzz --size 1MB
t_done
