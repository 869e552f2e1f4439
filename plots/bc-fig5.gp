# BlueConnect Fig. 5: all-reduce time vs number of FP32 values on the two
# 2x4-GPU systems, NCCL2 (one-level ring) vs BLC (BlueConnect).
# gnuplot -e "data='out/bc-fig5.csv'; out='out/fig/bc-fig5'" plots/bc-fig5.gp
if (!exists("data")) data = "out/bc-fig5.csv"
if (!exists("out")) out = "out/fig/bc-fig5"
load "style.gp"

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt 9 3.6
    set multiplot layout 1,2 title "BlueConnect Fig. 5: all-reduce performance on two systems"
    set xlabel "#FP32s"
    set ylabel "Runtime (ms)"
    set format x "%.1te%T"
    set xtics 5e7
    set xrange [0:2.05e8]
    set yrange [0:*]
    set key top left
    do for [p in "bc-intel-2x4 bc-ibm-2x4"] {
        set title (p eq "bc-intel-2x4" ? "(a) Intel: PCIe gen3 and 10 Gbps Ethernet" : "(b) IBM: NVLink and 100 Gbps InfiniBand")
        plot data using "elems":(okp("ring", p) ? ms("time_s") : NaN) with linespoints lt 1 title "NCCL2", \
             data using "elems":(okp("blueconnect", p) ? ms("time_s") : NaN) with linespoints lt 2 title "BLC"
    }
    unset multiplot
    set output
}
