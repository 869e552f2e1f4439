# call "term.gp" FMT W H: sets the terminal for FMT (png or pdf) at W x H
# inches (PNG at 110 dpi) and the output file out.".".FMT.
if (ARG1 eq "png") {
    set terminal pngcairo enhanced font "DejaVu Serif,10" size real(ARG2)*110, real(ARG3)*110 dashed rounded
} else {
    set terminal pdfcairo enhanced font "DejaVu Serif,8" size real(ARG2), real(ARG3) dashed rounded
}
set output out.".".ARG1
