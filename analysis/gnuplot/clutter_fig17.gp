# ICF Fig. 17: mean Newton iterations (top) and mean condition number (bottom) per step against
# dt. Reads <datadir>/fig17.csv (approx, dt, mean_iterations, mean_kappa, ...) and writes
# <out>.png and <out>.svg. Variables: datadir, out, models, titles, title.
if (!exists("datadir") || !exists("out") || !exists("models") || !exists("titles")) {
  print "clutter_fig17.gp: set datadir, out, models and titles"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/fig17.csv'
colors = "#d62728 #1f77b4 #2ca02c #9467bd"
sel(m, c) = (strcol(1) eq m) ? column(c) : NaN
set grid
set logscale x
set format x '10^{%L}'
set key top left font ",10"
set xlabel 'dt [s]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,900 font ",11"; set output out_png }
  else           { set terminal svg size 900,900 font ",11" dynamic; set output out_svg }
  set multiplot layout 2,1 title title
  unset logscale y
  set format y '%g'
  set ylabel 'mean Newton iterations'
  plot for [i=1:words(models)] f using 2:(sel(word(models, i), 3)) with linespoints lw 2 pt 7 lc rgb word(colors, i) title word(titles, i)
  set logscale y
  set format y '10^{%L}'
  set ylabel 'mean kappa_2(H)'
  plot for [i=1:words(models)] f using 2:(sel(word(models, i), 4)) with linespoints lw 2 pt 7 lc rgb word(colors, i) title word(titles, i)
  unset multiplot
  set output
}
