# ICF Fig. 3 (conveyor): contact velocity (v_t, v_n) and contact force (f_t, f_n) against time for
# SAP, Similar and Lagged at one time step. Reads <datadir>/<approx>_dt<dtlabel>/trajectory.csv
# (columns by header name) and writes <out>.png and <out>.svg.
# Usage: gnuplot -e "datadir='results/conveyor/fig3'; out='results/conveyor/fig3'; dtlabel='0.01'; mg=9.81" conveyor_fig3.gp
if (!exists("datadir") || !exists("out")) { print "conveyor_fig3.gp: set datadir and out"; exit status 2 }
if (!exists("dtlabel")) { dtlabel = '0.01' }
if (!exists("mg")) { mg = 9.81 }
set datafile separator ','
models = "sap similar lagged"
titles = "SAP Similar Lagged"
colors = "#d62728 #1f77b4 #2ca02c"
file(i) = sprintf('%s/%s_dt%s/trajectory.csv', datadir, word(models, i), dtlabel)
set grid
set key top right font ",9"
set xlabel 't [s]'

do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1400,900 font ",11"; set output out.'.png' }
  else           { set terminal svg size 1400,900 font ",11" dynamic; set output out.'.svg' }
  set multiplot layout 2,2 title sprintf("Conveyor belt, contact velocity and force, dt = %s s (ICF Fig. 3)", dtlabel)
  set ylabel 'v_t [m/s] (box relative to belt)'
  plot for [i=1:3] file(i) using "t [s]":"vt [m/s]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'v_n [m/s]'
  plot for [i=1:3] file(i) using "t [s]":"vn [m/s]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'f_t [N] (on the box)'
  plot for [i=1:3] file(i) using "t [s]":"ft [N]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i)
  set ylabel 'f_n [N]'
  plot for [i=1:3] file(i) using "t [s]":"fn [N]" with lines lw 1.5 lc rgb word(colors, i) title word(titles, i), \
       mg with lines dt 2 lc rgb "black" title "mg"
  unset multiplot
  set output
}
