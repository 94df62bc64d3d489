#!/usr/bin/env bash
# plugin.pgs (CTest): the extension model end to end (docs/architecture.md §4-§5). The example
# plugin plugins/pgs (projected Gauss-Seidel, a solver ccb does not have) is loaded with --plugin
# and CCB_PLUGIN_PATH and then takes part in list, info, run, study, compare and manifests like
# a built-in solver (and plugins/heun, an ODE method, and plugins/toy, an approximation, in run and
# compare; all three kinds in gate and bench); a module of another ABI, a file that is not a plugin and a missing file are
# refused; and every option of every solver is exactly one descriptor: `ccb info SOLVER`, the
# option.* keys of meta.json and the command line list the same names.
# Usage: CI/plugin_test.sh CCB BUILD_DIR
set -uo pipefail
ccb=${1:?usage: plugin_test.sh CCB BUILD_DIR}
build=${2:?usage: plugin_test.sh CCB BUILD_DIR}
pgs=$(cd "$build/plugins" && pwd)/pgs.so
bad=$build/plugins/pgs_abi999.so
# the ABI this ccb was built with, read from the header it was built from
abi=$(sed -n 's/^#define CCB_ABI_VERSION \([0-9]*\)$/\1/p' "$(dirname "$0")/../lib/include/ccb/solver.h")
[ -n "$abi" ] || { echo "FAIL: no CCB_ABI_VERSION in lib/include/ccb/solver.h"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail() { echo "FAIL: $*"; exit 1; }
ok() { n=$((n + 1)); }

# 1. loading: --plugin, --plugin=, CCB_PLUGIN_PATH (a directory), and the refusals
"$ccb" --plugin "$pgs" list > "$tmp/list" || fail "list with the plugin"
grep -q "^  pgs " "$tmp/list" || fail "the pgs variant is not in ccb list"
grep -q "solvers (ccb info SOLVER): newton tamsi ode pgs" "$tmp/list" || fail "pgs is not a solver"
ok
"$ccb" --plugin="$pgs" info pgs > /dev/null || fail "--plugin=FILE"
mkdir "$tmp/plugdir" && cp "$pgs" "$tmp/plugdir/" && echo "not a plugin" > "$tmp/plugdir/README"
CCB_PLUGIN_PATH=$tmp/plugdir "$ccb" list > "$tmp/list2" || fail "list with CCB_PLUGIN_PATH"
grep -q "^  pgs " "$tmp/list2" || fail "CCB_PLUGIN_PATH directory"
"$ccb" --plugin "$pgs" --plugin "$pgs" list > /dev/null || fail "the same module twice is loaded once"
ok
expect_refusal() { # WHAT TEXT COMMAND...
  local what=$1 text=$2
  shift 2
  local out rc
  out=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "$what: exit $rc, expected 2"
  grep -qF -- "$text" <<< "$out" || fail "$what: message lacks '$text': $out"
  ok
}
expect_refusal "another ABI" "was built against ccb's extension ABI 999; this ccb has ABI $abi" \
  "$ccb" --plugin "$bad" list
expect_refusal "another module with the same solver" "its registration failed: solver 'pgs': the name is taken" \
  env CCB_PLUGIN_PATH="$tmp/plugdir" "$ccb" --plugin "$pgs" list
expect_refusal "not a module" "cannot load it" "$ccb" --plugin "$tmp/plugdir/README" list
expect_refusal "no file" "no such file" "$ccb" --plugin "$tmp/none.so" list
expect_refusal "--plugin without a file" "--plugin needs a file" "$ccb" --plugin
expect_refusal "a plugin's solver without the plugin" "--solver expects one of newton, tamsi, ie" \
  "$ccb" run sphere --solver pgs --out "$tmp/x"
expect_refusal "a plugin's option without the plugin" "unknown option '--pgs-tolerance'" \
  "$ccb" run sphere --pgs-tolerance 1e-9 --out "$tmp/x"
expect_refusal "its option, range from its descriptor" "--pgs-tolerance expects a number in (0, 1]" \
  "$ccb" --plugin "$pgs" run sphere --solver pgs --pgs-tolerance 2 --out "$tmp/x"
expect_refusal "its option on another solver" "--max-sweeps applies to --solver pgs only" \
  "$ccb" --plugin "$pgs" run sphere --max-sweeps 5 --out "$tmp/x"
[ ! -e "$tmp/x" ] || fail "a refused run created its directory"

# a solver that breaks the contract: no message on failure, success without its solution; the
# run is recorded as failed (exit 1) with ccb's own words, never a crash or "(null)"
mb=$build/plugins/misbehave.so
for m in 0 1; do
  out=$("$ccb" --plugin "$mb" run sphere --solver misbehave --misbehave-mode "$m" --t-final 0.01 \
    --out "$tmp/mb$m" 2>&1); rc=$?
  want=$([ "$m" = 0 ] && echo "(the solver gave no message)" || echo "reported success without its velocities")
  [ "$rc" = 1 ] && grep -qF "$want" <<<"$out" && ! grep -q "(null)" <<<"$out" \
    || fail "misbehaving plugin, mode $m: exit $rc: $out"
  grep -q '"status":[[:space:]]*"failed"' "$tmp/mb$m/meta.json" \
    || fail "misbehaving plugin, mode $m: the run is not recorded as failed"
  ok
done

# 2. the same convex problem by two methods: PGS and Newton converge to the same minimizer.
# Lagged on the sphere, both to tight tolerances (PGS 1e-12 m/s per sweep, Newton eps_r 1e-12):
# measured largest difference of any state entry over the run 4.8e-8 (PGS's stopping test
# bounds a sweep's change, not the distance to the solution); bound 1e-6. SAP is another
# problem: its trajectory differs from Lagged's by far more (measured 117 in theta), so the bound can fail.
"$ccb" --plugin "$pgs" run sphere --solver pgs --pgs-tolerance 1e-12 --out "$tmp/pgs" \
  > "$tmp/pgs.out" || fail "pgs on the sphere"
# the run's line names the solver's own counter (ccb_solver_type.iterations), not Newton's
grep -q "status ok, sweeps mean" "$tmp/pgs.out" || fail "pgs's counter: $(head -1 "$tmp/pgs.out")"
ok
"$ccb" run sphere --rtol 1e-12 --out "$tmp/newton" > /dev/null || fail "newton on the sphere"
"$ccb" --plugin "$pgs" run sphere --solver pgs --approx sap --pgs-tolerance 1e-12 \
  --out "$tmp/pgs-sap" > /dev/null || fail "pgs on SAP"
maxdiff() { # the largest |difference| of any state entry over two trajectories of equal length
  paste -d, "$1/trajectory.csv" "$2/trajectory.csv" | awk -F, '
    NR == 1 { n = NF / 2; next }
    { for (i = 2; i <= n; ++i) { d = $i - $(i + n); if (d < 0) d = -d; if (d > m) m = d } rows++ }
    END { if (rows < 100) exit 1; printf "%.3g\n", m }'
}
[ "$(wc -l < "$tmp/pgs/trajectory.csv")" = "$(wc -l < "$tmp/newton/trajectory.csv")" ] \
  || fail "trajectories of different lengths"
d=$(maxdiff "$tmp/pgs" "$tmp/newton") || fail "trajectories"
awk -v d="$d" 'BEGIN { exit !(d <= 1e-6) }' || fail "pgs and newton on Lagged differ by $d > 1e-6"
d2=$(maxdiff "$tmp/pgs-sap" "$tmp/newton") || fail "trajectories"
awk -v d="$d2" 'BEGIN { exit !(d > 1e-6) }' \
  || fail "the check cannot fail: pgs on SAP is within $d2 of newton on Lagged"
echo "plugin_test: pgs - newton on Lagged: $d (bound 1e-6); pgs on SAP - newton on Lagged: $d2"
ok
grep -q '"name":	"pgs"' "$tmp/pgs/meta.json" || fail "meta.json: solver.name"
grep -q '"pgs-tolerance":	1e-12' "$tmp/pgs/meta.json" || fail "meta.json: option.pgs-tolerance"
ok

# 3. every option is one descriptor: info, meta.json and the command line list the same names
"$ccb" --plugin "$pgs" run --help > "$tmp/run_help" || fail "run --help"
for s in newton tamsi ie rk3 gsl pgs; do
  "$ccb" --plugin "$pgs" info "$s" | awk '/^options/ {on = 1; next} on && /^  --/ {print substr($1, 3)} /^$/ {on = 0}' \
    | sort > "$tmp/info_$s"
  case $s in
    newton) args=();; pgs) args=(--solver pgs);; *) args=(--solver "$s");;
  esac
  "$ccb" --plugin "$pgs" run box "${args[@]}" --t-final 0.01 --dt 0.001 --out "$tmp/m_$s" > /dev/null \
    || fail "run box --solver $s"
  awk -F'"' '/^\t"option":/ {on = 1; next} on && /^\t}/ {on = 0} on {print $2}' \
    "$tmp/m_$s/meta.json" | sort > "$tmp/meta_$s"
  cmp -s "$tmp/info_$s" "$tmp/meta_$s" || fail "$s: ccb info lists $(tr '\n' ' ' < "$tmp/info_$s"), meta.json $(tr '\n' ' ' < "$tmp/meta_$s")"
  [ -s "$tmp/info_$s" ] || [ "$s" = rk3 ] || fail "$s lists no option"
  while read -r o; do # each is an option of `ccb run` (its --help lists it)
    grep -q -- "^  --$o\b" "$tmp/run_help" || fail "run --help lacks --$o"
  done < "$tmp/info_$s"
  ok
