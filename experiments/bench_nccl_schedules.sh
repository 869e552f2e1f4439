#!/bin/bash
# NCCL's algorithms as arlab schedules against NCCL's own model and the public measurements.
#
#   experiments/bench_nccl_schedules.sh [BUILD_DIR] [--full] [--csv FILE]
#   OLD=path/to/old/arlab experiments/bench_nccl_schedules.sh ...   (pairs every row with an old binary;
#     one without nvls/nvlstree proto=auto runs their plain rows)
#   PRESETS="dgx-h100" NODES="2 4" experiments/bench_nccl_schedules.sh ...   (a part of the grid)
#
# For dgx-a100, dgx-h100 and dgx-b200 at 1, 2, 4, 8 and 16 nodes (PRESET:nodes=N rail fabrics),
# every collective arlab's NCCL planners serve (allreduce: nccl, nccl-ring, nccl-tree, nvls,
# nvlstree; allgather and reducescatter: nccl, nccl-ring, nvls) and sizes from 8 B to 8 GB, one row
# per algorithm: NCCL's model (nccl_model_s, what NCCL's tuner predicts for its own pick), the walk
# (model_s), the simulation (sim_s) and sim / NCCL's model; with OLD the old binary's simulation
# beside it; and every public measurement of the corpus (experiments/reference/: published.csv and
# the logs of logs/MANIFEST.tsv that `compare` runs) for that platform, collective and size, with
# sim / measured. Sizes: 8 B, 64 KB, 1 MB, 64 MB, 1 GiB, 8 GiB (nccl-tests' -e 8G) by default; --full: every power of 2
# from 8 B to 8 GiB (31 sizes). Last, the summary: per collective and algorithm the share of rows
# whose simulation is within 10 % of NCCL's model at >= 64 MB and within 20 % at 64 KB - 64 MB (the
# goal of the schedules), and the median |sim / NCCL's model - 1| in each band (a forced algorithm
# where NCCL's model picks it: the model prices its pick). The forced rows run proto=auto (nccl-ring,
# nccl-tree, nvls, nvlstree), what NCCL_ALGO=... runs: NCCL's protocol and latencies.
#
# Bounded time: every `arlab sim` call runs under --budget 20 (a simulation that overruns it is a
# row with status budget: partial) and `timeout 60`; the default grid is 3 presets x 5 node counts x
# 6 sizes x 3 collectives = 270 calls (about 2-6 minutes on this 2-core machine, twice that with
# OLD); --full is 31 sizes (about 5x that).
set -u
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
FULL=0
CSV=
while [ $# -gt 0 ]; do
  case $1 in
  --full) FULL=1 ;;
  --csv) CSV=$2; shift ;;
  *) echo "bench_nccl_schedules.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
ARLAB=$BUILD/arlab
[ -x "$ARLAB" ] || { echo "bench_nccl_schedules.sh: no $ARLAB (build first)" >&2; exit 2; }
OLD=${OLD:-}
OLD_AUTO=0
[ -z "$OLD" ] || ! "$OLD" plan --platform dgx-h100 --algo nvls:proto=auto --size 1MB >/dev/null 2>&1 || OLD_AUTO=1
[ -z "$OLD" ] || [ -x "$OLD" ] || { echo "bench_nccl_schedules.sh: OLD=$OLD is not executable" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
REF=$SRC/experiments/reference
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -z "${KEEP:-}" ] || trap - EXIT

if [ "$FULL" = 1 ]; then
  SIZES=()
  for ((k = 3; k <= 33; k++)); do SIZES+=("$((1 << k))"); done
else
  SIZES=(8 65536 1048576 67108864 1073741824 8589934592)
fi

# measured: platform|coll|bytes|time_s|source, from published.csv (busbw -> time) and the logs
MEAS=$TMP/measured
: >"$MEAS"
awk -F, 'function csvsplit(line, out,   n, i, c, q, f) { n = 0; f = ""; q = 0
           for (i = 1; i <= length(line); i++) { c = substr(line, i, 1)
             if (c == "\"") q = !q; else if (c == "," && !q) { out[++n] = f; f = "" } else f = f c }
           out[++n] = f; return n }
         /^#/ { next }
         !h { n = csvsplit($0, H); for (i = 1; i <= n; i++) col[H[i]] = i; h = 1; next }
         { n = csvsplit($0, F); pr = F[col["preset"]]; nodes = F[col["nodes"]] + 0; b = F[col["size_bytes"]] + 0
           bus = F[col["busbw_GBps"]] + 0; r = F[col["ranks"]] + 0
           if (pr !~ /^dgx-(a100|h100|b200)$/ || b <= 0 || bus <= 0 || r < 2) next
           plat = nodes > 1 ? pr ":nodes=" nodes : pr
           t = b / (bus * 1e9 / (2 * (r - 1) / r))
           printf "%s|allreduce|%d|%.9g|%s\n", plat, b, t, F[col["source"]] }' "$REF/published.csv" >>"$MEAS"
