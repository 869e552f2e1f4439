#!/usr/bin/env bash
# The documented column lists, generated from the column tables (lab/schema.c: sweep results;
# lab/simrow.c, lab/modelrow.c, lab/bestrow.c: arlab sim, model and best) by
# `arlab help columns sweep|sim|model|best`. Without --write, prints each list
# and exits 1 if a document's list differs from it (tests/cli/cli_doc_columns.sh); with --write,
# replaces each list between its markers. ARLAB: the arlab binary (default build/arlab).
set -euo pipefail
cd "$(dirname "$0")/.."
arlab=${ARLAB:-build/arlab}
write=0
[ "${1:-}" = --write ] && write=1
status=0
for pair in "sweep docs/sweeps-and-reports.md" "sim docs/cli.md" "model docs/cli.md" "best docs/cli.md"; do
  set -- $pair
  which=$1 doc=$2
  table=$("$arlab" help columns "$which")
  python3 - "$doc" "$which" "$table" "$write" <<'PY' || status=1
import sys
doc, which, table, write = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
s = open(doc, encoding="utf-8").read()
start, end = "<!-- columns:%s" % which, "<!-- end of columns:%s -->" % which
if start not in s or end not in s:
    sys.exit("doc_columns.sh: %s lacks the markers '%s ...' and '%s'" % (doc, start, end))
a = s.index("\n", s.index(start)) + 1
b = s.index(end)
if s[a:b] == table + "\n":
    print("%s: the %s columns are current" % (doc, which))
elif write:
    open(doc, "w", encoding="utf-8").write(s[:a] + table + "\n" + s[b:])
    print("%s: the %s columns written" % (doc, which))
else:
    sys.exit("%s: the %s columns differ from `arlab help columns %s` (run scripts/doc_columns.sh --write)"
             % (doc, which, which))
PY
done
exit $status
