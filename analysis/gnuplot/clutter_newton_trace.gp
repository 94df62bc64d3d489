# Case clutter, study newton-trace (cases/clutter_step.c; formulation-convex §6, §8): the costliest
# step of Similar's run, its Newton solve per iteration, from <datadir>/trace.csv (1 iteration,
# 2 cost, 3 cost above the end, 4 |D r| over its bound, 5 decrement, 6 alpha, 7 line-search
# evaluations, 8 active contacts, 9 in stiction, 10 kink crossings, 11 stiction crossings,
# 12 kappa_2(H)). Left: the cost above its final value and the step length alpha (the line search's
# cap 1.5 dotted); middle: the contacts whose z crosses the normal law's kink, and whose slip
# crosses v_s, at each iterate; right: kappa_2(H). Writes <out>.png, .svg. Variables: datadir, out,
# title.
if (!exists("datadir") || !exists("out")) {
  print "clutter_newton_trace.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/trace.csv'
set grid
set key top right font ",9"
pos(x) = (x > 0) ? x : NaN
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1500,500 font ",11"; set output out_png }
  else           { set terminal svg size 1500,500 font ",11" dynamic; set output out_svg }
  set multiplot layout 1,3 title title noenhanced
  set logscale y
  set format y '10^{%T}'
  set xlabel 'Newton iteration'
  set ylabel 'cost above the end [J], step length alpha'
  plot f using 1:(pos($3)) every ::1 with lines lw 2 lc rgb '#1f77b4' title 'cost - cost(end)', \
       f using 1:(pos($6)) every ::1 with points pt 7 ps 0.5 lc rgb '#d62728' title 'alpha', \
       1.5 with lines dt 3 lc rgb '#000000' title 'alpha cap 1.5'
  unset logscale y
  set format y '%g'
  set ylabel 'contacts changing between iterates'
  plot f using 1:10 every ::1 with impulses lw 2 lc rgb '#2ca02c' title 'z crosses vhat (kink)', \
       f using 1:11 every ::1 with points pt 6 ps 0.6 lc rgb '#9467bd' title '|v_t| crosses v_s'
  set logscale y
  set format y '10^{%T}'
  set ylabel 'kappa_2(H)'
  plot f using 1:(pos($12)) every ::1 with lines lw 2 lc rgb '#ff7f0e' notitle
  unset logscale y
  set format y '%g'
  unset multiplot
}
