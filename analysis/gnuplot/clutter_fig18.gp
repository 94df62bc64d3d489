# ICF Fig. 18: steady penetration over the last 1.25 s against the contact stiffness, log-log:
# the median over the steps (solid) and the time mean (dashed, raised by late impact steps).
# Reads <datadir>/fig18-19.csv (approx, k, penetration_median, penetration_time_mean, ...) and writes <out>.png and
# <out>.svg. Variables: datadir, out, models, titles, title.
if (!exists("datadir") || !exists("out") || !exists("models") || !exists("titles")) {
  print "clutter_fig18.gp: set datadir, out, models and titles"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/fig18-19.csv'
colors = "#d62728 #1f77b4 #2ca02c #9467bd"
sel(m, c) = (strcol(1) eq m && column(c) > 0) ? column(c) : NaN
set grid
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set key top right font ",10"
set xlabel 'k [N/m]'
set ylabel 'steady penetration [m]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,700 font ",11"; set output out_png }
  else           { set terminal svg size 900,700 font ",11" dynamic; set output out_svg }
  set title title
  plot for [i=1:words(models)] f using 2:(sel(word(models, i), 3)) with linespoints lw 2 pt 7 lc rgb word(colors, i) title word(titles, i), \
       for [i=1:words(models)] f using 2:(sel(word(models, i), 4)) with lines lw 1 dt 2 lc rgb word(colors, i) notitle
  set output
}