while IFS=$'\t' read -r file coll _ranks _nodes _rows opts plat _fit _cal _nccl; do
  case $file in \#* | file) continue ;; esac
  [ "$plat" != - ] || continue
  case $plat in dgx-a100* | dgx-h100* | dgx-b200*) ;; *) continue ;; esac
  c=allreduce
  [ "$coll" = all_gather ] && c=allgather
  [ "$coll" = reduce_scatter ] && c=reducescatter
  extra=()
  [ "$opts" = - ] || read -r -a extra <<<"$opts"
  timeout 60 "$ARLAB" compare --measured "$REF/logs/$file" --platform "$plat" --algo nccl --format csv "${extra[@]}" \
    2>/dev/null | awk -F, -v p="$plat" -v c="$c" -v f="$file" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
      $(k["nccl_s"]) != "" { printf "%s|%s|%s|%s|%s\n", p, c, $(k["bytes"]), $(k["nccl_s"]), f }' >>"$MEAS"
done <"$REF/logs/MANIFEST.tsv"

# Where NCCL's model itself is the difference (docs/models.md "NCCL's model on B200" derives each from
# NCCL's source): platform (a regex)|NCCL's pick|why. A row outside its band's tolerance whose platform
# and pick match says why in its measured column ([ncm: ...]) and counts as explained in the summary.
WHY=$TMP/why
cat >"$WHY" <<'EOF_WHY'
^dgx-b200$|NVLS|NCCL bounds a B200 node's NVLS channel by its graph's bwInter 90 GB/s (bus 8 x 90 = 720; 80 x eff 0.74 x 7/8 x 2 = 103.6 is above it); the schedule runs at the preset's switch rate; nccl#1807: 830+ GB/s busbw (2.27.1)
^dgx-b200:nodes=2$|NVLS_TREE|NCCL 2.30 caps the NVLS_TREE channel at 48 x eff 0.74 x 7/8 x 2 = 62.2 GB/s (bus 497, algbw 265) below the 2 x 48 its NICs carry; the public logs (2.26.2, whose model gives 320) measure 332-375 GB/s algbw at 1-8 GiB; the schedule is 0.95-1.04 x the logs at >= 256 MiB
EOF_WHY

