# ICF Fig. 21: time to failure T_f against the hand's frequency, Lagged and Similar with and
# without Hunt & Crossley dissipation, dt = 0.2 ms. Reads <datadir>/tf.csv (frequency, then T_f of
# lagged d = 0, lagged d = 50, similar d = 0, similar d = 50; t_final where the grasp held).
# Writes <out>.png and <out>.svg. Variables: datadir, out, title, fp (pendulum frequency [Hz]),
# tmax (the runs' duration [s]).
if (!exists("datadir") || !exists("out")) {
  print "grasp_fig21.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/tf.csv'
tit(i) = (i == 1 ? "Lagged, d = 0" : (i == 2 ? "Lagged, d = 50 s/m" : (i == 3 ? "Similar, d = 0" : "Similar, d = 50 s/m")))
colors = "#1f77b4 #9ec5e8 #d62728 #ff9896"
set grid
set key bottom left font ",10"
set xlabel 'frequency [Hz]'
set ylabel 'T_f [s]'
set yrange [0:*]
if (exists("fp")) { set arrow 1 from fp, graph 0 to fp, graph 1 nohead dt 3 lc rgb "black"; set label 1 'pendulum' at fp, graph 0.95 offset 0.5,0 }
if (exists("tmax")) { set arrow 2 from graph 0, first tmax to graph 1, first tmax nohead dt 2 lc rgb "#7f7f7f"; set label 2 'held for the whole run' at graph 0.02, first tmax offset 0,0.7 }
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,700 font ",11"; set output out_png }
  else           { set terminal svg size 1000,700 font ",11" dynamic; set output out_svg }
  set title title
  plot for [i=1:4] f using 1:(column(i + 1)) with linespoints lw 2 pt (i <= 2 ? 7 : 6) \
         dashtype int(2 - i % 2) lc rgb word(colors, i) title tit(i)
  set output
}
