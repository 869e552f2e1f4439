#!/bin/bash
# Routes size themselves: on a 600-GPU chain graph the ring's last
# transfer (rank 599 -> 0) crosses 599 links, more than any fixed route buffer
# arlab used to keep (the cost walk's held 512 and exited 6). `arlab model` and
# `arlab sim` must both succeed, and the simulated time must equal the cost
# walk's to 1e-9 (a ring on a chain: one flow per link per round). Columns are
# read by name.
. "$ARLAB_SRC/tests/lib_cli.sh"

n=600
walk=
{
  printf '{"name":"chain-%d","kind":"graph","gpus":%d,"links":[' "$n" "$n"
  for ((i = 0; i < n - 1; i++)); do
    [ "$i" -gt 0 ] && printf ','
    printf '{"a":"gpu%d","b":"gpu%d","bw":"10GBps","lat":"1us"}' "$i" $((i + 1))
  done
  printf ']}\n'
} >"$T_TMP/chain.json"

# col NAME FILE: column NAME of the first data row
col() { awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print (n in c) ? $(c[n]) : "missing"; exit }' "$2"; }
# rel A B: |A - B| / |B| < 1e-9 (and both numbers)
close9() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }'; }

if expect_ok "model --algo ring on a 600-GPU chain" -- model --platform "$T_TMP/chain.json" --algo ring --size 100MB --format csv; then
  cp "$T_TMP/out" "$T_TMP/model.csv"
  walk=$(col walk_s "$T_TMP/model.csv")
  closed=$(col closed_s "$T_TMP/model.csv")
  echo "model: walk_s=$walk closed_s=$closed"
  t_check "model: walk_s $walk is a number and equals closed_s $closed to 1e-9" close9 "$walk" "$closed"
fi

"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
  echo "SimGrid backend not built: model only"
else
  if expect_ok "sim --algo ring on a 600-GPU chain" -- sim --platform "$T_TMP/chain.json" --algo ring --size 100MB --format csv; then
    sim=$(col sim_s "$T_TMP/out")
    echo "sim:   sim_s=$sim (walk_s=${walk:-?})"
    t_check "sim_s $sim equals the walk's $walk to 1e-9" close9 "$sim" "${walk:-x}"
    t_check "sim completed" test "$(col complete "$T_TMP/out")" = 1
  fi
fi
t_done
