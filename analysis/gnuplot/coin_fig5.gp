# PFC Fig. 5: eps = v/(R omega) against the remaining speed S/S0 (log scale, decreasing to the
# right) for several initial ratios eps0: the fan152 runs (Lagged, points; TAMSI, open points),
# the Farkas equations on the same faces (solid) and for uniform pressure (dashed); horizontal
# lines at the fixed points 0.6530 (uniform) and 0.6442 (152-fan).
# Reads <datadir>/reference_curves.csv (points, eps0, S_over_S0, eps) and the runs'
# trajectory.csv (<datadir>/fan152-<solver>_eps0_<e>/, columns 19 = S [m/s], 18 = eps of the
# FREE coin). Variables: datadir, out, eps0s, title; S0 (default 1 m/s).
if (!exists("datadir") || !exists("out") || !exists("eps0s")) {
  print "coin_fig5.gp: set datadir, out and eps0s"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("S0")) { S0 = 1.0 }
set datafile separator ','
ref = datadir.'/reference_curves.csv'
colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd"
sel(p, e) = (strcol(1) eq p && abs(column(2) - e) < 1e-9) ? column(4) : NaN
run(s, e) = sprintf('%s/fan152-%s_eps0_%s/trajectory.csv', datadir, s, e)
alive(c) = (column(19) > 1e-4 * S0) ? column(c) : NaN
set grid
set logscale x
set xrange [1:1e-4]
set yrange [0:*]
set format x '10^{%L}'
set key outside right font ",10"
set xlabel 'S / S_0 = (v + R {/Symbol w}) / S_0'
set ylabel '{/Symbol e} = v / (R {/Symbol w})'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,650 font ",11"; set output out_png }
  else           { set terminal svg size 1000,650 font ",11" dynamic; set output out_svg }
  set title title
  plot for [i=1:words(eps0s)] ref using 3:(sel('fan152', word(eps0s, i)+0)) with lines lw 2 lc rgb word(colors, i) title sprintf('{/Symbol e}_0 = %s, Farkas on the faces', word(eps0s, i)), \
       for [i=1:words(eps0s)] ref using 3:(sel('uniform', word(eps0s, i)+0)) with lines lw 1 dt 2 lc rgb word(colors, i) notitle, \
       for [i=1:words(eps0s)] run('lagged', word(eps0s, i)) skip 1 using (alive(19)/S0):(alive(18)) every 4 with points pt 7 ps 0.6 lc rgb word(colors, i) title (i == 1 ? 'Lagged' : ''), \
       for [i=1:words(eps0s)] run('tamsi', word(eps0s, i)) skip 1 using (alive(19)/S0):(alive(18)) every 4 with points pt 6 ps 0.9 lc rgb word(colors, i) title (i == 1 ? 'TAMSI' : ''), \
       0.6530 with lines lw 1 lc rgb 'black' title '0.6530 (uniform)', \
       0.6442 with lines lw 1 dt 3 lc rgb 'black' title '0.6442 (152-fan)'
  set output
}
