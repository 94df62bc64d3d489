# Rigid-limit study (study/rigid_study.c; docs/formulation-convex.md §16.3): from
# <datadir>/rigid_limit.csv (1 model, 2 k, 3 dt, 10 gap_Hr), one point per exported step: left,
# Lagged's gap against k at the case's step dt0; right, Lagged's and SAP's gaps against dt at the
# case's stiffness k0. With `mass` set, the rest gap 1/(1 + k dt^2/m) of a body of that mass is
# drawn too. Writes <out>.png, .svg. Variables: datadir, out, title, dt0, k0, mass (optional).
if (!exists("datadir") || !exists("out") || !exists("dt0") || !exists("k0")) {
  print "rigid_limit.gp: set datadir, out, dt0 and k0"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/rigid_limit.csv'
near(a, b) = abs(a - b) <= 1e-9 * abs(b)
ok(c) = column(10) > 0 ? column(c) : NaN
lk(c) = (strcol(1) eq 'lagged' && near(column(3), dt0)) ? ok(c) : NaN
ld(c) = (strcol(1) eq 'lagged' && near(column(2), k0)) ? ok(c) : NaN
sd(c) = (strcol(1) eq 'sap' && near(column(2), k0)) ? ok(c) : NaN
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key left bottom font ",9"
set ylabel 'gap_{Hr} = |H (r_{ccb} - r_{rigid})| / |H r_{rigid}|'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,560 font ",10"; set output out_png }
  else           { set terminal svg size 1300,560 font ",10" dynamic; set output out_svg }
  set multiplot layout 1,2 title title noenhanced
  set xlabel sprintf('contact stiffness k [N/m] (Lagged, dt = %g s)', dt0)
  if (exists("mass")) {
    set xrange [*:*]
    plot f using (lk(2)):(lk(10)) with points pt 7 lc rgb '#1f77b4' title 'Lagged, each exported step', \
         [1e4:1e10] 1.0 / (1.0 + x * dt0**2 / mass) with lines dt 2 lc rgb '#7f7f7f' title 'at rest: 1/(1 + k dt^2/m)'
  } else {
    plot f using (lk(2)):(lk(10)) with points pt 7 lc rgb '#1f77b4' title 'Lagged, each exported step'
  }
  set xlabel sprintf('time step dt [s] (k = %g N/m)', k0)
  if (exists("mass")) {
    plot f using (ld(3)):(ld(10)) with points pt 7 lc rgb '#1f77b4' title 'Lagged', \
         f using (sd(3)):(sd(10)) with points pt 5 lc rgb '#d62728' title 'SAP', \
         [1e-4:1e-2] 1.0 / (1.0 + k0 * x**2 / mass) with lines dt 2 lc rgb '#7f7f7f' title 'at rest: 1/(1 + k dt^2/m)'
  } else {
    plot f using (ld(3)):(ld(10)) with points pt 7 lc rgb '#1f77b4' title 'Lagged', \
         f using (sd(3)):(sd(10)) with points pt 5 lc rgb '#d62728' title 'SAP'
  }
  unset multiplot
  set output
}
