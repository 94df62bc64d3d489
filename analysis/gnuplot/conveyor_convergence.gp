# ICF Fig. 4 (conveyor): position RMS error e_q against dt, log-log, with a first-order guide.
# Filled symbols: the paper's sweep (errors_paper.csv); open symbols: the extended sweep
# (errors_extended.csv). Writes <out>.png and <out>.svg.
# Usage: gnuplot -e "datadir='results/conveyor/convergence'; out='results/conveyor/convergence'" conveyor_convergence.gp
if (!exists("datadir") || !exists("out")) { print "conveyor_convergence.gp: set datadir and out"; exit status 2 }
set datafile separator ','
paper = datadir.'/errors_paper.csv'
ext = datadir.'/errors_extended.csv'
models = "sap similar lagged"
titles = "SAP Similar Lagged"
colors = "#d62728 #1f77b4 #2ca02c"
sel(m) = (strcol(1) eq m) ? $3 : NaN
# first-order guide through Lagged's error at dt = 1e-2
stats paper using ((strcol(1) eq "lagged" && abs($2 - 0.01) < 1e-12) ? $3 : NaN) nooutput
C = STATS_max / 0.01
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key bottom right font ",10"
set xlabel 'dt [s]'
set ylabel 'e_q [m]'
set title "Conveyor belt, convergence of the box trajectory (ICF Fig. 4)"
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,700 font ",11"; set output out.'.png' }
  else           { set terminal svg size 900,700 font ",11" dynamic; set output out.'.svg' }
  plot [5e-5:0.1] \
       for [i=1:3] paper using 2:(sel(word(models, i))) with linespoints lw 2 pt 7 ps 1.3 lc rgb word(colors, i) title word(titles, i).' (paper sweep)', \
       for [i=1:3] ext using 2:(sel(word(models, i))) with linespoints lw 1 dt 2 pt 6 ps 1.3 lc rgb word(colors, i) title word(titles, i).' (extended)', \
       C * x with lines dt 3 lc rgb "black" title 'first order'
  set output
}
