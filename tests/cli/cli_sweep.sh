#!/usr/bin/env bash
# arlab sweep end to end: CSV columns and row count, JSON twin, resume skips
# done points, -j 2 writes the same bytes as -j 1, the real backend imports
# measurements, and malformed sweep files are refused with one line naming the
# JSON path. Env: ARLAB (the binary), ARLAB_SRC (the source tree).
set -u
: "${ARLAB:?set ARLAB to the arlab binary}" "${ARLAB_SRC:?set ARLAB_SRC to the source tree}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$ARLAB_SRC/tests/lib_csv.sh" # csv_col FILE NAME...: columns by name, never by position
. "$ARLAB_SRC/tests/lib_check.sh" # check DESC COMMAND..., $checks, $fail

cat >"$tmp/small.json" <<'EOF'
{
  "name": "small",
  "backend": "model",
  "platforms": ["bc-intel-2x4", {"spec": "tree:fanouts=4x2,bw=40GBps/100Gbps", "label": "gen-8"},
                {"spec": "flat", "ranks": [4, 6]}],
  "algos": [{"algo": "ring", "label": "Ring"}, {"algo": "pipelined-ring", "params": {"chunks": 2}},
            "halving-doubling"],
  "baseline": "ring",
  "sizes": ["1MB", {"from": "1M", "to": "100M", "steps": 2, "scale": "log"}],
  "train": [{"label": "fp32", "compute": "163ms"}, {"label": "fp16", "compute": "163ms", "compute_div": 4.8, "comm_div": 2}]
}
EOF
# 4 platform points x 3 algos x 3 sizes = 36 points, x 2 training configurations = 72 rows
cd "$tmp" || exit 1
"$ARLAB" sweep small.json --out o1 2>err1.txt
check "sweep exits 0" test $? -eq 0
check "CSV written" test -s o1/small.csv
check "JSON written" test -s o1/small.json
want_cols="sweep,backend,platform,ranks,machines,algo,label,dtype,elems,bytes,time_s,model_s,closed_s,walk_s,sim_s,measured_s,rel_diff,base_s,vs_base,saving,calls_max,calls_avg,calls_bound,train,compute_s,comm_s,iter_s,overhead_s,images_s,speedup,scaling_eff,status,cause,platform_hash,version,commit,platform_src,network,detail,message,key,algbw_GBps,busbw_GBps,nccl_model_s,nccl_algo,nccl_proto"
check "CSV header is the documented column list" test "$(head -1 o1/small.csv)" = "$want_cols"
check "72 rows (36 points x 2 training configurations)" test "$(($(wc -l <o1/small.csv) - 1))" -eq 72
check "every row is ok" test "$(csv_col o1/small.csv status | grep -cx ok)" -eq 72
check "progress lines on a non-terminal" grep -q "small: 36/36 points (100%)" err1.txt
check "summary line" grep -q "72 rows (36 points run, 0 resumed)" err1.txt
# the first row: bc-intel-2x4, ring, 1 MB, fp32; the ring's time = its own baseline
row1=$(csv_col o1/small.csv sweep backend platform ranks machines algo label dtype elems bytes | head -1 | tr '\t' ,)
check "first row in grid order ($row1)" test "$row1" = 'small,model,bc-intel-2x4,8,2,ring,Ring,f32,250000,1000000'
check "baseline row has vs_base 1" test "$(csv_col o1/small.csv vs_base saving train | head -1)" = "$(printf '1\t0\tfp32')"
check "generated family ranks 4 and 6" \
  test "$(csv_col o1/small.csv sweep backend platform ranks | grep -c "^small	model	flat:ranks=\([46]\)	\1$")" -eq 36
check "provenance: version, commit and platform hash" \
  grep -q "^[0-9a-f]\{16\}	[0-9.]*	[0-9a-z-]*	preset:bc-intel-2x4$" < <(csv_col o1/small.csv platform_hash version commit platform_src | head -1)
check "JSON has 72 rows" test "$(grep -c '"key": ' o1/small.json)" -eq 72
if command -v python3 >/dev/null; then
    check "JSON parses" python3 -c "import json,sys; d=json.load(open('o1/small.json')); sys.exit(0 if len(d['rows'])==72 and d['sweep']=='small' else 1)"
