# NVIDIA MPS for ranks that share a GPU, sourced by real/launch_local.sh and
# experiments/real_one_gpu.sh (bash). Several NCCL ranks on one GPU spin in
# their kernels; without MPS they progress only by time-slicing, with MPS
# their kernels run concurrently. arlab prints which held
# (placement=shared-gpu-mps|shared-gpu-timeslice, from ARLAB_MPS).
#
#   arlab_mps_start MODE   MODE auto (start MPS when nvidia-cuda-mps-control
#                          exists; go on without it otherwise), on (fail when
#                          it cannot be started), off (start none). An MPS
#                          daemon that is already running (ARLAB_MPS=1 from a
#                          caller, or one answering on CUDA_MPS_PIPE_DIRECTORY)
#                          is used and left running, whatever the mode. Exports ARLAB_MPS=1 when MPS serves
#                          the ranks, else ARLAB_MPS=0, and (when it starts
#                          one) CUDA_MPS_PIPE_DIRECTORY / CUDA_MPS_LOG_DIRECTORY
#                          in a fresh temporary directory, so no root is needed.
#                          Returns 1 only for MODE on without MPS.
#   arlab_mps_stop         stops the daemon if arlab_mps_start started it.
_arlab_mps_started=0
_arlab_mps_dir=

_arlab_mps_running() {
  command -v nvidia-cuda-mps-control >/dev/null 2>&1 || return 1
  echo get_server_list | timeout 10 nvidia-cuda-mps-control >/dev/null 2>&1
}

arlab_mps_start() {
  local mode=${1:-auto}
  case $mode in auto | on | off) ;; *) echo "mps: mode $mode is not auto, on or off" >&2; return 1 ;; esac
  # a daemon already serving (a caller's, or the system's) is used whatever the mode: report what holds
  if [[ ${ARLAB_MPS:-} == 1 ]] || _arlab_mps_running; then
    export ARLAB_MPS=1
    echo "# mps: using the MPS daemon already running" >&2
    return 0
  fi
  if [[ $mode == off ]]; then
    export ARLAB_MPS=0
    return 0
  fi
  if ! command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
    export ARLAB_MPS=0
    echo "# mps: nvidia-cuda-mps-control not found: ranks sharing a GPU time-slice" >&2
    [[ $mode == on ]] && return 1
    return 0
  fi
  _arlab_mps_dir=$(mktemp -d /tmp/arlab-mps.XXXXXX)
  export CUDA_MPS_PIPE_DIRECTORY=$_arlab_mps_dir/pipe CUDA_MPS_LOG_DIRECTORY=$_arlab_mps_dir/log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d && sleep 1 && _arlab_mps_running; then
    _arlab_mps_started=1
    export ARLAB_MPS=1
    echo "# mps: started nvidia-cuda-mps-control -d (pipes in $CUDA_MPS_PIPE_DIRECTORY)" >&2
    return 0
  fi
  echo "# mps: nvidia-cuda-mps-control -d failed (see $CUDA_MPS_LOG_DIRECTORY): ranks sharing a GPU time-slice" >&2
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  export ARLAB_MPS=0
  [[ $mode == on ]] && return 1
  return 0
}

arlab_mps_stop() {
  if ((_arlab_mps_started)); then
    echo quit | timeout 30 nvidia-cuda-mps-control >/dev/null 2>&1 || true
    _arlab_mps_started=0
    echo "# mps: stopped the daemon this script started" >&2
  fi
  if [[ -n $_arlab_mps_dir ]]; then
    rm -rf "$_arlab_mps_dir"
    _arlab_mps_dir=
  fi
}
