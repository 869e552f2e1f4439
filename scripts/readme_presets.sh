#!/usr/bin/env bash
# Prints the README's preset table from `arlab platforms` (ARLAB: the arlab binary, default
# build/arlab); with --write, replaces the table between the README's preset markers.
set -euo pipefail
cd "$(dirname "$0")/.."
arlab=${ARLAB:-build/arlab}
table() {
  echo "| preset | GPUs | machines | what |"
  echo "|---|---|---|---|"
  "$arlab" platforms --format csv | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print("| `%s` | %s | %s | %s |" % (r["name"], r["ranks"], r["machines"], r["description"].replace("|", "/")))'
}
if [ "${1:-}" = --write ]; then
  python3 - "$(table)" <<'PY'
import re, sys
path = "README.md"
s = open(path, encoding="utf-8").read()
a = s.index("<!-- presets:")
a = s.index("\n", a) + 1
b = s.index("<!-- end of presets -->")
open(path, "w", encoding="utf-8").write(s[:a] + sys.argv[1] + "\n" + s[b:])
PY
else
  table
fi
