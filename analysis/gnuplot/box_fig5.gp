# TAMSI paper Fig. 5: work (calls of f, FD Jacobian columns and error-estimate calls included)
# against the localized error e_v, implicit Euler {FN, QN} x {fixed step, error control} x
# {without, with TALS}. Reads <datadir>/work_precision.csv (variant, mode, h_or_a, e_v, e_v_raw,
# work, ...) and writes <out>.png and <out>.svg. Variables: datadir, out, vs (a vertical line at
# e_v = v_s), title.
if (!exists("datadir") || !exists("out")) {
  print "box_fig5.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/work_precision.csv'
variants = "ie-fn ie-fn-tals ie-qn ie-qn-tals"
vtitles = "FN FN+TALS QN QN+TALS"
colors = "#d62728 #ff9896 #1f77b4 #9ec5e8"
modes = "fixed error-control"
mtitles = "fixed h|EC"
sel(v, m) = (strcol(1) eq v && strcol(2) eq m) ? $6 : NaN
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key top right font ",10"
set xlabel 'e_v [m/s]'
set ylabel 'work [evaluations of f]'
if (exists("vs")) { set arrow 1 from vs, graph 0 to vs, graph 1 nohead dt 3 lc rgb "black"; set label 1 'v_s' at vs, graph 0.95 offset 0.5,0 }
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,800 font ",11"; set output out_png }
  else           { set terminal svg size 1000,800 font ",11" dynamic; set output out_svg }
  set title title
  plot for [m=1:2] for [i=1:4] f using 4:(sel(word(variants, i), word(modes, m))) with linespoints \
         lw 2 dt m pt (m == 1 ? 7 : 6) ps 1.1 lc rgb word(colors, i) \
         title word(vtitles, i).(m == 1 ? ', fixed h' : ', error control')
  set output
}
