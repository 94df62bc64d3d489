# ICF Fig. 22: relative error of T_f against the Lagged reference at 0.2 ms, against dt, without
# (left) and with (right) dissipation; one line per model and frequency. Reads
# <datadir>/tf_errors.csv (d, frequency, model, dt, T_f ref, T_f, relative error). Writes
# <out>.png and <out>.svg. Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "grasp_fig22.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
f = datadir.'/tf_errors.csv'
stats f using 2 nooutput
fmin = STATS_min
fmax = STATS_max
# the distinct frequencies of column 2 in the order of the file (no shell: the path is data)
freqs = ''
stats f using (fs = sprintf('%g', $2), ($2 != $2 || strstrt(' '.freqs.' ', ' '.fs.' ')) ? 0 : \
               (freqs = freqs.(freqs eq '' ? '' : ' ').fs), $2) nooutput
models = "lagged similar"
colors = "#1f77b4 #d62728"
sel(d, m, fr) = (column(1) == d && strcol(3) eq m && abs(column(2) - fr) < 1e-9) ? column(7) : NaN
set logscale x
set format x '10^{%L}'
set grid
set key bottom left font ",9"
set xlabel 'dt [s]'
set ylabel 'relative error of T_f [-]'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1300,600 font ",11"; set output out_png }
  else           { set terminal svg size 1300,600 font ",11" dynamic; set output out_svg }
  set multiplot layout 1,2 title title
  do for [k = 1:2] {
    d = (k == 1 ? 0 : 50)
    set title sprintf('d = %g s/m', d)
    plot for [i=1:2] for [j=1:words(freqs)] f using 4:(sel(d, word(models, i), word(freqs, j) + 0)) \
           with linespoints lw 2 pt (6 + j) lc rgb word(colors, i) \
           title sprintf('%s, %s Hz', word(models, i), word(freqs, j)), \
         0 with lines lc rgb "black" notitle
  }
  unset multiplot
  set output
}