done

# 4. a study and its manifest: the lines load the plugin, and one of them reruns a pgs run
"$ccb" --plugin "$pgs" study sphere convergence --out "$tmp/st" --emit-manifest "$tmp/m.txt" \
  > "$tmp/st.out" || fail "study --emit-manifest with the plugin"
grep -q -- "--plugin $pgs run sphere --solver pgs" "$tmp/m.txt" \
  || fail "the manifest's pgs lines do not load the plugin: $(grep pgs "$tmp/m.txt" | head -1)"
grep -q -- "ccb --plugin $pgs study sphere convergence" "$tmp/st.out" \
  || fail "the follow-up command does not load the plugin: $(cat "$tmp/st.out")"
line=$(grep -- "--solver pgs" "$tmp/m.txt" | head -1)
bash -c "$line" > /dev/null || fail "a manifest line of the plugin failed: $line"
ok

# 5. compare: the plugin's variant beside a built-in one on two cases, its verdicts reported
"$ccb" --plugin "$pgs" compare --variants pgs,lagged --cases sphere,box --quick --no-figures \
  --out "$tmp/cmp" > "$tmp/cmp.out" 2>&1 || fail "compare with the plugin: $(tail -3 "$tmp/cmp.out")"
grep -q "^sphere,pgs," "$tmp/cmp/compare.csv" || fail "compare.csv has no pgs row"
grep -q "^box,pgs," "$tmp/cmp/compare.csv" || fail "compare.csv has no pgs row for box"
ok

