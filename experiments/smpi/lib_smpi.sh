# What experiments/bench_smpi.sh and tests/cli/cli_smpi.sh share (sourced, not run): SMPI's settings
# that make it simulate what `arlab sim` does by default, and the star platform both run on.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the scripts that source this file

# SMPI's own costs off: no simulated computation (the reductions take no time, as in arlab without
# --gamma), no per-message os/or/ois overheads, no 10 ns injected by each MPI_Wtime. What stays:
# SMPI's 16-byte envelope on every message.
SMPI_CFG=(--cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf --cfg=smpi/wtime:0
    --cfg=smpi/os:0:0:0:0:0 --cfg=smpi/or:0:0:0:0:0 --cfg=smpi/ois:0:0:0:0:0)

# smpi_network MODEL: SimGrid's settings of arlab's `--network MODEL` (CM02 or LV08; sim/sim.c) in
# SMPI_NET, and in SMPI_ENV_FACTOR what one envelope costs in units of 16 B / bw: CM02 (arlab's
# default: no cross-traffic, no TCP-gamma window, the maxmin solver, the same precisions) 1; LV08
# (SimGrid's defaults: bandwidth x 0.97, and cross-traffic: each link direction also carries 0.05 of
# the reverse flow's bytes, the acknowledgements of the flow arriving there) 1.05 / 0.97.
smpi_network() {
    case $1 in
    CM02)
        SMPI_NET=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0
            --cfg=network/solver:maxmin --cfg=maxmin/precision:1e-12 --cfg=surf/precision:1e-15)
        SMPI_ENV_FACTOR=1 ;;
    LV08)
        SMPI_NET=(--cfg=network/model:LV08 --cfg=surf/precision:1e-15)
        SMPI_ENV_FACTOR=$(awk 'BEGIN { printf "%.17g", 1.05 / 0.97 }') ;;
    *) echo "smpi_network: $1: give CM02 or LV08" >&2; return 2 ;;
    esac
}
# the bytes SMPI adds to every message (smpi_request.cpp: payload_size_ = size_ + 16, SimGrid 3.32)
SMPI_ENVELOPE=16

# smpi_star P BW LAT XML HOSTFILE: arlab's flat:ranks=P,bw=BW,lat=LAT as a SimGrid platform: a
# <cluster> of P hosts g0..g{P-1}, each with a private SPLITDUPLEX link (BW, LAT) and no backbone,
# so a route is the source's link up and the destination's link down (2 LAT), as in arlab's star.
# The loopback (latency 0) carries a rank's message to itself (`lr` starts with one) at no cost;
# without it SimGrid would route it up and down the rank's own link.
smpi_star() {
    local p=$1 bw=$2 lat=$3 xml=$4 hosts=$5 i
    {
        echo "<?xml version='1.0'?>"
        echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
        echo '<platform version="4.1">'
        echo "  <cluster id=\"star\" prefix=\"g\" suffix=\"\" radical=\"0-$((p - 1))\" speed=\"1Gf\" bw=\"$bw\" lat=\"$lat\""
        echo '           sharing_policy="SPLITDUPLEX" loopback_bw="1e15Bps" loopback_lat="0s"/>'
        echo '</platform>'
    } >"$xml"
    for ((i = 0; i < p; i++)); do echo "g$i"; done >"$hosts"
}
