# ICF Fig. 15: Newton iterations (top) and condition number kappa_2(H) (bottom, log) per step
# against time for the four approximations. Reads <datadir>/fig15.csv (t, iterations_<model> x4,
# kappa_<model> x4, models in the order SAP, Lagged, Lagged-reg, Similar) and writes <out>.png
# and <out>.svg. Variables: datadir, out, titles (four words), title.
if (!exists("datadir") || !exists("out") || !exists("titles")) {
  print "clutter_fig15.gp: set datadir, out and titles"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/fig15.csv'
colors = "#d62728 #1f77b4 #2ca02c #9467bd"
set grid
set key top right font ",10"
set xlabel 't [s]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1100,900 font ",11"; set output out_png }
  else           { set terminal svg size 1100,900 font ",11" dynamic; set output out_svg }
  set multiplot layout 2,1 title title
  unset logscale y
  set format y '%g'
  set ylabel 'Newton iterations'
  plot for [i=1:4] f using 1:(column(1 + i)) with lines lw 1.2 lc rgb word(colors, i) title word(titles, i)
  set logscale y
  set format y '10^{%L}'
  set ylabel 'kappa_2(H)'
  plot for [i=1:4] f using 1:(column(5 + i)) with lines lw 1.2 lc rgb word(colors, i) title word(titles, i)
  unset multiplot
  set output
}
