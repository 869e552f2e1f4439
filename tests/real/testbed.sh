#!/bin/bash
# CTest testbed: a 2-machine x 2-rank emulated cluster, every
# algorithm through arlab-mpi (#wrong = 0, bytes over the shaped links; also in
# eager chunks), the MPI transport chosen by the exchange test and recorded in
# every row and in status, the calibration fits (alpha with its interval; the GPU links from one
# intra-machine exchange per machine at once and the wake-up; o from a
# fan-out), the shaping (a 64 KiB message across a shaped link after idle takes
# size/rate + latency: tb_oneway.c; the bucket and GSO cap read back by status), the
# cleanup (down, SIGINT to up and run, kill -9 of the builder with and without
# its watchdog, the next command cleaning a stale testbed) and the bad-input
# lines. Skips (77) only when network namespaces cannot be created here (not
# root, no ip/tc, or `ip netns add` refused), or arlab-mpi was not built.
# Uses its own namespace prefix arlab-c<pid>- and state directory, so
# parallel runs never collide. Env: ARLAB, ARLAB_MPI, ARLAB_SRC, TB_ONEWAY (tests/real/tb_oneway.c's binary).
set -u
ARLAB=${ARLAB:?} ARLAB_MPI=${ARLAB_MPI:-$(dirname "$ARLAB")/arlab-mpi}
TB_ONEWAY=${TB_ONEWAY:-$(dirname "$ARLAB")/tests/tb_oneway}
export ARLAB_MPI
skip() { echo "testbed: SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (network namespaces need CAP_SYS_ADMIN)"
command -v ip >/dev/null && command -v tc >/dev/null || skip "ip/tc (iproute2) not installed"
command -v mpirun >/dev/null && [ -x "$ARLAB_MPI" ] || skip "arlab-mpi or mpirun missing (build with MPI)"
[ -x "$TB_ONEWAY" ] || { echo "FAIL: $TB_ONEWAY (tests/real/tb_oneway.c, built with the tests) missing"; exit 1; }
ID=c$$
ID=${ID:0:12}
PFX=arlab-$ID-
ip netns add ${PFX}probe 2>/dev/null || skip "cannot create a network namespace ($(ip netns add ${PFX}probe 2>&1 | head -1))"
ip netns del ${PFX}probe
T=$(mktemp -d)
export ARLAB_TESTBED_DIR=$T/state
# In a sanitized build LeakSanitizer reports Open MPI's own start-up allocations in
# every rank: leak checking is off for the arlab-mpi ranks only (arlab stays checked).
if [ -n "${ASAN_OPTIONS:-}" ]; then
    printf '#!/bin/sh\nASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec %q "$@"\n' "$ARLAB_MPI" >"$T/arlab-mpi"
    chmod +x "$T/arlab-mpi"
    export ARLAB_MPI=$T/arlab-mpi
fi
fails=0
nsleft() { ls /run/netns 2>/dev/null | grep -c "^$PFX" ; }
cleanup() { for n in $(ls /run/netns 2>/dev/null | grep "^$PFX"); do ip netns del "$n"; done; rm -rf "$T"; }
trap cleanup EXIT
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { # expect NAME RC_WANT(nonzero|N) PATTERN -- command...
    local name=$1 want=$2 pat=$3; shift 4
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$want" = nonzero ] && [ $rc = 0 ]; then bad "$name: exit 0, wanted non-zero: $out"; return; fi
    if [ "$want" != nonzero ] && [ $rc != "$want" ]; then bad "$name: exit $rc, wanted $want: $out"; return; fi
    if ! grep -q -- "$pat" <<<"$out"; then bad "$name: no line matching '$pat' in: $out"; return; fi
    ok "$name"
}
cat >$T/p.json <<'EOF'
{"name": "tb-test-2x2", "kind": "tree", "notes": ["test: 2 machines x 2 ranks, 200 Mbit/s uplinks"],
 "root": {"name": "root", "children": [
   {"name": "m0", "bw": "200Mbps", "lat": "50us", "child_bw": "10GBps", "child_lat": "1us", "gpus": 2},
   {"name": "m1", "bw": "200Mbps", "lat": "50us", "child_bw": "10GBps", "child_lat": "1us", "gpus": 2}]}}
EOF
sed 's/200Mbps/10Gbps/g; s/tb-test-2x2/tb-test-fast/' $T/p.json >$T/fast.json
t0=$(date +%s)

# --- 1. every algorithm, #wrong = 0, bytes over the shaped links
run_all() {
    $ARLAB testbed run --platform $T/p.json --id $ID --algo all --size 64KB,1MB --iters 2 --warmup 1 --format csv \
        --out $T/run.csv --timeout 150 >$T/run.out 2>&1
}
run_all
rc=$?
# Known flake (seen once, under a loaded 2-core machine with a sanitized build): mpirun
# overran its bound and was stopped. Retried once, said loudly; a second overrun fails.
if [ $rc != 0 ] && grep -q "mpirun ran past its" $T/run.out; then
    echo "testbed: RETRY: mpirun overran its time bound once; running again"
    cat $T/run.out
    run_all
    rc=$?
fi
[ $rc = 0 ] && ok "testbed run (all algorithms) exits 0" || { bad "testbed run exited $rc"; cat $T/run.out; }
algos=$($ARLAB algos --format csv | tail -n +2 | grep allreduce | cut -d, -f1) # those serving all-reduce
for a in mpi-allreduce $algos; do
    # an algorithm the platform cannot serve (nvls, nvlstree, collnet need a reducing switch) is a line
    # "# A: not applicable on P: why" in the output, and it must not plan here either
    if grep -q "^# $a: not applicable on " $T/run.out; then
        if $ARLAB plan --platform $T/p.json --algo $a --size 64KB >/dev/null 2>&1; then bad "$a: said not applicable, but it plans"
        else ok "$a: not applicable here, said so ($(grep -m1 "^# $a: not applicable" $T/run.out | cut -c1-100))"; fi
        continue
    fi
    for b in 64000 1000000; do
        row=$(awk -F, -v a="$a" -v b="$b" '$1 == a && $4 == b' $T/run.csv)
        if [ -z "$row" ]; then bad "$a $b B: no row in the CSV"; continue; fi
        w=$(cut -d, -f12 <<<"$row") t=$(cut -d, -f5 <<<"$row")
        if [ "$w" = 0 ] && awk -v t="$t" 'BEGIN { exit !(t > 0) }'; then ok "$a $b B: #wrong 0, time $t s"
        else bad "$a $b B: wrong=$w time=$t"; fi
    done
done
# the MPI transport: chosen by the exchange test (every candidate measured), printed, and in every row
how=$(grep -m1 '^# MPI transport: ' $T/run.out | cut -c18-)
nx=$(grep -c "^# exchange 0<->2 4194304 B each way: .* ms" $T/run.out)
[ "$nx" = 8 ] && grep -q "exchange test, 4 MiB each way, slower of 2 runs: links=1,eager=1048576 .* ms, links=1 .* ms, links=2 .* ms, links=4 .* ms" <<<"$how" \
    && ok "transport chosen by the exchange test of 4 candidates, 2 runs each: $how" || bad "transport choice: $nx exchange lines, '$how'"
want=$(cut -d' ' -f1 <<<"$how" | tr , ';')
case $want in *eager=*) want="$want;ready" ;; esac # eager transfers wait for the receiver's ready message
cols=$(awk -F, 'NR > 1 { print $22 }' $T/run.csv | sort -u)
[ "$cols" = "tcp:${want} (measured)" ] && ok "every row's transport column: $cols" || bad "transport column: '$cols', wanted 'tcp:${want} (measured)'"
n_ok=$(grep -c "uplink tx .*: ok$" $T/run.out)
[ "$n_ok" = 2 ] && ok "both machine uplinks carried at least the schedules' payload" || { bad "traffic check: $n_ok/2 ok"; grep "machine" $T/run.out; }
while read -r _ _ m _ _ pay _ _ tx _; do
    awk -v p="$pay" -v x="$tx" 'BEGIN { exit !(p > 4e6 && x + 0 >= p + 0) }' && ok "machine $m: payload $pay B <= counter $tx B" \
        || bad "machine $m: payload $pay counter $tx"
