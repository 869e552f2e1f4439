#!/bin/bash
# Writes arlab's man page (roff, section 1) to stdout from the help texts of the binary given
# (`arlab help` and `arlab VERB --help`, cli/help.c), so the page never disagrees with --help.
#   scripts/make_man.sh build/arlab > arlab.1      (the build does this; `cmake --install` installs it)
set -eu
A=${1:?usage: make_man.sh ARLAB}
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
cat <<'HEAD'
.TH ARLAB 1 "" "arlab" "User Commands"
.SH NAME
arlab \- an all-reduce workbench: plan, model, simulate and measure all-reduce algorithms
.SH SYNOPSIS
.B arlab
.I VERB
[\fIoptions\fR]
.SH DESCRIPTION
arlab plans all-reduce schedules (ring, halving-doubling, BlueConnect, FlexReduce, spanning-tree
packing, NCCL's own algorithms, user-written schedules), prices them with the papers' closed forms
and a cost walk, simulates them with SimGrid, runs them on GPUs with NCCL or on an emulated cluster
with MPI, reads nccl-tests output, and draws paper-style reports.
.SH VERBS
.nf
HEAD
"$A" help | esc
echo ".fi"
for v in $("$A" help | awk '$1 == "arlab" && $2 ~ /^[a-z]+$/ && $2 != "help" { print $2 }' | sort -u); do
  echo ".SS $v"
  echo ".nf"
  "$A" "$v" --help | esc
  echo ".fi"
done
cat <<'TAIL'
.SH ENVIRONMENT
.TP
.B ARLAB_PLATFORM_DIR
':'-separated directories searched for preset JSON files before the built-in presets
(which they may override but never hide).
.SH EXIT STATUS
0 success; 1 a check failed; 2 bad input; 3 unsupported; 4 a file could not be read or written;
5 out of memory; 6 internal error; 7 a documented limit; 8 a backend failed; 128 + the signal
when interrupted (130 for Ctrl-C).
.SH SEE ALSO
README.md, platforms/README.md, experiments/README.md in arlab's sources.
TAIL
