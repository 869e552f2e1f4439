#!/bin/bash
# Installing arlab: `cmake --install` puts the commands, the presets (found relative to
# the executable, so the install can be moved), the man page and the bash completion in place;
# ARLAB_PLATFORM_DIR adds preset directories searched first (override, never hide); a tree written
# as "kind": "graph" gets a message saying to use "kind": "tree".
. "$ARLAB_SRC/tests/lib_cli.sh"
BUILD=$(dirname "$ARLAB")
command -v cmake >/dev/null || { echo "cmake missing: skipped"; exit 77; }
cmake --install "$BUILD" --prefix "$T_TMP/a" >"$T_TMP/inst.log" 2>&1
t_check "cmake --install exits 0 ($(tail -2 "$T_TMP/inst.log"))" test $? = 0
mv "$T_TMP/a" "$T_TMP/moved"
I=$T_TMP/moved
t_check "bin/arlab installed" test -x "$I/bin/arlab"
t_check "presets installed" test -s "$I/share/arlab/presets/dgx-h100.json"
t_check "man page installed" test -s "$I/share/man/man1/arlab.1"
t_check "completion installed" test -s "$I/share/bash-completion/completions/arlab"
# relocated: a preset only the installed tree has is found from anywhere
cp "$I/share/arlab/presets/fr-5.json" "$I/share/arlab/presets/zz-only-installed.json"
(cd / && "$I/bin/arlab" platform show zz-only-installed >"$T_TMP/show" 2>&1)
t_check "the moved install finds its own presets ($(head -1 "$T_TMP/show"))" grep -q "5 ranks" "$T_TMP/show"

# ARLAB_PLATFORM_DIR: a user preset, and an override of a built-in one; the built-ins stay listed
mkdir -p "$T_TMP/u1" "$T_TMP/u2"
cat >"$T_TMP/u1/mine.json" <<'JSON'
{"name": "mine", "kind": "tree", "root": {"name": "r", "children": [
  {"name": "m0", "bw": "10GBps", "lat": "1us", "child_bw": "100GBps", "child_lat": "1us", "gpus": 2},
  {"name": "m1", "bw": "10GBps", "lat": "1us", "child_bw": "100GBps", "child_lat": "1us", "gpus": 2}]}}
JSON
sed 's/"name": "mine"/"name": "fr-5-mine"/' "$T_TMP/u1/mine.json" >"$T_TMP/u2/fr-5.json"
export ARLAB_PLATFORM_DIR=$T_TMP/u1:$T_TMP/u2
expect_ok "a preset from ARLAB_PLATFORM_DIR" -- platform show mine
t_check "it is the user's (4 ranks)" grep -q "4 ranks" "$T_TMP/out"
expect_ok "an override of a built-in preset" -- platform show fr-5
t_check "the user's fr-5 wins (fr-5-mine)" grep -q "fr-5-mine" "$T_TMP/out"
expect_ok "arlab platforms with ARLAB_PLATFORM_DIR" -- platforms --format csv
t_check "lists the user's preset and still the built-ins" bash -c "grep -q '^mine,' '$T_TMP/out' && grep -q '^dgx-h100,' '$T_TMP/out'"
unset ARLAB_PLATFORM_DIR

# the man page is the help texts in roff
t_check "man page has every verb's section" bash -c "grep -q '^.SS model' '$I/share/man/man1/arlab.1' && grep -q '^.SS testbed' '$I/share/man/man1/arlab.1'"
if command -v groff >/dev/null; then
  t_check "man page renders" bash -c "groff -man -Tascii '$I/share/man/man1/arlab.1' 2>&1 | grep -q -- '--schedule'"
fi

# bash completion: verbs, options of a verb, presets, algorithm parameters
comp() { # comp WORD... : COMPREPLY for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _arlab; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$I/share/bash-completion/completions/arlab" "$@"
}
t_check "verbs: mo -> model" bash -c "$(declare -f comp); I='$I'; comp '$ARLAB' mo | grep -qx model"
t_check "options of model: --sch -> --schedule" bash -c "$(declare -f comp); I='$I'; comp '$ARLAB' model --sch | grep -qx -- --schedule"
t_check "presets: dgx-h1 -> dgx-h100" bash -c "$(declare -f comp); I='$I'; comp '$ARLAB' model --platform dgx-h1 | grep -qx dgx-h100"
t_check "algorithm parameters: blueconnect:d -> blueconnect:decomp=" \
  bash -c "$(declare -f comp); I='$I'; comp '$ARLAB' model --algo blueconnect:d | grep -qx blueconnect:decomp="

# a tree written as a graph
cat >"$T_TMP/g.json" <<'JSON'
{"name": "gtree", "kind": "graph", "nodes": [{"name": "sw", "type": "switch"}, {"name": "g0", "type": "gpu"},
 {"name": "g1", "type": "gpu"}, {"name": "g2", "type": "gpu"}],
 "links": [{"a": "g0", "b": "sw", "bw": "10GBps", "lat": "1us"}, {"a": "g1", "b": "sw", "bw": "10GBps", "lat": "1us"},
           {"a": "g2", "b": "sw", "bw": "10GBps", "lat": "1us"}]}
JSON
expect_ok "model on a tree written as a graph" -- model --platform "$T_TMP/g.json" --algo ring --algo flexreduce --format csv
t_check "flexreduce's row says to use kind tree" grep -q 'is a tree written as ""kind"": ""graph""; describe it with ""kind"": ""tree""' "$T_TMP/out"
t_done