done < <(grep "^#   machine" $T/run.out | tr -d '(),:')
[ "$(nsleft)" = 0 ] && ok "no namespace left after run" || bad "$(nsleft) namespaces left after run"

# --- 1a. a given transport: eager messages of at most 16 KiB (every payload in chunks), every algorithm exact;
# btl_tcp_links as Open MPI reads it back (MPI_T) in the rows; each eager transfer waits for its receiver's
# ready message (";ready": sends posted only once it arrives, so every request slot and chunk is exercised)
$ARLAB testbed run --platform $T/p.json --id $ID --algo all --size 64KB,1MB --iters 1 --warmup 0 --format csv \
    --transport links=2,eager=16KiB --out $T/eager.csv --timeout 150 >$T/eager.out 2>&1
rc=$?
nrow=$(awk -F, 'NR > 1' $T/eager.csv | wc -l)
nbad=$(awk -F, 'NR > 1 && ($12 != 0 || $22 != "tcp:links=2;eager=16384;ready (given)")' $T/eager.csv | wc -l)
[ $rc = 0 ] && [ "$nrow" -ge 10 ] && [ "$nbad" = 0 ] && grep -q '^# MPI transport: links=2,eager=16384 (given: --transport)' $T/eager.out \
    && ok "--transport links=2,eager=16KiB: $nrow rows, #wrong 0, transport column says so" \
    || { bad "eager transport: rc $rc, $nrow rows, $nbad bad"; tail -5 $T/eager.out; head -3 $T/eager.csv; }
