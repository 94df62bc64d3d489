# Standard work-precision study (study/std.c): the error against four measures of work for every
# variant (fixed-step runs over the dt ladder, adaptive ones over their accuracy levels), from
# <datadir>/runs.csv (1 variant, 2 kind, 7 error, 14 Newton iterations, 15 factorizations,
# 16 f evaluations, 17 wall time). Writes <out>.png, .svg. Variables: datadir, out, variants,
# ylabel, title.
if (!exists("datadir") || !exists("out") || !exists("variants")) {
  print "std_work_precision.gp: set datadir, out and variants"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("ylabel")) { ylabel = "error" }
set datafile separator ','
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #000000 #aec7e8 #ff9896 #98df8a #ffbb78 #c5b0d5 #c49c94'
lcol(i) = word(colors, (i - 1) % 17 + 1)
pty(i) = (i % 13) + 1
dty(i) = (i > 9) ? 2 : 1
f = datadir.'/runs.csv'
sel(v, c) = (strcol(1) eq v && strcol(2) ne 'reference' && column(c) > 0) ? column(c) : NaN
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key outside right top font ",8"
set ylabel ylabel
n = words(variants)
# xc: the work columns that have data (study/std.c leaves out a measure no run has, e.g. the
# f evaluations where no continuous-model integrator applies); default all four
if (!exists("xc") || words(xc) == 0) { xc = "17 14 15 16" }
np = words(xc)
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,900 font ",10"; set output out_png }
  else           { set terminal svg size 1300,900 font ",10" dynamic; set output out_svg }
  set multiplot layout 2,2 title title noenhanced
  do for [p = 1:np] {
    c = int(word(xc, p))
    set xlabel (c == 17 ? 'wall time of the run [s]' : c == 14 ? 'Newton iterations (all steps)' : c == 15 ? 'factorizations' : 'f evaluations (continuous model)')
    plot for [i=1:n] f using (sel(word(variants, i), c)):7 with linespoints lw 1.5 lc rgb lcol(i) dashtype dty(i) pt pty(i) \
         title word(variants, i) noenhanced
  }
  unset multiplot
  set output
}
