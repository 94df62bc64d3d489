#!/usr/bin/env bash
# The regression view (guide §10, docs/cases.md §15): `ccb diff`, baselines and the
# JUnit check, on the push case (the quickest, 1 s). Usage: diff_test.sh CCB.
#   - a tree against itself: an empty diff, exit 0; a rerun against its saved baseline: the same;
#   - one value of one run moved by 1e-3: exactly that run's observable listed, significant,
#     with the time it first departs, its overlaid figure, exit 1 (0 with --report-only);
#   - the same value moved within 3x a round-off spread measured beside it: listed, not
#     significant, exit 0; beyond it: significant;
#   - a verdict changed: listed first;
#   - bad input: exit 2 and nothing created; the JUnit check fails on an XML that lost a case.
set -euo pipefail
ccb=$1
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/ccb-diff.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "diff_test: $*"; exit 1; }
expect() { # expect RC cmd...
  local want=$1 rc=0
  shift
  "$@" >"$T/out" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { cat "$T/out"; fail "exit $rc (want $want): $*"; }
}
rows() { tail -n +2 "$1" | wc -l; }

expect 0 "$ccb" gate push --out "$T/a" --junit "$T/j/gate.push.xml" --save-baseline "$T/base"
grep -q '^baseline: ' "$T/out" || fail "no baseline line"
[ -f "$T/base/baseline.json" ] || fail "no baseline.json"
grep -q '"trajectories":[[:space:]]*false' "$T/base/baseline.json" || fail "baseline.json: trajectories"
[ -z "$(find "$T/base" -name trajectory.csv -o -name steps.csv -o -name times.csv)" ] \
  || fail "the baseline holds run files"
[ -f "$T/base/push/gates.csv" ] && [ -f "$T/base/push/ilqr/ilqr.csv" ] || fail "baseline tables"
echo "baseline: $(find "$T/base" -type f | wc -l) files, $(du -sk "$T/base" | cut -f1) kB"

# identical trees: empty
expect 0 "$ccb" diff "$T/a" "$T/a" --out "$T/d0"
[ "$(rows "$T/d0/diff.csv")" = 0 ] || fail "a tree against itself is not empty"
grep -q 'Nothing moved beyond round-off' "$T/d0/diff.md" || fail "diff.md of identical trees"
# a rerun against the baseline: deterministic, so empty
expect 0 "$ccb" gate push --out "$T/c" --baseline "$T/base"
[ "$(rows "$T/c/diff/diff.csv")" = 0 ] || { head "$T/c/diff/diff.csv"; fail "rerun != baseline"; }

# one value of one run moved by 1e-3 (row 10, column 3 of the SAP trajectory)
run=push/gradients/sap/trajectory.csv
perturb() { # perturb SRC DST FACTOR: DST = SRC with row 10, column 3 (ball.z) scaled
  awk -F, -v OFS=, -v f="$3" 'NR == 11 { $3 = sprintf("%.17g", $3 * f) } { print }' "$1" >"$2"
}
cp -r "$T/a" "$T/b"
perturb "$T/a/$run" "$T/b/$run" 1.001
t10=$(awk -F, 'NR == 11 { print $1 }' "$T/a/$run")
col=$(head -1 "$T/a/$run" | cut -d, -f3)
expect 1 "$ccb" diff "$T/a" "$T/b" --out "$T/d1"
[ "$(rows "$T/d1/diff.csv")" = 1 ] || { cat "$T/d1/diff.csv"; fail "not exactly one row"; }
line=$(tail -1 "$T/d1/diff.csv")
case $line in
  "trajectory,$run,$col,"*",1,first beyond round-off at t [s] = $t10 (row 10)"*) ;;
  *) fail "the moved run's row: $line" ;;
esac
[ -s "$T/d1/figures/push_gradients_sap_trajectory.png" ] || fail "no overlaid figure"
# its data: x, then A, B and B - A of the moved column; B - A nonzero in row 10 only
fd=$T/d1/figures/push_gradients_sap_trajectory.csv
[ "$(head -1 "$fd")" = "t [s],$col (A),$col (B),$col (B - A)" ] || fail "figure data header: $(head -1 "$fd")"
[ "$(awk -F, 'NR > 1 && $4 != 0 { print NR - 1 }' "$fd")" = 10 ] || fail "figure data: B - A not in row 10 only"
expect 0 "$ccb" diff "$T/a" "$T/b" --out "$T/d1r" --report-only --no-figures
cmp -s "$T/d1/diff.csv" "$T/d1r/diff.csv" || fail "--report-only changed the report"
[ ! -e "$T/d1r/figures" ] || fail "--no-figures drew figures"

