# FlexReduce Fig. 4 (a)-(e), plus (f) FR's saving over Nccl next to the
# paper's ranges. Nccl = one-level ring, BLC = BlueConnect, FR = FlexReduce,
# Ideal = FR's Eq. 6 (the model_s column of the FR rows).
# gnuplot -e "data='out/fr-fig4.csv'; out='out/fig/fr-fig4'" plots/fr-fig4.gp
if (!exists("data")) data = "out/fr-fig4.csv"
if (!exists("out")) out = "out/fig/fr-fig4"
load "style.gp"
algos = "ring blueconnect flexreduce"
names = "Nccl BLC FR"

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt 11 6.6
    set multiplot layout 2,3 title "FlexReduce Fig. 4: all-reduce on 4 to 12 learners (2 machines up to 8, 3 from 9)"

    set xlabel "Number of learners"
    set xrange [3.5:12.5]
    set xtics 1
    set key bottom right
    set yrange [0:*]
    do for [n in "120000 120000000"] {
        set title (n eq "120000" ? "(a) 120K items" : "(b) 120M items")
        set ylabel "Latency (ms)"
        plot for [i=1:3] data using "ranks":(oke(word(algos,i), real(n)) ? ms("time_s") : NaN) \
             with linespoints lt i title word(names,i), \
             data using "ranks":(oke("flexreduce", real(n)) ? ms("model_s") : NaN) with lines lt 9 title "Ideal (Eq. 6)"
    }

    set title "(c) Reduce calls per learner (top level)"
    set ylabel "Reduce calls"
    set yrange [0:5]
    set key top left
    plot data using "ranks":(oke("flexreduce", 120000000) ? column("calls_avg") : NaN) with linespoints lt 1 title "FR mean", \
         data using "ranks":(oke("flexreduce", 120000000) ? column("calls_max") : NaN) with linespoints lt 2 title "FR max", \
         data using "ranks":(oke("flexreduce", 120000000) ? column("calls_bound") : NaN) with linespoints lt 4 title "Eq. 12 bound", \
         1.5 with lines lt 9 title "paper: mean <= 1.5"

    set xlabel "Number of items (FP32)"
    set logscale xy
    set xrange [4e4:2e8]
    set yrange [*:*]
    set xtics auto
    set format x "10^{%T}"
    set format y "10^{%T}"
    set ylabel "Latency (ms)"
    set key top left
    do for [p in "fr-10 fr-12"] {
        set title (p eq "fr-10" ? "(d) 10 learners (4+3+3)" : "(e) 12 learners (4+4+4)")
        plot for [i=1:3] data using "elems":(okp(word(algos,i), p) ? ms("time_s") : NaN) \
             with linespoints lt i title word(names,i)
    }
    unset logscale
    set format x "%g"
    set format y "%g"

    set title "(f) FR saving over Nccl"
    set xlabel "Number of learners"
    set xrange [3.5:12.5]
    set xtics 1
    set ylabel "Saving (%)"
    set yrange [-30:60]
    set key bottom left
    set object 1 rect from 3.8,32 to 8.2,42 fc rgb "#c8c8c8" fs solid 0.6 border lc rgb "#808080" behind
    set object 2 rect from 8.8,21 to 12.2,25 fc rgb "#c8c8c8" fs solid 0.6 border lc rgb "#808080" behind
    set label 1 "paper: 32-42 %" at 6,47 center font ",8"
    # above the lines (the 120K line runs through y = 27-33 there), with an arrow down to its band
    set label 2 "paper: 21-25 %" at 10.5,52 center font ",8"
    set arrow 1 from 10.5,49 to 10.5,25.5 size screen 0.008,20 lw 0.6 lc rgb "#606060"
    plot data using "ranks":(oke("flexreduce", 120000) ? 100*column("saving") : NaN) with linespoints lt 1 title "FR, 120K items", \
         data using "ranks":(oke("flexreduce", 120000000) ? 100*column("saving") : NaN) with linespoints lt 2 title "FR, 120M items", \
         0 with lines lt 9 notitle
    unset object 1
    unset object 2
    unset label 1
    unset label 2
    unset arrow 1
    unset multiplot
    set output
}
