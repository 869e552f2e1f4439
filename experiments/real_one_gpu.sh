#!/usr/bin/env bash
# Several NCCL ranks on ONE GPU: the measured table, the calibration fit and
# the model/simulated/measured comparison of the real/ backend.
#
#   experiments/real_one_gpu.sh [options]
#     --ranks N        ranks (default 4), all on GPU 0 (CUDA_VISIBLE_DEVICES)
#     --nodes M        "machines" the planners see: N/M ranks each (default 2);
#                      the platform is machines:gpus=2+2 for 4 ranks on 2 nodes
#     --sizes LIST     message sizes (default 64KB,1MB,16MB,64MB)
#     --algos LIST     comma list of algorithms (default: all registered)
#     --iters N        timed iterations per point (default 10; warm-up 3)
#     --out DIR        results directory (default out/real-one-gpu)
#     --mpi            launch with mpirun -np N (a wrapper gives each rank its
#                      NCCL_HOSTID); default: real/launch_local.sh (no MPI)
#     --netns          needs root: put the ranks of node m into network
#                      namespace arlab-n<m>, join the namespaces with veth
#                      pairs through a bridge namespace, and shape the
#                      inter-node links with tc (tbf) to --rate and netem
#                      --delay: a two-level cluster where ranks of one node
#                      talk over the namespace's own address (fast) and
#                      across nodes over the shaped veth
#     --rate R         inter-node rate for --netns (default 2gbit)
#     --delay D        extra one-way inter-node delay for --netns (default 0ms)
#     --mps MODE       NVIDIA MPS for the ranks sharing the GPU: auto (default:
#                      start it when nvidia-cuda-mps-control can, else time-
#                      slice), on (fail without it), off; stopped at the end
#                      if this script started it (real/mps.sh). Every output
#                      says which held: placement=shared-gpu-mps or
#                      shared-gpu-timeslice, transport=socket(...)
#     --timing T       arlab (default) or nccl-tests (see real/README.md)
#     --arlab PATH     the arlab binary (default: build/arlab, else build-*/arlab)
#
# Why it works: NCCL refuses two ranks of one communicator on the same GPU of
# the same host. A distinct NCCL_HOSTID per rank makes every rank a separate
# "host" to NCCL, which then connects them with its network transport: the
# socket transport (NCCL_IB_DISABLE=1) over loopback (NCCL_SOCKET_IFNAME=lo),
# or over the veth links with --netns. NCCL's documentation calls several ranks
# on one GPU unsupported ("may lead to hangs"): without MPS the ranks' spinning
# kernels progress only by time-slicing, so a measurement describes loopback
# TCP plus context switches; with MPS (nvidia-cuda-mps-control -d) they run
# concurrently. The outputs say which (placement=..., transport=...).
#
# Steps (everything written under --out):
#   1. dry-run.txt      arlab real --dry-run: the NCCL plan and its host simulation
#   2. calibrated.json  arlab calibrate: ping-pong per link class, alpha/beta fit
#      calibrate.txt
#   3. real.csv         arlab real --platform calibrated.json: every algorithm
#      real.txt         beside ncclAllReduce, in/out of place (nccl-tests table)
#      real-nccltests.txt  the same measurement in nccl-tests' format
#   4. compare.csv      arlab compare: model / simulated / measured, errors
#      compare.txt
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ranks=4 nodes=2 sizes=64KB,1MB,16MB,64MB algos=all iters=10 out=out/real-one-gpu
mpi=0 netns=0 rate=2gbit delay=0ms arlab= mps=auto timing=arlab
while [[ $# -gt 0 ]]; do
  case $1 in
    --ranks) ranks=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --algos) algos=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --mpi) mpi=1; shift ;;
    --netns) netns=1; shift ;;
    --rate) rate=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --arlab) arlab=$2; shift 2 ;;
    --mps) mps=$2; shift 2 ;;
    --timing) timing=$2; shift 2 ;;
    -h | --help) sed -n '2,55p' "$0"; exit 0 ;;
    *) echo "real_one_gpu.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z $arlab ]]; then
  for c in "$here/build/arlab" "$here"/build-*/arlab; do
    if [[ -x $c ]]; then arlab=$c; break; fi
  done
fi
[[ -n $arlab && -x $arlab ]] || { echo "real_one_gpu.sh: no arlab binary (build it, or give --arlab PATH)" >&2; exit 2; }
((ranks >= 2 && nodes >= 1 && ranks % nodes == 0)) || { echo "real_one_gpu.sh: --ranks must be a multiple of --nodes" >&2; exit 2; }
per=$((ranks / nodes))
plat="machines:gpus=$per"
for ((m = 1; m < nodes; m++)); do plat+="+$per"; done
mkdir -p "$out"
out=$(cd "$out" && pwd)
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
export NCCL_IB_DISABLE=1
algo_args=()
IFS=, read -ra al <<<"$algos"
for a in "${al[@]}"; do algo_args+=(--algo "$a"); done

