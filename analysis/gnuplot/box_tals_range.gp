# Case box, study tals-range (cases/box_solvers.c; TAMSI Fig. 5's claim): e_v W over its value at
# the finest step against the step h, for implicit Euler FN/QN with and without TALS, from
# <datadir>/ladder.csv (1 variant, 2 h, 3 e_v, 4 work, 5 e_v W, 6 e_v W over the finest step's,
# 7 Newton failures). First-order behaviour keeps it at 1; the study's band (2) is drawn. Writes
# <out>.png and <out>.svg. Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "box_tals_range.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/ladder.csv'
variants = 'ie-fn ie-fn-tals ie-qn ie-qn-tals'
colors = '#1f77b4 #1f77b4 #d62728 #d62728'
set grid
set logscale xy
set key top left font ",10"
set xlabel 'fixed step h [s]'
set ylabel 'e_v W / (e_v W at h = 0.25 ms)'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,600 font ",11"; set output out_png }
  else           { set terminal svg size 900,600 font ",11" dynamic; set output out_svg }
  set title title noenhanced
  plot for [i=1:4] f using (strcol(1) eq word(variants, i) ? $2 : NaN):6 \
       with linespoints lw 2 dt i pt (i + 4) lc rgb word(colors, i) \
       title word(variants, i) noenhanced, \
       2 with lines dt 3 lc rgb '#000000' title 'first-order band (2x)'
}
