#!/bin/bash
# Interrupts: Ctrl-C in a terminal, SIGTERM or SIGKILL of the parent alone end every
# process of the command (the SimGrid child, sweep workers): exit 130 / 143, one line saying
# what is kept, no "Segmentation fault" (SimGrid's own SIGINT handler never runs), finished
# rows kept, and an interrupted sweep resumes from its finished points.
# The slow case: ps (sharded) on tree:ranks=512 simulates for ~5 s, ~600 MB (on tree:ranks=256 it
# took ~40 s before the SimGrid 3.32 fix, under a second now); ring there takes ~0.1 s. The
# sweep (4.) needs ps to outlast its 3 s budget.
. "$ARLAB_SRC/tests/lib_cli.sh"

"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: skipped"
  exit 77
fi
# processes of the command still there: a SIGKILLed process may take a moment to go (an ASan build unmaps a
# large shadow), so wait up to 5 s for the count to reach 0; a real stray (SimGrid running on) stays.
# Only this test's processes count: other tests run arlab sim and sweep at the same time (ctest -j),
# so the commands here carry marks of their own (a budget no run reaches, a sweep file's name).
strays() {
  local n
  for _ in $(seq 50); do n=$(pgrep -fc "^$ARLAB $1"); [ "${n:-0}" = 0 ] && break; sleep 0.1; done
  echo "${n:-0}"
}
PTY="python3 $ARLAB_SRC/tests/lib_pty.py"
SIM=(sim --platform tree:ranks=512 --algo ring --algo ps --size 100MB --sync round --budget 987s --format csv)
MINE="sim .*--budget 987s" # this test's sim processes

# 1. Ctrl-C in a terminal once the ring row is out
$PTY --ready "ring,tree" --timeout 60 -- "$ARLAB" "${SIM[@]}" >"$T_TMP/p1" 2>&1
head -2 "$T_TMP/p1"
t_check "Ctrl-C: exit 130" grep -qx "exit 130" "$T_TMP/p1"
t_check "Ctrl-C: sent once the ring row was written" grep -qx "sent 1" "$T_TMP/p1"
t_check "Ctrl-C: one line saying what is kept" grep -q "^arlab: interrupted (SIGINT); the rows already written are complete" "$T_TMP/p1"
t_check "Ctrl-C: the ring row kept (after the status line on the terminal)" grep -q "ring,tree:ranks=512,512,100000000," "$T_TMP/p1"
t_check "Ctrl-C: no segmentation fault" bash -c "! grep -qi 'segmentation' '$T_TMP/p1'"
n=$(strays "$MINE"); t_check "Ctrl-C: no process left ($n)" test "$n" = 0

# 2. SIGTERM to the parent alone (not its group), then 3. SIGKILL to the parent alone
for sig in TERM KILL; do
  "$ARLAB" "${SIM[@]}" >"$T_TMP/s.csv" 2>"$T_TMP/s.err" &
  pid=$!
  for _ in $(seq 300); do grep -q '^ring,' "$T_TMP/s.csv" && break; sleep 0.1; done
  # ps is planned and walked before its SimGrid process starts: wait for that child (up to 60 s)
  for _ in $(seq 600); do [ -n "$(pgrep -P $pid)" ] && break; sleep 0.1; done
  kids=$(pgrep -P $pid | wc -l)
  kill -$sig $pid
  wait $pid
  rc=$?
  n=$(strays "$MINE")
  echo "SIG$sig: exit $rc, children before $kids, left $n: $(cat "$T_TMP/s.err")"
  t_check "SIG$sig: the SimGrid child ran before ($kids)" test "$kids" -ge 1
  t_check "SIG$sig: no process left ($n)" test "$n" = 0
  [ $sig = TERM ] && t_check "SIGTERM: exit 143 ($rc)" test "$rc" = 143
  [ $sig = TERM ] && t_check "SIGTERM: one line" grep -q "^arlab: interrupted (SIGTERM)" "$T_TMP/s.err"
done
pkill -KILL -f "^$ARLAB $MINE" 2>/dev/null

# 4. a sweep with 2 workers: Ctrl-C while ps runs, then the same command resumes
cat >"$T_TMP/intr-sweep.json" <<JSON
{"name": "intr", "backend": "sim", "platforms": ["tree:ranks=512"], "algos": ["ring", "ps"],
 "sizes": ["1MB", "100MB"], "sim": {"budget": "3s", "sync": "round"}}
JSON
cd "$T_TMP" || exit 1
$PTY --ready "intr [" --delay 1 --timeout 60 -- "$ARLAB" sweep intr-sweep.json -j 2 --out o >"$T_TMP/p4" 2>&1
tail -3 "$T_TMP/p4"
t_check "sweep Ctrl-C: exit 130" grep -qx "exit 130" "$T_TMP/p4"
t_check "sweep Ctrl-C: sent while ps was simulating" grep -qx "sent 1" "$T_TMP/p4"
t_check "sweep Ctrl-C: says how to resume" grep -q "run the same command again to resume" "$T_TMP/p4"
n=$(strays "sweep intr-sweep.json"); t_check "sweep Ctrl-C: no worker or SimGrid process left ($n)" test "$n" = 0
"$ARLAB" sweep intr-sweep.json -j 2 --out o >"$T_TMP/r.out" 2>"$T_TMP/r.err"
rc=$?
tail -1 "$T_TMP/r.err"
t_check "resumed sweep exits 0 ($rc)" test $rc = 0
t_check "the ps points have status budget, not error" test "$(csv_col o/intr.csv algo status | grep -c "^ps	budget$")" = 2
t_check "resumed sweep reused finished points" grep -Eq "\(([1-9][0-9]*) points run, ([1-9][0-9]*) resumed\)" "$T_TMP/r.err"
t_check "4 rows" test "$(csv_col o/intr.csv algo | wc -l)" = 4
t_done
