#!/bin/bash
# --help on every verb: `arlab VERB --help`, `-h` and `arlab help VERB` exit 0 and print
# a usage; every option a verb parses is named in its help and in its usage lines. The options are read from the
# verb's source (the OPT_* bits of its cli_parse call and its own "--flag" literals), so the
# help texts (cli/help.c) cannot silently lag behind the code.
. "$ARLAB_SRC/tests/lib_cli.sh"

verbs=$("$ARLAB" help | awk '$1 == "arlab" && $2 ~ /^[a-z]+$/ && $2 != "help" { print $2 }' | sort -u)
n=$(wc -w <<<"$verbs")
t_check "the usage lists at least 15 verbs ($n)" test "$n" -ge 15
for v in $verbs; do
  for form in "$v --help" "$v -h" "help $v"; do
    # shellcheck disable=SC2086
    "$ARLAB" $form >"$T_TMP/h" 2>"$T_TMP/e"
    rc=$?
    t_check "arlab $form: exit 0 ($rc)" test $rc = 0
    t_check "arlab $form: a usage line" grep -q "^usage: arlab $v" "$T_TMP/h"
  done
  python3 - "$ARLAB_SRC" "$v" "$T_TMP/h" <<'PY' >"$T_TMP/missing"
import re, sys
src, verb, helpf = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(helpf).read()
files = {"platforms": "cmd_platforms.c", "platform": "cmd_platforms.c", "compare": "cmd_real.c"}
f = open("%s/cli/%s" % (src, files.get(verb, "cmd_%s.c" % verb))).read()
bits = {"PLATFORM": ["--platform"], "ALGO": ["--algo"], "SIZE": ["--size"], "RANKS": ["--ranks"],
        "DTYPE": ["--dtype"], "FORMAT": ["--format"], "CHECK": ["--check"], "TRACE": ["--trace"], "OUT": ["--out"],
        "NETWORK": ["--network"], "GAMMA": ["--gamma"], "BUDGET": ["--budget"], "ITERS": ["--iters", "--warmup"],
        "COLL": ["--coll"], "SCENARIO": ["--scenario"]}
opts = set()
label = {"platform": "platform show"}.get(verb, verb)
for m in re.finditer(r'cli_parse\(((?:(?!cli_parse\().)*?)"%s"\)' % re.escape(label), f, re.S):
    for b in re.findall(r"OPT_([A-Z]+)", m.group(1)):
        opts.update(bits.get(b, []))
        if b == "SIZE":  # the shared parser also reads nccl-tests' size range there
            opts.update(["-b", "-e", "-f", "-i"])
if verb in ("plan", "model", "sim", "real", "compare"):
    opts.add("--schedule")
# the verb's own flags: literals in its file (shared files: only the verb the file is named after)
not_ours = {"--x", "--help", "--mca", "--hostfile", "--bind-to", "--map-by", "--oversubscribe", "--allow-run-as-root",
            "--testbed", "--traffic", "--transport-note", "--exchange-test", "--max-msg"}
# cmd_real.c holds real and compare: compare's flags are those after "int cmd_compare("
if verb == "real":
    f = f[:f.find("int cmd_compare(")]
    not_ours |= {"--fit", "--name"}  # calibrate's, in the flag table cmd_real.c shares
elif verb == "compare":
    f = f[f.find("int cmd_compare("):]
if verb != "platforms":
    opts.update(o for o in re.findall(r'"(--[a-z][a-z0-9-]*)', f) if o not in not_ours)
# the usage lines (from "usage:" to the first line that is neither indented nor another usage) list them
# too (with nccl-tests' -b -e -f -i where the shared parser takes --size)
if verb == "sweep":
    opts.add("-j")
lines = text.split("\n")
i = next((k for k, l in enumerate(lines) if l.startswith("usage: arlab")), len(lines))
usage = []
for l in lines[i:]:
    if usage and not l.startswith(" "): break
    usage.append(l)
usage = " ".join(usage)
def named(o, t): return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), t)
print(" ".join(sorted(o for o in opts if o.startswith("--") and not named(o, text))))
print(" ".join(sorted(o for o in opts if not named(o, usage))))
PY
  miss=$(sed -n 1p "$T_TMP/missing")
  t_check "$v --help names every option it parses${miss:+ (missing: $miss)}" test -z "$miss"
  miss=$(sed -n 2p "$T_TMP/missing")
  t_check "$v --help: the usage lines name every option it parses${miss:+ (missing: $miss)}" test -z "$miss"
done
# a misspelt option names the closest one the verb takes
expect_error "misspelt option" 'unknown option "--sise": did you mean "--size"?' -- model --platform fr-5 --sise 1MB
expect_error "an option the verb does not take" 'unknown option "--trace" for this command' -- model --trace x
# a verb's own options come from the option table too: its messages for a bad or missing value
expect_error "a verb's own flag given a value" 'arlab model: option --detail takes no value' -- model --platform fr-5 --detail=1
expect_error "a verb's own count out of range" 'arlab best: --top: give a number of rows >= 1' -- best --platform fr-5 --size 1MB --top 0
expect_error "a verb's own count without a value" 'arlab model: --digits: give an integer in 1..17' -- model --platform fr-5 --digits
expect_error "a verb's own string without a value" 'arlab real: option --launch needs a value' -- real --launch=
# an unknown verb's help is the one-line error
expect_error "help for an unknown verb" "unknown command" -- help nosuchverb
# a misspelt verb, help or version included, names the closest one
expect_error "arlab hlep" 'unknown command "hlep": did you mean "help"?' -- hlep
expect_error "arlab verison" 'unknown command "verison": did you mean "version"?' -- verison
expect_error "arlab modle" 'unknown command "modle": did you mean "model"?' -- modle
t_done
