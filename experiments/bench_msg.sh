#!/bin/bash
# Per-message costs (LogGP o, g) in the simulator: an old arlab binary against a new one, paired
# (each run of the old followed by one of the new, in the same minute), N runs each; prints the
# median, min and max wall time of the whole command and the simulated time (and, for --algo all,
# the sum of the simulated times and how many rows differ between the two binaries).
#
#   experiments/bench_msg.sh OLD_ARLAB [NEW_ARLAB] [N]
#
# NEW_ARLAB defaults to build/arlab, N to 5. Cases: NCCL's ring on aws-p5:nodes=32 (256 GPUs,
# EFA o = 12.1 us, g = 6.05 us between machines) at 100 MB (even blocks) and 100000004 B (uneven),
# under the default --sync dataflow and under --sync round (where an older binary took o and g off
# and said so on stderr), NCCL's ring with one channel and arlab's ring at 100000004 B (dataflow
# runs derived with the sides since the derivation carries them; 8 channels hand over), and every
# algorithm on dgx-h100:nodes=8 at 1 MB (o = 3.44 us, g = 1.72 us).
# Run it on an otherwise idle machine: the simulation uses one core.
set -u
OLD=${1:?usage: bench_msg.sh OLD_ARLAB [NEW_ARLAB] [N]}
NEW=${2:-build/arlab}
N=${3:-5}
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "bench_msg.sh: no arlab binary at $b" >&2; exit 2; }; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# the median, min and max of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf "%8.3f %8.3f %8.3f", m, v[1], v[NR] }'; }
# the sum of column sim_s over the rows of a CSV, and the number of rows with a time
simsum() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $(c["sim_s"]) != "" { s += $(c["sim_s"]); n++ } END { printf "%.9g %d", s, n }' "$1"; }

printf '%-46s %-4s %8s %8s %8s %16s %s\n' case bin med_s min_s max_s sim_s note
run_case() { # run_case LABEL ARGS...
    local label=$1
    shift
    : >"$TMP/w.old"
    : >"$TMP/w.new"
    for _ in $(seq "$N"); do
        for which in old new; do
            local bin=$OLD
            [ $which = new ] && bin=$NEW
            /usr/bin/time -f '%e' -o "$TMP/t" "$bin" sim "$@" --format csv >"$TMP/csv.$which" 2>"$TMP/err.$which"
            cat "$TMP/t" >>"$TMP/w.$which"
        done
    done
    for which in old new; do
        local sum rows note=""
        read -r sum rows < <(simsum "$TMP/csv.$which")
        [ -s "$TMP/err.$which" ] && note="stderr: $(head -c 90 "$TMP/err.$which" | head -1)"
        [ "$rows" != 1 ] && note="$rows rows (sim_s summed) $note"
        printf '%-46s %-4s %s %16.9g %s\n' "$label" $which "$(stats <"$TMP/w.$which")" "$sum" "$note"
    done
    local diff
    diff=$(awk -F, 'NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) c[$i] = i; else a[FNR] = $(c["sim_s"]); next }
        FNR > 1 && $(c["sim_s"]) != a[FNR] { d++ } END { print d + 0 }' "$TMP/csv.old" "$TMP/csv.new")
    printf '%-46s rows whose sim_s differs (old vs new): %s\n' "$label" "$diff"
}

run_case "nccl-ring aws-p5:nodes=32 100MB" --platform aws-p5:nodes=32 --algo nccl-ring --size 100MB
run_case "nccl-ring aws-p5:nodes=32 100000004B (uneven)" --platform aws-p5:nodes=32 --algo nccl-ring --size 100000004B
run_case "nccl-ring:channels=1 aws-p5:nodes=32 100000004B" --platform aws-p5:nodes=32 --algo nccl-ring:channels=1 --size 100000004B
run_case "ring aws-p5:nodes=32 100000004B (uneven)" --platform aws-p5:nodes=32 --algo ring --size 100000004B
run_case "nccl-ring aws-p5:nodes=32 100MB --sync round" --platform aws-p5:nodes=32 --algo nccl-ring --size 100MB --sync round
run_case "all dgx-h100:nodes=8 1MB" --platform dgx-h100:nodes=8 --algo all --size 1MB
