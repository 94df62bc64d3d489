# ccb diff: the columns of one result file that moved beyond round-off, before (A, dashed) and
# after (B, solid), one panel per column against time (a run file), the first column (a table
# whose rows are keyed by a number) or the row (xcol = 0). docs/cases.md §15.
# Variables: fa, fb (the two CSV files), what (the file's path in the trees), xcol (1-based
# column, 0: the row), cols (the 1-based columns, space-separated), n1 .. n6 (their names),
# out, out_png, out_svg.
if (!exists("fa") || !exists("fb") || !exists("cols") || !exists("out_png")) {
  print "diff_overlay.gp: set fa, fb, cols, out_png and out_svg"; exit status 2
}
if (!exists("xcol")) { xcol = 0 }
if (!exists("what")) { what = "" }
set datafile separator ','
set datafile missing ''
set grid
set key top right font ",9"
n = words(cols)
xname = xcol > 0 ? 'column '.xcol : 'row'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,(260 * n + 80) font ",10"; set output out_png }
  else           { set terminal svg size 1000,(260 * n + 80) font ",10" dynamic; set output out_svg }
  set multiplot layout n,1 title what noenhanced
  do for [k = 1:n] {
    c = int(word(cols, k))
    set ylabel (exists(sprintf('n%d', k)) ? value(sprintf('n%d', k)) : 'column '.c) noenhanced
    if (xcol > 0) {
      plot fa every ::1 using xcol:c with lines lw 2 dt 2 lc rgb "#1f77b4" title 'A (before)', \
           fb every ::1 using xcol:c with lines lw 1 lc rgb "#d62728" title 'B (after)'
    } else {
      plot fa every ::1 using 0:c with linespoints pt 6 lw 2 dt 2 lc rgb "#1f77b4" title 'A (before)', \
           fb every ::1 using 0:c with linespoints pt 7 ps 0.6 lw 1 lc rgb "#d62728" title 'B (after)'
    }
  }
  unset multiplot
  set output
}
