#!/bin/bash
# `arlab fit`/`calibrate --from`: LogGP's per-message overhead o between machines from a multi-node log's sizes
# below 64 KB (printed with its interval, written as compute.message, loaded back by CAL.json:nodes=N); a
# one-node log says o is not identified and writes none.
. "$ARLAB_SRC/tests/lib_cli.sh"
D="$ARLAB_SRC/experiments/reference/logs"
expect_ok "fit an InfiniBand log" -- fit --from "$D/dstack_nebius_2node_allreduce.txt" --platform dgx-h100 --boot 100
t_check "o printed inside its interval, from the 13 sizes below 64 KB" python3 - "$T_TMP/out" <<'PY'
import re, sys
units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3}
l = [l for l in open(sys.argv[1]) if l.startswith("o ")][0]
m = re.match(r"o ([0-9.]+) (\S+) \[([0-9.]+) (\S+), ([0-9.]+) (\S+)\].* from (\d+) multi-node records", l)
o, lo, hi = (float(m.group(i)) * units[m.group(i + 1)] for i in (1, 3, 5))
print(l.strip(), file=sys.stderr)
sys.exit(not (0 < lo <= o <= hi < 1e-5 and int(m.group(7)) == 13))
PY
t_check "g said not identified" grep -q '^g NOT identified' "$T_TMP/out"
expect_ok "calibrate an EFA log" -- calibrate --from "$D/awsome_p5_2node_efa_allreduce.txt" --platform aws-p5 \
    --boot 100 --out "$T_TMP/p5.json"
t_check "compute.message: the printed o, the fabric's g (6.05 us)" python3 - "$T_TMP/out" "$T_TMP/p5.json" <<'PY'
import json, re, sys
l = [l for l in open(sys.argv[1]) if l.startswith("o ")][0]
o = float(re.match(r"o ([0-9.]+) us", l).group(1)) * 1e-6
m = json.load(open(sys.argv[2]))["compute"]["message"]
print(l.strip(), m, file=sys.stderr)
sys.exit(not (abs(m["o"] / o - 1) < 0.01 and abs(m["g"] - 6.05e-6) < 1e-12 and 5e-6 < o < 2e-5))
PY
expect_ok "the calibrated fabric loads" -- platform show "$T_TMP/p5.json:nodes=2"
o_json=$(python3 -c 'import json,sys; print("%.3g" % (json.load(open(sys.argv[1]))["compute"]["message"]["o"] * 1e6))' "$T_TMP/p5.json")
t_check "CAL.json:nodes=2 carries o ($o_json us)" grep -q "per-message costs (LogGP): o $o_json us at each end, g 6.05 us" "$T_TMP/out"
expect_ok "calibrate a one-node log" -- calibrate --from "$D/superbench_a100_1node_allreduce.txt" --platform dgx-a100 \
    --boot 100 --out "$T_TMP/a100.json"
t_check "o not identified, in one line" grep -q '^o NOT identified: every run is on one node' "$T_TMP/out"
t_check "no compute.message written" python3 -c 'import json,sys; sys.exit("message" in json.load(open(sys.argv[1])).get("compute", {}))' "$T_TMP/a100.json"
t_done
