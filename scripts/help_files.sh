#!/usr/bin/env bash
# The committed files generated from the option table (cli/opttab.c) and the verbs' help rows
# (cli/helptab.c): docs/arlab.1 (`arlab help --man`) and scripts/arlab-completion.bash
# (`arlab help --completion bash`). Without --write, exits 1 naming each file that differs from what
# the binary prints (tests/cli/cli_man.sh, tests/cli/cli_completion.sh); with --write, rewrites them.
# ARLAB: the arlab binary (default build/arlab).
set -euo pipefail
cd "$(dirname "$0")/.."
arlab=${ARLAB:-build/arlab}
write=0
[ "${1:-}" = --write ] && write=1
status=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for pair in "docs/arlab.1 --man" "scripts/arlab-completion.bash --completion bash"; do
  set -- $pair
  file=$1
  shift
  "$arlab" help "$@" >"$tmp"
  if cmp -s "$tmp" "$file"; then continue; fi
  if [ $write = 1 ]; then
    cp "$tmp" "$file"
    echo "help_files: wrote $file"
  else
    echo "help_files: $file is not what \`arlab help $*\` prints (scripts/help_files.sh --write)"
    status=1
  fi
done
exit $status
