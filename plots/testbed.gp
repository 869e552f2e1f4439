# The emulated cluster: all-reduce time against buffer size, one
# panel per testbed case, log-log; points = measured (arlab-mpi), solid =
# simulated, dotted = model. Columns by name: platform, algo, bytes, model_s,
# sim_s, measured_s (empty or nan where absent). Input: the sweep of
# experiments/testbed.json (platforms as shaped), or out/testbed/calibrated.csv
# written by experiments/bench_testbed.sh (calibrated platforms, MPI_Allreduce
# included).
# gnuplot -e "data='out/testbed.csv'; out='out/fig/testbed'" plots/testbed.gp
if (!exists("data")) data = "out/testbed.csv"
if (!exists("out")) out = "out/fig/testbed"
load "style.gp"
cases = "testbed-2x2 flexreduce-2m-5@scale=0.05 testbed-3level"
titles = "'(a) 2 machines x 2 ranks' '(b) FlexReduce Fig. 2: 2 + 3 ranks (x0.05)' '(c) 3-level tree, 8 ranks'"
order = "ring halving-doubling two-level blueconnect flexreduce treepack mpi-allreduce"
# the algorithms of platform p with a value in column c, in `order`
have(p, c) = system(sprintf("awk -F, -v p=\"%s\" -v c=\"%s\" -v o=\"%s\" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } h[c] && $h[\"platform\"] == p && $h[c] != \"\" && $h[c] != \"nan\" { s[$h[\"algo\"]] = 1 } END { n = split(o, a, \" \"); for (i = 1; i <= n; i++) if (a[i] in s) printf \"%%s \", a[i] }' %s", p, c, order, data))
lt_of(a) = int(system(sprintf("echo '%s' | awk -v a=%s '{ for (i = 1; i <= NF; i++) if ($i == a) print i }'", order, a)))
sel(p, a, c) = (strcol("platform") eq p && strcol("algo") eq a) ? column(c) * 1e3 : NaN

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt 12 4.4
    set multiplot layout 1, 3
    set logscale xy
    set format x "10^{%T}"
    set format y "10^{%T}"
    set xlabel "Buffer size (bytes)"
    set ylabel "All-reduce time (ms)"
    set key top left font ",7" spacing 0.9
    do for [k = 1:words(cases)] {
        p = word(cases, k)
        meas = have(p, "measured_s")
        sims = have(p, "sim_s")
        mods = have(p, "model_s")
        set title word(titles, k)
        if (words(mods) + words(meas) == 0) {
            set label 1 "no data for ".p at graph 0.5, 0.5 center
            set xrange [1e4:1e8]
            set yrange [1:1e4]
            plot 1e-9 notitle
            unset label 1
            unset xrange
            unset yrange
            set autoscale
        } else {
            if (words(meas) == 0) { set label 1 "not measured yet (experiments/bench_testbed.sh, as root)" at graph 0.5, 0.08 center font ",7" noenhanced }
            cmd = ""
            do for [i = 1:words(mods)] {
                a = word(mods, i)
                cmd = cmd.sprintf("%s data using 'bytes':(sel(p, '%s', 'model_s')) with lines lt %d dt 3 lw 0.8 title '%s'", \
                      (cmd eq "" ? "" : ","), a, lt_of(a), (words(meas) == 0 ? a." model" : ""))
            }
            do for [i = 1:words(sims)] {
                a = word(sims, i)
                cmd = cmd.sprintf("%s data using 'bytes':(sel(p, '%s', 'sim_s')) with lines lt %d dt 1 notitle", \
                      (cmd eq "" ? "" : ","), a, lt_of(a))
            }
            do for [i = 1:words(meas)] {
                a = word(meas, i)
                cmd = cmd.sprintf("%s data using 'bytes':(sel(p, '%s', 'measured_s')) with points lt %d title '%s measured'", \
                      (cmd eq "" ? "" : ","), a, lt_of(a), a)
            }
            eval "plot ".cmd
            unset label 1
        }
    }
    unset multiplot
    set output
}
