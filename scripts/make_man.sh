#!/bin/bash
# Writes arlab's man page (roff, section 1) to stdout from the help texts of the binary given
# (`arlab help` and `arlab VERB --help`, cli/help.c), so the page never disagrees with --help.
#   scripts/make_man.sh build/arlab > arlab.1      (the build does this; `cmake --install` installs it)
# The help texts are laid out for a wide terminal; here they are re-flowed so the page renders within
# the reader's width (man's default 80 columns included): a "usage:" line and its indented continuations
# ("usage: arlab VERB ..." and the deeper-indented "arlab VERB ..." forms after it) become one filled
# paragraph per form (a bracketed option never split), a two-space-indented line
# "  TAG  text" a tagged paragraph (.TP), deeper-indented lines continue it, other lines are filled text.
# Every line is escaped: backslashes, "-" as \- (no hyphen breaks inside options), and a line that would
# start with "." or "'" (a troff control line) is prefixed with \&.
set -eu
A=${1:?usage: make_man.sh ARLAB}
flow() {
  awk '
  function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
  function ctl(s) { return (s ~ /^[.\047]/) ? "\\&" s : s }   # a control character first: \& before it
  function keep(s,   o, d, i, c) {                             # spaces inside [...] unbreakable
    o = ""; d = 0
    for (i = 1; i <= length(s); i++) {
      c = substr(s, i, 1)
      if (c == "[") d++
      else if (c == "]" && d > 0) d--
      o = o ((c == " " && d > 0) ? "\\ " : c)
    }
    return o
  }
  function out(s) { print ctl(esc(s)) }
  function outu(s) { print ctl(keep(esc(s))) }
  function close_usage() { if (mode == "usage") print ".in -8n"; mode = "" }
  {
    line = $0
    if (line ~ /^usage: / || (mode == "usage" && line ~ /^   +arlab /)) {
      if (mode != "usage") { close_usage(); print ".PP"; print ".in +8n" }
      mode = "usage"
      sub(/^ +/, "", line)
      print ".ti -8n"
      outu(line)
      next
    }
    if (mode == "usage" && line ~ /^   /) { sub(/^ +/, "", line); outu(line); next }
    if (line ~ /^  [^ ]/) {                                     # "  TAG   text": a tagged paragraph
      close_usage()
      sub(/^  /, "", line)
      tag = line; text = ""
      if (match(line, /  +/)) { tag = substr(line, 1, RSTART - 1); text = substr(line, RSTART + RLENGTH) }
      print ".TP"
      outu(tag)
      if (text != "") out(text)
      mode = "tp"
      next
    }
    if (line ~ /^   / && mode == "tp") { sub(/^ +/, "", line); out(line); next }
    if (line ~ /^ *$/) { close_usage(); print ".PP"; mode = ""; next }
    sub(/^ +/, "", line)
    if (mode != "text" || line ~ /^((example|common|network models|overrides):|\()/) { close_usage(); print ".PP" }
    mode = "text"
    out(line)
  }
  END { close_usage() }'
}
cat <<'HEAD'
.TH ARLAB 1 "" "arlab" "User Commands"
.nh
.ad l
.SH NAME
arlab \- an all\-reduce workbench: plan, model, simulate and measure all\-reduce algorithms
.SH SYNOPSIS
.B arlab
.I VERB
[\fIoptions\fR]
.SH DESCRIPTION
arlab plans all\-reduce schedules (ring, halving\-doubling, BlueConnect, FlexReduce, spanning\-tree
packing, NCCL's own algorithms, user\-written schedules), prices them with the papers' closed forms
and a cost walk, simulates them with SimGrid, runs them on GPUs with NCCL or on an emulated cluster
with MPI, reads nccl\-tests output, and draws paper\-style reports.
.SH VERBS
HEAD
"$A" help | flow
for v in $("$A" help | awk '$1 == "arlab" && $2 ~ /^[a-z]+$/ && $2 != "help" { print $2 }' | sort -u); do
  echo ".SS $v"
  "$A" "$v" --help | flow
done
cat <<'TAIL'
.SH ENVIRONMENT
.TP
.B ARLAB_PLATFORM_DIR
\&':'\-separated directories searched for preset JSON files before the built\-in presets
(which they may override but never hide).
.SH EXIT STATUS
0 success; 1 a check failed; 2 bad input; 3 unsupported; 4 a file could not be read or written;
5 out of memory; 6 internal error; 7 a documented limit; 8 a backend failed; 128 + the signal
when interrupted (130 for Ctrl\-C).
.SH SEE ALSO
README.md, platforms/README.md, experiments/README.md in arlab's sources.
TAIL
