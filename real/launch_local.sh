#!/usr/bin/env bash
# Starts N ranks of an arlab command on this machine without MPI (arlab's
# "--launch file", chosen automatically when ARLAB_NRANKS is set):
#
#   real/launch_local.sh N [--hostid auto|rank|none] [--] COMMAND [ARGS...]
#
# Every rank r gets ARLAB_RANK=r, ARLAB_NRANKS=N, ARLAB_LOCAL_RANK=r (its GPU
# is r modulo the GPU count) and one fresh ARLAB_ID_FILE (rank 0 writes the
# ncclUniqueId there; arlab removes it once every rank has joined).
#   --hostid rank   each rank its own NCCL_HOSTID: NCCL then sees N hosts and
#                   uses its socket transport (NCCL_SOCKET_IFNAME defaults to
#                   lo, NCCL_IB_DISABLE to 1), so several ranks can share a GPU;
#   --hostid none   NCCL's own host detection (one rank per GPU);
#   --hostid auto   (default) rank when the machine has fewer GPUs than N.
# ARLAB_HOSTIDS="a,b,c,d" gives the host ids explicitly; ARLAB_RANK_NETNS=
# "ns0,ns0,ns1,ns1" runs rank r under `ip netns exec NS` (root; see
# experiments/real_one_gpu.sh --netns).
# MPS: when ranks share GPUs (--hostid rank), the launcher starts NVIDIA MPS
# (real/mps.sh; ARLAB_MPS_MODE=auto|on|off, default auto) unless a caller
# already did (ARLAB_MPS=1), and stops it at the end if it started it; arlab
# prints placement=shared-gpu-mps or shared-gpu-timeslice accordingly.
# Rank 0 writes to this terminal; rank r > 0 to $ARLAB_LOG_DIR/rank<r>.log
# (default: a new temporary directory, printed when a rank fails).
# Exit status: the first non-zero exit status of a rank (the others are
# killed 10 s after a failure); 124 after $ARLAB_LAUNCH_TIMEOUT seconds
# (default 1800).
set -u

usage() {
  sed -n '2,29p' "$0" >&2
  exit 2
}
[[ $# -ge 2 ]] || usage
n=$1
shift
[[ $n =~ ^[0-9]+$ ]] && ((n >= 1)) || usage
hostid=auto
while [[ $# -gt 0 ]]; do
  case $1 in
    --hostid) hostid=${2:-}; shift 2 ;;
    --hostid=*) hostid=${1#*=}; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || usage
case $hostid in auto | rank | none) ;; *) usage ;; esac
if [[ $hostid == auto ]]; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if ((${ngpu:-0} < n)); then hostid=rank; else hostid=none; fi
fi

# shellcheck source=real/mps.sh
. "$(dirname "$0")/mps.sh"
if [[ $hostid == rank ]]; then
  arlab_mps_start "${ARLAB_MPS_MODE:-auto}" || exit 2
  trap arlab_mps_stop EXIT
else
  export ARLAB_MPS=${ARLAB_MPS:-0}
fi

logdir=${ARLAB_LOG_DIR:-$(mktemp -d /tmp/arlab-ranks.XXXXXX)}
mkdir -p "$logdir"
idfile=$(mktemp -u /tmp/arlab-ncclid.XXXXXX)
IFS=, read -ra hids <<<"${ARLAB_HOSTIDS:-}"
IFS=, read -ra nss <<<"${ARLAB_RANK_NETNS:-}"

pids=()
for ((r = 0; r < n; r++)); do
  envs=("ARLAB_RANK=$r" "ARLAB_NRANKS=$n" "ARLAB_LOCAL_RANK=$r" "ARLAB_ID_FILE=$idfile")
  if [[ -n ${hids[r]:-} ]]; then
    envs+=("NCCL_HOSTID=${hids[r]}")
  elif [[ $hostid == rank ]]; then
    envs+=("NCCL_HOSTID=arlab-rank$r")
  fi
  if [[ $hostid == rank || -n ${ARLAB_HOSTIDS:-} ]]; then
    envs+=("NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}" "NCCL_IB_DISABLE=${NCCL_IB_DISABLE:-1}")
  fi
  pre=()
  if [[ -n ${nss[r]:-} ]]; then pre=(ip netns exec "${nss[r]}"); fi
  if ((r == 0)); then
    "${pre[@]}" env "${envs[@]}" "$@" &
  else
    "${pre[@]}" env "${envs[@]}" "$@" >"$logdir/rank$r.log" 2>&1 &
  fi
  pids+=($!)
done

rc=0
deadline=$((SECONDS + ${ARLAB_LAUNCH_TIMEOUT:-1800}))
kill_at=0
while :; do
  alive=0
  for i in "${!pids[@]}"; do
    p=${pids[i]}
    [[ -z $p ]] && continue
    if kill -0 "$p" 2>/dev/null; then
      alive=1
      continue
    fi
    wait "$p"
    s=$?
    pids[i]=""
    if ((s != 0)); then
      ((i > 0)) && echo "launch_local: rank $i exited with $s (log: $logdir/rank$i.log)" >&2
      if ((rc == 0)); then
        rc=$s
        kill_at=$((SECONDS + 10))
      fi
    fi
  done
  ((alive)) || break
  if ((SECONDS > deadline)) || ((kill_at > 0 && SECONDS > kill_at)); then
    ((SECONDS > deadline)) && echo "launch_local: ranks still running after ${ARLAB_LAUNCH_TIMEOUT:-1800} s" >&2
    ((rc == 0)) && rc=124
    for p in "${pids[@]}"; do [[ -n $p ]] && kill -9 "$p" 2>/dev/null; done
  fi
  sleep 0.2
done
rm -f "$idfile"
exit $rc
