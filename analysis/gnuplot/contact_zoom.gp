# Two contact quantities against time, full range (left) and a close-up window (right), for
# several runs (ICF Figs. 9-12). Reads <datadir>/<run>/trajectory.csv by header name and writes
# <out>.png and <out>.svg.
# Variables: datadir, out, runs, titles, title, kind ('force': f_n, f_t; 'velocity': v_n, v_t),
# zlo, zhi (close-up window [s]).
if (!exists("datadir") || !exists("out") || !exists("runs") || !exists("titles") || !exists("kind") || !exists("zlo") || !exists("zhi")) {
  print "contact_zoom.gp: set datadir, out, runs, titles, kind, zlo and zhi"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
colors = "#d62728 #1f77b4 #2ca02c #9467bd"
file(i) = sprintf('%s/%s/trajectory.csv', datadir, word(runs, i))
n = words(runs)
if (kind eq 'force') {
  c1 = "fn [N]"; c2 = "ft [N]"; l1 = 'f_n [N]'; l2 = 'f_t [N]'
} else {
  c1 = "vn [m/s]"; c2 = "vt [m/s]"; l1 = 'v_n [m/s]'; l2 = 'v_t [m/s]'
}
set grid
set key top left font ",9"
set xlabel 't [s]'
set format x '%g'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1400,900 font ",11"; set output out_png }
  else           { set terminal svg size 1400,900 font ",11" dynamic; set output out_svg }
  set multiplot layout 2,2 title title
  do for [row = 1:2] {
    col = (row == 1) ? c1 : c2
    set ylabel (row == 1) ? l1 : l2
    set xrange [*:*]
    set autoscale xfix
    plot for [i=1:n] file(i) using "t [s]":col with lines lw 1.2 lc rgb word(colors, i) title word(titles, i)
    set xrange [zlo:zhi]
    plot for [i=1:n] file(i) using "t [s]":col with lines lw 1.2 lc rgb word(colors, i) title word(titles, i).' (close-up)'
  }
  unset multiplot
  set output
}
