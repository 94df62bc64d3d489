# TAMSI paper Fig. 7: simulated time against wall-clock time, gripper shaking a mug at h = 3 ms.
# Reads <datadir>/<run>/times.csv of each run (step, geometry, problem and solve times [s]) and
# accumulates the three; a step is h = 3 ms of simulated time. Writes <out>.png and <out>.svg.
# Variables: datadir, out, runs, titles (one word each), title.
if (!exists("datadir") || !exists("out") || !exists("runs")) {
  print "gripper_fig7.gp: set datadir, out and runs"; exit status 2
}
if (!exists("title")) { title = "" }
if (!exists("titles") || words(titles) != words(runs)) { titles = runs }
set datafile separator ','
h = 3e-3
colors = "#000000 #1f77b4 #2ca02c #9467bd #d62728 #ff9896 #8c564b #e377c2 #17becf #bcbd22"
lcol(i) = word(colors, (i - 1) % words(colors) + 1)
t(c) = valid(c) ? column(c) : 0
cum = 0
acc(s) = (cum = (s == 1 ? 0 : cum) + t(2) + t(3) + t(4))
set logscale x
set format x '10^{%L}'
set grid
set key top left font ",10" noenhanced
set xlabel 'wall-clock time [s]'
set ylabel 'simulated time [s]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,700 font ",11"; set output out_png }
  else           { set terminal svg size 1000,700 font ",11" dynamic; set output out_svg }
  set title title
  plot for [i=1:words(runs)] sprintf('%s/%s/times.csv', datadir, word(runs, i)) \
         using (acc($1)):($1 * h) with lines lw 2 lc rgb lcol(i) \
         title word(titles, i)
  set output
}
