# Position RMS error e_q against dt, log-log, with a first-order guide (ICF Figs. 4, 7, 13).
# Reads <datadir>/errors_<tag>.csv (columns: approx, dt, e_q, ...) for each tag; the first tag is
# drawn with filled symbols and solid lines, further tags with open symbols and dashed lines.
# Writes <out>.png and <out>.svg.
# Variables: datadir, out, tags, tagtitles (one word each), models, titles, title, xlabel, ylabel;
# guide_model and guide_dt place the first-order line through that model's error at that step.
if (!exists("datadir") || !exists("out") || !exists("tags") || !exists("models") || !exists("titles")) {
  print "convergence.gp: set datadir, out, tags, models and titles"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("tagtitles")) { tagtitles = tags }
set datafile separator ','
colors = "#d62728 #1f77b4 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf"
f(j) = sprintf('%s/errors_%s.csv', datadir, word(tags, j))
sel(m) = (strcol(1) eq m) ? $3 : NaN
nt = words(tags)
nm = words(models)
if (exists("guide_model") && exists("guide_dt")) {
  stats f(1) using ((strcol(1) eq guide_model && abs($2 - guide_dt) < 1e-12 * guide_dt) ? $3 : NaN) nooutput
  C = STATS_max / guide_dt
} else {
  C = NaN
}
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key bottom right font ",10"
if (!exists("xlabel")) { xlabel = 'dt [s]' }
set xlabel xlabel
if (!exists("ylabel")) { ylabel = 'e_q' }
set ylabel ylabel
set title title
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,700 font ",11"; set output out_png }
  else           { set terminal svg size 900,700 font ",11" dynamic; set output out_svg }
  plot for [j=1:nt] for [i=1:nm] f(j) using 2:(sel(word(models, i))) with linespoints \
         lw 2-(j>1) dashtype 1+(j>1) pt 7-(j>1) ps 1.3 lc rgb word(colors, i) \
         title word(titles, i).' ('.word(tagtitles, j).')', \
       C * x with lines dt 3 lc rgb "black" title 'first order'
  set output
}
