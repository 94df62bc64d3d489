# Case aniso, study slide (cases/aniso.c; formulation-convex §18.5): left, the paths y against x of
# the runs (<datadir>/<run>/trajectory.csv, columns "x [m]", "y [m]") and the closed form's path
# (<datadir>/path.csv: t, x1, x2, v1, v2); right, the hodograph |v1| against |v2| on log axes,
# where the closed form's invariant |v1| |v2|^-r = C is a straight line of slope r. Writes
# <out>.png and <out>.svg. Variables: datadir, out, runs (run directory names), title.
if (!exists("datadir") || !exists("out") || !exists("runs")) {
  print "aniso_slide.gp: set datadir, out and runs"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #7f7f7f #bcbd22'
lcol(i) = word(colors, (i - 1) % 8 + 1)
file(i) = sprintf('%s/%s/trajectory.csv', datadir, word(runs, i))
exact = datadir.'/path.csv'
n = words(runs)
pos(x) = (x > 1e-12) ? x : NaN
set grid
set key top left font ",9"
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,560 font ",11"; set output out_png }
  else           { set terminal svg size 1300,560 font ",11" dynamic; set output out_svg }
  set multiplot layout 1,2 title title noenhanced
  set size ratio -1
  set xlabel 'x, along the grain [m]'
  set ylabel 'y, across the grain [m]'
  plot exact using 2:3 with lines lw 5 lc rgb '#cccccc' title 'closed form (18.5)', \
       for [i=1:n] file(i) using 'x [m]':'y [m]' with lines lw 1.5 lc rgb lcol(i) \
       title word(runs, i) noenhanced
  set size noratio
  set logscale xy
  set format xy '10^{%T}'
  set xlabel '|v2|, across the grain [m/s]'
  set ylabel '|v1|, along the grain [m/s]'
  set key bottom right
  plot exact using (pos(abs($5))):(pos(abs($4))) with lines lw 5 lc rgb '#cccccc' \
       title 'invariant |v1| |v2|^{-r} = C', \
       for [i=1:n] file(i) using (pos(abs(column('v2 [m/s]')))):(pos(abs(column('v1 [m/s]')))) \
       with lines lw 1.5 lc rgb lcol(i) title word(runs, i) noenhanced
  unset logscale xy
  set format xy
  unset multiplot
}
