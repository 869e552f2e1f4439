#!/bin/bash
# arlab against SimGrid's SMPI on the same all-reduce, 16 ranks on a star (flat:ranks=16,bw=12.5GBps,
# lat=1us; SMPI on the same platform as SimGrid XML, experiments/smpi/lib_smpi.sh): SMPI's `lr`
# against arlab's ring and SMPI's `rab_rdb` against arlab's halving-doubling, at a latency-bound and a
# bandwidth-bound size, under CM02 (arlab's default) and LV08 (SimGrid's default TCP model) on both
# sides, arlab with its shortcuts and with --no-shortcuts. SMPI sends every message
# with a 16-byte envelope, so on the critical path of k steps (2(P-1) for the ring, 2 log2 P for
# rab_rdb) it takes k x 16 B / bw longer (x 1.05 / 0.97 under LV08: its bandwidth factor and
# cross-traffic, experiments/smpi/lib_smpi.sh): the test holds smpi = arlab + that to 1e-12
# (relative; the two are equal to double rounding, measured 2e-16) and that the envelope term is
# there (SMPI is not equal to arlab without it). Skipped (77) without smpicc/smpirun or without
# arlab's SimGrid backend; any SMPI run that fails, or does not report the algorithm it was told to
# use, or whose buffers are not the exact sum, fails the test.
. "$ARLAB_SRC/tests/lib_cli.sh"
for t in smpicc smpirun; do
    if ! command -v "$t" >/dev/null; then
        echo "SKIP: $t not found (SimGrid's SMPI: apt install simgrid); 0 cases compared"
        exit 77
    fi
done
"$ARLAB" sim --platform flat:ranks=2 --algo ring --size 8 >"$T_TMP/probe" 2>&1
if [ $? -eq 3 ] && grep -q "no SimGrid backend" "$T_TMP/probe"; then
    echo "SKIP: arlab's SimGrid backend is not built; 0 cases compared"
    exit 77
fi
# shellcheck source=experiments/smpi/lib_smpi.sh
. "$ARLAB_SRC/experiments/smpi/lib_smpi.sh"

P=16 BW=12.5GBps BWBPS=12.5e9 LAT=1us
if ! smpicc -O2 -o "$T_TMP/allreduce" "$ARLAB_SRC/experiments/smpi/allreduce.c" >"$T_TMP/cc" 2>&1; then
    t_bad "smpicc could not build experiments/smpi/allreduce.c: $(head -c 600 "$T_TMP/cc")"
    t_done
    exit 1
fi
smpi_star "$P" "$BW" "$LAT" "$T_TMP/star.xml" "$T_TMP/hosts"

# close A B TOL: |A - B| <= TOL x |A|
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(d <= t * m) }'; }
cases=0
for net in CM02 LV08; do
    smpi_network "$net"
    for doubles in 16 65536; do
        for pair in "lr ring 30" "rab_rdb halving-doubling 8"; do
            read -r salgo aalgo steps <<<"$pair"
            what="$net, $salgo/$aalgo, $P ranks, $doubles doubles"
            smpirun -np "$P" -platform "$T_TMP/star.xml" -hostfile "$T_TMP/hosts" "--cfg=smpi/allreduce:$salgo" \
                "${SMPI_NET[@]}" "${SMPI_CFG[@]}" "$T_TMP/allreduce" "$doubles" >"$T_TMP/smpi" 2>"$T_TMP/smpi.err"
            rc=$?
            line=$(grep '^smpi ' "$T_TMP/smpi")
            if [ $rc -ne 0 ] || [ -z "$line" ]; then
                t_bad "$what: smpirun exit $rc: $(tail -c 600 "$T_TMP/smpi.err")"
                continue
            fi
            t_check "$what: SMPI ran $salgo" grep -q "Switch to algorithm $salgo for collective allreduce" "$T_TMP/smpi.err"
            t_check "$what: SMPI's buffers are the exact sum ($line)" grep -q 'check=ok' <<<"$line"
            t_check "$what: every rank starts at 0 ($line)" grep -q 'start_spread_s=0 ' <<<"$line"
            smpi_s=${line#*time_s=}
            smpi_s=${smpi_s%% *}
            for opt in "" --no-shortcuts; do
                # shellcheck disable=SC2086
                if ! expect_ok "$what: arlab sim $opt" -- sim --platform "flat:ranks=$P,bw=$BW,lat=$LAT" --algo "$aalgo" \
                    --dtype f64 --size "$((doubles * 8))B" --network "$net" $opt --format csv; then
                    continue
                fi
                arlab_s=$(csv_col "$T_TMP/out" sim_s | head -1)
                want=$(awk -v a="$arlab_s" -v k="$steps" -v e="$SMPI_ENVELOPE" -v f="$SMPI_ENV_FACTOR" -v bw="$BWBPS" \
                    'BEGIN { printf "%.17g", a + k * e * f / bw }')
                t_check "$what, arlab $opt: SMPI $smpi_s = arlab $arlab_s + $steps x $SMPI_ENVELOPE B x $SMPI_ENV_FACTOR / bw = $want" \
                    close "$smpi_s" "$want" 1e-12
                t_check "$what, arlab $opt: the envelope term is there (SMPI $smpi_s != arlab $arlab_s)" \
                    bash -c "! awk -v a=$smpi_s -v b=$arlab_s 'BEGIN { d = a - b; exit !(d < 1e-13 && d > -1e-13) }'"
                cases=$((cases + 1))
            done
        done
    done
done
t_check "16 comparisons ran ($cases)" test "$cases" -eq 16
t_done
