# Standard convergence study (study/std.c): the error against dt of every fixed-step variant,
# log-log, from <datadir>/runs.csv (1 variant, 2 kind, 3 dt, 7 error). Writes <out>.png, .svg.
# Variables: datadir, out, variants (words), ylabel, title.
if (!exists("datadir") || !exists("out") || !exists("variants")) {
  print "std_convergence.gp: set datadir, out and variants"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("ylabel")) { ylabel = "error" }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #000000 #aec7e8 #ff9896 #98df8a #ffbb78 #c5b0d5 #c49c94'
lcol(i) = word(colors, (i - 1) % 17 + 1)
pty(i) = (i % 13) + 1
dty(i) = (i > 9) ? 2 : 1
f = datadir.'/runs.csv'
sel(v) = (strcol(1) eq v && strcol(2) eq 'fixed') ? $7 : NaN
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key outside right top font ",9"
set xlabel 'dt [s]'
set ylabel ylabel
set title title noenhanced
n = words(variants)
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,650 font ",11"; set output out_png }
  else           { set terminal svg size 1000,650 font ",11" dynamic; set output out_svg }
  plot for [i=1:n] f using 3:(sel(word(variants, i))) with linespoints lw 2 lc rgb lcol(i) dashtype dty(i) pt pty(i) ps 1.2 \
       title word(variants, i) noenhanced
  set output
}