# the same without the ready messages (ARLAB_MPI_EAGER_READY=0: eager data leaves as soon as it is posted)
mkdir -p $T/ph
ARLAB_MPI_PHASE_LOG=$T/ph ARLAB_MPI_EAGER_READY=0 $ARLAB testbed run --platform $T/p.json --id $ID --algo ring,halving-doubling,ps --size 1MB \
    --iters 1 --warmup 0 --format csv --transport links=1,eager=16KiB --out $T/eager0.csv --timeout 150 >$T/eager0.out 2>&1
rc=$?
nrow=$(awk -F, 'NR > 1' $T/eager0.csv | wc -l)
nbad=$(awk -F, 'NR > 1 && ($12 != 0 || $22 != "tcp:links=1;eager=16384 (given)")' $T/eager0.csv | wc -l)
[ $rc = 0 ] && [ "$nrow" = 4 ] && [ "$nbad" = 0 ] && ok "ARLAB_MPI_EAGER_READY=0: $nrow rows exact, no ready messages in the transport" \
    || { bad "ARLAB_MPI_EAGER_READY=0: rc $rc, $nrow rows, $nbad bad"; tail -5 $T/eager0.out; head -3 $T/eager0.csv; }
# ARLAB_MPI_PHASE_LOG: every rank's round ends (run bytes phase round seconds); 3 algorithms x (1 timed + 1 checked) runs
# of the schedules on rank 0, the ends of each run in order
nph=$(ls $T/ph/phases.* 2>/dev/null | wc -l)
nbadl=$(cat $T/ph/phases.* 2>/dev/null | awk 'NF != 5 || $2 != 1000000 || $5 <= 0 || $5 > 60' | wc -l)
nrun=$(awk '{ print $1 }' $T/ph/phases.0 2>/dev/null | sort -u | wc -l)
nord=$(awk '$1 == r && $5 < t { n++ } { r = $1; t = $5 } END { print n + 0 }' $T/ph/phases.0 2>/dev/null)
[ "$nph" = 4 ] && [ "$nbadl" = 0 ] && [ "$nrun" = 6 ] && [ "$nord" = 0 ] \
    && ok "ARLAB_MPI_PHASE_LOG: 4 rank files, 6 runs of round ends on rank 0, each in order" \
    || { bad "phase log: $nph files, $nbadl bad lines, $nrun runs on rank 0, $nord out of order"; head -5 $T/ph/phases.0; }
expect "bad --transport" nonzero 'transport "links=0": auto, or links=N' -- \
    $ARLAB testbed run --platform $T/p.json --id $ID --transport links=0

# --- 1b. --format nccl-tests: one document per algorithm (MPI_Allreduce first), in place only, #wrong 0
$ARLAB testbed run --platform $T/p.json --id $ID --algo ring,two-level --size 64KB,1MB --iters 2 --warmup 1 \
    --format nccl-tests --transport links=1 --timeout 150 >$T/nt.out 2>&1
rc=$?
docs=$(grep -c '^# Collective test starting: all_reduce_perf$' $T/nt.out)
[ $rc = 0 ] && [ "$docs" = 3 ] && ok "nccl-tests format: 3 documents (mpi-allreduce, ring, two-level)" \
    || { bad "nccl-tests format: rc $rc, $docs documents"; cat $T/nt.out; }
