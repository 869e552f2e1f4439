#!/bin/bash
# arlab best: --top N, --per-algo, equal times get equal ranks (competition ranking,
# ties within 1e-12 relative), nccl-tests' algbw/busbw of walk_s, and NCCL's own choice beside it
# (vs_nccl = nccl_model_s / walk_s). Columns read by name.
#   fr-5, 100 MB: the ring and BlueConnect (which falls back to the one-level ring there) both take
#   2(P-1)/P x S / 1.25 GB/s + latency = 0.128096 s: ranks 4, 4, then 6.
. "$ARLAB_SRC/tests/lib_cli.sh"

if expect_ok "best --per-algo on fr-5" -- best --platform fr-5 --size 100MB --per-algo --format csv; then
  cp "$T_TMP/out" "$T_TMP/pa.csv"
  n=$(csv_col "$T_TMP/pa.csv" algo | wc -l); u=$(csv_col "$T_TMP/pa.csv" algo | sort -u | wc -l)
  t_check "one row per algorithm ($n rows, $u algorithms)" test "$n" = "$u" -a "$n" -ge 8
  ranks=$(csv_col "$T_TMP/pa.csv" algo rank | awk -F'\t' '$1 == "ring" || $1 == "blueconnect" { printf "%s=%s ", $1, $2 }')
  t_check "ring and blueconnect (equal times) share a rank ($ranks)" \
    awk -v r="$ranks" 'BEGIN { split(r, a, /[= ]/); exit !(a[2] == a[4] && a[2] > 0) }'
  t_check "competition ranking: each rank = 1 + the rows strictly faster (1e-12)" python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["rank"] not in ("", "-")]
t = [float(r["walk_s"]) for r in rows]
ok = all(int(r["rank"]) == 1 + sum(1 for u in t if u < ti * (1 - 1e-12)) for r, ti in zip(rows, t))
sys.exit(not (ok and len(rows) >= 8))' "$T_TMP/pa.csv"
  t_check "busbw = algbw x 2(n-1)/n on every row (1e-12)" awk -F'\t' '{ n++; b = $1 * 2 * 4 / 5; d = b - $2;
    if (d < 0) d = -d; if (d > 1e-12 * b) bad++ } END { exit !(n >= 8 && bad == 0) }' < <(csv_col "$T_TMP/pa.csv" algbw_GBps busbw_GBps)
  t_check "algbw = bytes / walk_s (1e-12)" awk -F'\t' '{ n++; a = 1e8 / $2 / 1e9; d = a - $1; if (d < 0) d = -d;
    if (d > 1e-12 * a) bad++ } END { exit !(n >= 8 && bad == 0) }' < <(csv_col "$T_TMP/pa.csv" algbw_GBps walk_s)
fi
if expect_ok "best --top 3" -- best --platform blueconnect-12 --size 100MB --top 3 --format csv; then
  t_check "three rows" test "$(csv_col "$T_TMP/out" rank | wc -l)" = 3
fi
if expect_ok "best on dgx-h100:nodes=2 names NCCL's choice" -- best --platform dgx-h100:nodes=2 --size 1GB --top 4; then
  t_check "the line naming NCCL's choice and the best schedule" grep -q "^NCCL's tuner would run NVLS_TREE/SIMPLE: .* The best arlab schedule, " "$T_TMP/out"
fi
if expect_ok "best csv on dgx-h100" -- best --platform dgx-h100 --size 1GB --format csv; then
  t_check "vs_nccl = nccl_model_s / walk_s on every row (1e-3, printed to 4 digits)" awk -F'\t' '$1 != "" { n++; v = $2 / $3;
    d = (v - $1) / v; if (d < 0) d = -d; if (d > 1e-3) bad++ } END { exit !(n >= 5 && bad == 0) }' \
    < <(csv_col "$T_TMP/out" vs_nccl nccl_model_s walk_s)
fi
expect_error "--top 0" "--top: give a number of rows >= 1" -- best --platform fr-5 --size 1MB --top 0
t_done
