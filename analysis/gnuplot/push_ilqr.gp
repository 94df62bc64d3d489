# Case push, study ilqr (cases/push.c; formulation-convex §9.6): left, the cost J against the
# Gauss-Newton iteration (log scale) per approximation, from <datadir>/history.csv (1 variant,
# 2 iteration, 3 cost); right, the optimized motion, ball (solid) and pusher (dashed) x against t,
# from <datadir>/trajectory.csv (1 variant, 2 t, 3 u, 4 pusher_x, 5 ball_x, 6 ball_vx), the target
# dotted. Writes <out>.png, .svg. Variables: datadir, out, variants, target, title.
if (!exists("datadir") || !exists("out") || !exists("variants")) {
  print "push_ilqr.gp: set datadir, out and variants"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("target")) { target = 0.15 }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b'
lcol(i) = word(colors, (i - 1) % 6 + 1)
sel(v, c) = (strcol(1) eq v) ? column(c) : NaN
h = datadir.'/history.csv'
f = datadir.'/trajectory.csv'
n = words(variants)
set grid
set key top right font ",9"
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1200,500 font ",11"; set output out_png }
  else           { set terminal svg size 1200,500 font ",11" dynamic; set output out_svg }
  set multiplot layout 1,3 title title noenhanced
  set logscale y
  set xlabel 'Gauss-Newton iteration'
  set ylabel 'cost J'
  plot for [i=1:n] h using 2:(sel(word(variants, i), 3)) with linespoints lw 2 pt (i + 4) \
       lc rgb lcol(i) title word(variants, i) noenhanced
  unset logscale y
  set xlabel 't [s]'
  set ylabel 'x [m]'
  plot for [i=1:n] f using 2:(sel(word(variants, i), 5)) with lines lw 2 lc rgb lcol(i) \
       title word(variants, i).' ball' noenhanced, \
       for [i=1:n] f using 2:(sel(word(variants, i), 4)) with lines lw 1.5 dt 2 lc rgb lcol(i) \
       notitle, target with lines dt 3 lc rgb '#000000' title 'target'
  set ylabel 'pusher force u [N]'
  plot for [i=1:n] f using 2:(sel(word(variants, i), 3)) with steps lw 2 lc rgb lcol(i) \
       title word(variants, i) noenhanced
  unset multiplot
}
