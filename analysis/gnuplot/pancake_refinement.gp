# Case pancake, study refinement (cases/pancake.c; PFC Figs. 8-9): left, the contact constraints
# per step against the pancake's mesh size h, polygons and triangles; right, the geometry's and
# the solver's wall time per step against the constraints per step (this machine's). Reads
# <datadir>/levels.csv (1 h, 2 constraints polygons, 3 triangles, 4 ratio, 5 geometry polygons
# [us], 6 triangles, 7 solver polygons [us], 8 triangles, 9 solver ratio). Writes <out>.png and
# <out>.svg. Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "pancake_refinement.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/levels.csv'
set grid
set logscale xy
set key top right font ",10"
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1200,520 font ",11"; set output out_png }
  else           { set terminal svg size 1200,520 font ",11" dynamic; set output out_svg }
  set multiplot layout 1,2 title title noenhanced
  set xlabel 'pancake mesh h [m]'
  set ylabel 'contact constraints per step'
  plot f using 1:2 with linespoints lw 2 pt 5 lc rgb '#1f77b4' title 'polygons', \
       f using 1:3 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'triangles'
  set xlabel 'contact constraints per step'
  set ylabel 'wall time per step [us]'
  set key top left
  plot f using 2:5 with linespoints lw 2 pt 5 dt 2 lc rgb '#1f77b4' title 'geometry, polygons', \
       f using 3:6 with linespoints lw 2 pt 7 dt 2 lc rgb '#d62728' title 'geometry, triangles', \
       f using 2:7 with linespoints lw 2 pt 5 lc rgb '#1f77b4' title 'solver, polygons', \
       f using 3:8 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'solver, triangles'
  unset multiplot
}
