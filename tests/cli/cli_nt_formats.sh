#!/usr/bin/env bash
# The nccl-tests formats people paste (tests/data/nccltests/fmt_*.txt, written from the formats) read by
# compare and fit without edits: the rank count and collective they hold, one stderr line per fact taken from
# elsewhere than the file, #wrong rows left out with one line, the options that supply a missing fact, and the
# one-line refusals.
. "$(dirname "$0")/../lib_cli.sh"
D="$ARLAB_SRC/tests/data/nccltests"

# compare: the measured sizes of the file's rank count, NCCL's time per size
expect_ok "compare: mpirun --tag-output, 16 ranks" -- compare --measured "$D/fmt_tag_output.txt" \
    --platform dgx-h100:nodes=2 --algo ring --format csv
t_check "6 sizes of 16 ranks, nccl_s read" test "$(csv_col "$T_TMP/out" ranks nccl_s | awk -F'\t' '$1 == 16 && $2 > 0' | wc -l)" -eq 6
t_check "  nothing assumed: no stderr" test ! -s "$T_TMP/err"
# 1 MiB: in-place 52.17 us preferred
t_check "  1 MiB in place: 52.17 us" awk -F, 'NR > 1 && $4 == 1048576 { ok = ($10 - 52.17e-6)^2 < 1e-22 } END { exit !ok }' "$T_TMP/out"

expect_ok "compare: the old error column, collective from the table" -- compare \
    --measured "$D/fmt_old_error.txt" --platform p3.8xlarge --algo ring --format csv
t_check "  6 sizes of 4 ranks, none wrong" test "$(csv_col "$T_TMP/out" ranks wrong | awk -F'\t' '$1 == 4 && $2 == ""' | wc -l)" -eq 6
t_check "  one line: collective assumed" test "$(wc -l <"$T_TMP/err")" -eq 1
t_check "  ... naming the file, the line, --coll" grep -q '^arlab compare: .*fmt_old_error.txt:1: collective all_reduce assumed from the table (redop sum, no root, busbw/algbw 1.500); --coll sets it$' "$T_TMP/err"

expect_ok "compare: device list cut short: 128 ranks" -- compare --measured "$D/fmt_dev_cut.txt" \
    --platform dgx-b200:nodes=16 --algo ring --format csv
t_check "  6 sizes of 128 ranks" test "$(csv_col "$T_TMP/out" ranks | awk '$1 == 128' | wc -l)" -eq 6
t_check "  one line: 128 ranks from busbw/algbw" grep -q 'fmt_dev_cut.txt:1: 128 ranks from busbw/algbw 1.984 (all_reduce.s bus factor; the device list shows 4, cut short); --ranks sets it' "$T_TMP/err"
# a platform of another rank count is refused (not accepted as 5 ranks), naming the file's 128
"$ARLAB" compare --measured "$D/fmt_dev_cut.txt" --platform flat:ranks=5 >"$T_TMP/out" 2>"$T_TMP/err"
t_check "compare: a 5-rank platform refused" test $? -ne 0
t_check "  naming the 128 ranks of the file" grep -q '^arlab compare: no measured all-reduce of 5 ranks in the --measured files (flat:ranks=5 has 5; the files hold 128 ranks)$' "$T_TMP/err"

expect_ok "compare: the table alone, a #wrong row" -- compare --measured "$D/fmt_table_only.txt" \
    --platform dgx-h100 --algo ring --format csv
t_check "  6 sizes of 8 ranks" test "$(csv_col "$T_TMP/out" ranks | awk '$1 == 8' | wc -l)" -eq 6
t_check "  1 MiB: the wrong in-place half left out, out-of-place 60.49 us" \
    awk -F, 'NR > 1 && $4 == 1048576 { ok = ($10 - 60.49e-6)^2 < 1e-22 } END { exit !ok }' "$T_TMP/out"
t_check "  one line naming how many rows are wrong" grep -q '^arlab compare: .*fmt_table_only.txt: 1 row with #wrong > 0 (wrong results) left out$' "$T_TMP/err"
t_check "  three lines in all (collective, ranks, wrong)" test "$(wc -l <"$T_TMP/err")" -eq 3

