# BlueConnect Fig. 6: ResNet-50 on 4..192 GPUs (Ring, GLOO = two-level, BLC):
# (a) communication overhead per iteration, (b) speedup over one GPU (the panel's title said
# scaling efficiency while it plotted the speedup; the title now says what is plotted),
# (c) normalized throughput, (d) the same with the FP16 projection.
# gnuplot -e "data='out/bc-fig6.csv'; out='out/fig/bc-fig6'" plots/bc-fig6.gp
if (!exists("data")) data = "out/bc-fig6.csv"
if (!exists("out")) out = "out/fig/bc-fig6"
load "style.gp"
algos = "ring two-level blueconnect"
names = "Ring GLOO BLC"

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt 9 7
    set multiplot layout 2,2 title "BlueConnect Fig. 6: training performance comparison over 192 GPUs (ResNet-50, 100 MB FP32 gradients)"
    set xlabel "#GPUs"
    set logscale x 2
    set xtics ("4" 4, "8" 8, "16" 16, "32" 32, "48" 48, "64" 64, "96" 96, "128" 128, "192" 192)
    set xrange [3.5:220]
    unset mxtics

    set title "(a) Communication overhead"
    set ylabel "Communication overhead (ms)"
    set yrange [0:*]
    set key top left
    plot for [i=1:3] data using "ranks":(okt(word(algos,i), "fp32") ? ms("overhead_s") : NaN) \
         with linespoints lt i title word(names,i)

    set title "(b) Speedup over one GPU"
    set ylabel "Speedup over one GPU"
    unset logscale x
    set xtics 32
    set xrange [0:200]
    set yrange [0:200]
    plot x with lines lt 9 title "Ideal", \
         for [i=1:3] data using "ranks":(okt(word(algos,i), "fp32") ? column("speedup") : NaN) \
         with linespoints lt i title word(names,i)

    set logscale x 2
    set xtics ("4" 4, "8" 8, "16" 16, "32" 32, "48" 48, "64" 64, "96" 96, "128" 128, "192" 192)
    set xrange [3.5:220]
    set yrange [0.5:1.1]
    set ylabel "Normalized throughput (images/s / (P x 196.3))"
    set key bottom left
    set title "(c) Training throughput"
    plot for [i=1:3] data using "ranks":(okt(word(algos,i), "fp32") ? column("scaling_eff") : NaN) \
         with linespoints lt i title word(names,i)
    set title "(d) Training throughput (projected with FP16)"
    plot for [i=1:3] data using "ranks":(okt(word(algos,i), "fp16") ? column("scaling_eff") : NaN) \
         with linespoints lt i title word(names,i)
    unset multiplot
    set output
}
