# One or two observables of several runs against time (the peers studies of the gripper and the
# grasp). Reads <datadir>/<run>/trajectory.csv (columns by header name: "t [s]", col1, col2) and
# writes <out>.png and <out>.svg. Variables: datadir, out, runs (run directory names), titles
# (legend words), col1 (a column's header), title; optional: col2 (a second panel), bound (drawn
# at +bound and -bound in the first panel, labelled boundname, whose range it sets to 3 bound).
if (!exists("datadir") || !exists("out") || !exists("runs") || !exists("titles") || !exists("col1")) {
  print "peers_series.gp: set datadir, out, runs, titles and col1"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("boundname")) { boundname = "bound" }
set datafile separator ','
colors = "#d62728 #1f77b4 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #393b79 #637939 #e7969c #6b6ecf #b5cf6b #ce6dbd #9c9ede #cedb9c #de9ed6 #3182bd #e6550d #31a354 #756bb1 #636363"
file(i) = sprintf('%s/%s/trajectory.csv', datadir, word(runs, i))
n = words(runs)
panels = exists("col2") ? 2 : 1
set grid
set key outside right font ",9"
set xlabel 't [s]'
set autoscale xfix
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,500*panels+100 font ",11"; set output out_png }
  else           { set terminal svg size 1300,500*panels+100 font ",11" dynamic; set output out_svg }
  set multiplot layout panels,1 title title
  set ylabel col1 noenhanced
  if (exists("bound")) {
    set yrange [-3 * bound:3 * bound]
    plot for [i=1:n] file(i) using "t [s]":col1 with lines lw 1.2 lc rgb word(colors, i) title word(titles, i) noenhanced, \
         bound with lines dt 2 lc rgb "black" title boundname noenhanced, -bound with lines dt 2 lc rgb "black" notitle
  } else {
    plot for [i=1:n] file(i) using "t [s]":col1 with lines lw 1.2 lc rgb word(colors, i) title word(titles, i) noenhanced
  }
  set autoscale y
  if (panels == 2) {
    set ylabel col2 noenhanced
    plot for [i=1:n] file(i) using "t [s]":col2 with lines lw 1.2 lc rgb word(colors, i) title word(titles, i) noenhanced
  }
  unset multiplot
  set output
}
