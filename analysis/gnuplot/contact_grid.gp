# Contact velocity (v_t, v_n) and force (f_t, f_n) against time for several runs, 2 x 2 panels
# (ICF Figs. 3 and 6). Reads <datadir>/<run>/trajectory.csv (columns by header name:
# "t [s]", "vt [m/s]", "vn [m/s]", "ft [N]", "fn [N]") and writes <out>.png and <out>.svg.
# Variables: datadir, out, runs (run directory names), titles (legend words), title; optional:
# mg (draws f_n = mg), xmax (time range).
if (!exists("datadir") || !exists("out") || !exists("runs") || !exists("titles")) {
  print "contact_grid.gp: set datadir, out, runs and titles"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
colors = "#d62728 #1f77b4 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #393b79 #637939"
file(i) = sprintf('%s/%s/trajectory.csv', datadir, word(runs, i))
n = words(runs)
set grid
set key top right font ",9"
set xlabel 't [s]'
if (exists("xmax")) { set xrange [0:xmax] }
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1400,900 font ",11"; set output out_png }
  else           { set terminal svg size 1400,900 font ",11" dynamic; set output out_svg }
  set multiplot layout 2,2 title title
  set ylabel 'v_t [m/s]'
  plot for [i=1:n] file(i) using "t [s]":"vt [m/s]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'v_n [m/s]'
  plot for [i=1:n] file(i) using "t [s]":"vn [m/s]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'f_t [N]'
  plot for [i=1:n] file(i) using "t [s]":"ft [N]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'f_n [N]'
  if (exists("mg")) {
    plot for [i=1:n] file(i) using "t [s]":"fn [N]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i), \
         mg with lines dt 2 lc rgb "black" title "mg"
  } else {
    plot for [i=1:n] file(i) using "t [s]":"fn [N]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i)
  }
  unset multiplot
  set output
}