n=$(grep -Ec '^ +(64000|1000000) +(16000|250000) +float +sum +-1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$' $T/nt.out)
[ "$n" = 6 ] && ok "nccl-tests format: 6 in-place rows, #wrong 0, out-of-place half blank" || { bad "nccl-tests rows: $n/6"; cat $T/nt.out; }
grep -q '^# arlab-mpi: algo two-level, 4 ranks on 2 machines of tb-test-2x2, lowering p2p' $T/nt.out \
    && ok "nccl-tests format: arlab comment names algorithm, ranks, machines" || bad "nccl-tests comment line"
[ "$(nsleft)" = 0 ] && ok "no namespace left after the nccl-tests run" || bad "$(nsleft) namespaces left"
# the same documents read back by the nccl-tests reader: each under the algorithm its "# arlab-mpi: algo" line names
$ARLAB compare --measured $T/nt.out --platform $T/p.json --algo ring,two-level --size 1MB --format csv >$T/ntc.csv 2>$T/ntc.err
n=$(awk -F, 'NR > 1 && ($1 == "ring" || $1 == "two-level") && $7 > 0 && $13 > 0' $T/ntc.csv | wc -l)
[ "$n" = 2 ] && ok "compare --measured on arlab-mpi's nccl-tests output: ring and two-level measured, MPI baseline" \
    || { bad "compare --measured: $n rows with measured_s and mpi_s: $(cat $T/ntc.err)"; cat $T/ntc.csv; }

# --- 1c. calibrate on the testbed, then compare on the calibrated platform: model, simulated and measured
# side by side, MPI_Allreduce as the baseline (nccl_s holds the library's own all-reduce)
$ARLAB testbed run --platform $T/p.json --id $ID --algo ring --size 1MB --iters 2 --warmup 1 --calibrate $T/cal.json \
    --transport links=1,eager=1MiB --out $T/m.csv --timeout 150 >$T/cal.out 2>&1
rc=$?
[ $rc = 0 ] && grep -q '"bw"' $T/cal.json && ok "testbed run --calibrate writes the calibrated platform" \
    || { bad "calibrate: rc $rc"; tail -5 $T/cal.out; }
# ping-pong and exchange at 9 sizes per class; alpha fitted over the 6 sizes <= 64 KiB with an interval (or said to be
# not identified), per class; the calibrated platform's notes carry the fit and the transport
n=$(grep -Ec '^# calibrate (intra|inter-2) +[0-9]+<->[0-9]+ +[0-9]+ B: ping-pong +[0-9.]+ us one-way .* exchange +[0-9.]+ us both ways' $T/cal.out)
[ "$n" = 20 ] && ok "calibration: ping-pong and exchange, 10 sizes x 2 classes" || { bad "calibration lines: $n/20"; grep '^#' $T/cal.out | head; }
n=$(grep -Ec '^# fit (intra|inter-2) +alpha -?[0-9.]+ us \[-?[0-9.]+, -?[0-9.]+\]( NOT IDENTIFIED \(interval reaches 0\))? \(95 %, 6 sizes <= 64 KiB' $T/cal.out)
[ "$n" = 2 ] && ok "alpha per class with its 95 % interval" || { bad "alpha fits: $n/2"; grep '^# fit' $T/cal.out; }
grep -q 'least squares over sizes <= 64 KiB with its 95 % interval' $T/cal.json \
    && grep -q 'MPI transport: tcp:links=1;eager=1048576;ready (given)' $T/cal.json && grep -q '"reduce":' $T/cal.json \
    && ok "calibrated platform: the fit and the transport in its notes, the ranks' reduction rate" || bad "calibrated notes: $(grep -m3 calibrated $T/cal.json)"
# the executor ran with ready messages: the calibrated platform prices them (compute.message.ready) and says so
python3 -c "
import json, sys
d = json.load(open('$T/cal.json'))
sys.exit(not (d['compute']['message'].get('ready') is True and 'compute.message.ready' in ' '.join(d['notes'])))" \
    && ok "calibrated platform: compute.message.ready with the ready messages, named in its notes" \
    || bad "calibrated platform: no compute.message.ready ($(grep -c ready $T/cal.json) lines name ready)"
