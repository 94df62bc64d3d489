# Standard gradients study (study/grad_study.c; formulation-convex §9.5): the largest error of the
# step derivative against central finite differences over the smooth (checkpoint, direction)
# pairs, per finite-difference step, one line per approximation, from <datadir>/sweep.csv
# (1 variant, 2 fd_step, 3 err_max_smooth). The error falls as h^2 (truncation) until the
# solver's round-off, ~1e-14/h, takes over; the bottom of the V is the measured accuracy. The
# dashed line is the gate, 1e-6. Writes <out>.png, .svg. Variables: datadir, out, variants, title.
if (!exists("datadir") || !exists("out") || !exists("variants")) {
  print "std_gradients.gp: set datadir, out and variants"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf'
lcol(i) = word(colors, (i - 1) % 8 + 1)
f = datadir.'/sweep.csv'
sel(v) = (strcol(1) eq v && column(3) > 0) ? column(3) : NaN
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key outside right top font ",9"
set xlabel 'finite-difference step h'
set ylabel 'largest relative error of the derivative (smooth steps)'
n = words(variants)
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,550 font ",11"; set output out_png }
  else           { set terminal svg size 900,550 font ",11" dynamic; set output out_svg }
  set title title noenhanced
  plot for [i=1:n] f using 2:(sel(word(variants, i))) with linespoints lw 2 pt (i + 4) \
       lc rgb lcol(i) title word(variants, i) noenhanced, \
       1e-6 with lines dt 2 lw 1.5 lc rgb '#000000' title 'gate 1e-6'
}