fi

# resume: nothing to do, same bytes
cp o1/small.csv ref.csv
cp o1/small.json ref.json
"$ARLAB" sweep small.json --out o1 2>err2.txt
check "resume: all points skipped" grep -q "36 of 36 points already in o1/small.csv, running 0" err2.txt
check "resume: same CSV" cmp -s o1/small.csv ref.csv
# drop rows 11-20 (points 5-9): only those points run again
sed -i '12,21d' o1/small.csv
"$ARLAB" sweep small.json --out o1 2>err3.txt
check "resume: 5 points run again" grep -q "31 of 36 points already in o1/small.csv, running 5" err3.txt
check "resume: rows restored in grid order" cmp -s o1/small.csv ref.csv
# resume reads columns by name: results with the columns reversed, one unknown
# column added and one dropped (calls_bound, empty here) still resume in full
python3 - o1/small.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
drop = rows[0].index('calls_bound')
out = [['future_col'] + [v for i, v in enumerate(r) if i != drop][::-1] for r in rows]
out[0][0] = 'future_col'
for r in out[1:]:
    r[0] = 'x'
csv.writer(open(sys.argv[1], 'w', newline=''), lineterminator='\n').writerows(out)
PY
"$ARLAB" sweep small.json --out o1 2>err7.txt
check "resume by column name: all points skipped" grep -q "36 of 36 points already in o1/small.csv, running 0" err7.txt
check "resume by column name: the same CSV again" cmp -s o1/small.csv ref.csv
# a CSV that is not sweep results (no key/status columns) is refused, not overwritten
mkdir -p o6 && printf 'foo,bar\n1,2\n' >o6/small.csv
"$ARLAB" sweep small.json --out o6 --quiet 2>err8.txt
rc=$?
check "foreign CSV: exit 2 (got $rc)" test $rc -eq 2
check "foreign CSV: one stderr line" test "$(wc -l <err8.txt)" -eq 1
check "foreign CSV: the line names the file" grep -q "o6/small.csv: its columns are not this arlab's sweep columns" err8.txt
check "foreign CSV: left alone" test "$(cat o6/small.csv)" = "$(printf 'foo,bar\n1,2')"

# -j 2 and -j 3 give the same bytes as -j 1
"$ARLAB" sweep small.json --out o2 -j 2 --quiet
check "-j 2: same CSV as -j 1" cmp -s o2/small.csv ref.csv
check "-j 2: same JSON as -j 1" cmp -s o2/small.json ref.json
sed -i '30,45d' o2/small.csv
"$ARLAB" sweep small.json --out o2 -j3 --quiet
check "-j 3 resume: same CSV" cmp -s o2/small.csv ref.csv
check "-j: no part files left" test -z "$(ls -A o2 | grep part)"

# an interrupted run: rows left in part files are salvaged, not run again
mkdir -p o5
tail -n +2 ref.csv | head -40 | sed 's/^/0\t/' >o5/.small.part999-0
"$ARLAB" sweep small.json --out o5 2>err6.txt
check "interrupted run: 40 rows salvaged" grep -q "40 rows salvaged from an interrupted run" err6.txt
check "interrupted run: only the rest is run" grep -q "20 of 36 points already in o5/small.csv, running 16" err6.txt
check "interrupted run: same CSV" cmp -s o5/small.csv ref.csv
check "interrupted run: part files removed" test -z "$(ls -A o5 | grep part)"

# a row whose point failed earlier ("error") is retried
sed -i '2s/,ok,/,error,/' o2/small.csv
"$ARLAB" sweep small.json --out o2 2>err4.txt
check "error rows are retried" grep -q "running 1" err4.txt
check "and replaced" cmp -s o2/small.csv ref.csv

# real backend: imports measurements by (algo, platform, ranks, bytes)
cat >measured.csv <<'EOF'
algo,platform,ranks,bytes,measured_s,model_s,inplace
ring,bc-intel-2x4,8,1000000,0.002,0.0015,1
ring,bc-intel-2x4,8,1000000,0.004,0.0015,0
EOF
cat >real.json <<'EOF'
{"name": "realx", "backend": "real", "platforms": ["bc-intel-2x4"], "algos": ["ring", "halving-doubling"],
 "sizes": ["1MB"], "real": {"csv": ["measured*.csv"]}}
