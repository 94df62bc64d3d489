# ccb diff: the columns of one result file that moved beyond round-off (docs/cases.md §15), one
# panel each against time (a run file), the table's first column (rows keyed by a number) or the
# row: before (A, dashed) and after (B, solid) on the left axis, their difference B - A on the
# right axis (grey), so that a change far below a curve's own scale is seen.
# Reads f (written by ccb diff: x, then per column its A, B and B - A; the header names them).
# Variables: f, what (the file's path in the trees), ncols, out, out_png, out_svg.
if (!exists("f") || !exists("ncols") || !exists("out_png")) {
  print "diff_overlay.gp: set f, ncols, out_png and out_svg"; exit status 2
}
if (!exists("what")) { what = "" }
set datafile separator ','
set datafile missing ''
set grid
set key top center horizontal font ",9"
set ytics nomirror
set y2tics
set format y2 '%.1e'
do for [term = 1:2] {
  if (term == 1) { set terminal pngcairo size 1000,(260 * ncols + 80) font ",10"; set output out_png }
  else           { set terminal svg size 1000,(260 * ncols + 80) font ",10" dynamic; set output out_svg }
  set multiplot layout ncols,1 title what noenhanced
  do for [k = 1:ncols] {
    ca = 3 * k - 1
    cb = ca + 1
    cd = ca + 2
    plot f using 1:ca with lines lw 2 dt 2 lc rgb "#1f77b4" title columnhead(ca) noenhanced, \
         f using 1:cb with lines lw 1 lc rgb "#d62728" title columnhead(cb) noenhanced, \
         f using 1:cd axes x1y2 with lines lw 1 lc rgb "#7f7f7f" title columnhead(cd) noenhanced
  }
  unset multiplot
  set output
}