# the per-message overhead o: fan-outs of 1..8 messages per class, the slope with its interval, o in the platform
n=$(grep -Ec '^# calibrate fan-out (inter|intra) [1-8] messages? to [12] peers?: +[0-9.]+ us' $T/cal.out)
[ "$n" = 16 ] && grep -Eq '^# fit o inter -?[0-9.]+ us per message (\[-?[0-9.]+, -?[0-9.]+\]|\(no interval\))' $T/cal.out \
    && grep -q 'compute.message.o' $T/cal.json && ok "fan-out: 2 x 8 counts, o fitted with its interval and in the notes" \
    || { bad "fan-out: $n/16 lines; $(grep '^# fit o' $T/cal.out)"; }
# the GPU links: bandwidth from the exchange of one pair per machine at once (1, 4, 16 MiB), latency alpha_intra/2
# (the wake-up of a held ping-pong printed beside): every GPU link of the calibrated platform carries those values
n=$(grep -Ec '^# calibrate intra-all 2 pairs +(1048576|4194304|16777216) B: exchange +[0-9.]+ us both ways' $T/cal.out)
wk=$(sed -n 's/^# fit wake-up \(-\{0,1\}[0-9.]*\) us \[-\{0,1\}[0-9.]*, -\{0,1\}[0-9.]*\] .*/\1/p' $T/cal.out)
ai=$(sed -n 's/^# fit intra  *alpha \(-\{0,1\}[0-9.]*\) us .*/\1/p' $T/cal.out)
xb=$(sed -n 's/^# fit intra-all exchange bw \([0-9.]*\) \([KMG]\)B\/s each way (2 pairs at once.*/\1 \2/p' $T/cal.out)
gpus() { python3 -c 'import json, sys
def walk(n):
    if "gpu" in n: yield n
    for c in n.get("children", []): yield from walk(c)
print(" ".join(sorted({repr(g[sys.argv[2]]) for g in walk(json.load(open(sys.argv[1]))["root"])})))' "$@"; }
lats=$(gpus $T/cal.json lat)
bws=$(gpus $T/cal.json bw)
awk -v n="$n" -v w="$wk" -v a="$ai" -v xb="$xb" -v lats="$lats" -v bws="$bws" 'BEGIN {
    split(xb, q, " "); m = q[2] == "G" ? 1e9 : q[2] == "M" ? 1e6 : 1e3; want_bw = q[1] * m
    want_lat = (a > 0 ? a : 0) / 2 * 1e-6
    nl = split(lats, l, " "); nb = split(bws, b, " ")
    # printed to 0.01 us and 3 digits: the platform holds the exact values
    exit !(n == 3 && w != "" && a != "" && q[1] > 0 && nl == 1 && nb == 1 && (l[1] - want_lat)^2 < (0.011e-6)^2 &&
           (b[1] - want_bw)^2 < (0.006 * want_bw)^2) }' \
    && ok "GPU links: bw $bws = the concurrent intra exchange ($xb""B/s), lat $lats = alpha $ai us / 2 (wake-up $wk us printed, not used)" \
    || bad "GPU links: $n/3 intra-all lines, w '$wk', alpha '$ai', exchange '$xb', child_lat '$lats', child_bw '$bws'"
$ARLAB compare --platform $T/cal.json --algo ring --size 1MB --format csv $T/m.csv >$T/cmp.csv 2>$T/cmp.err
row=$(awk -F, 'NR > 1 && $1 == "ring" && $4 == 1000000' $T/cmp.csv)
awk -F, -v r="$row" 'BEGIN { n = split(r, f, ","); exit !(f[5] > 0 && f[6] > 0 && f[7] > 0 && f[10] > 0) }' \
    && ok "compare on the calibrated platform: model, sim, measured and the MPI_Allreduce baseline ($row)" \
    || { bad "compare row: '$row' $(cat $T/cmp.err)"; head -3 $T/cmp.csv; }
[ "$(nsleft)" = 0 ] && ok "no namespace left after the calibration run" || bad "$(nsleft) namespaces left"

