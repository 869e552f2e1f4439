#!/usr/bin/env bash
# Spanning-tree packing LP: solve time on GPU graphs of 64 to 256 GPUs
# and on switched trees of 256 to 1024 GPUs.
# A benchmark, not a test: it prints a table and writes nothing else.
#
#   experiments/bench_treepack.sh [--arlab PATH] [--compact] [--keep DIR] [--no-switched]
#                                 [--sim [--old PATH] [--ranks "64 128 256"]]
#     --arlab PATH   the arlab binary (default: build/arlab, else the newest build-*/arlab)
#     --compact      also solve the extended (multicommodity-flow) formulation on
#                    the 64-GPU graphs (arlab trees --check), for comparison; it
#                    has O(n m) rows and columns and takes tens of seconds there
#     --keep DIR     keep the generated platform files in DIR
#     --no-switched  leave out the switched trees (tree:ranks=256/512/1024, about
#                    10 s together)
#     --sim          instead of the LP table: the simulation of the plan,
#                    `arlab sim --platform tree:ranks=N --algo treepack --size 100MB`
#                    (default dataflow, every transfer in SimGrid), under arlab's
#                    default network and with SimGrid's network/optim:Full, for each
#                    N of --ranks (default "64 128 256"; 256 takes 40-70 CPU s, 512
#                    about 25 times that); with --old PATH the same runs of that
#                    binary first (paired). Columns: cpu_s (user + sys, the forked
#                    simulation included), wall_s, MB (peak RSS), sim_s to 17 digits
#                    and |rel| against the first row of its N ("same" when equal).
#
# Graphs (every link joins two GPUs, NVLink-like 25 GB/s lanes, 1 us):
#   torus-RxC     2-D torus of GPUs, lanes 1..3 by a fixed pattern: every link
#                 is tight at the optimum (C(G) = (n-1)/sum lanes), the
#                 hardest case for column generation (a degenerate master);
#   dgx-K         K DGX-1/P3.16xlarge boxes (the preset's hybrid cube-mesh),
#                 GPU i of box b joined to GPU i of box b+1 (ring of boxes,
#                 1 lane at 12.5 GB/s: c_e = 2);
#   regular-N     ring plus two random perfect matchings (degree <= 5), lanes 1..3;
#   tree:ranks=N  the generated switch tree (`arlab platforms`): switches cannot
#                 aggregate, so every GPU pair is a candidate tree edge (n^2/2 of
#                 them) routed through the switches; the pricing is Prim's
#                 algorithm on those pairs, the Frank-Wolfe warm start most of
#                 the time.
# For each: GPUs, links, C(G) (exact p/q when certified), trees, LP columns,
# LP solves, and the solver's time (column generation incl. the exact
# certificate where it applies; then the root LP), plus the wall time of the
# whole `arlab trees` run.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
arlab=""
compact=0
keep=""
switched=1
sim=0
old=""
ranks="64 128 256"
while [ $# -gt 0 ]; do
    case "$1" in
    --arlab) arlab=$2; shift 2 ;;
    --compact) compact=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    --no-switched) switched=0; shift ;;
    --sim) sim=1; shift ;;
    --old) old=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    -h | --help) sed -n '2,41p' "$0"; exit 0 ;;
    *) echo "bench_treepack.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ -z "$arlab" ]; then
    if [ -x "$here/build/arlab" ]; then arlab="$here/build/arlab"
    else arlab=$(ls -t "$here"/build-*/arlab 2>/dev/null | head -1 || true); fi
fi
[ -x "$arlab" ] || { echo "bench_treepack.sh: no arlab binary (build first or give --arlab)" >&2; exit 2; }
[ -z "$old" ] || [ -x "$old" ] || { echo "bench_treepack.sh: --old $old is not an executable" >&2; exit 2; }
for n in $ranks; do
    case $n in '' | *[!0-9]*) echo "bench_treepack.sh: --ranks takes whole numbers, not '$n'" >&2; exit 2 ;; esac
