# Error-control study (study/errctl_study.c; docs/formulation-convex.md §15): from
# <datadir>/error_control.csv (1 variant, 2 dt, 3 accuracy, 4 e_q, 5 steps, 8 Newton iterations,
# 9 wall time): left, e_q of lagged-ec against its accuracy a with the line e = a for scale;
# right, e_q against Newton iterations for lagged-ec (accuracy levels) and fixed-step Lagged (dt
# ladder). Writes <out>.png, .svg. Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "error_control.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/error_control.csv'
ec(c) = (strcol(1) eq 'lagged-ec' && column(4) > 0) ? column(c) : NaN
fx(c) = (strcol(1) eq 'lagged' && column(4) > 0) ? column(c) : NaN
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key left top font ",9"
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,560 font ",10"; set output out_png }
  else           { set terminal svg size 1300,560 font ",10" dynamic; set output out_svg }
  set multiplot layout 1,2 title title noenhanced
  set xlabel 'accuracy a (bound on the local error of q per internal step) [m, rad]'
  set ylabel 'e_q (RMS of |q - q_{ref}|) [m, rad]'
  plot f using (ec(3)):(ec(4)) with linespoints lw 2 pt 7 lc rgb '#d62728' title 'lagged-ec', \
       x with lines dt 2 lc rgb '#7f7f7f' title 'e = a'
  set xlabel 'Newton iterations (whole run)'
  plot f using (ec(8)):(ec(4)) with linespoints lw 2 pt 7 lc rgb '#d62728' title 'lagged-ec (accuracy levels)', \
       f using (fx(8)):(fx(4)) with linespoints lw 2 pt 5 lc rgb '#1f77b4' title 'lagged (fixed dt ladder)'
  unset multiplot
  set output
}
