# The emulated cluster: all-reduce time against buffer size, one panel per
# testbed case (every platform in the data, in order of appearance), log-log.
# Every algorithm in the data is drawn, each with its own line type and point
# shape: points = measured (arlab-mpi), solid line = simulated, dashed line =
# model; the key names each algorithm (its point; where only the model is
# there, its dashed line with points) and the line styles.
# Columns by name: platform, algo, bytes, model_s, sim_s, measured_s (empty or
# nan where absent). Input: the sweep of experiments/testbed.json (platforms as
# shaped), or out/testbed/calibrated.csv written by experiments/bench_testbed.sh
# (calibrated platforms, MPI_Allreduce included, medians of its runs).
# gnuplot -e "data='out/testbed.csv'; out='out/fig/testbed'" plots/testbed.gp
if (!exists("data")) data = "out/testbed.csv"
if (!exists("out")) out = "out/fig/testbed"
load "style.gp"
# the values of column c in order of first appearance (rows with platform p, or every row when p is "")
firsts(c, p) = system(sprintf("awk -F, -v c=\"%s\" -v p=\"%s\" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } h[c] && (p == \"\" || $h[\"platform\"] == p) && $h[c] != \"\" && !($h[c] in s) { s[$h[c]] = 1; printf \"%%s \", $h[c] }' %s", c, p, data))
# the algorithms of platform p with a value in column c, in `order`
have(p, c) = system(sprintf("awk -F, -v p=\"%s\" -v c=\"%s\" -v o=\"%s\" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } h[c] && $h[\"platform\"] == p && $h[c] != \"\" && $h[c] != \"nan\" { s[$h[\"algo\"]] = 1 } END { n = split(o, a, \" \"); for (i = 1; i <= n; i++) if (a[i] in s) printf \"%%s \", a[i] }' %s", p, c, order, data))
cases = firsts("platform", "")
if (words(cases) == 0) { cases = "testbed-2x2 flexreduce-2m-5@scale=0.05 testbed-3level" }
order = firsts("algo", "")
lt_of(a) = int(system(sprintf("echo '%s' | awk -v a=%s '{ for (i = 1; i <= NF; i++) if ($i == a) print i }'", order, a)))
title_of(p) = p eq "testbed-2x2" ? "(a) 2 machines x 2 ranks" : \
              p eq "flexreduce-2m-5@scale=0.05" ? "(b) FlexReduce Fig. 2: 2 + 3 ranks (x0.05)" : \
              p eq "testbed-3level" ? "(c) 3-level tree, 8 ranks" : p
sel(p, a, c) = (strcol("platform") eq p && strcol("algo") eq a) ? column(c) * 1e3 : NaN
nc = words(cases)

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt (nc > 1 ? 4.4 * nc : 5.5) 4.6
    set multiplot layout 1, nc
    set logscale xy
    set format x "10^{%T}"
    set format y "10^{%T}"
    set xlabel "Buffer size (bytes)"
    set ylabel "All-reduce time (ms)"
    set key top left font ",7" spacing 0.9 noenhanced
    do for [k = 1:nc] {
        p = word(cases, k)
        meas = have(p, "measured_s")
        sims = have(p, "sim_s")
        mods = have(p, "model_s")
        set title title_of(p) noenhanced
        if (words(mods) + words(meas) + words(sims) == 0) {
            set label 1 "no data for ".p at graph 0.5, 0.5 center noenhanced
            set xrange [1e4:1e8]
            set yrange [1:1e4]
            plot 1e-9 notitle
            unset label 1
            unset xrange
            unset yrange
            set autoscale
        } else {
            if (words(meas) == 0) { set label 1 "not measured yet (experiments/bench_testbed.sh, as root)" at graph 0.5, 0.08 center font ",7" noenhanced }
            # key: one entry per algorithm (its point shape; its line where it is not measured), then the line styles
            cmd = ""
            do for [i = 1:words(meas)] {
                a = word(meas, i)
                cmd = cmd.sprintf("%s data using 'bytes':(sel(p, '%s', 'measured_s')) with points lt %d title '%s'", \
                      (cmd eq "" ? "" : ","), a, lt_of(a), a)
            }
            do for [i = 1:words(sims)] {
                a = word(sims, i)
                cmd = cmd.sprintf("%s data using 'bytes':(sel(p, '%s', 'sim_s')) with lines lt %d dt 1 lw 1.1 %s", \
                      (cmd eq "" ? "" : ","), a, lt_of(a), (strstrt(" ".meas, " ".a." ") ? "notitle" : "title '".a." (simulated)'"))
            }
            do for [i = 1:words(mods)] {
                a = word(mods, i)
                alone = !(strstrt(" ".meas, " ".a." ") || strstrt(" ".sims, " ".a." "))
                cmd = cmd.sprintf("%s data using 'bytes':(sel(p, '%s', 'model_s')) with %s lt %d dt 2 lw 0.9 %s", \
                      (cmd eq "" ? "" : ","), a, (alone ? "linespoints ps 0.5" : "lines"), lt_of(a), \
                      (alone ? "title '".a." (model)'" : "notitle"))
            }
            if (words(meas) > 0) { cmd = cmd.", keyentry with points lc rgb '#000000' pt 7 ps 0.6 title 'points: measured'" }
            if (words(sims) > 0) { cmd = cmd.", keyentry with lines lc rgb '#000000' dt 1 lw 1.1 title 'solid: simulated'" }
            if (words(mods) > 0) { cmd = cmd.", keyentry with lines lc rgb '#000000' dt 2 lw 0.9 title 'dashed: model'" }
            eval "plot ".cmd
            unset label 1
        }
    }
    unset multiplot
    set output
}
