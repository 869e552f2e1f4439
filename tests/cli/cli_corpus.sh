#!/usr/bin/env bash
# The public corpus (experiments/reference/logs, MANIFEST.tsv) through the CLI, every file as published:
# compare --measured on the platform the manifest names (the file's rank count in every row, one row per
# measured size), fit --from (the manifest's row count, of its collective), calibrate --from where the preset
# fits (a platform JSON written). No crash, no refusal, and stderr holds only the reader's one-line notes.
. "$(dirname "$0")/../lib_cli.sh"
L="$ARLAB_SRC/experiments/reference/logs"
n=0
while IFS=$'\t' read -r file coll ranks nodes rows opts cmp fitp cal _nccl; do
  case "$file" in '#'* | '') continue ;; esac
  n=$((n + 1))
  o=()
  [ "$opts" != "-" ] && read -r -a o <<<"$opts"
  if [ "$cmp" != "-" ]; then
    expect_ok "$file: compare on $cmp" -- compare --measured "$L/$file" --platform "$cmp" --algo ring --format csv \
      "${o[@]}"
    sizes=$(awk 'NF >= 9 && $0 !~ /NCCL (INFO|WARN)/' "$L/$file" | sed -E 's/^.*<stdout>://; s/^\([^)]*\) //; s/^[0-9]+: //' |
      awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $1 > 0 && $1 % 4 == 0 { print $1 }' | sort -u | wc -l)
    t_check "  $sizes measured sizes of $ranks ranks" \
      test "$(csv_col "$T_TMP/out" ranks nccl_s | awk -F'\t' -v r="$ranks" '$1 == r && $2 > 0' | wc -l)" -eq "$sizes"
    t_check "  stderr: only the reader's notes" test "$(grep -cv '^arlab compare: .*\(assumed\|from busbw\|from --\|no "# Avg bus bandwidth" footer\)' "$T_TMP/err")" -eq 0
  fi
  if [ "$fitp" != "-" ]; then
    expect_ok "$file: fit on $fitp" -- fit --from "$L/$file" --platform "$fitp" --boot 20 "${o[@]}"
    # rows of 0 B are left out of the fit (said so in one line)
    zero=$(awk 'NF >= 9 && $0 !~ /NCCL (INFO|WARN)/' "$L/$file" | sed -E 's/^.*<stdout>://; s/^\([^)]*\) //; s/^[0-9]+: //' |
      awk '$1 == "0" && $2 == "0" && $3 ~ /^[a-z0-9]+$/' | wc -l)
    t_check "  $rows $coll records less $zero of 0 B" grep -q "to $((rows - zero)) $coll records" "$T_TMP/out"
    [ "$zero" -gt 0 ] && t_check "  the 0 B rows said left out" grep -q "rows\? of 0 B left out" "$T_TMP/out"
    if [ "$cal" = 1 ]; then
      expect_ok "$file: calibrate on $fitp" -- calibrate --from "$L/$file" --platform "$fitp" --boot 20 \
        --out "$T_TMP/cal.json" "${o[@]}"
      t_check "  the calibrated platform loads" "$ARLAB" platform show "$T_TMP/cal.json"
      # compare on the calibrated platform (its nodes as the manifest's compare platform) reproduces the
      # calibration's own error, size bucket by size bucket
      if [ "$cmp" != "-" ]; then
        sed -n 's/^calibrated prediction .*median by size: //p' "$T_TMP/out" >"$T_TMP/cal_med"
        cp="$T_TMP/cal.json"
        case "$cmp" in *:nodes=*) [ "$fitp" = "${cmp%%:*}" ] && cp="$T_TMP/cal.json:nodes=${cmp##*:nodes=}" ;; esac
        expect_ok "  compare on the calibrated platform" -- compare --measured "$L/$file" --platform "$cp" --algo nccl \
          --format csv "${o[@]}"
        t_check "  compare's median error per size bucket = the calibration's" python3 - "$T_TMP/out" "$T_TMP/cal_med" <<'PY'
import csv, re, statistics, sys
got = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["nccl_s"] and r["nccl_model_err"]:
        b = float(r["bytes"]); got.setdefault(0 if b < 65536 else 1 if b < 64 * 2**20 else 2, []).append(abs(float(r["nccl_model_err"])))
cal = [(float(m), int(n)) for m, n in re.findall(r"([0-9.]+) \((\d+)\)", open(sys.argv[2]).read())]
med = [(statistics.median(got[k]), len(got[k])) for k in sorted(got)]
print("compare", med, "calibration", cal, file=sys.stderr)
sys.exit(not (len(med) == len(cal) and all(abs(a - c) <= 5e-5 + 0.01 * c for (a, _), (c, _) in zip(med, cal))))
PY
      fi
    fi
  fi
  if [ "$cmp" = "-" ] && [ "$fitp" = "-" ]; then
    # nothing applies (a collective or a box arlab does not model): still read, no crash, one clear line
    "$ARLAB" fit --from "$L/$file" --platform dgx-h100 --boot 5 "${o[@]}" >"$T_TMP/out" 2>"$T_TMP/err"
    rc=$?
    t_check "$file: fit exits cleanly (status $rc < 128)" test "$rc" -lt 128
  fi
done <"$L/MANIFEST.tsv"
t_check "at least 20 corpus files" test "$n" -ge 20
# CLUSTERS.tsv, read by experiments/bench_nccl_model_corpus.sh and bench_h100_logs.sh: the fabric and the cluster of
# every all-reduce log with a compare platform (the benches' logs), and of no other file
awk -F'\t' '!/^#/ && $2 == "all_reduce" && $7 != "-" { print $1 }' "$L/MANIFEST.tsv" | sort >"$T_TMP/cmp_logs"
awk -F'\t' '!/^#/ { print $1 }' "$L/CLUSTERS.tsv" | sort >"$T_TMP/cl_logs"
t_check "CLUSTERS.tsv: a line per all-reduce log with a compare platform ($(wc -l <"$T_TMP/cmp_logs"))" \
  cmp -s "$T_TMP/cmp_logs" "$T_TMP/cl_logs"
t_check "CLUSTERS.tsv: every line a known fabric and a cluster" awk -F'\t' '!/^#/ && (NF != 3 || $3 == "" ||
  $2 !~ /^(ib|roce|ib-sharp|efa|tcpxo|nvswitch|nvswitch-1p)$/) { bad++ } END { exit bad > 0 }' "$L/CLUSTERS.tsv"
t_done
