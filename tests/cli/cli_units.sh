#!/bin/bash
# One format per column in the human tables: times, sizes and bandwidths with an SI prefix ("290.3 µs",
# "128 MiB", "313.6 GB/s"), relative differences in percent, never 0.000290325333 above 7.99e-05; each
# shown number is the CSV's to 4 significant digits, and CSV/JSON keep full precision (%.17g, no units).
. "$ARLAB_SRC/tests/lib_cli.sh"
D="$ARLAB_SRC/tests/data/nccltests"

# check DESC TABLE CSV HEADER-START COLUMN=KIND...: the table's rows (from the line starting with
# HEADER-START, as many as the CSV has) against the CSV's, row by row
check() {
  local desc=$1 table=$2 csv=$3 head=$4
  shift 4
  local out
  out=$(python3 - "$table" "$csv" "$head" "$@" <<'PY'
import csv, math, re, sys
table, csvf, head = sys.argv[1:4]
kinds = dict(a.split("=") for a in sys.argv[4:])
lines = open(table, encoding="utf-8").read().replace("\r", "").split("\n")
i = next(k for k, l in enumerate(lines) if l.startswith(head))
# columns by position: a left-aligned cell starts where its name does, a right-aligned one ends
# before the next name (the last column runs to the end of the line)
at = [(m.start(), m.group()) for m in re.finditer(r"\S+", lines[i])]
hdr = [name for _, name in at]
ref = [r for r in csv.DictReader(l for l in open(csvf, encoding="utf-8") if not l.startswith("#"))]
if "status" not in hdr:  # a summary table lists what does not apply in a footer line, not as rows
    ref = [r for r in ref if r.get("status", "ok") != "unsupported"]
rows = []
for l in lines[i + 1:i + 1 + len(ref)]:
    rows.append([l[a:(at[k + 1][0] if k + 1 < len(at) else len(l))].strip() for k, (a, _) in enumerate(at)])
unit = {"time": {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1},
        "bytes": {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30},
        "GBps": {"MB/s": 1e-3, "GB/s": 1, "TB/s": 1e3}}
bad, n = [], 0
if len(rows) != len(ref): bad.append("%d table rows, %d CSV rows" % (len(rows), len(ref)))
for r, c in zip(rows, ref):
    for col, kind in kinds.items():
        cell, want = r[hdr.index(col)], c[col]
        if want == "":
            if cell != "-": bad.append("%s: %r for a missing value" % (col, cell))
            continue
        want = float(want)
        if kind == "rel":
            m = re.fullmatch(r"([+-]\d+\.\d)%", cell)
            ok = m and abs(float(m.group(1)) - 100 * want) <= 0.05 + 1e-9
        else:
            m = re.fullmatch(r"(-?\d+(?:\.\d+)?) (\S+)", cell)
            ok = m and m.group(2) in unit[kind] and "e" not in cell
            if ok:
                got = float(m.group(1)) * unit[kind][m.group(2)]
                ok = abs(got - want) <= 5e-4 * abs(want) + 1e-30 and (want == 0 or 1 <= float(m.group(1)) < 1024)
        n += 1
        if not ok: bad.append("%s: %r for %r" % (col, cell, c[col]))
print("ok %d cells" % n if not bad else "; ".join(bad[:4]))
PY
)
  t_check "$desc: $out" test "${out#ok }" != "$out"
}

# compare --measured: the issue's table (0.000290325333 beside 7.99e-05 in one column before)
args=(compare --measured "$D/h100_1node_allreduce.txt" --platform dgx-h100 --algo ring)
"$ARLAB" "${args[@]}" >"$T_TMP/t" 2>&1
"$ARLAB" "${args[@]}" --format csv >"$T_TMP/c" 2>&1
check "compare --measured" "$T_TMP/t" "$T_TMP/c" "algo  " bytes=bytes model_s=time sim_s=time nccl_s=time \
  nccl_model_s=time sim_err=rel nccl_model_err=rel model_vs_nccl=rel
t_check "compare --measured: 1 GiB and 8 B rows in binary/decimal units" grep -q "1 GiB .* ms" "$T_TMP/t"
args=(model --platform dgx-h100:nodes=2 --size 1MB --algo ring,halving-doubling,nvls,collnet)
"$ARLAB" "${args[@]}" >"$T_TMP/t" 2>&1
"$ARLAB" "${args[@]}" --format csv >"$T_TMP/c" 2>&1
check "model" "$T_TMP/t" "$T_TMP/c" "   algo" model_s=time algbw_GBps=GBps busbw_GBps=GBps
"$ARLAB" "${args[@]}" --digits 7 >"$T_TMP/t7" 2>&1
t_check "model --digits 7: 7 significant digits" grep -Eq '^   ring +[0-9]{3}\.[0-9]{4} µs' "$T_TMP/t7"
args=(best --platform dgx-h100:nodes=2 --size 100MB --top 12)
"$ARLAB" "${args[@]}" >"$T_TMP/t" 2>&1
"$ARLAB" "${args[@]}" --format csv >"$T_TMP/c" 2>&1
check "best" "$T_TMP/t" "$T_TMP/c" "rank  " walk_s=time closed_s=time rel_diff=rel algbw_GBps=GBps \
  busbw_GBps=GBps nccl_model_s=time
args=(sim --platform fr-5 --size 1MB,64MiB --model-only)
"$ARLAB" "${args[@]}" >"$T_TMP/t" 2>&1
"$ARLAB" "${args[@]}" --format csv >"$T_TMP/c" 2>&1
check "sim --model-only" "$T_TMP/t" "$T_TMP/c" "algo  " bytes=bytes model_s=time closed_s=time

# CSV and JSON: the numbers at full precision, no units
expect_ok "compare csv" -- compare --measured "$D/h100_1node_allreduce.txt" --platform dgx-h100 --algo ring \
  --format csv
t_check "compare csv: model_s of 1 GiB at 17 digits" grep -Eq '^ring,dgx-h100,8,1073741824,0\.00[0-9]{15,}' "$T_TMP/out"
t_check "compare csv: no unit anywhere" bash -c "! grep -Eq 'µs|GB/s|MiB|%' '$T_TMP/out'"
expect_ok "best json" -- best --platform dgx-h100:nodes=2 --size 100MB --top 3 --format json
t_check "best json: walk_s a plain number" grep -Eq '"walk_s":0\.000[0-9]{10,}' "$T_TMP/out"
t_done
