# Stick-slip box on the outside engines (the box's peers study): each run's velocity over the exact
# Coulomb solution, top; its difference from it, middle; its normal force, bottom (the paper's box
# has f_n = W; here the normal direction is free). Reads <datadir>/<run>/trajectory.csv (columns by
# header name: "t [s]", "box.vx [m/s]", "v_exact [m/s]", "fn [N]") and writes <out>.png and
# <out>.svg. Variables: datadir, out, runs (run directory names), titles (legend words), W, title.
if (!exists("datadir") || !exists("out") || !exists("runs") || !exists("titles") || !exists("W")) {
  print "box_peers.gp: set datadir, out, runs, titles and W"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
colors = "#d62728 #1f77b4 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #393b79 #637939"
file(i) = sprintf('%s/%s/trajectory.csv', datadir, word(runs, i))
n = words(runs)
set grid
set key top right font ",9"
set xlabel 't [s]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1200,1100 font ",11"; set output out_png }
  else           { set terminal svg size 1200,1100 font ",11" dynamic; set output out_svg }
  set multiplot layout 3,1 title title
  set ylabel 'v [m/s]'
  plot file(1) using "t [s]":"v_exact [m/s]" with lines lw 4 lc rgb "#999999" title 'Coulomb, exact', \
       for [i=1:n] file(i) using "t [s]":"box.vx [m/s]" with lines lw 1.2 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'v - v_{exact} [m/s]'
  plot for [i=1:n] file(i) using "t [s]":(column("box.vx [m/s]") - column("v_exact [m/s]")) with lines lw 1.2 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'f_n [N]'
  plot for [i=1:n] file(i) using "t [s]":"fn [N]" with lines lw 1.2 lc rgb word(colors, i) title word(titles, i), \
       W with lines dt 2 lc rgb "black" title 'W = m g'
  unset multiplot
  set output
}