EOF
"$ARLAB" sweep real.json --out o3 --quiet
check "real: measured row imported (median of 2: 0.003, %.17g)" awk -F'\t' '$1 == "realx" && $2 == "real" &&
  $3 == "bc-intel-2x4" && $4 == 8 && $5 == 2 && $6 == "ring" && ($7 - 0.003) ^ 2 < 1e-30 && ($8 - 0.003) ^ 2 < 1e-30 { ok = 1 }
  END { exit !ok }' < <(csv_col o3/realx.csv sweep backend platform ranks machines algo time_s measured_s)
check "real: row without measurement is 'missing'" grep -qx "halving-doubling	missing" < <(csv_col o3/realx.csv algo status)
printf 'halving-doubling,bc-intel-2x4,8,1000000,0.001,0.0015,1\n' >>measured.csv
"$ARLAB" sweep real.json --out o3 2>err5.txt
check "real: missing rows are retried" grep -q "running 1" err5.txt
check "real: and now measured" test "$(csv_col o3/realx.csv status | grep -cx ok)" -eq 2

# malformed sweep files: one line naming the JSON path, exit status 2
refuse() { # refuse FILE-CONTENT EXPECTED-MESSAGE
    printf '%s\n' "$1" >sweep.json
    "$ARLAB" sweep sweep.json --out o4 2>msg.txt
    local rc=$?
    check "refused ($2): exit 2, got $rc" test $rc -eq 2
    check "one line: $(cat msg.txt)" test "$(wc -l <msg.txt)" -eq 1
    check "message names the path: $2" grep -qF "$2" msg.txt
    check "nothing written for a refused sweep" test ! -e o4/x.csv
}
refuse '{"name": "x", "platforms": ["fr-4"], "algos": ["ring"], "sizes": ["1MB", "2MB", "12XB"]}' \
    'arlab: sweep.json: sizes[2]: "12XB" is not a size'
refuse '{"name": "x", "platforms": ["fr-4"], "algos": ["ring", "nope"], "sizes": ["1MB"]}' \
    'sweep.json: algos[1]: unknown algorithm "nope"'
refuse '{"name": "x", "platforms": ["fr-4", "no-such-platform"], "algos": ["ring"], "sizes": ["1MB"]}' \
    'sweep.json: platforms[1]: unknown platform "no-such-platform"'
refuse '{"name": "x", "platforms": [{"spec": "tree:fanouts=4x2", "ranks": [9]}], "algos": ["ring"], "sizes": ["1MB"]}' \
    'sweep.json: platforms[0] (ranks):'
refuse '{"name": "x", "platforms": ["fr-4"], "algos": ["ring"], "sizes": ["1MB"], "train": {"compute": "-1ms"}}' \
    'sweep.json: train.compute:'
refuse '{"name": "x", "platforms": ["fr-4"], "algos": ["ring"], "sizes": ["1MB"],' \
    'sweep.json: line 2: not valid JSON'
"$ARLAB" sweep no-such-file.json 2>msg.txt
check "missing sweep file: exit 4" test $? -eq 4
check "missing sweep file: named" grep -q "no-such-file.json" msg.txt
"$ARLAB" sweep small.json -j 0 2>msg.txt
check "-j 0 refused" test $? -eq 2
"$ARLAB" sweep small.json --bogus 2>msg.txt
check "unknown option refused" test $? -eq 2

# the figure sweeps of experiments/ parse and enumerate (no run: --out into a
# file path that cannot be a directory would fail later; here only parsing)
for f in "$ARLAB_SRC"/experiments/*.json; do
    [ -e "$f" ] || continue
    checks=$((checks + 1))
    "$ARLAB" sweep "$f" --out /dev/null/x --quiet 2>msg.txt
    if ! grep -q "cannot\|Not a directory" msg.txt; then
        echo "FAIL: $(basename "$f") did not get past parsing: $(cat msg.txt)" >&2
        fail=$((fail + 1))
    fi
done

echo "cli_sweep: $checks checks, $fail failed"
[ "$fail" -eq 0 ]
