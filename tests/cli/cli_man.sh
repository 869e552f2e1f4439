#!/bin/bash
# The man page (`arlab help --man`, from the option table and the verbs' help rows): the committed docs/arlab.1
# is what the binary prints (scripts/help_files.sh), and rendered with man -l at MANWIDTH=80: no line over
# 80 columns, no troff warning, every option of every verb's --help in that verb's section, and the
# environment section whole (a line starting with "'" is a troff control line: it must be escaped).
. "$ARLAB_SRC/tests/lib_cli.sh"
ARLAB="$ARLAB" bash "$ARLAB_SRC/scripts/help_files.sh" >"$T_TMP/files" 2>&1
stale=$(grep -v arlab-completion "$T_TMP/files")
t_check "docs/arlab.1 is what help --man prints${stale:+ ($stale)}" test -z "$stale"
expect_ok "help --man" -- help --man
t_check "help --man: a roff page with every verb's section" \
  bash -c "grep -q '^.TH ARLAB 1' '$T_TMP/out' && grep -q '^.SS model' '$T_TMP/out' && grep -q '^.SS testbed' '$T_TMP/out'"
command -v man >/dev/null && command -v groff >/dev/null && command -v col >/dev/null ||
  { echo "cli_man: skipped: man, groff or col missing (scripts/setup.sh --test installs them)"; exit 77; }
"$ARLAB" help --man >"$T_TMP/arlab.1"
MANWIDTH=80 MAN_KEEP_FORMATTING= LC_ALL=C.UTF-8 man -l "$T_TMP/arlab.1" 2>"$T_TMP/err" | col -bx >"$T_TMP/page"
t_check "man -l renders it ($(wc -l <"$T_TMP/page") lines)" test "$(wc -l <"$T_TMP/page")" -gt 300
t_check "no troff warning ($(head -c 300 "$T_TMP/err"))" test ! -s "$T_TMP/err"
long=$(python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 80 for l in open(sys.argv[1], encoding="utf-8")))' "$T_TMP/page")
t_check "no rendered line over 80 columns ($long)" test "$long" = 0
t_check "ARLAB_PLATFORM_DIR's description whole" grep -q "':'-separated directories searched for preset JSON" "$T_TMP/page"
verbs=$("$ARLAB" help | awk '$1 == "arlab" && $2 ~ /^[a-z]+$/ && $2 != "help" { print $2 }' | sort -u)
for v in $verbs; do
  "$ARLAB" "$v" --help >"$T_TMP/help"
  miss=$(python3 - "$T_TMP/page" "$T_TMP/help" "$v" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read().split("\n")
helptext, verb = open(sys.argv[2]).read(), sys.argv[3]
# the verb's section: from "   VERB" (a .SS heading) to the next heading
start = next((i for i, l in enumerate(page) if l == "   " + verb), None)
if start is None: sys.exit(print("no section") or 0)
end = next((i for i in range(start + 1, len(page)) if re.fullmatch(r"   [a-z]+|[A-Z][A-Z ]+", page[i])), len(page))
section = " ".join(page[start:end])
opts = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", helptext))
print(" ".join(sorted(o for o in opts if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), section))))
PY
)
  t_check "man page, $v: a section with every option of its --help${miss:+ (missing: $miss)}" test -z "$miss"
done
t_done
