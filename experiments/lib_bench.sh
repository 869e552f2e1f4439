# Shared by the benchmark scripts (sourced, not run).
# field NAME CSVFILE: the value of column NAME in the first data row of arlab's CSV.
field() { awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $(c[n]); exit }' "$2"; }
