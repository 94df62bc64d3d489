# TAMSI paper Fig. 4: Newton residual |r|_2 of implicit Euler (h = 10 ms, full Newton) in the
# first slide-to-stick step, without TALS (top) and with TALS (bottom), for the sine forcing and
# its cosine variant. Reads <datadir>/residuals.csv (iteration, sine_plain, sine_tals,
# cosine_plain, cosine_tals; empty = not reached) and writes <out>.png and <out>.svg.
# Variables: datadir, out, t_sine, t_cos (start of the traced steps), title.
if (!exists("datadir") || !exists("out")) {
  print "box_fig4.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("t_sine")) { t_sine = NaN }
if (!exists("t_cos")) { t_cos = NaN }
set datafile separator ','
f = datadir.'/residuals.csv'
set grid
set logscale y
set format y '10^{%L}'
set xlabel 'Newton iteration'
set ylabel '|r|_2'
set key top right font ",10"
set xrange [0:30]
set yrange [1e-18:1]
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,800 font ",11"; set output out_png }
  else           { set terminal svg size 1000,800 font ",11" dynamic; set output out_svg }
  set multiplot layout 2,1 title title
  set title 'without TALS'
  plot f using 1:2 with linespoints pt 7 lw 2 lc rgb "#d62728" title sprintf('sine forcing, step from t = %.2f s', t_sine), \
       f using 1:4 with linespoints pt 6 lw 1 dt 2 lc rgb "#1f77b4" title sprintf('cosine forcing, step from t = %.2f s', t_cos)
  set title 'with TALS'
  plot f using 1:3 with linespoints pt 7 lw 2 lc rgb "#d62728" title 'sine forcing', \
       f using 1:5 with linespoints pt 6 lw 1 dt 2 lc rgb "#1f77b4" title 'cosine forcing'
  unset multiplot
  set output
}
