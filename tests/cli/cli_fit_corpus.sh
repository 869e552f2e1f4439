#!/bin/bash
# `arlab fit --reference MANIFEST.tsv`: every log of the public corpus that has a platform to fit, per size bucket:
# NCCL's model, arlab's schedule for NCCL's choice, calibrated in sample, leave-one-size-out and
# leave-one-node-count-out (where the corpus has the same platform on another node count).
. "$ARLAB_SRC/tests/lib_cli.sh"
M="$ARLAB_SRC/experiments/reference/logs/MANIFEST.tsv"
expect_ok "the corpus table" -- fit --reference "$M" --boot 100
cp "$T_TMP/out" "$T_TMP/table"
want=$(awk -F'\t' '!/^#/ && $8 != "-" { n++ } END { print n }' "$M")
got=$(awk '$1 ~ /\.txt$/ { print $1 }' "$T_TMP/table" | sort -u | wc -l)
t_check "a row for every log with a platform to fit ($got of $want)" test "$got" -eq "$want" -a "$want" -ge 15
t_check "no log left unfitted" bash -c "! grep -q 'not fitted' '$T_TMP/table'"
# the columns are numbers in (0, 10) where present; leave-one-node-count-out only where the platform has another
# node count in the corpus: aws-p5 (1 and 2 nodes), dgx-h100 all_reduce (2 and 12), not dgx-b200 (2 only)
t_check "aws-p5 and dgx-h100 all_reduce logs have cal_lonco, dgx-b200 not" awk '
  $1 ~ /\.txt$/ { lon = $NF; p = $2; c = $3
    if ((p == "aws-p5" || (p == "dgx-h100" && c == "all_reduce")) && !(lon + 0 > 0)) bad++
    if (p == "dgx-b200" && lon != "-") bad++
    for (i = NF - 4; i < NF; i++) if ($i != "-" && !($i + 0 >= 0 && $i + 0 < 50)) bad++; n++ }
  END { exit !(n >= 30 && !bad) }' "$T_TMP/table"
t_check "the summary: three buckets" test "$(grep -cE '^(< 64 KB|64 KB-64 MB|>= 64 MB) ' "$T_TMP/table")" -eq 3
# cal_in is the calibration's own error: what `calibrate` prints for the log, bucket by bucket
L="$ARLAB_SRC/experiments/reference/logs/awsome_batch_p5_allreduce.txt"
expect_ok "calibrate that log" -- calibrate --from "$L" --platform aws-p5 --boot 100 --out "$T_TMP/p5.json"
t_check "cal_in = the calibration's median per bucket" python3 - "$T_TMP/table" "$T_TMP/out" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("awsome_batch_p5_allreduce.txt")]
cal_in = [float(r[-3]) for r in rows]
cal = [float(x) for x in re.findall(r"([0-9.]+) \(\d+\)", [l for l in open(sys.argv[2]) if "median by size" in l][0])]
print("table", cal_in, "calibrate", cal, file=sys.stderr)
sys.exit(not (len(cal_in) == len(cal) == 3 and all(abs(a - b) < 1e-4 for a, b in zip(cal_in, cal))))
PY
expect_error "--csv with a manifest" 'a corpus manifest prints a table only' -- fit --reference "$M" --csv
t_done