expect_error "compare: a reduce_scatter file" "fmt_ray.txt: no all_reduce run (it holds reduce_scatter): --coll reduce_scatter compares those" \
    -- compare --measured "$D/fmt_ray.txt" --platform dgx-h100
expect_ok "compare: --coll allgather on a file that does not name its collective" \
    -- compare --measured "$D/fmt_markdown.txt" --platform dgx-a100 --coll allgather --algo nccl --format csv
t_check "its rows read as all-gather, NCCL's all-gather model beside them" awk -F'\t' '$1 > 0 && $2 > 0 { n++ } END { exit !(n == 6) }' \
    <(csv_col "$T_TMP/out" nccl_s nccl_model_s)
expect_error "compare: --coll reduce refused" "--coll reduce: arlab models all-reduce, all-gather and reduce-scatter (--coll allreduce, allgather or reducescatter); its runs cannot be compared" \
    -- compare --measured "$D/fmt_tag_output.txt" --platform dgx-h100:nodes=2 --coll reduce
expect_error "compare: a collective nothing tells" 'fmt_no_coll.txt:1: the collective is not named in the file (no "# Collective test starting" line, no *_perf command) and its table does not tell it; give --coll allreduce|allgather|reducescatter|broadcast|reduce|alltoall' \
    -- compare --measured "$D/fmt_no_coll.txt" --platform dgx-a100
expect_error "compare: a bad --coll" '--coll: "allsum" is not one of allreduce|allgather|reducescatter|broadcast|reduce|alltoall' \
    -- compare --measured "$D/fmt_no_coll.txt" --platform dgx-a100 --coll allsum

# fit: the collective it holds, --coll for what the file does not name, refusals
expect_ok "fit: markdown copy (no '#', indented, fenced, no footer), all_gather" -- fit \
    --from "$D/fmt_markdown.txt" --platform dgx-a100 --boot 20
t_check "  6 all_gather records" grep -q 'to 6 all_gather records' "$T_TMP/out"
t_check "  one line: no footer" grep -q 'fmt_markdown.txt:5: the table has no "# Avg bus bandwidth" footer (cut when copied?); its 6 whole rows are read$' "$T_TMP/err"
expect_ok "fit: Ray prefixes, reduce_scatter" -- fit --from "$D/fmt_ray.txt" --platform dgx-h100 --boot 20
t_check "  6 reduce_scatter records" grep -q 'to 6 reduce_scatter records' "$T_TMP/out"
t_check "  nothing assumed" test ! -s "$T_TMP/err"
expect_ok "fit: --coll names what the file does not" -- fit --from "$D/fmt_no_coll.txt" --platform dgx-a100 \
    --coll allgather --nccl-algo ring --nccl-proto simple --boot 20
t_check "  6 all_gather records, RING/SIMPLE forced" grep -Eq '^RING +SIMPLE +6 +yes ' "$T_TMP/out"
t_check "  four lines: collective, ranks, algorithm, protocol" test "$(wc -l <"$T_TMP/err")" -eq 4
t_check "  ... the collective from --coll" grep -q 'fmt_no_coll.txt:1: collective all_gather from --coll (the file does not name it)$' "$T_TMP/err"
expect_ok "fit: the table alone, the wrong row out" -- fit --from "$D/fmt_table_only.txt" --platform dgx-h100 --boot 20
t_check "  6 records (the wrong half only is left out)" grep -q 'to 6 all_reduce records' "$T_TMP/out"
t_check "  the wrong row said" grep -q '^arlab fit: 1 row with #wrong > 0 (wrong results) left out of the fit$' "$T_TMP/err"
expect_error "fit: broadcast refused" "--coll: arlab models NCCL's all_reduce, all_gather and reduce_scatter only; broadcast runs cannot be fitted" \
    -- fit --from "$D/fmt_no_coll.txt" --platform dgx-a100 --coll broadcast
expect_error "fit: a collective nothing tells" 'fmt_no_coll.txt:1: the collective is not named in the file' \
    -- fit --from "$D/fmt_no_coll.txt" --platform dgx-a100
expect_error "calibrate --from: the same refusal" 'fmt_no_coll.txt:1: the collective is not named in the file' \
    -- calibrate --from "$D/fmt_no_coll.txt" --platform dgx-a100 --out "$T_TMP/x.json"
t_done
