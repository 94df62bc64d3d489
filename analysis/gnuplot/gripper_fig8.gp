# TAMSI paper Fig. 8: e_v T/A per generalized velocity against h/T for TAMSI, log-log, with a
# first-order guide. Reads <datadir>/errors.csv (h, h/T, then one column per velocity: fingers'
# joints, mug w_x w_y w_z v_x v_y v_z). The velocities the model's symmetry leaves at rest
# (w_x, w_z, v_y; round-off only) are not drawn. Writes <out>.png and <out>.svg.
# Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "gripper_fig8.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/errors.csv'
cols = "3 4 6 8 10"
names = "finger_l.vs finger_r.vs mug.wy mug.vx mug.vz"
colors = "#1f77b4 #9ec5e8 #d62728 #2ca02c #000000"
stats f using 2:10 nooutput
C = STATS_max_y / STATS_max_x
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key bottom right font ",10" noenhanced
set xlabel 'h/T [-]'
set ylabel 'e_v T/A [-]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,700 font ",11"; set output out_png }
  else           { set terminal svg size 1000,700 font ",11" dynamic; set output out_svg }
  set title title
  plot for [i=1:words(cols)] f using 2:(column(int(word(cols, i)))) with linespoints \
         lw 2 pt 7 lc rgb word(colors, i) title word(names, i), \
       f using 2:(C * $2) with lines dt 2 lc rgb "#7f7f7f" title 'first order'
  set output
}
