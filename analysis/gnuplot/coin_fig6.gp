# PFC Fig. 6: relative trajectory errors e_v (solid) and e_omega (dashed) of the coin against the
# time step or the grid size, log-log, one colour per solver.
# Reads <datadir>/errors.csv (solver, x, e_v, e_omega, wall [s], ...). Variables: datadir, out,
# solvers, xlabel, title; xcol (default 2: x; 5: wall time, the work-precision view).
if (!exists("datadir") || !exists("out") || !exists("solvers")) {
  print "coin_fig6.gp: set datadir, out and solvers"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("xlabel")) { xlabel = "" }
if (!exists("xcol")) { xcol = 2 }
set datafile separator ','
f = datadir.'/errors.csv'
colors = "#1f77b4 #d62728 #2ca02c #9467bd"
sel(s, c) = (strcol(1) eq s && column(c) > 0) ? column(c) : NaN
set grid
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set key top left font ",10"
set xlabel xlabel
set ylabel 'relative error'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,650 font ",11"; set output out_png }
  else           { set terminal svg size 900,650 font ",11" dynamic; set output out_svg }
  set title title
  plot for [i=1:words(solvers)] f using xcol:(sel(word(solvers, i), 3)) with linespoints lw 2 pt 7 lc rgb word(colors, i) title word(solvers, i).' e_v', \
       for [i=1:words(solvers)] f using xcol:(sel(word(solvers, i), 4)) with linespoints lw 2 dt 2 pt 6 lc rgb word(colors, i) title word(solvers, i).' e_{/Symbol w}'
  set output
}
