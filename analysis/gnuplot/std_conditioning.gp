# Standard conditioning study (study/std.c): mean Newton iterations per step and mean kappa_2(H)
# against dt for every fixed-step variant, from <datadir>/runs.csv (1 variant, 2 kind, 3 dt,
# 8 iterations_mean, 12 kappa_mean). Writes <out>.png, .svg. Variables: datadir, out, variants,
# title.
if (!exists("datadir") || !exists("out") || !exists("variants")) {
  print "std_conditioning.gp: set datadir, out and variants"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #000000 #aec7e8 #ff9896 #98df8a #ffbb78 #c5b0d5 #c49c94'
lcol(i) = word(colors, (i - 1) % 17 + 1)
pty(i) = (i % 13) + 1
dty(i) = (i > 9) ? 2 : 1
f = datadir.'/runs.csv'
sel(v, c) = (strcol(1) eq v && strcol(2) eq 'fixed') ? column(c) : NaN
set logscale x
set format x '10^{%L}'
set grid
set key outside right top font ",9"
set xlabel 'dt [s]'
n = words(variants)
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1200,550 font ",11"; set output out_png }
  else           { set terminal svg size 1200,550 font ",11" dynamic; set output out_svg }
  set multiplot layout 1,2 title title noenhanced
  unset logscale y
  set format y '%g'
  set ylabel 'mean iterations per step'
  plot for [i=1:n] f using 3:(sel(word(variants, i), 8)) with linespoints lw 2 lc rgb lcol(i) dashtype dty(i) pt pty(i) \
       title word(variants, i) noenhanced
  set logscale y
  set format y '10^{%L}'
  set ylabel 'mean kappa_2(H) per step'
  plot for [i=1:n] f using 3:(sel(word(variants, i), 12)) with linespoints lw 2 lc rgb lcol(i) dashtype dty(i) pt pty(i) \
       title word(variants, i) noenhanced
  unset multiplot
  set output
}
