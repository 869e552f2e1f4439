#!/usr/bin/env bash
# The "measured" backend: a sweep imports nccl-tests files (text and JSON) as measured rows of
# NCCL's own all-reduce, matched on size and rank count; a bad nccl-tests file is refused naming its line.
. "$(dirname "$0")/../lib_cli.sh"
D="$ARLAB_SRC/tests/data/nccltests"
cp "$D/h100_1node_allreduce.txt" "$D/truncated_row.txt" "$T_TMP/"
cat >"$T_TMP/m.json" <<J
{"name": "meas", "backend": "measured", "platforms": ["dgx-h100"], "algos": ["ring"],
 "sizes": ["1MiB", "128MiB", "2MiB"], "real": {"csv": ["h100_1node_allreduce.txt"]}}
J
(cd "$T_TMP" && "$ARLAB" sweep m.json --out o --quiet) >"$T_TMP/out" 2>"$T_TMP/err" || t_bad "sweep: $(cat "$T_TMP/err")"
got=$(csv_col "$T_TMP/o/meas.csv" backend bytes status measured_s)
# 1 MiB: out-of-place 25.40 us, in-place 25.10 us -> median 25.25 us; 128 MiB: 620.10 / 618.70 -> 619.40 us
t_check "1 MiB measured (median of both halves)" awk -F'\t' '$2 == 1048576 { ok = $1 == "measured" && $3 == "ok" && ($4 - 2.525e-05) ^ 2 < 1e-22 } END { exit !ok }' <<<"$got"
t_check "128 MiB measured" awk -F'\t' '$2 == 134217728 { ok = $3 == "ok" && ($4 - 6.194e-04) ^ 2 < 1e-20 } END { exit !ok }' <<<"$got"
t_check "2 MiB missing" awk -F'\t' '$2 == 2097152 { ok = $3 == "missing" } END { exit !ok }' <<<"$got"
cat >"$T_TMP/bad.json" <<J
{"name": "bad", "backend": "measured", "platforms": ["dgx-h100"], "algos": ["ring"],
 "sizes": ["1MiB"], "real": {"csv": ["truncated_row.txt"]}}
J
(cd "$T_TMP" && "$ARLAB" sweep bad.json --out o2 --quiet) >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
t_check "truncated nccl-tests file refused" test "$rc" -ne 0
t_check "naming the file" grep -q 'truncated_row.txt' "$T_TMP/err"
t_done
