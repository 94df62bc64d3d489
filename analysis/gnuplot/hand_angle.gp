# Case hand, study twist (cases/hand.c): the ball's rotation angle from its start against time,
# from <datadir>/<run>/trajectory.csv of the runs at h = 0.7 ms and implicit Euler at a = 0.01.
# The angle is column 48 of the hand's trajectory: t, 16 joint angles, the ball's 7 coordinates,
# 22 velocities, then the observables disp, angle, ... Writes <out>.png and <out>.svg.
# Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "hand_angle.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
runs = 'tamsi_h0.0007 ie-qn-ec_a0.01 sap_h0.0007 similar_h0.0007 lagged_h0.0007'
colors = '#000000 #d62728 #2ca02c #9467bd #17becf'
set grid
set key top left font ",10" noenhanced
set xlabel 'time [s]'
set ylabel 'ball rotation angle [rad]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,600 font ",11"; set output out_png }
  else           { set terminal svg size 900,600 font ",11" dynamic; set output out_svg }
  set title title noenhanced
  plot for [i=1:words(runs)] sprintf('%s/%s/trajectory.csv', datadir, word(runs, i)) \
       using 1:48 every ::1 with lines lw 2 dt i lc rgb word(colors, i) title word(runs, i)
  set output
}