# a round-off spread measured beside it (a perturbed copy of the run differing by 1e-6 relative):
# a change of 2e-6 relative is within 3 spreads, one of 1e-5 is not
mkdir -p "$T/a/sensitivity/cholmod/$(dirname $run)"
perturb "$T/a/$run" "$T/a/sensitivity/cholmod/$run" 1.000001
perturb "$T/a/$run" "$T/b/$run" 1.000002
# ... bound to the results it was measured beside, as a sensitivity run binds it (the digest of
# the nominal file in the perturbation's push.nominal.csv; without it the copy is no spread and
# the default rule, 1e-6 relative, finds the change)
expect 1 "$ccb" diff "$T/a" "$T/b" --out "$T/d2u" --no-figures
python3 - "$T/a" "$run" >"$T/a/sensitivity/cholmod/push.nominal.csv" <<'PY'
import sys
h = 1469598103934665603
for b in open(sys.argv[1] + "/" + sys.argv[2], "rb").read():
    h = ((h ^ b) * 1099511628211) % (1 << 64)
print("file,fnv1a64")
print(f"{sys.argv[2]},{h:016x}")
PY
perturb "$T/a/$run" "$T/b/$run" 1.000002
expect 0 "$ccb" diff "$T/a" "$T/b" --out "$T/d2"
[ "$(rows "$T/d2/diff.csv")" = 1 ] || fail "the change within the spread is not listed"
tail -1 "$T/d2/diff.csv" | grep -q ',0,"largest at' || fail "within the spread yet significant"
perturb "$T/a/$run" "$T/b/$run" 1.00001
expect 1 "$ccb" diff "$T/a" "$T/b" --out "$T/d3"
rm -rf "$T/a/sensitivity"

# a verdict changed: listed first
cp "$T/a/$run" "$T/b/$run"
sed -i 's/^\(PUSH-2-sap,.*\),PASS,quick$/\1,FAIL,quick/' "$T/b/push/gates.csv"
grep -q '^PUSH-2-sap,.*,FAIL,quick$' "$T/b/push/gates.csv" || fail "could not edit the gate"
expect 1 "$ccb" diff "$T/a" "$T/b" --out "$T/d4"
sed -n 2p "$T/d4/diff.csv" | grep -q '^verdict,push/gates.csv,PUSH-2-sap,' || fail "verdict not first"
grep -q 'VERDICT push PUSH-2-sap: PASS -> FAIL' "$T/out" || fail "verdict not on the terminal"

# a labelled table whose SAP rows shrank by one (its last iteration): rows are matched by their
# label and its occurrence, so only that row is reported and the other variants' rows, now at
# other positions, are not
cp "$T/a/push/gates.csv" "$T/b/push/gates.csv"
h=push/ilqr/history.csv
last=$(grep -n '^sap,' "$T/a/$h" | tail -1 | cut -d: -f1)
sed "${last}d" "$T/a/$h" >"$T/b/$h"
expect 1 "$ccb" diff "$T/a" "$T/b" --out "$T/d6" --no-figures
[ "$(tail -n +2 "$T/d6/diff.csv" | grep -vc '^file,push/ilqr/history.csv,')" = 0 ] \
  || { cat "$T/d6/diff.csv"; fail "a shrunk labelled table: values reported moved"; }
grep -q "row #$((last - 1)): variant=sap only in A" "$T/d6/diff.csv" || fail "the removed row is not named"
cp "$T/a/$h" "$T/b/$h"

# an empty tree before: every file of the other is new
mkdir "$T/empty"
expect 1 "$ccb" diff "$T/empty" "$T/a" --out "$T/d5" --no-figures
[ "$(rows "$T/d5/diff.csv")" = "$(cd "$T/a" && find . -name '*.csv' ! -name times.csv ! -name sensitivity.csv | wc -l)" ] \
  || fail "an empty tree against a full one: not one row per file"

# bad input: exit 2, nothing created
expect 2 "$ccb" diff "$T/a" "$T/none" --out "$T/e1"
[ ! -e "$T/e1" ] || fail "a refused diff created its output"
expect 2 "$ccb" diff "$T/a" --out "$T/e1"
expect 2 "$ccb" diff "$T/a" "$T/b" --diff-rtol -1 --out "$T/e1"
[ ! -e "$T/e1" ] || fail "a refused diff created its output"
expect 2 "$ccb" gate push --out "$T/e2" --baseline "$T/none"
[ ! -e "$T/e2" ] || fail "a refused gate run created its output"
expect 2 "$ccb" gate push --out "$T/e2" --with-trajectories
expect 2 "$ccb" gate push --out "$T/e2" --report-only
[ ! -e "$T/e2" ] || fail "a refused gate run created its output"
expect 2 "$ccb" gate push --out "$T/a" --save-baseline "$T/a/base"
[ ! -e "$T/a/base" ] || fail "a baseline inside the results was written"

# the JUnit check can fail: an XML that lost a test case
bash "$here/junit_check.sh" "$T/j" "$T/a" push >/dev/null || fail "junit_check on a good XML"
mkdir -p "$T/j2"
awk '/<testcase / && !done { skip = 1; done = 1 } !skip { print } /<\/testcase>/ { skip = 0 }' \
  "$T/j/gate.push.xml" >"$T/j2/gate.push.xml"
if bash "$here/junit_check.sh" "$T/j2" "$T/a" push >"$T/out" 2>&1; then
  fail "junit_check passed an XML without one of its test cases"
fi
grep -q 'test cases' "$T/out" || { cat "$T/out"; fail "junit_check's message"; }
echo "diff_test: all checks passed"
