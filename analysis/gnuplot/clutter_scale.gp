# Clutter scale study (cases/clutter.c, study scale; formulation-convex §8.10): from
# <datadir>/scale.csv (1 objects, 2 margin [m], 3 islands, 7 mean_iterations, 8 wall_per_step
# [s], 19 lazy_pairs), the rows at the 10 cm margin: left, the wall time per step against the
# number of objects for one Newton solve per scene, with islands, and at the defaults (islands and
# lazy pairs), with a line of slope 1 through the first defaults point; right, the mean Newton
# iterations per step. Writes <out>.png, .svg.
# Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "clutter_scale.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/scale.csv'
wide(c) = column(2) > 0.05 ? column(c) : NaN
one(c) = column(3) == 0 ? wide(c) : NaN
isl(c) = column(3) == 1 && column(19) == 0 ? wide(c) : NaN
dfl(c) = column(3) == 1 && column(19) == 1 ? wide(c) : NaN
stats f using (dfl(1)):(dfl(8)) nooutput prefix "I"
set logscale xy
set grid
set key left top font ",9"
set xlabel 'objects'
set xrange [25:4000]
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,560 font ",10"; set output out_png }
  else           { set terminal svg size 1300,560 font ",10" dynamic; set output out_svg }
  set multiplot layout 1,2 title title noenhanced
  set ylabel 'wall time per step [ms]'
  plot f using (one(1)):(1e3 * one(8)) with linespoints pt 7 lc rgb '#d62728' title 'one Newton solve per scene', \
       f using (isl(1)):(1e3 * isl(8)) with linespoints pt 5 lc rgb '#1f77b4' title 'islands, every contact listed (--lazy-pairs off)', \
       f using (dfl(1)):(1e3 * dfl(8)) with linespoints pt 9 lc rgb '#2ca02c' title 'defaults (islands, lazy pairs)', \
       1e3 * I_min_y * x / I_min_x with lines dt 2 lc rgb '#7f7f7f' title 'slope 1'
  set ylabel 'mean Newton iterations per step'
  plot f using (one(1)):(one(7)) with linespoints pt 7 lc rgb '#d62728' title 'one Newton solve per scene', \
       f using (isl(1)):(isl(7)) with linespoints pt 5 lc rgb '#1f77b4' title 'islands (the hardest island)', \
       f using (dfl(1)):(dfl(7)) with linespoints pt 9 lc rgb '#2ca02c' title 'defaults (the hardest island)'
  unset multiplot
}