# --- launcher ---------------------------------------------------------------
launch() { # launch ARLAB-ARGS...: runs `arlab ARGS` on all ranks
  if ((mpi)); then
    local wrap="$out/.rank_env.sh" root=()
    cat >"$wrap" <<'EOF'
#!/usr/bin/env bash
export NCCL_HOSTID=arlab-rank${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}
exec "$@"
EOF
    chmod +x "$wrap"
    [[ $(id -u) == 0 ]] && root=(--allow-run-as-root)
    local mpsenv=(-x ARLAB_MPS)
    [[ -n ${CUDA_MPS_PIPE_DIRECTORY:-} ]] && mpsenv+=(-x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY)
    mpirun "${root[@]}" -np "$ranks" --oversubscribe --map-by slot -x CUDA_VISIBLE_DEVICES -x NCCL_IB_DISABLE \
      "${mpsenv[@]}" -x NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-lo}" "$wrap" "$arlab" "$@"
  else
    ARLAB_LOG_DIR="$out/logs" "$here/real/launch_local.sh" "$ranks" --hostid rank -- "$arlab" "$@"
  fi
}

# --- optional network namespaces: M nodes joined through a bridge ---------------
cleanup_netns() {
  for ((m = 0; m < nodes; m++)); do ip netns del "arlab-n$m" 2>/dev/null || true; done
  ip netns del arlab-br 2>/dev/null || true
}
if ((netns)); then
  [[ $(id -u) == 0 ]] || { echo "real_one_gpu.sh: --netns needs root (ip netns, tc)" >&2; exit 2; }
  ((mpi == 0)) || { echo "real_one_gpu.sh: --netns uses the file launch, not --mpi" >&2; exit 2; }
  cleanup_netns
  trap 'cleanup_netns; arlab_mps_stop' EXIT
  ip netns add arlab-br
  ip -n arlab-br link add arbr type bridge
  ip -n arlab-br link set arbr up
  ip -n arlab-br link set lo up
  nslist=()
  for ((m = 0; m < nodes; m++)); do
    ns=arlab-n$m
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip link add "arv$m" netns "$ns" type veth peer name "arp$m" netns arlab-br
    ip -n "$ns" addr add "10.77.0.$((m + 1))/24" dev "arv$m"
    ip -n "$ns" link set "arv$m" up
    ip -n arlab-br link set "arp$m" master arbr
    ip -n arlab-br link set "arp$m" up
    # shape what leaves each node (tbf: rate; netem: delay), both directions covered by the two ends
    ip netns exec "$ns" tc qdisc add dev "arv$m" root handle 1: netem delay "$delay"
    ip netns exec "$ns" tc qdisc add dev "arv$m" parent 1:1 handle 10: tbf rate "$rate" burst 256kb latency 100ms
    ip netns exec arlab-br tc qdisc add dev "arp$m" root tbf rate "$rate" burst 256kb latency 100ms
    for ((k = 0; k < per; k++)); do nslist+=("$ns"); done
  done
  export ARLAB_RANK_NETNS
  ARLAB_RANK_NETNS=$(IFS=,; echo "${nslist[*]}")
  export NCCL_SOCKET_IFNAME=arv # every rank talks over its namespace's veth address
  echo "# netns: $nodes nodes x $per ranks, inter-node $rate, delay $delay (namespaces arlab-n*, bridge arlab-br)"
fi

# --- MPS: every rank shares GPU 0 ---------------------------------------------
# shellcheck source=real/mps.sh
. "$here/real/mps.sh"
arlab_mps_start "$mps" || { echo "real_one_gpu.sh: --mps on: MPS could not be started" >&2; exit 2; }
((netns)) || trap arlab_mps_stop EXIT
export ARLAB_MPS_MODE=off # launch_local.sh: MPS is this script's business

echo "# arlab: $arlab; $ranks ranks on GPU $CUDA_VISIBLE_DEVICES, platform $plat, results in $out; MPS $ARLAB_MPS"
# 1. the plan, without the GPU
"$arlab" real --dry-run --platform "$plat" "${algo_args[@]}" --size "${sizes%%,*}" | tee "$out/dry-run.txt" | tail -20
# 2. calibration: link classes from the platform's machines
launch calibrate --platform "$plat" --iters "$iters" --warmup 3 --name "one-gpu-$ranks" --out "$out/calibrated.json" |
  tee "$out/calibrate.txt"
# 3. the measured table, planned and modelled on the calibrated platform
launch real --platform "$out/calibrated.json" "${algo_args[@]}" --size "$sizes" --iters "$iters" --warmup 3 \
  --timing "$timing" --out "$out/real.csv" | tee "$out/real.txt"
launch real --platform "$out/calibrated.json" "${algo_args[@]}" --size "$sizes" --iters "$iters" --warmup 3 \
  --timing "$timing" --format nccl-tests >"$out/real-nccltests.txt"
# 4. model vs simulated vs measured
"$arlab" compare --platform "$out/calibrated.json" "${algo_args[@]}" --size "$sizes" "$out/real.csv" | tee "$out/compare.txt"
"$arlab" compare --platform "$out/calibrated.json" "${algo_args[@]}" --size "$sizes" --format csv "$out/real.csv" \
  >"$out/compare.csv"
echo "# done: $out/{dry-run.txt,calibrated.json,calibrate.txt,real.csv,real.txt,real-nccltests.txt,compare.csv,compare.txt}"
