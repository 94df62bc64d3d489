# PFC Fig. 10: spatula slip control. The grasp force command (a square wave), the spatula's angle
# about the grasp axis and the left patch's area over the study's periods, for its first run
# (TAMSI). Reads <datadir>/series.csv (t, grip, theta, wy, area_left, area_right, extent_x,
# extent_z) and writes <out>.png and <out>.svg. Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "spatula_slip.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/series.csv'
set grid
set xlabel 't [s]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,900 font ",11"; set output out_png }
  else           { set terminal svg size 1000,900 font ",11" dynamic; set output out_svg }
  set multiplot layout 3,1 title title
  set key top right font ",10"
  set ylabel 'grasp force [N]'
  plot f using 1:2 with steps lw 2 lc rgb "#000000" title 'command (each finger)'
  set ylabel 'angle [deg]'
  plot f using 1:($3 * 180 / pi) with lines lw 2 lc rgb "#1f77b4" title 'rotation about the grasp axis'
  set ylabel 'patch area [cm^2]'
  plot f using 1:($5 * 1e4) with lines lw 2 lc rgb "#d62728" title 'left patch', \
       f using 1:($6 * 1e4) with lines lw 1 dt 2 lc rgb "#2ca02c" title 'right patch'
  unset multiplot
  set output
}