# 6. an ODE method as a plugin (plugins/heun): a solver of `ccb run` and a variant of compare, as
# a registered solver is; compare's figures of an explicit method (no iterations, no kappa) are
# replaced by a line, not failed
heun=$(cd "$build/plugins" && pwd)/heun.so
"$ccb" --plugin "$heun" list > "$tmp/heunlist" || fail "list with the ODE-method plugin"
grep -q "^  heun " "$tmp/heunlist" || fail "heun is not listed as a variant"
"$ccb" --plugin "$heun" run box --solver heun --t-final 0.05 --out "$tmp/heun" > "$tmp/heun.out" \
  || fail "heun on the box: $(cat "$tmp/heun.out")"
"$ccb" --plugin "$heun" compare --variants heun,rk3 --cases box --quick --out "$tmp/cmph" \
  > "$tmp/cmph.out" 2>&1 || fail "compare with the ODE method: $(tail -3 "$tmp/cmph.out")"
grep -q "^box,heun," "$tmp/cmph/compare.csv" || fail "compare.csv has no heun row"
grep -q "no variant has a value to draw" "$tmp/cmph/compare.md" \
  || fail "compare.md does not say why the iteration figure is missing"
ok
# 7. an approximation as a plugin (plugins/toy.so, the toy of cases/tests/toy_variant.c): Newton
# on it is a variant of `ccb run` (--approx) and of compare, as a registered solver is
toy=$(cd "$build/plugins" && pwd)/toy.so
"$ccb" --plugin "$toy" list > "$tmp/toylist" || fail "list with the approximation plugin"
grep -q "^  toy-penalty " "$tmp/toylist" || fail "toy-penalty is not listed as a variant"
"$ccb" --plugin "$toy" run sphere --approx toy-penalty --out "$tmp/toy" > "$tmp/toy.out" \
  || fail "the toy approximation on the sphere: $(cat "$tmp/toy.out")"
