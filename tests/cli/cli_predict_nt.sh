#!/usr/bin/env bash
# `model|sim --format nccl-tests`: arlab's prediction in nccl-tests' own table, one document per
# platform and algorithm, that arlab's own nccl-tests reader reads back to the printed digits.
. "$(dirname "$0")/../lib_cli.sh"
cd "$T_TMP" || exit 1
if expect_ok "model --format nccl-tests" -- model --platform dgx-h100:nodes=2 --algo nccl,ring -b 1M -e 1G -f 4 \
  --format nccl-tests; then
  cp "$T_TMP/out" pred.txt
  t_check "two documents (nccl, ring)" test "$(grep -c '^# Collective test starting: all_reduce_perf' pred.txt)" = 2
  t_check "sixteen device lines each" test "$(grep -c '^#  Rank ' pred.txt)" = 32
  t_check "six sizes each (1 MB .. 1 GB, x4)" test "$(grep -cE '^ +[0-9]+ +[0-9]+ +float +sum' pred.txt)" = 12
  # the nccl document alone, read back by compare: its times equal the model's (nccl-tests prints 4 digits)
  awk '/^# arlab model: the prediction of nccl /{on=1} /^# arlab model: the prediction of ring /{on=0} on' pred.txt >nccl.txt
  if expect_ok "compare reads it back" -- compare --measured nccl.txt --platform dgx-h100:nodes=2 --algo nccl \
    --format csv; then
    t_check "six sizes read back" test "$(csv_col "$T_TMP/out" bytes | wc -l)" = 6
    t_check "the measured times are the model's to 1e-3" \
      bash -c "python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if rows and all(abs(float(r[\"model_s\"]) / float(r[\"nccl_s\"]) - 1) < 1e-3 for r in rows) else 1)' '$T_TMP/out'"
  fi
fi
expect_ok "compare's default algorithms" -- compare --measured nccl.txt --platform dgx-h100:nodes=2 --format csv
t_check "compare defaults to NCCL's choice and NCCL's algorithms" \
  test "$(csv_col "$T_TMP/out" algo | sort -u | tr '\n' ' ')" = "nccl nccl-ring nccl-tree nvls nvlstree "
expect_ok "all-gather" -- model --platform dgx-h100 --algo ring --coll allgather --size 64MB --format nccl-tests
t_check "all-gather names all_gather_perf" grep -q '^# Collective test starting: all_gather_perf' "$T_TMP/out"
if expect_ok "sim --format nccl-tests" -- sim --platform dgx-h100 --algo nccl -b 1M -e 64M -f 8 --format nccl-tests; then
  t_check "sim: one document of three sizes" test "$(grep -cE '^ +[0-9]+ +[0-9]+ +float +sum' "$T_TMP/out")" = 3
  t_check "sim: nothing but the document (comments, rows, blank lines)" \
    bash -c "! grep -vqE '^(#| +[0-9]+ +[0-9]+ +float|\$)' '$T_TMP/out'"
fi
t_done
