#!/usr/bin/env bash
# cli.hostile: the defects of issue 44 (a hostile or careless user of the regression view,
# baselines, --from and the writers), one section each, named by the issue's id (H1 ... H7).
# Each check failed at 80a3889. Usage: hostile_test.sh CCB. Stops at the first failure.
set -u
ccb=${1:?usage: hostile_test.sh CCB}
src=${CCB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/ccb-hostile.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0
fail() {
  echo "FAIL: $*"
  echo "hostile_test: stopped at the first failure ($pass checks passed before it)"
  exit 1
}
ok() { pass=$((pass + 1)); }
# run RC cmd...: the exit code, output in $T/out
run() {
  local want=$1 rc=0
  shift
  "$@" >"$T/out" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || fail "exit $rc (want $want): $* :: $(head -c 600 "$T/out")"
  ok
}

# --- H1: a path is never gnuplot syntax --------------------------------------------------------
# Relative output directories of every character class that gnuplot or a shell gives a meaning:
# gnuplot reads a data file name that starts with '<' as a command and an output name that
# starts with '|' as a pipe. Each figure must be drawn where the path says, and nothing run.
mkdir "$T/h1" && cd "$T/h1" || exit 2
# ('<' and '|' matter first, so each has a path; the third holds every other class at once)
names=('<touch pwned;true' '|touch pwned' "!touch pwned;q'u\"ote \$(touch pwned) \`touch pwned\` é ü"
       '-x')
for nm in "${names[@]}"; do
  run 0 "$ccb" study conveyor fig3 --out "$nm"
  [ -s "$nm/conveyor/fig3.png" ] && [ -s "$nm/conveyor/fig3.svg" ] \
    || fail "H1: no figure under '$nm'"
done
# the diff's overlay figures (their data path goes through the variables), relative as well
run 0 "$ccb" study conveyor fig3 --no-figures --out "$T/h1a"
cp -r "$T/h1a" "$T/h1b"
f=conveyor/fig3/lagged/trajectory.csv
[ -f "$T/h1a/$f" ] || f=$(cd "$T/h1a" && find . -name trajectory.csv | head -1)
awk -F, -v OFS=, 'NR == 11 { $2 = sprintf("%.17g", $2 * 1.01 + 1e-3) } { print }' "$T/h1a/$f" \
  >"$T/h1b/$f"
run 1 "$ccb" diff "$T/h1a" "$T/h1b" --out '<touch pwned;true'
ls '<touch pwned;true/figures/'*.png >/dev/null 2>&1 || fail "H1: the diff drew no figure"
[ -z "$(find "$T/h1" -name pwned)" ] || fail "H1: a path ran as a command"
cd "$T" || exit 2

# --- H5: ccb replaces only regular files ---------------------------------------------------------
# a FIFO, a symbolic link (to a file and to a device) and a directory where --junit,
# --emit-manifest or a result file goes: refused before anything runs, nothing replaced
mkfifo "$T/fifo"
echo keep >"$T/target"
ln -s "$T/target" "$T/link"
ln -s /dev/null "$T/devlink"
mkdir "$T/adir"
for p in "$T/fifo" "$T/link" "$T/devlink" "$T/adir"; do
  run 2 timeout 60 "$ccb" gate push --out "$T/h5g" --junit "$p"
  grep -q "ccb writes only new files or regular files" "$T/out" || fail "H5: --junit $p: $(cat "$T/out")"
  run 2 timeout 60 "$ccb" study conveyor fig3 --emit-manifest "$p" --out "$T/h5m"
  grep -q "ccb writes only new files or regular files" "$T/out" || fail "H5: --emit-manifest $p: $(cat "$T/out")"
done
[ ! -e "$T/h5g" ] && [ ! -e "$T/h5m" ] || fail "H5: a refused command created its output"
[ -p "$T/fifo" ] && [ -L "$T/link" ] && [ -L "$T/devlink" ] && [ "$(cat "$T/target")" = keep ] \
  || fail "H5: a FIFO or link was replaced"
# a result file of a run that is a symbolic link: the run fails naming it, the link stays
run 0 "$ccb" run conveyor --t-final 0.01 --out "$T/h5r"
rm "$T/h5r/steps.csv" && ln -s "$T/target" "$T/h5r/steps.csv"
run 2 "$ccb" run conveyor --t-final 0.01 --out "$T/h5r"
grep -q "steps.csv' is a symbolic link" "$T/out" || fail "H5: run over a link: $(cat "$T/out")"
[ -L "$T/h5r/steps.csv" ] && [ "$(cat "$T/target")" = keep ] || fail "H5: the run replaced a link"

# --- H2: a baseline replaces only a baseline, and never the results or their parents -----------
mkdir -p "$T/h2/results" && cd "$T/h2" || exit 2
echo precious >results/keep.txt
run 2 "$ccb" gate push --out results/quick --save-baseline results
grep -q "must not contain each other" "$T/out" || fail "H2: results inside the baseline: $(cat "$T/out")"
run 2 "$ccb" gate push --out "$T/h2/r" --save-baseline "$PWD"
[ ! -e results/quick ] && [ ! -e "$T/h2/r" ] && [ "$(cat results/keep.txt)" = precious ] \
  || fail "H2: a refused baseline ran or removed something"
run 2 "$ccb" gate push --out "$T/h2/r" --save-baseline results/keep.txt/base
grep -q "cannot examine it: Not a directory" "$T/out" || fail "H2: a path through a file: $(cat "$T/out")"
mkdir notbase && echo mine >notbase/f.csv
run 2 "$ccb" gate push --out "$T/h2/r" --save-baseline notbase
grep -q "is not a baseline" "$T/out" || fail "H2: a directory that is no baseline: $(cat "$T/out")"
[ "$(cat notbase/f.csv)" = mine ] || fail "H2: a directory that is no baseline was replaced"
run 0 "$ccb" gate push --out "$T/h2/r" --save-baseline base
echo mine >base/push/mine.csv
run 2 "$ccb" gate push --out "$T/h2/r" --save-baseline base
grep -q "holds push/mine.csv, which the baseline did not save" "$T/out" \
  || fail "H2: a file added to a baseline: $(cat "$T/out")"
[ "$(cat base/push/mine.csv)" = mine ] || fail "H2: a file the baseline did not save was removed"
rm base/push/mine.csv
cd "$T" || exit 2

# --- H3: compared against the old baseline first, then replaced; never with itself -------------
# an old baseline with one gate's value moved: the run that replaces it must see the move
B=$T/h2/base
awk -F, -v OFS=, 'NR == 2 { $5 = sprintf("%.17g", $5 * 1.5 + 1) } { print }' "$B/push/gates.csv" \
  >"$T/g" && mv "$T/g" "$B/push/gates.csv"
run 1 "$ccb" gate push --out "$T/h3" --baseline "$B" --save-baseline "$B"
grep -q "value(s) moved beyond round-off against the baseline" "$T/out" \
  && ! grep -q "^PASS: 0 value(s) moved" "$T/out" || fail "H3: the old baseline was not compared"
run 0 "$ccb" gate push --out "$T/h3b" --baseline "$B"
run 2 "$ccb" gate push --out "$B" --baseline "$B"
grep -q "must not contain each other" "$T/out" || fail "H3: a tree against itself: $(cat "$T/out")"

# --- H6: spreads only from a sensitivity run beside these very results ---------------------------
# (in cli.contract, on the tree of its `gate push --sensitivity 2`: a rerun's changed result is
# not rated within round-off by the old perturbed trees)

# --- H7: --from accepts a run only if every solver option is the study's -------------------------
# the manifest of a study whose runs compute kappa: its lines run as written but one without
# --kappa, or with another tolerance, or the directories of two tolerances swapped: refused
# (every line run once into h7i, then the edited line rerun over a copy)
run 0 "$ccb" study push convergence --tier quick --emit-manifest "$T/h7.txt" --out "$T/h7"
while IFS= read -r line; do eval "$line" >/dev/null 2>&1; done <"$T/h7.txt"
run 0 "$ccb" study push convergence --tier quick --from "$T/h7" --no-figures --out "$T/h7o"
rm -rf "$T/h7o" && mv "$T/h7" "$T/h7i"
sed -n -e '2s/ --kappa//p' "$T/h7.txt" >"$T/h7a.txt"
sed -n -e '3s/ --dt / --rtol 1e-3 --dt /p' "$T/h7.txt" >"$T/h7b.txt"
grep -q -- '--rtol 1e-3' "$T/h7b.txt" && ! grep -q -- '--kappa' "$T/h7a.txt" || fail "H7: the edits"
for m in h7a h7b; do
  rm -rf "$T/h7" && cp -r "$T/h7i" "$T/h7"
  eval "$(cat "$T/$m.txt")" >/dev/null 2>&1
  run 2 "$ccb" study push convergence --tier quick --from "$T/h7" --no-figures --out "$T/h7o"
  grep -q "made with --\(kappa\|rtol\) .*; the study's run has" "$T/out" \
    || fail "H7: $m: $(cat "$T/out")"
done
[ ! -e "$T/h7o" ] || fail "H7: a refused --from created its output"

# --- a plugin's names are what they must be before anything of them is read or run ----------------
if command -v cc >/dev/null 2>&1; then
  printf 'const char ccb_plugin_abi = 3;\nint ccb_plugin_register(char* m, unsigned long n) { (void)m; (void)n; return 0; }\n' \
    >"$T/p1.c"
  printf 'int ccb_plugin_abi(void) { return 3; }\nint ccb_plugin_register(char* m, unsigned long n) { (void)m; (void)n; return 0; }\n' \
    >"$T/p2.c"
  for p in p1 p2; do
    cc -shared -fPIC -o "$T/$p.so" "$T/$p.c" || fail "plugin: cannot compile $p"
    run 2 "$ccb" --plugin "$T/$p.so" list
    grep -q "ccb_plugin_abi must be a const int" "$T/out" || fail "plugin $p: $(cat "$T/out")"
  done
fi

# --- the diff's figures: two moved files whose flattened names are the same ------------------------
for t in fa fb; do
  mkdir -p "$T/$t/x" "$T/$t/x_b"
  v=$([ $t = fa ] && echo 1 || echo 2)
  printf 't,v\n0,1\n1,%s\n' "$v" >"$T/$t/x/b_c.csv"
  printf 't,v\n0,1\n1,%s\n' "$v" >"$T/$t/x_b/c.csv"
done
run 1 "$ccb" diff "$T/fa" "$T/fb" --out "$T/fd"
[ -s "$T/fd/figures/x_b_c.png" ] && [ -s "$T/fd/figures/x_b_c~1.png" ] \
  && grep -q '(figures/x_b_c~1.png)' "$T/fd/diff.md" || fail "diff figures: one replaced the other"

# --- what the diff reads: a FIFO is refused, not waited on; a gate table without its metric
# column or with an id twice is named, not read from the neighbouring cell or half compared
mkdir -p "$T/ga/push" "$T/gb/push"
printf 'gate,tier,kind,metric,measured,op,bound_lo,bound_hi,result,evaluated_in\nG-1,quick,hard,m,1,<=,2,2,PASS,quick\n' \
  >"$T/ga/push/gates.csv"
printf 'gate,tier,kind,measured,op,bound_lo,bound_hi,result,evaluated_in\nG-1,quick,hard,1,<=,2,2,PASS,quick\n' \
  >"$T/gb/push/gates.csv"
run 1 "$ccb" diff "$T/ga" "$T/gb" --no-figures --out "$T/gd1"
grep -q "not a gate table in B" "$T/gd1/diff.csv" || fail "gates.csv without metric: $(cat "$T/gd1/diff.csv")"
printf 'gate,tier,kind,metric,measured,op,bound_lo,bound_hi,result,evaluated_in\nG-1,quick,hard,m,1,<=,2,2,PASS,quick\nG-1,quick,hard,m,3,<=,2,2,FAIL,quick\n' \
  >"$T/gb/push/gates.csv"
run 1 "$ccb" diff "$T/ga" "$T/gb" --no-figures --out "$T/gd2"
grep -q "gate G-1 twice in B" "$T/gd2/diff.csv" || fail "a gate id twice: $(cat "$T/gd2/diff.csv")"
cp "$T/ga/push/gates.csv" "$T/gb/push/gates.csv"
mkfifo "$T/gb/push/table.csv" && cp "$T/ga/push/gates.csv" "$T/ga/push/table.csv"
run 1 timeout 60 "$ccb" diff "$T/ga" "$T/gb" --no-figures --out "$T/gd3"
grep -q "table.csv: not a regular file\|table.csv is not a regular file" "$T/gd3/diff.csv" \
  || fail "a FIFO in a tree: $(cat "$T/gd3/diff.csv")"

# --- the report of a diff never goes inside a tree it compares (the next diff would read it) ------
run 2 "$ccb" diff "$T/ga" "$T/gb" --out "$T/ga/report"
grep -q "would go inside the tree A" "$T/out" && [ ! -e "$T/ga/report" ] || fail "diff --out in A: $(cat "$T/out")"
run 1 "$ccb" diff "$T/ga" "$T/gb" --out "$T/gb/diff"
[ -s "$T/gb/diff/diff.csv" ] || fail "diff --out B/diff: no report"

# --- one writer at a time in a run directory ------------------------------------------------------
# its lock held by another process (flock(1) on the directory, as ccb takes it): ccb says so,
# waits, then runs; two runs with different lengths into one --out leave one run's files
# hold DIR until the waiting command says it waits (at most 60 s), then let it go: no timing
hold() { # hold DIR: backgrounded; returns when the lock is taken
  flock "$1" timeout 60 sh -c 'until grep -q "waiting for it" "$0" 2>/dev/null; do sleep 0.02; done' "$T/out" &
  until ! flock -n "$1" true; do sleep 0.02; done
}
mkdir "$T/lk"
: >"$T/out"
hold "$T/lk"
run 0 "$ccb" run conveyor --t-final 0.01 --out "$T/lk"
wait
grep -q "another ccb is writing $T/lk; waiting for it" "$T/out" || fail "lock: $(cat "$T/out")"
# the same for a study's and a gate's case tree (OUT/CASE: the gates of two cases share an --out)
# and a diff's output tree
mkdir -p "$T/lkt/conveyor" "$T/lkt/push"
for c in "conveyor:study conveyor fig3 --no-figures" "push:gate push" ":diff $T/lk $T/lk"; do
  d=$T/lkt${c%%:*}
  [ -n "${c%%:*}" ] && d=$T/lkt/${c%%:*}
  : >"$T/out"
  hold "$d"
  rc=0
  $ccb ${c#*:} --out "$T/lkt" >"$T/out" 2>&1 || rc=$?
  wait
  [ "$rc" -le 1 ] && grep -q "another ccb is writing $d; waiting for it" "$T/out" \
    || fail "lock (${c#*:}): exit $rc: $(cat "$T/out")"
  ok
done
for i in 1 2; do
  "$ccb" run clutter --t-final 0.1 --out "$T/lk" >/dev/null 2>&1 &
  "$ccb" run clutter --t-final 0.06 --out "$T/lk" >/dev/null 2>&1 &
  wait
  n=$(sed -n 's/.*"steps_completed":[[:space:]]*\([0-9]*\).*/\1/p' "$T/lk/meta.json")
  [ "$n" = "$(($(wc -l <"$T/lk/trajectory.csv") - 1))" ] || fail "lock: meta.json of one run, data of another"
  ok
done

# --- gate texts: whole, valid UTF-8, valid JUnit XML ---------------------------------------------
# a basis of 600 bytes of two-byte characters (the reader cut texts at 511 bytes, inside a
# character, and the JUnit file was no XML); one too long, one not UTF-8: refused by id and field
mkdir -p "$T/src/analysis"
cp -r "$src/reference" "$T/src/reference" && cp -r "$src/analysis/gnuplot" "$T/src/analysis/"
edit() { # edit FIELD TEXT-EXPRESSION: the first gate of push.json
  python3 - "$T/src/reference/push.json" "$1" "$2" <<'PY'
import json, sys
p, field, expr = sys.argv[1:]
d = json.load(open(p))
d["gates"][0][field] = eval(expr)
open(p, "w", encoding="utf-8", errors="surrogateescape").write(json.dumps(d, ensure_ascii=False))
PY
}
cp "$T/src/reference/push.json" "$T/push.json"
edit basis '"é" * 300 + " ü"'
run 0 env CCB_SOURCE_DIR="$T/src" "$ccb" gate push --out "$T/gt" --junit "$T/gt.xml"
xmllint --noout "$T/gt.xml" || fail "gate texts: the JUnit file is not XML"
grep -q "$(printf 'é%.0s' $(seq 300)) ü" "$T/gt/push/report.md" || fail "gate texts: the basis was cut"
edit basis '"x" * 3000'
run 2 env CCB_SOURCE_DIR="$T/src" "$ccb" gate push --out "$T/gt2"
grep -q 'gate PUSH-1-sap: "basis" is longer than' "$T/out" || fail "gate texts: $(cat "$T/out")"
cp "$T/push.json" "$T/src/reference/push.json"
edit description '"a \udcff b"'
run 2 env CCB_SOURCE_DIR="$T/src" "$ccb" gate push --out "$T/gt2"
grep -q 'gate PUSH-1-sap: "description" is not valid UTF-8' "$T/out" || fail "gate texts: $(cat "$T/out")"
[ ! -e "$T/gt2" ] || fail "gate texts: a refused gate file created output"

# --- a manifest has one run per line: a program path with a newline is refused, not split -------
nl=$'bin\nx'
mkdir "$T/$nl" && cp "$ccb" "$T/$nl/ccb" || exit 2
run 2 "$T/$nl/ccb" study sphere fig6 --emit-manifest "$T/m.txt" --out "$T/mres"
grep -q "the program's path has a control character (byte 10" "$T/out" || fail "manifest: $(cat "$T/out")"
[ ! -e "$T/m.txt" ] || fail "manifest: written with a program path that splits its lines"

# --- no symbolic link is followed out of the output tree; the tree's root may be one ----------------
mkdir -p "$T/lt/o" "$T/lt/else" && ln -s "$T/lt/else" "$T/lt/o/conveyor" && ln -s "$T/lt/o" "$T/lt/root"
run 2 "$ccb" study conveyor fig3 --no-figures --out "$T/lt/o"
grep -q "o/conveyor' is a symbolic link inside the output tree" "$T/out" || fail "symlink: $(cat "$T/out")"
[ -z "$(ls -A "$T/lt/else")" ] || fail "symlink: written where a link in the tree points"
run 0 "$ccb" study conveyor fig3 --no-figures --out "$T/lt/root/x"
[ -s "$T/lt/o/x/conveyor/fig3/table.csv" ] || fail "symlink: a root through a link was refused"

# --- part 3: every option and --set parameter acts, or is refused naming what would read it -----------
# (tau_d is read by SAP's constraint only; the coin's rings by its polar layout only; coin/fig5
# sets rings itself; bench: an option no selected variant reads)
run 2 "$ccb" run conveyor --approx lagged --set tau_d=5 --out "$T/s3"
grep -q "tau_d is read only by the runs with approx=sap; this run (lagged) would ignore it" "$T/out" \
  || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" run aniso --set theta=30 --out "$T/s3"
grep -q "theta is read only by the runs with f!=0; this run (lagged) would ignore it" "$T/out" \
  || fail "part 3 (a 'PARAM!=VALUE' condition): $(cat "$T/out")"
run 2 "$ccb" study aniso slide --set f=0.3 --out "$T/s3"
grep -q "the slide study compares a free slide with its closed form" "$T/out" \
  || fail "aniso/slide with a force: $(cat "$T/out")"
run 2 "$ccb" study aniso slide --set V0=100 --out "$T/s3"
grep -q "longer than 80 % of the study's 0.5 s run" "$T/out" || fail "aniso/slide: $(cat "$T/out")"
[ ! -e "$T/s3" ] || fail "a refused study created $T/s3"
# the hand with a ball that overlaps the fingers from the start: TAMSI fails at the first step;
# the run is recorded as failed (exit 1), not a crash or a silent NaN
run 1 "$ccb" run hand --variant tamsi --t-final 0.0014 --set ball_radius=0.2 --out "$T/hand"
grep -q '"status":[[:space:]]*"failed"' "$T/hand/meta.json" || fail "hand: failure not recorded"
grep -q "TAMSI failed with 1..20 substeps" "$T/out" || fail "hand: $(cat "$T/out")"
run 2 "$ccb" run coin --set rings=100 --out "$T/s3"
grep -q "rings is read only by the runs with layout=1" "$T/out" || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" study coin fig5 --set rings=3 --out "$T/s3"
grep -q "every run of coin/fig5 that reads it sets it itself" "$T/out" || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" bench conveyor --variants tamsi --kappa --repeat 1
grep -q -- "--kappa: no variant of this bench reads it" "$T/out" || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" bench conveyor --variants lagged,similar --set tau_d=1 --repeat 1
grep -q "no variant of this bench is one" "$T/out" || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" bench conveyor --variants sap --friction quad --repeat 1
grep -q -- "--friction applies to" "$T/out" || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" study coin pair --set rings=3 --out "$T/s3"
grep -q "coin/pair reads none of the case's parameters" "$T/out" || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" study coin pair --rtol 1e-8 --out "$T/s3"
grep -q -- "--rtol: no run of coin/pair reads it" "$T/out" || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" run gripper --variant ie-fn-ec-tals --fixed-control drake --out "$T/s3"
grep -q -- "--fixed-control applies to --solver ie without --error-control only" "$T/out" \
  || fail "part 3: $(cat "$T/out")"
run 2 "$ccb" study clutter newton-trace --set side=8 --out "$T/s3"
grep -q "clutter/newton-trace: the scene has 3840 velocities" "$T/out" || fail "part 3: $(cat "$T/out")"
[ ! -e "$T/s3" ] || fail "part 3: a refused command created its output"
run 0 "$ccb" run conveyor --approx sap --set tau_d=5 --t-final 0.01 --out "$T/s3"
# a solver failure in an in-process study: exit 1, recorded in the study's report
run 1 "$ccb" study clutter newton-trace --set max_iterations=5 --no-figures --out "$T/s4"
grep -q "The run failed.*Newton did not converge in 5 iterations" "$T/s4/clutter/newton-trace/report.md" \
  || fail "newton-trace failure: $(cat "$T/out")"

# --- SIGTERM during a baseline's save: held until the new baseline is in place --------------------
# (gdb delivers it at the entry of suite_baseline_save; the process must finish the rename, leave no
# DIR.new-PID or DIR.old-PID, and then end by the signal. gdb's `signal` resumes with the signal
# rather than calling kill() in the inferior: an inferior call fails on machines whose kernel
# refuses gdb's write of the extended register state, "Couldn't write extended state status")
if command -v gdb >/dev/null 2>&1; then
  mkdir "$T/sg" && cp -r "$T/h2/base" "$T/sg/b" || exit 2 # a baseline to replace (H2's)
  touch -d 2000-01-01 "$T/sg/b/baseline.json"
  gdb -q -batch -ex 'handle SIGTERM nostop noprint pass' -ex 'break suite_baseline_save' -ex run \
    -ex 'signal SIGTERM' -ex continue \
    --args "$ccb" gate push --out "$T/sg/r" --save-baseline "$T/sg/b" >"$T/out" 2>&1
  grep -q "Breakpoint 1, suite_baseline_save" "$T/out" && grep -q "terminated with signal SIGTERM" "$T/out" \
    || fail "SIGTERM in the save: $(tail -5 "$T/out")"
  [ -z "$(find "$T/sg" -maxdepth 1 -name 'b.*')" ] || fail "SIGTERM in the save: $(ls "$T/sg")"
  [ "$T/sg/b/baseline.json" -nt "$T/sg/r" ] || [ "$(find "$T/sg/b/baseline.json" -newermt 2001-01-01)" ] \
    || fail "SIGTERM in the save: the old baseline is still there"
  ok
fi

# --- a FIFO in the results a baseline is saved from: refused by name, not waited on, nothing left
mkdir "$T/ff" && cp -r "$T/h2/r" "$T/ff/r" || exit 2 # the results of a gate (H2's)
mkfifo "$T/ff/r/push/extra.csv"
run 2 timeout 60 "$ccb" gate push --out "$T/ff/r" --save-baseline "$T/ff/b"
grep -q "push/extra.csv is not a regular file" "$T/out" && [ ! -e "$T/ff/b" ] \
  && [ -z "$(find "$T/ff" -maxdepth 1 -name 'b.*')" ] || fail "FIFO in a baseline's source: $(cat "$T/out")"

# --- a reused --out keeps nothing stale, and loses nothing ccb did not list -----------------------
# (study/inventory.c) a figure not drawn on the rerun goes with the old data; a run directory of a
# label the study no longer has loses its run files (and only them); an inventory that names a
# path out of the tree, or a link, removes nothing there
I=$T/inv
run 0 "$ccb" study conveyor fig3 --out "$I"
[ -s "$I/conveyor/fig3.png" ] && grep -q '^file fig3.png$' "$I/conveyor/fig3/.ccb-results" \
  || fail "inventory: $(cat "$I/conveyor/fig3/.ccb-results")"
mkdir -p "$I/conveyor/fig3/old_dt1"
for f in meta.json trajectory.csv notes.txt; do echo x >"$I/conveyor/fig3/old_dt1/$f"; done
echo keep >"$T/outside.txt" && ln -s "$T/outside.txt" "$I/conveyor/fig3/link.csv"
printf 'run fig3/old_dt1\nfile ../../outside.txt\nfile fig3/link.csv\n' >>"$I/conveyor/fig3/.ccb-results"
run 0 "$ccb" study conveyor fig3 --no-figures --out "$I"
[ ! -e "$I/conveyor/fig3.png" ] && [ ! -e "$I/conveyor/fig3.svg" ] || fail "inventory: a stale figure stayed"
[ -s "$I/conveyor/fig3/table.csv" ] || fail "inventory: the table went"
[ ! -e "$I/conveyor/fig3/old_dt1/meta.json" ] && [ ! -e "$I/conveyor/fig3/old_dt1/trajectory.csv" ] \
  || fail "inventory: a stale run directory kept its run files"
[ -s "$I/conveyor/fig3/old_dt1/notes.txt" ] || fail "inventory: a file ccb did not write was removed"
[ "$(cat "$T/outside.txt")" = keep ] && [ -L "$I/conveyor/fig3/link.csv" ] \
  || fail "inventory: a path out of the tree or a link was followed"
ok
# ccb compare's own outputs in its --out: the same
run 0 "$ccb" compare --quick --cases push --variants lagged --out "$T/cq"
[ -s "$T/cq/compare_error.png" ] || fail "inventory: compare drew no figure"
run 0 "$ccb" compare --quick --cases push --variants lagged --no-figures --out "$T/cq"
[ -z "$(find "$T/cq" -name '*.png' -o -name '*.svg')" ] && [ -s "$T/cq/compare.csv" ] \
  || fail "inventory: compare's stale figures stayed"

echo "hostile_test: $pass checks passed"