"$ccb" --plugin "$toy" compare --variants toy-penalty,lagged --cases sphere --quick --no-figures \
  --out "$tmp/cmpt" > "$tmp/cmpt.out" 2>&1 || fail "compare with the approximation: $(tail -3 "$tmp/cmpt.out")"
grep -q "^sphere,toy-penalty," "$tmp/cmpt/compare.csv" || fail "compare.csv has no toy-penalty row"
ok

# 8. gate and bench with a plugin of each kind loaded: the plugins' variants join the studies that
# take every variant — the aniso case's quick tier runs the standard convergence study (pgs, heun
# and toy-penalty among the variants, on anisotropic contacts) and the gradients study
# (toy-penalty's step derivatives checked like the built-in approximations') in half a second,
# where the conveyor's full tier and the sphere's quick tier took 17 s of the suite — and every
# gate keeps its value to the byte (the gates read the built-in variants' metrics); bench times
# each kind's variant
for c in "aniso"; do
  d=$(echo "$c" | tr ' -' '__')
  "$ccb" gate $c --out "$tmp/g0_$d" > /dev/null 2>&1 || fail "the gates of $c without plugins"
  "$ccb" --plugin "$pgs" --plugin "$toy" --plugin "$heun" gate $c --out "$tmp/g3_$d" \
    > "$tmp/g3.out" 2>&1 || fail "the gates of $c with three plugins: $(tail -3 "$tmp/g3.out")"
  cs=${c%% *}
  cmp -s "$tmp/g0_$d/$cs/gates.csv" "$tmp/g3_$d/$cs/gates.csv" \
    || fail "a plugin moved a gate of $c: $(diff "$tmp/g0_$d/$cs/gates.csv" "$tmp/g3_$d/$cs/gates.csv" | head -4)"
done
for v in pgs toy-penalty heun; do
  grep -q "^$v," "$tmp/g3_aniso/aniso/convergence/runs.csv" \
    || fail "the aniso case's convergence study has no $v run"
done
grep -q "^toy-penalty," "$tmp/g3_aniso/aniso/gradients/gradients.csv" \
  || fail "the aniso case's gradients study has no toy-penalty row"
"$ccb" --plugin "$pgs" --plugin "$toy" --plugin "$heun" bench sphere \
  --variants pgs,toy-penalty,heun --repeat 1 > "$tmp/bench.out" 2>&1 \
  || fail "bench with three plugins: $(tail -3 "$tmp/bench.out")"
for v in pgs toy-penalty heun; do
  grep -q "$v" "$tmp/bench.out" || fail "bench does not report $v: $(cat "$tmp/bench.out")"
done
ok
echo "plugin_test: $n checks passed"
