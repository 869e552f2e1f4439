# Model vs simulation, per algorithm (x) and platform (point type), at 100 MB
# (left) and 64 KB (right). Top: the simulated time over the cost walk of the
# same schedule (the generic model: equal link shares, lockstep rounds).
# Bottom: the simulated time over the paper's closed form, where the algorithm
# has one. Ratios on a log axis; 1 = agreement. The cause of each difference
# is in the sweep's cause column and the report's table.
# gnuplot -e "data='out/model-vs-sim.csv'; out='out/fig/model-vs-sim'" plots/model-vs-sim.gp
if (!exists("data")) data = "out/model-vs-sim.csv"
if (!exists("out")) out = "out/fig/model-vs-sim"
load "style.gp"
algos = "ring halving-doubling binomial ps two-level blueconnect flexreduce treepack:chunks=4"
plats = "bc-intel-2x4 blueconnect-12 fr-5 fr-10 fat-tree-64 torus-4x4 p2.8xlarge p2.16xlarge p3.16xlarge"
idx(s, i) = i > words(algos) ? NaN : (word(algos, i) eq s ? i : idx(s, i + 1))
backend = system("awk -F, 'NR==2{print $2}' ".data)
what = backend eq "sim" ? "simulated" : backend
# one slot per platform across the algorithm's unit, so that the many points that agree exactly
# (ratio 1) stand side by side instead of piling up on one another
xat(j) = idx(strcol("algo"), 1) + (j - 5) * 0.095
sel(j, n) = ok(strcol("algo")) && strcol("platform") eq word(plats, j) && column("bytes") == real(n)

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt 11 7.5
    set multiplot layout 2,2 title "Model vs ".(backend eq "sim" ? "simulation" : backend." backend (no simulator in this build)").": ratio per algorithm and platform (1 = agreement)"
    set xrange [0.5:8.5]
    set xtics rotate by -30 ("Ring" 1, "HD" 2, "Binomial" 3, "PS" 4, "Two-level" 5, "BLC" 6, "FR" 7, "Tree-packing" 8)
    set logscale y
    set grid ytics
    do for [row=1:2] {
        do for [n in "100000000 64000"] {
            set title (row == 1 ? "vs the cost walk, " : "vs the closed form, ").(n eq "100000000" ? "100 MB" : "64 KB")
            set ylabel (row == 1 ? what." / cost walk" : what." / closed form")
            if (row == 1) { set yrange [0.6:1.6]; set ytics (0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.4, 1.6) } \
            else { set yrange [0.2:10]; set ytics (0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 7, 10) }
            if (row == 1 && n eq "100000000") { set key outside right top vertical font ",8" } else { unset key }
            plot for [j=1:9] data using (sel(j, n) ? xat(j) : NaN):(row == 1 ? column("time_s") / column("walk_s") : column("time_s") / column("closed_s")) \
                 with points lt j ps 0.75 title word(plats,j), \
                 1 with lines lt 9 notitle
        }
    }
    unset multiplot
    set output
}
