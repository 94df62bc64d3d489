#!/usr/bin/env bash
# The JUnit XML of `ccb gate --junit` against the gate tables it reports (guide §10;
# docs/cases.md §15): usage junit_check.sh JUNIT_DIR GATE_ROOT [CASE...]. For each case,
# JUNIT_DIR/gate.CASE.xml must validate against CI/junit.xsd (the schema CI systems read) and,
# parsed back by xmllint (libxml2), hold exactly one test case per row of GATE_ROOT/CASE/gates.csv
# with the same ids, failures = its FAIL + MISSING + XPASS + XDRIFT rows, skipped = its XFAIL +
# SKIP rows, and the counts its <testsuite> and <testsuites> elements declare. Exit 1 on any
# difference, with what differs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
jdir=$1 groot=$2
shift 2
command -v xmllint >/dev/null || { echo "junit_check: xmllint (Debian libxml2-utils) is needed"; exit 1; }
if [ $# -eq 0 ]; then
  set -- $(cd "$groot" && ls -d */ 2>/dev/null | tr -d /)
fi
bad=0 found=0
for c in "$@"; do
  x=$jdir/gate.$c.xml g=$groot/$c/gates.csv
  [ -f "$g" ] || continue
  found=$((found + 1))
  if [ ! -f "$x" ]; then echo "junit_check: $c: $x missing (gates.csv is there)"; bad=1; continue; fi
  err=$(xmllint --noout --schema "$here/junit.xsd" "$x" 2>&1) \
    || { echo "junit_check: $c: $x does not validate:"; echo "$err" | head -5; bad=1; continue; }
  # what gates.csv says (column 9: result)
  rows=$(tail -n +2 "$g" | wc -l)
  fails=$(tail -n +2 "$g" | awk -F, '{print $(NF-1)}' | grep -cE '^(FAIL|MISSING|XPASS|XDRIFT)$' || true)
  skips=$(tail -n +2 "$g" | awk -F, '{print $(NF-1)}' | grep -cE '^(XFAIL|SKIP)$' || true)
  # what the XML holds, parsed back
  n=$(xmllint --xpath 'count(//testcase)' "$x")
  nf=$(xmllint --xpath 'count(//testcase/failure)' "$x")
  ns=$(xmllint --xpath 'count(//testcase/skipped)' "$x")
  dt=$(xmllint --xpath 'string(/testsuites/testsuite/@tests)' "$x")
  df=$(xmllint --xpath 'string(/testsuites/testsuite/@failures)' "$x")
  ds=$(xmllint --xpath 'string(/testsuites/testsuite/@skipped)' "$x")
  tt=$(xmllint --xpath 'string(/testsuites/@tests)' "$x")
  for pair in "test cases:$n:$rows" "failures:$nf:$fails" "skipped:$ns:$skips" \
              "testsuite tests=:$dt:$rows" "testsuite failures=:$df:$fails" \
              "testsuite skipped=:$ds:$skips" "testsuites tests=:$tt:$rows"; do
    IFS=: read -r what got want <<<"$pair"
    [ "$got" = "$want" ] || { echo "junit_check: $c: $what $got in the XML, $want in gates.csv"; bad=1; }
  done
  ids_x=$(xmllint --xpath '//testcase/@name' "$x" | sed 's/ name="\([^"]*\)"/\1\n/g' | grep -v '^$' | sort)
  ids_g=$(tail -n +2 "$g" | cut -d, -f1 | sort)
  [ "$ids_x" = "$ids_g" ] || { echo "junit_check: $c: the test case names differ from the gate ids:";
                               diff <(echo "$ids_g") <(echo "$ids_x") | head -5; bad=1; }
  echo "junit_check: $c: $n test cases, $nf failures, $ns skipped = gates.csv"
done
[ "$found" -gt 0 ] || { echo "junit_check: no gate table under $groot"; exit 1; }
exit $bad