# --- 2. up / status / already up / down
expect "up" 0 "up: 2 machines" -- $ARLAB testbed up --platform $T/p.json --id $ID --out $T/shaped.json
[ "$(nsleft)" = 4 ] && ok "up made 4 namespaces (2 machines, 1 switch, head)" || bad "up: $(nsleft) namespaces"
expect "status" 0 "rate 200Mbit" -- $ARLAB testbed status --id $ID
# the shaped link has its rate at 64 KiB: one message across it (m0 -> s0 -> m1) after 20 ms idle, so that the
# bucket is full, takes size/rate + latency (200 Mbit/s: 2621 us + the 8 B time), not what a bucket of 64 KiB or
# more lets through at veth speed (a few 100 us). Bounds: >= 0.75 x size/rate above the 8 B time (the 10 KB
# bucket leaves at once; tbf also counts the headers), <= 1.5 x size/rate + the 8 B time + 1 ms (load)
ip netns exec ${PFX}m1 "$TB_ONEWAY" srv 5999 >$T/ow-srv.out 2>&1 &
spid=$!
ip netns exec ${PFX}m0 timeout 90 "$TB_ONEWAY" cli 10.213.0.2 5999 8,65536 >$T/ow.out 2>&1
wait $spid
t8=$(awk '$1 == 8 { print $2 }' $T/ow.out)
t64=$(awk '$1 == 65536 { print $2 }' $T/ow.out)
awk -v t="$t64" -v a="$t8" 'BEGIN { r = 65536 / 25e6 * 1e6; exit !(t != "" && a != "" && t - a >= 0.75 * r && t <= 1.5 * r + a + 1000) }' \
    && ok "64 KiB after idle across the shaped link: $t64 us (size/rate 2621 us + 8 B: $t8 us)" \
    || bad "64 KiB after idle across the 200 Mbit/s link: '$t64' us (8 B: '$t8' us), wanted 1966 us more than 8 B and at most 3932 us + 8 B + 1 ms: $(cat $T/ow.out $T/ow-srv.out | head -3)"
# the shaping read back: a 10 KB bucket (not 64 KiB+: a 64 KiB message must see the rate) and the GSO cap
expect "status: the small bucket and the GSO cap" 0 "tbf 1: dev u0 root .*rate 200Mbit burst 10000b .*gso_max_size 8192" -- \
    $ARLAB testbed status --id $ID
# TCP on the data network: cubic, set per route in every machine (not the host's default, which may be BBR)
expect "status: cubic on the machines' data route" 0 "route 10.213.0.0/16 .*src 10.213.0.2 congctl cubic" -- \
    $ARLAB testbed status --id $ID
ip -n ${PFX}m0 route show dev u0 | grep -q "src 10.213.0.1 congctl cubic" && ok "m0's data route has congctl cubic" \
    || bad "m0's data route: $(ip -n ${PFX}m0 route show dev u0)"
expect "status before any run: no transport chosen" 0 "MPI transport: not chosen yet" -- $ARLAB testbed status --id $ID
expect "already up" nonzero "already up" -- $ARLAB testbed up --platform $T/p.json --id $ID
expect "down" 0 "down (4 namespaces removed)" -- $ARLAB testbed down --id $ID
[ "$(nsleft)" = 0 ] && ok "no namespace left after down" || bad "$(nsleft) namespaces left after down"

# --- 3. bad input
expect "non-tree platform" nonzero "needs a tree platform" -- $ARLAB testbed up --platform torus-4x4 --id $ID
nr=$(( $(nproc) * 4 + 1 ))
expect "too many ranks" nonzero "at most 4 x" -- $ARLAB testbed up --platform flat:ranks=$nr --id $ID
expect "link too fast" nonzero "link .*m0.* is faster.*--scale" -- $ARLAB testbed up --platform $T/fast.json --id $ID
expect "--scale writes the scaled platform" 0 "up: 2 machines.*scale 0.02" -- \
    $ARLAB testbed up --platform $T/fast.json --id $ID --scale 0.02 --out $T/scaled.json
grep -q '"bw":	25000000,' $T/scaled.json && grep -q 'tb-test-fast@scale=0.02' $T/scaled.json \
    && ok "scaled platform: 10 Gb/s x 0.02 = 25 MB/s, name carries the scale" || bad "scaled platform JSON: $(head -c 400 $T/scaled.json)"
$ARLAB testbed down --id $ID >/dev/null
expect "bad congestion control" nonzero 'ARLAB_TESTBED_CC="Cubic;x": a TCP congestion control' -- \
    env ARLAB_TESTBED_CC='Cubic;x' $ARLAB testbed up --platform $T/p.json --id $ID
