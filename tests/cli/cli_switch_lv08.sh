#!/bin/bash
# Switch ops (nvls, nvlstree, collnet) under SimGrid's LV08 model on the fast engine. LV08 has
# cross-traffic: every transfer also loads its route's reverse direction, and for a transfer to or
# from a switch that reverse route starts or ends at the switch (it used to be asked of the
# rank-only router and failed with "route -18->0"). Each run must finish with every rank's buffer
# exact, cost more than under CM02 (LV08: latency x13.01, bandwidth x0.97), and on one node agree
# with SimGrid's own LV08 (the naive engine, where SimGrid routes the cross-traffic) within 10 %.
. "$ARLAB_SRC/tests/lib_cli.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d < t) }'; }
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a ~ /^[0-9.eE+-]+$/ && b ~ /^[0-9.eE+-]+$/ && a > b) }'; }

plat=dgx-h100:nodes=2,sharp=400Gbps
for a in nvls nvlstree collnet; do
  if expect_ok "$a LV08 on $plat" -- sim --platform "$plat" --algo "$a" --size 16MB --network LV08 --check --format csv; then
    read -r lv st ck < <(csv_col "$T_TMP/out" sim_s status check | tr '\t' ' ')
    if expect_ok "$a CM02 on $plat" -- sim --platform "$plat" --algo "$a" --size 16MB --format csv; then
      cm=$(csv_col "$T_TMP/out" sim_s)
      echo "$a $plat 16 MB: LV08 $lv s, CM02 $cm s ($st, check $ck)"
      t_check "$a LV08 status ok ($st)" test "$st" = ok
      t_check "$a LV08 buffers exact ($ck)" test "$ck" = exact
      t_check "$a LV08 $lv above CM02 $cm" above "$lv" "$cm"
    fi
  fi
done
if expect_ok "nvls LV08 fast on dgx-h100" -- sim --platform dgx-h100 --algo nvls --size 64MB --network LV08 --format csv; then
  fast=$(csv_col "$T_TMP/out" sim_s)
  if expect_ok "nvls LV08 naive on dgx-h100" -- sim --platform dgx-h100 --algo nvls --size 64MB --network LV08 --engine naive --format csv; then
    naive=$(csv_col "$T_TMP/out" sim_s)
    echo "nvls dgx-h100 64 MB LV08: fast $fast s, naive (SimGrid) $naive s"
    t_check "fast $fast within 10 % of SimGrid's $naive" close "$fast" "$naive" 0.10
  fi
fi
t_done
