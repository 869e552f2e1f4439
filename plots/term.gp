# call "term.gp" FMT W H: sets the terminal for FMT (png, pdf or svg) at W x H
# inches (PNG and SVG at 110 px per inch) and the output file out.".".FMT.
# The report embeds the SVG (vector: sharp at any zoom), the PNG where there is none.
if (ARG1 eq "svg") {
    set terminal svg enhanced font "DejaVu Serif,10" size real(ARG2)*110, real(ARG3)*110 dashed rounded
} else { if (ARG1 eq "png") {
    set terminal pngcairo enhanced font "DejaVu Serif,10" size real(ARG2)*110, real(ARG3)*110 dashed rounded
} else {
    set terminal pdfcairo enhanced font "DejaVu Serif,8" size real(ARG2), real(ARG3) dashed rounded
} }
set output out.".".ARG1
