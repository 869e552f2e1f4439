#!/bin/bash
# arlab against SimGrid's SMPI on the same all-reduce: SMPI's `lr` (logical ring: reduce-scatter
# then all-gather) against arlab's `ring`, SMPI's `rab_rdb` (Rabenseifner: recursive-halving
# reduce-scatter, recursive-doubling all-gather, distance 1 first) against arlab's
# `halving-doubling` (order mpich, the same pairing), on the same platform and network model.
# Prints, for each case, the simulated times (SMPI, arlab with its shortcuts, arlab
# --no-shortcuts), their ratio, the residual once SMPI's 16-byte MPI envelope is accounted for,
# and the wall times (median of REPS) with their ratio. Figures only: no case is a test
# (tests/cli/cli_smpi.sh is the test, at 16 ranks).
#
#   experiments/bench_smpi.sh [ARLAB]
#   RANKS="256 1024" DOUBLES=262144 BW=12.5GBps LAT=1us NETWORK=CM02 CASES="lr rab_rdb" REPS=3 \
#       SMPI_REPS=3 CAP=1200 experiments/bench_smpi.sh build/arlab
#
# ARLAB defaults to build/arlab. DOUBLES: the all-reduce's length in doubles (a multiple of every
# rank count, so that `lr` has no remainder and every block is whole); CAP: the seconds one SMPI
# run may take (timeout; a stopped run prints "-"). Both sides run under `nice -n 10`.
#
# The platform: a star, every rank one full-duplex link of BW and LAT to one switch, so a route is
# two links (2 LAT). arlab runs it as flat:ranks=P,bw=BW,lat=LAT; SMPI as a SimGrid <cluster>
# (SPLITDUPLEX private links, no backbone: the same star) written here, with a loopback for the
# rank's copy to itself that `lr` starts with (lat 0, so it costs nothing, as in arlab where
# that copy is not a transfer). Network model: NETWORK on both sides, CM02 (arlab's default: no
# cross-traffic, TCP-gamma 0, maxmin, the same precisions) or LV08 (SimGrid's TCP model); SMPI's
# own costs are off: no simulated computation, os/or/ois 0, MPI_Wtime's injected 10 ns 0
# (experiments/smpi/lib_smpi.sh).
#
# Why the times differ at all: SMPI sends every message with a 16-byte envelope (tag, source,
# communicator: `payload_size_ = size_ + 16` in smpi_request.cpp, SimGrid 3.32), so each step of
# the critical path takes 16 B / BW longer (x 1.05 / 0.97 under LV08): 2(P-1) steps for the ring,
# 2 log2 P for rab_rdb. `resid` is (smpi - arlab - that) / smpi: 0 to rounding when the two
# simulate the same all-reduce.
set -u
ARLAB=${1:-build/arlab}
RANKS=${RANKS:-256 1024}
DOUBLES=${DOUBLES:-262144}
BW=${BW:-12.5GBps}
LAT=${LAT:-1us}
REPS=${REPS:-3}
SMPI_REPS=${SMPI_REPS:-$REPS}
CAP=${CAP:-1200}
NETWORK=${NETWORK:-CM02}
CASES=${CASES:-lr rab_rdb}
[ -x "$ARLAB" ] || { echo "bench_smpi.sh: no arlab binary at $ARLAB (give its path)" >&2; exit 2; }
for t in smpicc smpirun; do
    command -v "$t" >/dev/null || { echo "bench_smpi.sh: $t not found (SimGrid's SMPI: apt install simgrid)" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "bench_smpi.sh: jq not found" >&2; exit 2; }
for c in $CASES; do
    case $c in lr | rab_rdb) ;; *) echo "bench_smpi.sh: CASES: $c is not lr or rab_rdb" >&2 && exit 2 ;; esac
done
case $DOUBLES in '' | *[!0-9]*) echo "bench_smpi.sh: DOUBLES=$DOUBLES is not a count" >&2; exit 2 ;; esac
for p in $RANKS; do
    case $p in '' | *[!0-9]*) echo "bench_smpi.sh: RANKS: $p is not a rank count" >&2; exit 2 ;; esac
    if [ "$p" -lt 2 ] || [ $((p & (p - 1))) -ne 0 ]; then
        echo "bench_smpi.sh: RANKS: $p is not a power of two >= 2 (rab_rdb folds the others in)" >&2
        exit 2
    fi
    [ $((DOUBLES % p)) -eq 0 ] || { echo "bench_smpi.sh: DOUBLES=$DOUBLES is not a multiple of $p ranks" >&2; exit 2; }
