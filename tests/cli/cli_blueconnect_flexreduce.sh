#!/bin/bash
# `arlab best` and `arlab plan` for the topology-aware planners.
# Asserts numbers: the BlueConnect default on blueconnect-12 at 100 MB walks
# to Eq. 9's 16.1947 ms, the ring wins there (14.8 ms); on the asymmetric
# fr-7 there is no decomposition (fallback ring); `plan` reports the Eq. 12
# bound 3 (2 machines) / 4 (3 machines) and reduce calls within it.
# Needs ARLAB (the arlab binary).
set -u
fail=0
check() { # check DESCRIPTION COMMAND...
    local what=$1; shift
    if ! "$@"; then echo "FAIL: $what"; fail=1; else echo "ok: $what"; fi
}
csv=$("$ARLAB" best --platform blueconnect-12 --size 100MB --format csv 2>/dev/null)
check "best csv has a header" grep -q '^rank,algo,params,walk_s,closed_s,rel_diff,slowest,algbw_GBps,busbw_GBps,vs_nccl,nccl_model_s,nccl_algo,nccl_proto,sim_s,scenario$' <<<"$csv"
row=$(grep 'decomp=3x2x2,order=0.1.2,impl=ring+hd+hd (default)' <<<"$csv")
walk=$(sed 's/.*(default)",//' <<<"$row" | cut -d, -f1 | head -1)
check "default BlueConnect row present" test -n "$row"
check "default BlueConnect walk = Eq. 9 = 16.1947 ms (got $walk)" \
    awk -v w="$walk" 'BEGIN { exit !(w > 0.0161946 && w < 0.0161948) }'
ring=$(grep -m1 '^[0-9]*,ring,' <<<"$csv" | cut -d, -f1,4)
dflt=$(grep -m1 '(default)' <<<"$csv" | cut -d, -f1)
check "ring (14.8 ms) ranks above the BlueConnect default on blueconnect-12 (got $ring vs rank $dflt)" \
    awk -v r="$ring" -v d="$dflt" 'BEGIN { split(r, a, ","); exit !(a[1] < d && a[2] > 0.0147986 && a[2] < 0.0147988) }'
out=$("$ARLAB" best --platform fr-7 --size 120M 2>/dev/null)
check "fr-7: no decomposition, fallback ring" grep -q "no symmetric decomposition (Eq. 8): BlueConnect falls back to the one-level ring" <<<"$out"
check "best: one line of 'why'" grep -q "^why (" <<<"$out"
check "best rejects a missing size" bash -c "! '$ARLAB' best --platform fr-7 2>/dev/null"
for n in 5 11; do
    out=$("$ARLAB" plan --algo flexreduce --platform fr-$n --size 1000 --check)
    want=3; [ "$n" = 11 ] && want=4
    line=$(grep -E '^ +1 ' <<<"$out" | tail -1)
    bound=$(awk '{print $6}' <<<"$line")
    check "fr-$n: Eq. 12 bound $want at level 1 (got $bound)" test "$bound" = "$want"
    check "fr-$n: calls within the bound" grep -qE '^all .* yes' <<<"$out"
    check "fr-$n: validator ok" grep -q "^validator: ok" <<<"$out"
    check "fr-$n: per-phase calls table" grep -q "calls per rank per phase" <<<"$out"
done
out=$("$ARLAB" plan --algo blueconnect --platform fr-5 --size 100)
check "plan: fallback detail string" grep -q "fallback: one-level ring (no symmetric decomposition)" <<<"$out"
# `arlab algos` prints every parameter from the descriptors' tables; bad parameters name the valid ones
out=$("$ARLAB" algos)
check "algos: blueconnect decomp row from the table" grep -qE "^blueconnect +decomp +list of int, 'x'-separated +the platform's levels" <<<"$out"
check "algos: ps servers range 1..P default P" grep -qE '^ps +servers +int 1\.\.P +P ' <<<"$out"
check "algos: treepack roots lp|first default lp" grep -qE '^treepack +roots +lp\|first +lp ' <<<"$out"
err=$("$ARLAB" plan --platform blueconnect-12 --algo treepack:root=lp 2>&1 >/dev/null)
check "unknown parameter names the closest key and lists the valid ones (got: $err)" grep -q 'unknown parameter "root": did you mean "roots"? (valid: chunks, units, roots, budget)' <<<"$err"
err=$("$ARLAB" plan --platform blueconnect-12 --algo flexreduce:impl=hd 2>&1 >/dev/null)
check "enum value outside the table (got: $err)" grep -q 'impl=hd: expected chain, ring, binomial, direct or native' <<<"$err"
err=$("$ARLAB" model --platform blueconnect-12 --algo blueconnect:decomp=3xax4 2>&1 >/dev/null)
check "list item outside the table (got: $err)" grep -q 'decomp=3xax4: "a" is not an integer (write e.g. decomp=3x2x2)' <<<"$err"
exit $fail
