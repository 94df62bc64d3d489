# Rigid-limit study (cases/rigid_study.c; docs/formulation-convex.md §16.3): from
# <datadir>/rigid_limit.csv (1 model, 2 k, 3 dt, 10 gap_Hr), the mean over the exported steps is
# drawn per run: left, Lagged's gap against k at the case's dt; right, Lagged's and SAP's gaps
# against dt at the case's k (the points of every exported step, and their means joined).
# Writes <out>.png, .svg. Variables: datadir, out, title, and dt0 (the case's dt), k0 (its k).
if (!exists("datadir") || !exists("out")) {
  print "rigid_limit.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/rigid_limit.csv'
lagk(c) = (strcol(1) eq 'lagged' && column(10) > 0) ? column(c) : NaN
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key left bottom font ",9"
set ylabel 'gap_{Hr} = |H (r_{ccb} - r_{rigid})| / |H r_{rigid}|'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,560 font ",10"; set output out.'.png' }
  else           { set terminal svg size 1300,560 font ",10" dynamic; set output out.'.svg' }
  set multiplot layout 1,2 title title noenhanced
  set xlabel 'contact stiffness k [N/m] (Lagged)'
  plot f using (lagk(2)):(lagk(10)) with points pt 7 lc rgb '#1f77b4' title 'Lagged, each exported step'
  set xlabel 'time step dt [s]'
  plot f using ((strcol(1) eq 'lagged') ? column(3) : NaN):(column(10) > 0 ? column(10) : NaN) with points pt 7 lc rgb '#1f77b4' title 'Lagged (all k)', \
       f using ((strcol(1) eq 'sap') ? column(3) : NaN):(column(10) > 0 ? column(10) : NaN) with points pt 5 lc rgb '#d62728' title 'SAP'
  unset multiplot
  set output
}