done
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ARLAB=$(cd "$(dirname "$ARLAB")" && pwd)/$(basename "$ARLAB")

nice -n 10 smpicc -O2 -o "$TMP/allreduce" "$HERE/smpi/allreduce.c" 2>"$TMP/cc.err" ||
    { echo "bench_smpi.sh: smpicc failed:" >&2; cat "$TMP/cc.err" >&2; exit 1; }
# bytes per second of BW, as arlab and SimGrid read it (SI units: 1 GBps = 1e9 B/s)
BWBPS=$(awk -v b="$BW" 'BEGIN { u = b; sub(/^[0-9.eE+-]+/, "", u); v = substr(b, 1, length(b) - length(u));
    m = (u == "Bps") ? 1 : (u == "kBps") ? 1e3 : (u == "MBps") ? 1e6 : (u == "GBps") ? 1e9 : (u == "TBps") ? 1e12 : 0;
    if (m == 0) exit 1; printf "%.17g", v * m }') || { echo "bench_smpi.sh: BW=$BW: give it as N[k|M|G|T]Bps" >&2; exit 2; }

# the times of a child (bash's `time`, 1 ms resolution): wall, user and system seconds, of the
# command and everything it waited for (smpirun's smpimain, arlab's simulating child)
TIMEFORMAT='%3R %3U %3S'
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# shellcheck source=experiments/smpi/lib_smpi.sh
. "$HERE/smpi/lib_smpi.sh" # SMPI_CFG, SMPI_ENVELOPE, smpi_network, smpi_star
smpi_network "$NETWORK" || exit 2

# smpi P ALGO: REPS SMPI runs; sets s_sim (the simulated time, "-" if none finished or they
# differ), s_wall and s_cpu (medians, seconds), s_note
smpi() {
    local p=$1 algo=$2 r out w u s t
    : >"$TMP/w"
    : >"$TMP/c"
    : >"$TMP/t"
    s_note=""
    for ((r = 0; r < SMPI_REPS; r++)); do
        local rc
        { time timeout "$CAP" nice -n 10 smpirun -np "$p" -platform "$TMP/star$p.xml" -hostfile "$TMP/hosts$p" \
            "--cfg=smpi/allreduce:$algo" "${SMPI_NET[@]}" "${SMPI_CFG[@]}" --log=root.thres:warning \
            "$TMP/allreduce" "$DOUBLES" >"$TMP/out" 2>"$TMP/err"; } 2>"$TMP/time"
        rc=$?
        out=$(grep '^smpi ' "$TMP/out")
        if [ $rc -ne 0 ] || [ -z "$out" ]; then
            s_note="smpirun rc=$rc"
            [ $rc -eq 124 ] && s_note="stopped at ${CAP}s"
            continue
        fi
        case $out in *check=ok*start_spread_s=0* | *start_spread_s=0*check=ok*) ;;
            *) s_note="bad run: $out" && continue ;; esac
        t=${out#*time_s=}
        echo "${t%% *}" >>"$TMP/t"
        read -r w u s < <(tail -1 "$TMP/time")
        echo "$w" >>"$TMP/w"
        awk -v u="$u" -v s="$s" 'BEGIN { print u + s }' >>"$TMP/c"
    done
    s_sim=$(sort -u "$TMP/t")
    if [ ! -s "$TMP/t" ]; then
        s_sim="-"
    elif [ "$(echo "$s_sim" | wc -l)" -ne 1 ]; then
        s_sim="-" s_note="runs differ: $(echo "$s_sim" | tr '\n' ' ')"
    fi
    s_wall=$(median <"$TMP/w")
    s_cpu=$(median <"$TMP/c")
}
# arlab P ALGO [OPTS...]: REPS runs of arlab sim; sets a_sim ("-" if none finished or they differ),
# a_wall, a_cpu (medians, seconds)
arlab() {
    local p=$1 algo=$2 r w u s
    shift 2
    : >"$TMP/w"
    : >"$TMP/c"
    : >"$TMP/t"
    for ((r = 0; r < REPS; r++)); do
        { time timeout "$CAP" nice -n 10 "$ARLAB" sim --platform "flat:ranks=$p,bw=$BW,lat=$LAT" --algo "$algo" \
            --dtype f64 --size "$((DOUBLES * 8))B" --network "$NETWORK" "$@" --format json >"$TMP/out" \
            2>"$TMP/err"; } 2>"$TMP/time" || continue
        jq -r '.[0].sim_s' "$TMP/out" >>"$TMP/t"
        read -r w u s < <(tail -1 "$TMP/time")
        echo "$w" >>"$TMP/w"
        awk -v u="$u" -v s="$s" 'BEGIN { print u + s }' >>"$TMP/c"
    done
    a_sim=$(sort -u "$TMP/t")
    [ "$(echo "$a_sim" | wc -l)" -eq 1 ] && [ -n "$a_sim" ] || a_sim="-"
    a_wall=$(median <"$TMP/w")
    a_cpu=$(median <"$TMP/c")
}
g9() { awk -v a="$1" 'BEGIN { if (a == "-" || a == "") print "-"; else printf "%.9g\n", a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "") print "-"; else if (b + 0 == 0) print "inf"; else printf "%.4g\n", a / b }'; }

