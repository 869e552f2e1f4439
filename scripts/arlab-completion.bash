# bash completion for arlab: verbs, each verb's options (read from `arlab VERB --help`), presets and
# families for --platform, algorithms and their parameters for --algo, files where a file is asked.
#   source scripts/arlab-completion.bash      (cmake --install puts it in share/bash-completion/completions)
_arlab() {
    local cur prev verb words
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    verb=${COMP_WORDS[1]}
    local A=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        words=$("$A" help 2>/dev/null | awk '$1 == "arlab" && $2 ~ /^[a-z]+$/ { print $2 }' | sort -u)
        COMPREPLY=($(compgen -W "$words --help --version" -- "$cur"))
        return
    fi
    case $prev in
    --platform)
        words="$("$A" platforms --format csv 2>/dev/null | tail -n +2 | cut -d, -f1) flat: tree: fat-tree: torus: machines: rail:"
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        compopt -o nospace 2>/dev/null
        return ;;
    --algo)
        if [[ $cur == *:* ]]; then # parameters of the algorithm before ':'
            local a=${cur%%:*}
            words=$("$A" algos 2>/dev/null | awk -v a="$a" '$1 == a && NF >= 2 && $2 ~ /^[a-z]+$/ { print a ":" $2 "=" }')
        else
            words="all $("$A" algos --format csv 2>/dev/null | tail -n +2 | cut -d, -f1)"
        fi
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return ;;
    --schedule|--out|--trace|--calibrate|--platform-out|--from|--measured|--plot|--reference)
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    --format)
        COMPREPLY=($(compgen -W "table csv json nccl-tests" -- "$cur"))
        return ;;
    --dtype)
        COMPREPLY=($(compgen -W "f32 f16 bf16 f64 i32" -- "$cur"))
        return ;;
    esac
    if [[ $cur == -* ]]; then
        words=$("$A" "$verb" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _arlab arlab
