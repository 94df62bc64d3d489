# ccb compare: one metric over cases (clusters) and variants (bars), from a matrix CSV written by
# study/compare.c (header: case, variant names; one row per case; NaN where a variant does not
# apply or failed). Writes <out>.png and <out>.svg.
# Variables: datadir, file (the CSV in datadir), out, nvar (number of variant columns), ylabel, logy (1: log scale).
if (!exists("datadir") || !exists("file") || !exists("out") || !exists("nvar")) {
  print "compare.gp: set datadir, file, out and nvar"; exit status 2
}
if (!exists("ylabel")) { ylabel = "" }
if (!exists("logy")) { logy = 0 }
set datafile separator ','
set datafile missing 'NaN'
colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #000000 #aec7e8 #ff9896 #98df8a #ffbb78 #c5b0d5 #c49c94'
lcol(i) = word(colors, (i - 1) % 17 + 1)
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key outside right top font ",9" noenhanced
set grid ytics
set xtics noenhanced
set ylabel ylabel
if (logy) { set logscale y; set format y '10^{%L}' }
set title ylabel noenhanced
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,600 font ",11"; set output out_png }
  else           { set terminal svg size 1300,600 font ",11" dynamic; set output out_svg }
  plot for [i=2:nvar+1] datadir.'/'.file using i:xtic(1) title columnhead(i) lc rgb lcol(i - 1)
  set output
}