# one sim call per platform, collective and size; rows: binary|platform|coll|bytes|algo|nccl|walk|sim|status|pick
ROWS=$TMP/rows
: >"$ROWS"
run() { # BIN TAG PLATFORM COLL SIZE ALGOS
  timeout 60 "$1" sim --platform "$3" --coll "$4" --algo "$6" --size "$5B" --budget 20s --format csv 2>/dev/null |
    awk -F, -v tag="$2" -v p="$3" -v c="$4" -v b="$5" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
      { a = $(k["algo"]); sub(/:.*/, "", a)
        printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", tag, p, c, b, a, $(k["nccl_model_s"]), $(k["model_s"]), $(k["sim_s"]), $(k["status"]), $(k["nccl_algo"]) }'
}
for pre in ${PRESETS:-dgx-a100 dgx-h100 dgx-b200}; do
  for n in ${NODES:-1 2 4 8 16}; do
    plat=$pre
    [ "$n" = 1 ] || plat="$pre:nodes=$n"
    for coll in allreduce allgather reducescatter; do
      # the forced algorithms as NCCL_ALGO=Ring/Tree/NVLS/NVLS_TREE runs them (proto=auto): rings and
      # trees with the protocol NCCL's tuner picks for them, nvls and nvlstree with NCCL's NVLS latency
      # (and NVLS_TREE's network step in the fill): NCCL's model prices its pick with its own costs
      algos=nccl,nccl-ring:proto=auto,nvls:proto=auto
      [ "$coll" = allreduce ] && algos=nccl,nccl-ring:proto=auto,nccl-tree:proto=auto,nvls:proto=auto,nvlstree:proto=auto
      old_algos=$algos # an old binary without nvls/nvlstree proto=auto: their plain rows
      [ "$OLD_AUTO" = 1 ] || { old_algos=${old_algos//nvls:proto=auto/nvls}; old_algos=${old_algos//nvlstree:proto=auto/nvlstree}; }
      for b in "${SIZES[@]}"; do
        run "$ARLAB" new "$plat" "$coll" "$b" "$algos" >>"$ROWS"
        [ -z "$OLD" ] || run "$OLD" old "$plat" "$coll" "$b" "$old_algos" >>"$ROWS"
      done
    done
  done
done

awk -F'|' -v have_old="${OLD:+1}" -v csv="$CSV" '
  FILENAME == ARGV[1] { nw++; wre[nw] = $1; wpick[nw] = $2; wtxt[nw] = $3; next }
  FILENAME == ARGV[2] { key = $1 "|" $2 "|" $3; v = (key in m) ? m[key] ";" : ""; m[key] = v $4 "@" $5; next }
  $1 == "old" { old[$2 "|" $3 "|" $4 "|" $5] = $8; next }
  { rows[++nr] = $0 }
  function fmt(t) { return t == "" ? "-" : t < 1e-3 ? sprintf("%.1fus", t * 1e6) : sprintf("%.3fms", t * 1e3) }
  function ratio(a, b) { return (a == "" || b == "" || b + 0 <= 0) ? "-" : sprintf("%.3f", a / b) }
  END {
    planner["RING"] = "nccl-ring"; planner["TREE"] = "nccl-tree"; planner["NVLS"] = "nvls"; planner["NVLS_TREE"] = "nvlstree"
    if (csv != "") print "platform,coll,bytes,algo,nccl_model_s,model_s,sim_s,sim_vs_nccl_model,old_sim_s,old_vs_nccl_model,status,measured" > csv
    printf "%-18s %-13s %11s %-9s %10s %10s %10s %7s", "platform", "coll", "bytes", "algo", "nccl_model", "walk", "sim", "sim/ncm"
    if (have_old) printf " %10s %7s", "old sim", "old/ncm"
    printf "  %s\n", "measured (sim/measured, source)"
    for (i = 1; i <= nr; i++) {
      split(rows[i], f, "|"); p = f[2]; c = f[3]; b = f[4]; a = f[5]; nm = f[6]; w = f[7]; s = f[8]; st = f[9]; pick = f[10]
      k4 = p "|" c "|" b "|" a; os = (k4 in old) ? old[k4] : ""
      printf "%-18s %-13s %11s %-9s %10s %10s %10s %7s", p, c, b, a, fmt(nm), fmt(w), fmt(s), ratio(s, nm)
      if (have_old) printf " %10s %7s", fmt(os), ratio(os, nm)
      mm = ""
      if ((p "|" c "|" b) in m) {
        n = split(m[p "|" c "|" b], e, ";")
        for (j = 1; j <= n; j++) { split(e[j], q, "@"); mm = mm (mm == "" ? "" : "; ") fmt(q[1]) " (" ratio(s, q[1]) ", " q[2] ")" }
      }
      # the summary: |sim / NCCL model - 1| per collective, algorithm and band; the NCCL model prices
      # the pick of NCCL, so a forced algorithm counts where it is the pick (nccl counts everywhere)
      band = b + 0 >= 67108864 ? "big" : b + 0 >= 65536 ? "mid" : ""
      counted = s != "" && nm != "" && nm + 0 > 0 && (a == "nccl" || a == planner[pick]) && band != ""
      d = counted ? s / nm - 1 : 0; if (d < 0) d = -d
      tol = band == "big" ? 0.10 : 0.20
      why = ""
      if (counted && d > tol) for (j = 1; j <= nw; j++) if (p ~ wre[j] && pick == wpick[j]) why = wtxt[j]
      if (why != "") mm = mm (mm == "" ? "" : "; ") "[ncm: " why "]"
      printf "  %s%s\n", mm, st != "ok" ? " [" st "]" : ""
      if (csv != "") printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,\"%s\"\n", p, c, b, a, nm, w, s, ratio(s, nm), os, ratio(os, nm), st, mm > csv
      if (!counted) continue
      key = c "|" a "|" band; tot[key]++; if (d <= tol) ok[key]++; else if (why != "") expl[key]++; dev[key, tot[key]] = d
      if (os != "") { d = os / nm - 1; if (d < 0) d = -d; otot[key]++; if (d <= tol) ook[key]++; odev[key, otot[key]] = d }
    }
    print ""
    print "# summary: rows whose simulation is within 10 % of NCCL'\''s model at >= 64 MB (big) and 20 % at 64 KB-64 MB"
    print "# (mid), and the median |sim/ncm - 1|; a forced algorithm counts where NCCL'\''s model picks it;"
    print "# the forced rows run proto=auto (nccl-ring, nccl-tree, nvls, nvlstree): what NCCL_ALGO=... runs;"
    print "# explained: rows outside whose difference is NCCL'\''s model itself (their [ncm: ...] says why)"
    na = split("nccl nccl-ring nccl-tree nvls nvlstree", al, " ")
    nc = split("allreduce allgather reducescatter", cl, " ")
    for (z = 1; z <= nc; z++) for (x = 1; x <= na; x++) for (y = 1; y <= 2; y++) {
      band = y == 1 ? "mid" : "big"; key = cl[z] "|" al[x] "|" band
      if (!(key in tot)) continue
      printf "%-13s %-9s %-3s new %3d/%-3d within (+%d explained), median %.3f", cl[z], al[x], band, ok[key] + 0, tot[key], expl[key] + 0, median(dev, key, tot[key])
      if (key in otot) printf "   old %3d/%-3d within, median %.3f", ook[key] + 0, otot[key], median(odev, key, otot[key])
      printf "\n"
    }
  }
  function median(arr, key, n,   i, j, t, v) {
    for (i = 1; i <= n; i++) v[i] = arr[key, i]
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }' "$WHY" "$MEAS" "$ROWS"
