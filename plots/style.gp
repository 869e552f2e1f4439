# Shared style of arlab's figures: serif fonts, black-and-white line styles
# (a dash type and a point type per series, dark greys), CSV input.
# Loaded by every plots/*.gp with `load "style.gp"`; experiments/make_figures.sh
# sets GNUPLOT_LIB to this directory so that works from any working directory.
#
# A figure script sets `data` (the sweep's CSV) and `out` (output path without
# extension), then for each format runs `call "term.gp" FMT WIDTH_IN HEIGHT_IN`.

set datafile separator ","
set datafile missing NaN       # a filtered-out row breaks no line
set encoding utf8

# Series styles 1..8: black/greys, distinct dashes and point shapes.
set linetype 1 lc rgb "#000000" lw 1.6 dt 1 pt 7  ps 0.9
set linetype 2 lc rgb "#404040" lw 1.6 dt 2 pt 5  ps 0.9
set linetype 3 lc rgb "#202020" lw 1.6 dt 4 pt 9  ps 1.1
set linetype 4 lc rgb "#606060" lw 1.6 dt 3 pt 13 ps 1.0
set linetype 5 lc rgb "#000000" lw 1.2 dt 5 pt 6  ps 0.9
set linetype 6 lc rgb "#505050" lw 1.2 dt 1 pt 4  ps 0.9
set linetype 7 lc rgb "#303030" lw 1.2 dt 2 pt 8  ps 1.0
set linetype 8 lc rgb "#707070" lw 1.2 dt 4 pt 12 ps 1.0
set linetype 9 lc rgb "#000000" lw 1.0 dt 3 pt 1  ps 1.0

set border lw 1.0
set grid lc rgb "#d0d0d0" lw 0.5 dt 3
set key box lw 0.5 samplen 3 spacing 1.1 opaque Left reverse width 1
set tics out nomirror
set mxtics default

# Row filters (status "ok" only). col(name) reads a numeric column.
ok(a)          = strcol("status") eq "ok" && strcol("algo") eq a
okp(a, p)      = ok(a) && strcol("platform") eq p
okt(a, t)      = ok(a) && strcol("train") eq t
okpe(a, p, n)  = okp(a, p) && column("elems") == n
oke(a, n)      = ok(a) && column("elems") == n
ms(c)          = column(c) * 1e3