done
dir=${keep:-$(mktemp -d)}
mkdir -p "$dir"
[ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT

if [ "$sim" = 1 ]; then
    # Where the time goes (measured on 3.32, the bridge's completion-scan fix on): SimGrid
    # re-solves the one max-min component every instant a transfer ends, at a near-constant
    # cost per flow in flight (about 0.3 us): CPU ~ instants x mean flows in flight. Both
    # grow about 4x and 3.5x per doubling of the ranks (twice the trees of twice the edges).
    printf '%-15s %-4s %-6s %8s %8s %6s %22s %s\n' platform bin optim cpu_s wall_s MB sim_s "|rel|"
    bins=()
    [ -n "$old" ] && bins+=("old:$old")
    bins+=("new:$arlab")
    for n in $ranks; do
        first=""
        for b in "${bins[@]}"; do
            for optim in Lazy Full; do
                net=()
                [ "$optim" = Full ] && net=(--network "CM02,network/optim:Full")
                /usr/bin/time -f '%U %S %e %M' -o "$dir/time" "${b#*:}" sim --platform "tree:ranks=$n" \
                    --algo treepack --size 100MB --format csv "${net[@]}" >"$dir/sim.csv" 2>"$dir/err" || {
                    printf '%-15s %-4s %-6s failed: %s\n' "tree:ranks=$n" "${b%%:*}" "$optim" "$(head -1 "$dir/err")"
                    continue
                }
                read -r u sy w kb <"$dir/time"
                t=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $(c["sim_s"]) }' "$dir/sim.csv")
                [ -n "$first" ] || first=$t
                rel=$(awk -v a="$t" -v b="$first" 'BEGIN { if (a == b) print "same"; else { r = a / b - 1; printf "%.1e", r < 0 ? -r : r } }')
                printf '%-15s %-4s %-6s %8.2f %8.2f %6.0f %22s %s\n' "tree:ranks=$n" "${b%%:*}" "$optim" \
                    "$(echo "$u + $sy" | bc -l)" "$w" "$(echo "$kb / 1024" | bc -l)" "$t" "$rel"
            done
        done
    done
    echo "(optim: SimGrid's network/optim, Lazy = arlab's default; machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
    exit 0
fi

link() { printf '{"a":"gpu%d","b":"gpu%d","bw":"%s","lat":"1us","lanes":%d}' "$1" "$2" "$3" "$4"; }

torus() { # R C
    awk -v R="$1" -v C="$2" 'BEGIN {
        n = R * C; printf "{\"name\":\"torus-%dx%d\",\"kind\":\"graph\",\"gpus\":%d,\"links\":[", R, C, n; first = 1
        for (i = 0; i < R; i++) for (j = 0; j < C; j++) {
            u = i * C + j; v = i * C + (j + 1) % C; w = ((i + 1) % R) * C + j
            if (!first) printf ","; first = 0
            printf "{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":\"25GBps\",\"lat\":\"1us\",\"lanes\":%d},", u, v, 1 + (u * 7 + 3) % 3
            printf "{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":\"25GBps\",\"lat\":\"1us\",\"lanes\":%d}", u, w, 1 + (u * 5 + 1) % 3
        }
        printf "]}\n" }'
}

dgx() { # K boxes of the p3.16xlarge link matrix, joined in a ring
    awk -v K="$1" 'BEGIN {
        split("0 1 1,0 2 1,0 3 2,0 4 2,1 2 2,1 3 1,1 5 2,2 3 2,2 6 1,3 7 1,4 5 1,4 6 1,4 7 2,5 6 2,5 7 1,6 7 2", L, ",")
        printf "{\"name\":\"dgx-%d\",\"kind\":\"graph\",\"gpus\":%d,\"links\":[", K, 8 * K; first = 1
        for (b = 0; b < K; b++) {
            for (k = 1; k <= 16; k++) { split(L[k], f, " ")
                if (!first) printf ","; first = 0
                printf "{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":\"25GBps\",\"lat\":\"1us\",\"lanes\":%d}", 8 * b + f[1], 8 * b + f[2], f[3] }
            if (K > 1 && (K > 2 || b == 0)) for (i = 0; i < 8; i++)
                printf ",{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":\"12.5GBps\",\"lat\":\"1us\",\"lanes\":1}", 8 * b + i, 8 * ((b + 1) % K) + i
        }
        printf "]}\n" }'
}

