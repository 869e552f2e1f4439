# Issue 12: measured (arlab-mpi on the emulated cluster) vs simulated vs model,
# on the calibrated platforms, one panel per testbed case: time against size,
# log-log; points = measured, solid = simulated, dotted = model (the model
# equals the simulation wherever the closed forms' assumptions hold).
# Input: the *-compare-cal.csv files of experiments/bench_testbed.sh
# (algo,platform,ranks,bytes,model_s,sim_s,measured_s,...; mpi-allreduce rows
# are measured only).
# gnuplot -e "dir='out/testbed'; out='out/fig/testbed'" plots/testbed.gp
if (!exists("dir")) dir = "out/testbed"
if (!exists("out")) out = "out/fig/testbed"
load "style.gp"
set datafile separator ","
algos = "ring halving-doubling two-level blueconnect flexreduce treepack mpi-allreduce"
cases = "testbed-2x2 flexreduce-2m-5 testbed-3level"
titles = "'(a) 2 machines x 2 ranks' '(b) FlexReduce Fig. 2: 2 + 3 ranks' '(c) 3-level tree, 8 ranks'"
sel(a, c) = strcol(1) eq a ? column(c) * 1e3 : NaN

do for [fmt in "png pdf"] {
    call "term.gp" fmt 12 4.2
    set multiplot layout 1, 3
    set logscale xy
    set format x "10^{%T}"
    set format y "10^{%T}"
    set xlabel "Buffer size (bytes)"
    set ylabel "All-reduce time (ms)"
    set key top left font ",7" spacing 0.9
    do for [k = 1:words(cases)] {
        f = dir."/".word(cases, k)."-compare-cal.csv"
        set title word(titles, k)
        plot for [i = 1:words(algos)] f using 4:(sel(word(algos, i), 7)) every ::1 with points lt i \
                 title word(algos, i)." measured", \
             for [i = 1:words(algos) - 1] f using 4:(sel(word(algos, i), 6)) every ::1 with lines lt i \
                 dt 1 notitle, \
             for [i = 1:words(algos) - 1] f using 4:(sel(word(algos, i), 5)) every ::1 with lines lt i \
                 dt 3 lw 0.8 notitle
    }
    unset multiplot
    set output
}
