# Simulation vs measurement: measured_s against the simulated time of the same
# schedule (the model's when the build has no simulator), log-log, with y = x.
# gnuplot -e "data='out/sim-vs-real.csv'; out='out/fig/sim-vs-real'" plots/sim-vs-real.gp
if (!exists("data")) data = "out/sim-vs-real.csv"
if (!exists("out")) out = "out/fig/sim-vs-real"
load "style.gp"
set style textbox opaque noborder
nok = int(system("awk -F, 'NR>1 && $2==\"real\" && $11!=\"\"' ".data." | wc -l"))
ref(x) = x
# the algorithms that have measurements (column 6 = algo, 32 = status)
algos = system("awk -F, 'NR>1 && $32==\"ok\" {print $6}' ".data." | sort -u | tr '\\n' ' '")
pred(dummy) = strcol("sim_s") ne "" ? column("sim_s") : column("model_s")

do for [fmt in "png pdf svg"] {
    call "term.gp" fmt 6 5
    set title "Simulation vs measurement"
    nsim = int(system("awk -F, 'NR>1 && $15!=\"\"' ".data." | wc -l"))
    set xlabel (nok == 0 || nsim > 0 ? "Simulated time (ms)" : "Model time (ms), no simulator in this build")
    set ylabel "Measured time (ms)"
    set logscale xy
    set format x "10^{%T}"
    set format y "10^{%T}"
    set key top left
    if (nok == 0) {
        set label 1 "no measurements yet:\nrun 'arlab real ... --out out/real/NAME.csv' on GPUs,\nthen 'arlab sweep experiments/sim-vs-real.json'" at graph 0.5, 0.5 center front boxed
        set xrange [1e-3:1e3]
        set yrange [1e-3:1e3]
        plot ref(x) with lines lt 9 title "measured = simulated"
        unset label 1
    } else {
        plot for [i=1:words(algos)] data using (ok(word(algos,i)) ? 1e3 * pred(0) : NaN):(ms("measured_s")) \
             with points lt i title word(algos,i), \
             ref(x) with lines lt 9 title "measured = simulated"
    }
    set output
}
