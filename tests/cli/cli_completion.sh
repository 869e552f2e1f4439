#!/bin/bash
# The bash completion (`arlab help --completion bash`, from the option table and the verbs' help rows): the
# committed scripts/arlab-completion.bash is what the binary prints (scripts/help_files.sh); sourced, it
# completes verbs, a verb's options (every option its --help names), the words of an option with a fixed
# set, presets and algorithm parameters.
. "$ARLAB_SRC/tests/lib_cli.sh"
ARLAB="$ARLAB" bash "$ARLAB_SRC/scripts/help_files.sh" >"$T_TMP/files" 2>&1
stale=$(grep -v 'docs/arlab.1' "$T_TMP/files")
t_check "scripts/arlab-completion.bash is what help --completion bash prints${stale:+ ($stale)}" test -z "$stale"
expect_ok "help --completion bash" -- help --completion bash
cp "$T_TMP/out" "$T_TMP/comp.bash"
expect_error "help --completion zsh" "give bash" -- help --completion zsh
comp() { # comp WORD... : COMPREPLY for the last word, one a line
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _arlab; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$T_TMP/comp.bash" "$ARLAB" "$@"
}
has() { # has WANT WORD...: the completion of WORD... offers WANT
  local want=$1
  shift
  comp "$@" | grep -qx -- "$want"
}
t_check "verbs: mo -> model" has model mo
t_check "verbs: he -> help" has help he
t_check "model's options: --sch -> --schedule" has --schedule model --sch
t_check "model's options: --dig -> --digits (the verb's own)" has --digits model --dig
t_check "sweep's options: -j and --quiet" bash -c "$(declare -f comp has); T_TMP='$T_TMP' ARLAB='$ARLAB'; has -j sweep - && has --quiet sweep --q"
t_check "sim's options do not leak into model: --engine" bash -c "! { $(declare -f comp); T_TMP='$T_TMP' ARLAB='$ARLAB' comp model --eng | grep -qx -- --engine; }"
t_check "an option's words: sim --engine n -> naive" has naive sim --engine n
t_check "an option's words: real --placement i -> in" has in real --placement i
t_check "an option's words: model --dtype bf -> bf16" has bf16 model --dtype bf
t_check "an option's words: sim --format nccl -> nccl-tests" has nccl-tests sim --format nccl
t_check "presets: dgx-h1 -> dgx-h100" has dgx-h100 model --platform dgx-h1
t_check "algorithm parameters: blueconnect:d -> blueconnect:decomp=" has blueconnect:decomp= model --algo blueconnect:d
touch "$T_TMP/sched-x.json"
t_check "a file where a file is asked: --schedule" has "$T_TMP/sched-x.json" model --schedule "$T_TMP/sched-x"
# every option each verb's --help names (its rows' left column) is offered after "VERB -"
verbs=$("$ARLAB" help | awk '$1 == "arlab" && $2 ~ /^[a-z]+$/ && $2 != "help" { print $2 }' | sort -u)
for v in $verbs; do
  "$ARLAB" "$v" --help | sed -n 's/^  \(--\{1,2\}[a-z][a-z0-9-]*\).*/\1/p' | sort -u >"$T_TMP/want"
  comp "$v" - | sort -u >"$T_TMP/got"
  miss=$(comm -23 "$T_TMP/want" "$T_TMP/got" | tr '\n' ' ')
  t_check "$v: every option of its --help is completed${miss:+ (missing: $miss)}" test -z "$miss"
done
t_done
