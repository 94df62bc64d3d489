#!/usr/bin/env bash
# unit.harness: the unit-test harness fails fast (lib/tests/test.h). Runs the deliberately failing
# lib/tests/harness_selfcheck.c and checks: exit 1 after the first failure with one FAIL line;
# with CCB_TEST_KEEP_GOING=1, all 120 failures counted and at most 50 printed.
# Usage: CI/harness_check.sh /path/to/harness_selfcheck
set -u
prog=${1:?usage: harness_check.sh /path/to/harness_selfcheck}
out=$("$prog" 2>&1); rc=$?
n=$(grep -c '^FAIL failing (' <<<"$out")
if [ "$rc" -ne 1 ] || [ "$n" -ne 1 ] || ! grep -q 'stopped at the first failure (1 checks passed' <<<"$out"; then
  echo "FAIL: fail-fast: exit $rc, $n FAIL lines (expected 1, 1):"; head -c 2000 <<<"$out"; exit 1
fi
out=$(CCB_TEST_KEEP_GOING=1 "$prog" 2>&1); rc=$?
n=$(grep -c '^FAIL failing (' <<<"$out")
if [ "$rc" -ne 1 ] || [ "$n" -ne 50 ] || ! grep -q '1 checks passed, 120 failed' <<<"$out"; then
  echo "FAIL: keep-going: exit $rc, $n FAIL lines (expected 1, 50):"; head -c 2000 <<<"$out"; exit 1
fi
echo "harness_check: fail-fast and bounded keep-going output"