regular() { # N SEED: ring + two random perfect matchings
    awk -v N="$1" -v S="$2" 'BEGIN {
        srand(S); printf "{\"name\":\"regular-%d\",\"kind\":\"graph\",\"gpus\":%d,\"links\":[", N, N; first = 1
        for (i = 0; i < N; i++) { a = i; b = (i + 1) % N; key[(a < b ? a "," b : b "," a)] = 1
            if (!first) printf ","; first = 0
            printf "{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":\"25GBps\",\"lat\":\"1us\",\"lanes\":%d}", a, b, 1 + int(rand() * 3) }
        for (m = 0; m < 2; m++) {
            for (i = 0; i < N; i++) p[i] = i
            for (i = N - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
            for (i = 0; i + 1 < N; i += 2) { a = p[i]; b = p[i + 1]; k = (a < b ? a "," b : b "," a)
                if (k in key) continue; key[k] = 1
                printf ",{\"a\":\"gpu%d\",\"b\":\"gpu%d\",\"bw\":\"25GBps\",\"lat\":\"1us\",\"lanes\":%d}", a, b, 1 + int(rand() * 3) }
        }
        printf "]}\n" }'
}

torus 8 8 >"$dir/torus-8x8.json"
torus 16 16 >"$dir/torus-16x16.json"
dgx 8 >"$dir/dgx-8.json"
dgx 32 >"$dir/dgx-32.json"
regular 64 1 >"$dir/regular-64.json"
regular 256 1 >"$dir/regular-256.json"

# value of summary key $2 in CSV $1 (the value is the last field, possibly quoted)
val() { grep -F ",summary,$2,value," "$1" | head -1 | sed -E 's/^([^,]*,){4}//; s/^"(.*)"$/\1/'; }

printf '%-15s %5s %6s %-16s %6s %6s %6s %10s %9s %8s %s\n' graph gpus links "C(G)" exact trees cols solves "cg ms" "root ms" "wall s"
graphs=(torus-8x8 regular-64 dgx-8 torus-16x16 regular-256 dgx-32)
[ "$switched" = 1 ] && graphs+=(tree:ranks=256 tree:ranks=512 tree:ranks=1024)
for g in "${graphs[@]}"; do
    f="$dir/$g.json"
    [[ "$g" == *:* ]] && f=$g
    args=(trees --platform "$f" --format csv)
    if [ "$compact" = 1 ] && [[ "$g" == *-64 || "$g" == torus-8x8 || "$g" == dgx-8 ]]; then args+=(--check); fi
    t0=$(date +%s.%N)
    "$arlab" "${args[@]}" >"$dir/$g.csv"
    t1=$(date +%s.%N)
    solver=$(val "$dir/$g.csv" solver)   # "N columns, M LP solves, X ms; roots Y ms (Z candidates)"
    cols=$(sed -E 's/^([0-9]+) columns.*/\1/' <<<"$solver")
    solves=$(sed -E 's/^[0-9]+ columns, ([0-9]+) LP solves.*/\1/' <<<"$solver")
    cg=$(sed -E 's/.* LP solves, ([0-9.]+) ms.*/\1/' <<<"$solver")
    roots=$(sed -E 's/.*roots ([0-9.]+) ms.*/\1/' <<<"$solver")
    cg_value=$(val "$dir/$g.csv" 'C(G)')
    exact=$([[ "$cg_value" == */* ]] && echo yes || echo no)   # p/q only when certified
    printf '%-15s %5s %6s %-16s %6s %6s %6s %10s %9s %8s %.2f\n' "$g" "$(val "$dir/$g.csv" gpus)" \
        "$(grep -c ',links,.*,lanes,' "$dir/$g.csv")" "$cg_value" "$exact" \
        "$(val "$dir/$g.csv" trees)" "$cols" "$solves" "$cg" "$roots" "$(echo "$t1 - $t0" | bc -l)"
    if [ "$compact" = 1 ] && grep -q 'extended formulation' "$dir/$g.csv"; then
        echo "             extended formulation: $(val "$dir/$g.csv" 'extended formulation')"
    fi
done
echo "(cg ms: column generation with its warm start and exact certificate; root ms: the root LP; machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
