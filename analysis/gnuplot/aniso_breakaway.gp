# Case aniso, study breakaway (cases/aniso.c; formulation-convex §18.5): the direction of the
# slide phi against the force's angle theta: the closed form (18.7) where (18.6) lets the block
# slide (<datadir>/curve.csv: theta, slides, phi, lambda), the runs that slid (<datadir>/
# table.csv, columns variant, "theta [deg]", slides, "phi [deg]"), the line phi = theta of an
# isotropic plane, and the critical angle beyond which the block stays at rest. Writes <out>.png
# and <out>.svg. Variables: datadir, out, variants, title; optional theta_c [deg].
if (!exists("datadir") || !exists("out") || !exists("variants")) {
  print "aniso_breakaway.gp: set datadir, out and variants"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b'
lcol(i) = word(colors, (i - 1) % 6 + 1)
sel(v, c) = (strcol(1) eq v && column('slides') > 0.5 && strcol(2)[1:3] ne 'iso') ? column(c) : NaN
n = words(variants)
set grid
set key top left font ",9"
set xrange [0:90]
set yrange [0:90]
set xlabel 'force angle theta to the grain [deg]'
set ylabel 'slide direction phi to the grain [deg]'
if (exists("theta_c")) { set arrow 1 from theta_c, 0 to theta_c, 90 nohead dt 2 lc rgb '#000000' }
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 800,620 font ",11"; set output out_png }
  else           { set terminal svg size 800,620 font ",11" dynamic; set output out_svg }
  set title title noenhanced
  plot x with lines dt 3 lc rgb '#888888' title 'isotropic: phi = theta', \
       datadir.'/curve.csv' using 1:3 with lines lw 5 lc rgb '#cccccc' title 'closed form (18.7)', \
       for [i=1:n] datadir.'/table.csv' using 'theta [deg]':(sel(word(variants, i), 'phi [deg]')) \
       with points pt (i + 4) ps 1.4 lc rgb lcol(i) title word(variants, i) noenhanced
}
