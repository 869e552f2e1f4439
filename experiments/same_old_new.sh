#!/bin/bash
# Do two arlab binaries simulate the same thing? (the bridge's SimGrid 3.32 fix must
# change no result.) Runs each case on both and compares the CSV rows without wall_s and
# peak_rss_kb; prints one line per case, "same" or "DIFFERENT" (then a diff), and exits 1 if any
# case differs.
#
#   experiments/same_old_new.sh OLD_ARLAB [NEW_ARLAB]
#
# NEW_ARLAB defaults to build/arlab. Cases: model and sim --algo all on a few presets and
# generated platforms, the naive engine, --check, and --gamma with --no-shortcuts --sync round
# (every reduction an Exec in SimGrid; the algorithms with reducing-switch ops are left out of
# --gamma: models/walk.c does not price them with a reduction cost).
set -u
OLD=${1:?usage: same_old_new.sh OLD_ARLAB [NEW_ARLAB]}
NEW=${2:-build/arlab}
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "same_old_new.sh: no arlab binary at $b" >&2; exit 2; }; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
nowall() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s" || $i == "peak_rss_kb") skip[i] = 1 }
        { o = ""; n = 0; for (i = 1; i <= NF; i++) if (!skip[i]) o = o (n++ ? "," : "") $i; print o }' "$1"
}
bad=0
same() { # same LABEL ARGS...
    local label=$1
    shift
    "$OLD" "$@" --format csv >"$TMP/o" 2>"$TMP/oe"
    local orc=$?
    "$NEW" "$@" --format csv >"$TMP/n" 2>"$TMP/ne"
    local nrc=$?
    nowall "$TMP/o" >"$TMP/o2"
    nowall "$TMP/n" >"$TMP/n2"
    if [ $orc = $nrc ] && cmp -s "$TMP/o2" "$TMP/n2"; then
        printf '%-70s same (%d rows, exit %d)\n' "$label" "$(($(wc -l <"$TMP/n2") - 1))" $nrc
    else
        printf '%-70s DIFFERENT (exit %d / %d)\n' "$label" $orc $nrc
        diff "$TMP/o2" "$TMP/n2" | head -6
        bad=1
    fi
}
NOSW=ring,pipelined-ring,halving-doubling,binomial,ps,two-level,blueconnect,treepack,nccl-ring,nccl-tree
for P in dgx-h100:nodes=2 blueconnect-12 fr-10 tree:ranks=48 aws-p5:nodes=4; do
    same "model --algo all, $P" model --platform "$P" --algo all --size 100MB,64KB
    same "sim --algo all, $P" sim --platform "$P" --algo all --size 100MB,64KB
    same "sim --algo all --sync round, $P" sim --platform "$P" --algo all --size 100MB --sync round
    same "sim --algo all --check, $P" sim --platform "$P" --algo all --size 1MB --check
    same "sim --algo all --engine naive, $P" sim --platform "$P" --algo all --size 1MB --engine naive
    same "sim --gamma 1e-11 --no-shortcuts --sync round, $P" sim --platform "$P" --algo "$NOSW" --size 8MB --gamma 1e-11 --no-shortcuts --sync round
done
same "sim ps --no-shortcuts, tree:ranks=128" sim --platform tree:ranks=128 --algo ps --size 100MB --no-shortcuts
same "sim --gamma 1e-11 (dataflow), tree:ranks=64" sim --platform tree:ranks=64 --algo "$NOSW" --size 8MB --gamma 1e-11
exit $bad
