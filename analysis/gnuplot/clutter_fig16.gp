# ICF Fig. 16: effective stiction tolerance of the contacts that push, per step: mean (thick) and
# min-max (thin) for each approximation, with v_s dashed. Reads <datadir>/fig16.csv (t, then
# mean, min, max per model: SAP, Lagged, Lagged-reg, Similar) and writes <out>.png and
# <out>.svg. Variables: datadir, out, titles, vs, title.
if (!exists("datadir") || !exists("out") || !exists("titles")) {
  print "clutter_fig16.gp: set datadir, out and titles"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/fig16.csv'
colors = "#d62728 #1f77b4 #2ca02c #9467bd"
pos(x) = x > 0 ? x : NaN
set grid
set logscale y
set format y '10^{%L}'
set key top right font ",10"
set xlabel 't [s]'
set ylabel 'stiction tolerance [m/s]'
set yrange [1e-9:1e-2]
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1100,700 font ",11"; set output out_png }
  else           { set terminal svg size 1100,700 font ",11" dynamic; set output out_svg }
  set title title
  plot for [i=1:4] f using 1:(pos(column(3 * i - 1))) with lines lw 2 lc rgb word(colors, i) title word(titles, i).' (mean)', \
       for [i=1:4] f using 1:(pos(column(3 * i))) with lines lw 0.6 dt 3 lc rgb word(colors, i) notitle, \
       for [i=1:4] f using 1:(pos(column(3 * i + 1))) with lines lw 0.6 dt 3 lc rgb word(colors, i) notitle, \
       (exists("vs") ? vs : NaN) with lines dt 2 lw 1.5 lc rgb "black" title 'v_s'
  set output
}
