# Case hand, study twist (cases/hand.c; TAMSI §VI-B): the ball's velocity error e_v against the
# wall-clock time of each run, from <datadir>/runs.csv (1 run, 2 variant, 3 h, 4 a, 5 wall [s],
# 6 real-time factor, 7 e_v [m/s], 8 work, 9 largest displacement, 10 largest angle, 11 contacts
# at the end): TAMSI over its steps h (not the control run without the pushes), implicit Euler with quasi-Newton over its accuracies a,
# the other runs as points. Writes <out>.png and <out>.svg. Variables: datadir, out, title.
if (!exists("datadir") || !exists("out")) {
  print "hand_twist.gp: set datadir and out"; exit status 2
}
if (!exists("title")) { title = "" }
set datafile separator ','
# TAMSI's ladder: the tamsi runs but the control without the pushes
tam = 0
istam(dummy) = (tam = strcol(2) eq 'tamsi' && strcol(1) ne 'control_no_push', tam)
# implicit Euler's ladder: the ie-qn-ec runs at the 2.8 ms interval (not the one capped at 0.7 ms)
isie(dummy) = strcol(2) eq 'ie-qn-ec' && strstrt(strcol(1), '_h') == 0
isie07(dummy) = strcol(2) eq 'ie-qn-ec' && strstrt(strcol(1), '_h') > 0
f = datadir.'/runs.csv'
set grid
set logscale xy
set key bottom left font ",10" noenhanced
set xlabel 'wall-clock time [s]'
set ylabel 'e_v, the ball''s velocity error [m/s]'
others = 'ie-qn-ec-tals ie-fn-ec sap similar lagged'
ocolors = '#ff7f0e #8c564b #2ca02c #9467bd #17becf'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 900,650 font ",11"; set output out_png }
  else           { set terminal svg size 900,650 font ",11" dynamic; set output out_svg }
  set title title noenhanced
  plot f using (istam(0) ? $5 : NaN):7 with linespoints lw 2 pt 7 \
         lc rgb '#000000' title 'TAMSI, h = 2.8, 1.4, 0.7, 0.35 ms', \
       f using (istam(0) ? $5 : NaN):7:(sprintf('%g ms', 1e3 * $3)) with labels \
         offset 1.2,0.6 font ",9" notitle, \
       f using (isie(0) ? $5 : NaN):7 with linespoints lw 2 pt 5 \
         lc rgb '#d62728' title 'implicit Euler, quasi-Newton, error control', \
       f using (isie(0) ? $5 : NaN):7:(sprintf('a = %g', $4)) with labels \
         offset 1.2,-0.6 font ",9" notitle, \
       f using (isie07(0) ? $5 : NaN):7 with points pt 4 ps 1.5 lc rgb '#d62728' \
         title 'implicit Euler, a = 0.01, largest step 0.7 ms', \
       for [i=1:words(others)] f using (strcol(2) eq word(others, i) ? $5 : NaN):7 \
         with points pt (i + 7) ps 1.5 lc rgb word(ocolors, i) title word(others, i)
  set output
}
