#!/bin/bash
# nvls on one node takes as many pipeline chunks as NCCL's NVLS kernel takes steps, and its walk
# equals both simulator engines to 1e-9 (one switch op, no contention beyond the op's own links).
#
# NCCL (enqueue.cc calcCollChunking, NVLS; transport/nvls.cc): nvlsChannels CTAs (16 on H100, 24 on
# one B200 node) x 8 heads = ops concurrent chunks, 128 KiB cut to 64 / 32 / 16 KiB below
# 64 / 8 / 2 x ops x chunk; steps = ceil(bytes / (ops x chunk)).
#   dgx-h100, S = 64 MiB: ops = 128; S < 64 x 128 x 128 KiB (1 GiB) -> 64 KiB; S = 8 x 128 x 64 KiB,
#     not below -> 64 KiB; steps = 64 MiB / 8 MiB = 8.
#   dgx-b200, S = 64 MiB: ops = 192; S < 1.5 GiB -> 64 KiB; S < 8 x 192 x 64 KiB (96 MiB) -> 32 KiB;
#     S >= 2 x 192 x 32 KiB (12 MiB); steps = ceil(64 MiB / 6 MiB) = ceil(10.67) = 11.
# The switch op in c chunks (core/lower: round r carries chunk r up and chunk r - 1 down), NVLink
# B per GPU, the NVSwitch reducing at R, 0.3 us a link: rounds 0..c-1 are led by the reduction of
# 8 GPUs' chunk, 8 (S/c) / R; round c by the last chunk down, L / B (L = floor(S/4/c) x 4 bytes, the
# smallest of the element-wise split); every round one link:
#   T = (c + 1) 0.3 us + 8 S / R + L / B
#   dgx-h100: B = 18 x 20.6 = 370.8 GB/s, R = 2240 GB/s, c = 8
#   dgx-b200: B = 18 x 40.1 = 721.8 GB/s, R = 3790 GB/s, c = 11
. "$ARLAB_SRC/tests/lib_cli.sh"

close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/ || b == 0) exit 1; d = (a - b) / b; if (d < 0) d = -d; exit !(d <= t) }'; }

S=67108864
for row in "dgx-h100 8 370.8e9 2240e9" "dgx-b200 11 721.8e9 3790e9"; do
  read -r plat c B R <<<"$row"
  want=$(awk -v S=$S -v c="$c" -v B="$B" -v R="$R" 'BEGIN { L = int(S / 4 / c) * 4; printf "%.17g", (c + 1) * 0.3e-6 + 8 * S / R + L / B }')
  if expect_ok "plan nvls on $plat, 64 MiB" -- plan --platform "$plat" --algo nvls --size ${S}B; then
    t_check "$plat: the switch op has NCCL's $c steps as chunks" grep -q "chunks=$c " "$T_TMP/out"
  fi
  for eng in fast naive; do
    if expect_ok "sim nvls on $plat, 64 MiB, $eng" -- sim --platform "$plat" --algo nvls --size ${S}B --engine $eng --format csv; then
      read -r simt walkt < <(csv_col "$T_TMP/out" sim_s model_s | tr '\t' ' ')
      echo "nvls $plat 64 MiB ($eng): sim $simt walk $walkt arithmetic $want"
      t_check "$plat $eng: walk $walkt = arithmetic $want to 1e-9" close "$walkt" "$want" 1e-9
      t_check "$plat $eng: sim $simt = walk $walkt to 1e-9" close "$simt" "$walkt" 1e-9
    fi
  done
done

# walk = both engines on NCCL's pick (nvls plus NVLS's latency) on one node at the sizes of the
# schedules bench where NCCL picks NVLS (64 MiB, 1 GiB, 8 GiB; the naive engine up to 1 GiB), and for
# reduce-scatter and all-gather through the switch
for plat in dgx-h100 dgx-b200; do
  for sz in 67108864 1073741824 8589934592; do
    engs="fast naive"
    [ "$sz" -gt 1073741824 ] && engs=fast
    for eng in $engs; do
      if expect_ok "sim nccl on $plat, $sz B, $eng" -- sim --platform "$plat" --algo nccl --size ${sz}B --engine $eng --format csv; then
        read -r simt walkt pick < <(csv_col "$T_TMP/out" sim_s model_s nccl_algo | tr '\t' ' ')
        t_check "$plat $sz B $eng: NCCL picks NVLS ($pick)" test "$pick" = NVLS
        t_check "$plat $sz B $eng: sim $simt = walk $walkt to 1e-9" close "$simt" "$walkt" 1e-9
      fi
    done
  done
  for coll in reducescatter allgather; do
    if expect_ok "sim nvls $coll on $plat" -- sim --platform "$plat" --algo nvls --coll $coll --size ${S}B --engine naive --format csv; then
      read -r simt walkt < <(csv_col "$T_TMP/out" sim_s model_s | tr '\t' ' ')
      t_check "$plat $coll: sim $simt = walk $walkt to 1e-9" close "$simt" "$walkt" 1e-9
    fi
  done
done
t_done
