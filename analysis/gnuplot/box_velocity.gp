# Stick-slip box (cases.md §7.2): the exact Coulomb velocity and the regularized model (RK3 and
# GSL), top; the difference in units of v_s, bottom (the creep in stiction stays within v_s).
# Reads <datadir>/velocity.csv (t, v_coulomb, v_regularized_rk3, v_regularized_gsl) and writes
# <out>.png and <out>.svg. Variables: datadir, out, vs, title.
if (!exists("datadir") || !exists("out") || !exists("vs")) {
  print "box_velocity.gp: set datadir, out and vs"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/velocity.csv'
set grid
set xlabel 't [s]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,800 font ",11"; set output out_png }
  else           { set terminal svg size 1000,800 font ",11" dynamic; set output out_svg }
  set multiplot layout 2,1 title title
  set key top right font ",10"
  set ylabel 'v [m/s]'
  plot f using 1:2 with lines lw 3 lc rgb "#999999" title 'Coulomb (v_s -> 0), exact', \
       f using 1:3 with lines lw 1.2 lc rgb "#d62728" title 'regularized, RK3 h = 1e-7 s', \
       f using 1:4 with lines lw 1 dt 2 lc rgb "#1f77b4" title 'regularized, GSL rk8pd'
  set ylabel '(v - v_{Coulomb}) / v_s'
  set yrange [-1.5:1.5]
  plot f using 1:(($3 - $2) / vs) with lines lw 1.2 lc rgb "#d62728" title 'RK3', \
       1 with lines dt 3 lc rgb "black" notitle, -1 with lines dt 3 lc rgb "black" notitle
  set autoscale y
  unset multiplot
  set output
}