echo "platform: star, flat:ranks=P,bw=$BW,lat=$LAT; $DOUBLES doubles ($((DOUBLES * 8)) B); network $NETWORK on both sides"
echo "arlab: $ARLAB; SMPI: $(smpirun -version 2>/dev/null | head -1 || echo smpirun); REPS=$REPS SMPI_REPS=$SMPI_REPS, medians"
echo "sim: simulated seconds; smpi/arlab: their ratio; resid: (smpi - arlab - steps x 16 B x $SMPI_ENV_FACTOR/BW)/smpi (SMPI's envelope);"
echo "wall: seconds of the whole process (smpirun, arlab sim), cpu: its user + sys seconds (what a loaded machine"
echo "does not inflate); x: SMPI's over arlab's; ns = arlab --no-shortcuts (every transfer in SimGrid)"
printf '%-5s %-25s %-13s %-13s %-13s %-10s %-8s | %8s %8s %8s %8s %8s | %8s %8s %8s %8s %8s %s\n' ranks case smpi_sim \
    arlab_sim arlab_ns_sim smpi/arlab resid smpi_w arlab_w ns_w x_wall x_ns_w smpi_cpu arlab_c ns_c x_cpu x_ns_c note
for p in $RANKS; do
    smpi_star "$p" "$BW" "$LAT" "$TMP/star$p.xml" "$TMP/hosts$p"
    lg=$(awk -v p="$p" 'BEGIN { n = 0; while (p > 1) { p /= 2; n++ } print n }')
    for salgo in $CASES; do
        case $salgo in
        lr) aalgo=ring steps=$((2 * (p - 1))) ;;
        *) aalgo=halving-doubling steps=$((2 * lg)) ;;
        esac
        smpi "$p" "$salgo"
        arlab "$p" "$aalgo"
        fast_sim=$a_sim fast_wall=$a_wall fast_cpu=$a_cpu
        arlab "$p" "$aalgo" --no-shortcuts
        ns_sim=$a_sim ns_wall=$a_wall ns_cpu=$a_cpu
        resid=$(awk -v s="$s_sim" -v a="$fast_sim" -v k="$steps" -v bw="$BWBPS" -v e="$SMPI_ENVELOPE" \
            -v f="$SMPI_ENV_FACTOR" 'BEGIN { if (s == "-" || a == "-") print "-"; else printf "%.2g\n", (s - a - k * e * f / bw) / s }')
        printf '%-5s %-25s %-13s %-13s %-13s %-10s %-8s | %8s %8s %8s %8s %8s | %8s %8s %8s %8s %8s %s\n' "$p" \
            "$salgo/$aalgo" "$(g9 "$s_sim")" "$(g9 "$fast_sim")" "$(g9 "$ns_sim")" "$(awk -v a="$s_sim" -v b="$fast_sim" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.7f\n", a / b }')" \
            "$resid" "$s_wall" "$fast_wall" "$ns_wall" "$(ratio "$s_wall" "$fast_wall")" "$(ratio "$s_wall" "$ns_wall")" \
            "$s_cpu" "$fast_cpu" "$ns_cpu" "$(ratio "$s_cpu" "$fast_cpu")" "$(ratio "$s_cpu" "$ns_cpu")" "$s_note"
    done
done
