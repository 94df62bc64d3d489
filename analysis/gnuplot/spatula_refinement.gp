# PFC Figs. 8-9 on the spatula: left, wall-clock time per step of the geometric queries and of the
# solver against the contact constraints per step, four refinements of the bubbles' mesh, polygons
# and triangles (log-log); right, the left patch's faces over time at the default mesh, polygons
# and triangles. Reads <datadir>/levels.csv (h, faces polygons, faces triangles, ratio, candidate
# pairs per face, geometry [us], solver polygons [us], solver triangles [us], ...) and
# <datadir>/faces.csv (t, faces polygons, faces triangles). Writes <out>.png and <out>.svg.
# Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "spatula_refinement.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
fl = datadir.'/levels.csv'
ff = datadir.'/faces.csv'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1200,500 font ",11"; set output out_png }
  else           { set terminal svg size 1200,500 font ",11" dynamic; set output out_svg }
  set multiplot layout 1,2 title title
  set grid
  set key top left font ",10"
  set logscale xy
  set xlabel 'contact constraints per step'
  set ylabel 'wall-clock time per step [µs]'
  plot fl using 2:6 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title 'geometry, polygons', \
       fl using 2:7 with linespoints lw 2 pt 7 lc rgb "#d62728" title 'solver (SAP), polygons', \
       fl using 3:8 with linespoints lw 2 pt 6 dt 2 lc rgb "#d62728" title 'solver (SAP), triangles'
  unset logscale
  set key top right font ",10"
  set xlabel 't [s]'
  set ylabel 'faces of the left patch'
  plot ff using 1:3 with lines lw 2 lc rgb "#ff7f0e" title 'triangles', \
       ff using 1:2 with lines lw 2 lc rgb "#2ca02c" title 'polygons'
  unset multiplot
  set output
}
