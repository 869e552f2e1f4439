#!/bin/bash
# One sweep per --out: a second run of the same sweep on the same directory is refused
# with the first one's pid (before, each deleted the other's part files); a directory arlab cannot
# write in is found before any point runs (exit 4), with or without -j. A different sweep may
# share the directory (part files and the lock are per sweep name). No lock file outlives its run
# (normal end, SIGTERM); one left by a killed run (dead pid) is taken over or removed.
. "$ARLAB_SRC/tests/lib_cli.sh"

cd "$T_TMP" || exit 1
cat >slow.json <<'JSON'
{"name": "slow", "backend": "model", "platforms": ["tree:ranks=4096"], "algos": ["ring"],
 "sizes": ["1MB", "100MB"]}
JSON
cat >fast.json <<'JSON'
{"name": "fast", "backend": "model", "platforms": ["fr-5"], "algos": ["ring"], "sizes": ["1MB"]}
JSON
"$ARLAB" sweep slow.json --out o --quiet &
pid=$!
for _ in $(seq 100); do [ -s o/.slow.lock ] && break; sleep 0.05; done
expect_error "the same sweep on the same --out" "sweep \"slow\" is already running there (pid $pid)" -- sweep slow.json --out o
expect_ok "another sweep may share the directory" -- sweep fast.json --out o --quiet
t_check "its rows written" test -s o/fast.csv
wait $pid
t_check "the first run completes (exit $?)" test $? = 0
t_check "and leaves no lock file" test ! -e o/.slow.lock
expect_ok "after it, the same sweep runs (resumes)" -- sweep slow.json --out o --quiet

# lock files are never left behind: SIGTERM removes it; after SIGKILL (no handler runs) it stays with
# a dead pid and no flock, and the next sweep takes it over, or the next report removes it
for sig in TERM KILL; do
  rm -rf o2
  "$ARLAB" sweep slow.json --out o2 --quiet &
  pid=$!
  for _ in $(seq 100); do [ -s o2/.slow.lock ] && break; sleep 0.05; done
  kill -$sig $pid
  wait $pid
  rc=$?
  if [ $sig = TERM ]; then
    t_check "SIGTERM (exit $rc): no lock file left" test ! -e o2/.slow.lock
  else
    t_check "SIGKILL (exit $rc): the lock file stays, with the dead pid" grep -qx "$pid" o2/.slow.lock
    expect_ok "a lock with a dead pid does not block the next sweep" -- sweep slow.json --out o2 --quiet
    t_check "which removes it when it ends" test ! -e o2/.slow.lock
  fi
done
bash -c 'exit 0' &
dead=$!
wait $dead
echo $dead >o/.fast.lock
expect_ok "report on a directory with a stale lock" -- report o
t_check "the report removes the stale lock" test ! -e o/.fast.lock
echo $dead >o/.fast.lock
expect_ok "a sweep with a stale lock runs" -- sweep fast.json --out o --quiet
t_check "and removes it" test ! -e o/.fast.lock

# a directory the user cannot write in: refused before any point runs (exit 4)
mkdir -p ro && chmod 755 "$T_TMP" ro
for j in 1 2; do
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ARLAB" sweep "$T_TMP/fast.json" -j $j --out "$T_TMP/ro" \
    >out.txt 2>err.txt
  rc=$?
  t_check "unwritable --out, -j $j: exit 4 ($rc: $(cat err.txt))" test $rc = 4
  t_check "unwritable --out, -j $j: one line naming the directory" grep -q "ro: cannot write in this directory" err.txt
  t_check "unwritable --out, -j $j: nothing ran" bash -c "! grep -q 'points' err.txt"
done
t_done