expect "unknown congestion control" nonzero "congctl nosuchcc' failed" -- \
    env ARLAB_TESTBED_CC=nosuchcc $ARLAB testbed up --platform $T/p.json --id $ID
[ "$(nsleft)" = 0 ] && ok "no namespace left after the refused congestion controls" || bad "$(nsleft) namespaces left"
$ARLAB testbed down --id $ID >/dev/null 2>&1 # an arlab that built one anyway: the checks below start clean
expect "bad id" nonzero "testbed id" -- $ARLAB testbed down --id 'A/B'
expect "no privileges" 77 "needs root" -- setpriv --reuid=65534 --regid=65534 --clear-groups $ARLAB testbed up --platform flat:ranks=4 --id $ID
[ "$(nsleft)" = 0 ] && ok "no namespace left after the bad inputs" || bad "$(nsleft) namespaces left after bad inputs"

# --- 4. SIGINT to up (builder paused with everything built)
ARLAB_TESTBED_PAUSE=20 $ARLAB testbed up --platform $T/p.json --id $ID >$T/int.out 2>&1 &
pid=$!
for i in $(seq 100); do [ "$(nsleft)" = 4 ] && break; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] && [ "$(nsleft)" = 0 ] && ok "SIGINT to up: exit 130, testbed removed" || bad "SIGINT to up: rc $rc, $(nsleft) left: $(cat $T/int.out)"

# --- 5. SIGINT to run (during mpirun)
$ARLAB testbed run --platform $T/p.json --id $ID --algo ring --size 16MB --iters 50 --timeout 100 --transport links=2 \
    >$T/intr.out 2>&1 &
pid=$!
for i in $(seq 150); do pgrep -f "arlab-mpi --platform $ARLAB_TESTBED_DIR" >/dev/null && break; sleep 0.1; done
sleep 1
# while it runs, status names the transport of the run
expect "status names the run's MPI transport" 0 "MPI transport: links=2 (given: --transport)" -- $ARLAB testbed status --id $ID
kill -INT $pid; wait $pid; rc=$?
sleep 0.5
left=$(pgrep -fc "arlab-mpi --platform $ARLAB_TESTBED_DIR")
[ $rc = 130 ] && [ "$(nsleft)" = 0 ] && [ "$left" = 0 ] && ok "SIGINT to run: exit 130, testbed and ranks gone" \
    || bad "SIGINT to run: rc $rc, $(nsleft) namespaces, $left ranks left: $(tail -3 $T/intr.out)"

# --- 6. kill -9 of the builder: its watchdog removes the testbed
ARLAB_TESTBED_PAUSE=20 $ARLAB testbed up --platform $T/p.json --id $ID >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do [ "$(nsleft)" = 4 ] && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
for i in $(seq 50); do [ "$(nsleft)" = 0 ] && break; sleep 0.1; done
[ "$(nsleft)" = 0 ] && ok "kill -9 of the builder: the watchdog removed the testbed" || bad "watchdog: $(nsleft) namespaces left"

# --- 7. kill -9 without a watchdog: the next command finds the stale testbed and cleans it
ARLAB_TESTBED_NO_WATCHDOG=1 ARLAB_TESTBED_PAUSE=20 $ARLAB testbed up --platform $T/p.json --id $ID >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do [ "$(nsleft)" = 4 ] && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
sleep 0.3
[ "$(nsleft)" = 4 ] && ok "kill -9 without watchdog leaves the testbed (stale)" || bad "stale setup: $(nsleft) namespaces"
expect "stale testbed detected and cleaned" 0 "removed a stale testbed '$ID' (its builder (pid $pid) no longer runs" -- \
    $ARLAB testbed status --id $ID
[ "$(nsleft)" = 0 ] && ok "stale testbed gone" || bad "$(nsleft) namespaces left after stale cleaning"
# namespaces without a state file (e.g. a crash before the state was written) are stale too
ip netns add ${PFX}m0
expect "orphan namespaces cleaned by up" 0 "namespaces without a state file" -- $ARLAB testbed up --platform $T/p.json --id $ID
$ARLAB testbed down --id $ID >/dev/null
[ "$(nsleft)" = 0 ] && ok "nothing left at the end" || bad "$(nsleft) namespaces left at the end"

echo "testbed: $(( $(date +%s) - t0 )) s, $fails failure(s)"
[ $fails = 0 ]
