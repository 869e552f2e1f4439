# Wang et al. (SysML 2018) Fig. 3 style: parameter server, ring (NCCL) and
# tree packing ("proposed") on P2 (8, 16 K80) and P3 (4, 8 V100) instances.
# gnuplot -e "data='out/wang-fig3.csv'; out='out/fig/wang-fig3'" plots/wang-fig3.gp
if (!exists("data")) data = "out/wang-fig3.csv"
if (!exists("out")) out = "out/fig/wang-fig3"
load "style.gp"
algos = "ps ring treepack"
names = "PS NCCL Proposed"
isp2(s) = s eq "p2.8xlarge" || s eq "p2.16xlarge"
isp3(s) = s eq "p3.8xlarge" || s eq "p3.16xlarge"

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt 9 6.4
    set multiplot layout 2,2 title "Wang et al. Fig. 3 style: synchronising ResNet-152 gradients (240 MB FP32)"
    set xlabel "#GPUs"
    set key top left
    set yrange [0:*]
    set offsets 0, 0, graph 0.12, 0
    do for [k=1:2] {
        set title (k == 1 ? "P2.8xlarge / P2.16xlarge (K80, PCIe)" : "P3.8xlarge / P3.16xlarge (V100, NVLink)")
        if (k == 1) { set xrange [6:18]; set xtics (8, 16) } else { set xrange [3:9]; set xtics (4, 8) }
        set ylabel "Communication time per iteration (ms)"
        plot for [i=1:3] data using "ranks":(ok(word(algos,i)) && (k == 1 ? isp2(strcol("platform")) : isp3(strcol("platform"))) ? ms("time_s") : NaN) \
             with linespoints lt i title word(names,i)
    }
    do for [k=1:2] {
        set title (k == 1 ? "P2: algorithm bandwidth" : "P3: algorithm bandwidth")
        if (k == 1) { set xrange [6:18]; set xtics (8, 16) } else { set xrange [3:9]; set xtics (4, 8) }
        set ylabel "Bytes / time (GB/s)"
        set key center right
        plot for [i=1:3] data using "ranks":(ok(word(algos,i)) && (k == 1 ? isp2(strcol("platform")) : isp3(strcol("platform"))) ? column("bytes")/column("time_s")/1e9 : NaN) \
             with linespoints lt i title word(names,i)
    }
    unset multiplot
    set output
}
