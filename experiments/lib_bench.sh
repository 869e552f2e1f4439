# Shared by the benchmark scripts (sourced, not run).
# shellcheck shell=bash
# fields CSVFILE NAME...: the values of columns NAME... in the first data row of arlab's CSV,
# joined by '|' (read them with IFS='|' read -r A B ...: an empty value keeps its place).
fields() {
    local f=$1
    shift
    awk -F, -v names="$*" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
        NR == 2 { n = split(names, w, " "); for (k = 1; k <= n; k++) printf "%s%s", (k > 1 ? "|" : ""), $(c[w[k]]); print ""; exit }' "$f"
}
# field NAME CSVFILE: the value of one column.
field() { fields "$2" "$1"; }
