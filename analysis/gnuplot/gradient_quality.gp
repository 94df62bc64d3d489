# Gradient quality (study/gradq_study.c; formulation-convex §9.7), from <datadir>/points.csv
# (1 variant, 2 k, 3 p, 4 J, 5 dJ_ift, 6 secant_fine, 7 secant_coarse, 8 kink_steps), at the
# case's stiffness k0: top, the task J(p) per approximation; bottom, its gradient by forward mode
# (points; open where a step's partials did not settle) against the fine (thin) and coarse (thick)
# secants of the grid. Writes <out>.png, .svg. Variables: datadir, out, variants, k0, xlabel,
# ylabel, title.
if (!exists("datadir") || !exists("out") || !exists("variants") || !exists("k0")) {
  print "gradient_quality.gp: set datadir, out, variants and k0"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("xlabel")) { xlabel = 'p' }
if (!exists("ylabel")) { ylabel = 'J' }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b'
lcol(i) = word(colors, (i - 1) % 6 + 1)
f = datadir.'/points.csv'
at(v, c) = (strcol(1) eq v && abs(column(2) / k0 - 1) < 1e-9) ? column(c) : NaN
kink(v, c) = (strcol(1) eq v && abs(column(2) / k0 - 1) < 1e-9 && column(8) > 0) ? column(c) : NaN
n = words(variants)
set grid
set key outside right top font ",9"
set xlabel xlabel noenhanced
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1100,750 font ",11"; set output out_png }
  else           { set terminal svg size 1100,750 font ",11" dynamic; set output out_svg }
  set multiplot layout 2,1 title title noenhanced
  set ylabel ylabel noenhanced
  plot for [i=1:n] f using 3:(at(word(variants, i), 4)) with lines lw 2 lc rgb lcol(i) \
       title word(variants, i) noenhanced
  set ylabel 'dJ/dp'
  plot for [i=1:n] f using 3:(at(word(variants, i), 5)) with points pt 7 ps 0.6 lc rgb lcol(i) \
       title word(variants, i).' forward mode' noenhanced, \
       for [i=1:n] f using 3:(kink(word(variants, i), 5)) with points pt 6 ps 1.2 lc rgb lcol(i) \
       notitle, \
       for [i=1:n] f using 3:(at(word(variants, i), 6)) with lines lw 1 lc rgb lcol(i) notitle, \
       for [i=1:n] f using 3:(at(word(variants, i), 7)) with lines lw 3 lc rgb lcol(i) \
       title word(variants, i).' coarse secant' noenhanced
  unset multiplot
}
