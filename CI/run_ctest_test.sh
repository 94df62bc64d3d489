#!/usr/bin/env bash
# unit.verdict: the last lines of a failing `make test` (CI/run_ctest.sh) name each failed test,
# how it ended (a failure, or a timeout with its time against its guard) and the command that
# reruns it alone; a passing suite exits 0. Runs a tiny CTest project of its own. Also the slow
# machine's rehearsal (CI/loaded.sh, make test-loaded): the command's exit status passes through,
# and a signal stops the command and both CPU-bound processes at once.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $1"; fail=1; }
mkdir -p "$tmp/src"
cat >"$tmp/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(verdict NONE)
enable_testing()
add_test(NAME t.pass COMMAND true)
add_test(NAME t.fail COMMAND false)
add_test(NAME t.hang COMMAND sleep 30)
set_tests_properties(t.hang PROPERTIES TIMEOUT 1)
add_test(NAME t.skip COMMAND sh -c "exit 77")
set_tests_properties(t.skip PROPERTIES SKIP_RETURN_CODE 77)
CM
cmake -S "$tmp/src" -B "$tmp/b" >/dev/null 2>&1 || { echo "FAIL cannot configure the test project"; exit 1; }
bash "$here/run_ctest.sh" "$tmp/b" -j 2 >"$tmp/out" 2>&1
rc=$?
tail -8 "$tmp/out" >"$tmp/tail"
[ "$rc" -ne 0 ] || bad "a failing suite exited 0"
grep -q '^== make test FAILED' "$tmp/tail" || bad "no FAILED line at the end"
grep -q '^== t.fail: FAILED after' "$tmp/tail" || bad "the failed test is not named"
grep -q '^== t.hang: TIMED OUT after [0-9.]* s (its hang guard: 1 s' "$tmp/tail" \
  || bad "the timed-out test is not named with its time and guard"
grep -q "ctest -R '^t\\\\.fail\$' --output-on-failure" "$tmp/tail" || bad "no rerun command for t.fail"
grep -q 't.skip\|t.pass' "$tmp/tail" && bad "a skipped or passed test is listed as failed"
bash "$here/run_ctest.sh" "$tmp/b" -R 't\.(pass|skip)' >"$tmp/out2" 2>&1 || bad "a passing suite failed: $(tail -3 "$tmp/out2")"
grep -q 'FAILED' "$tmp/out2" && bad "a passing suite printed FAILED"
bash "$here/loaded.sh" sh -c 'exit 3' >/dev/null 2>&1
[ $? = 3 ] || bad "loaded.sh did not pass the command's exit status through"
bash "$here/loaded.sh" sleep 60 >"$tmp/ld" 2>&1 &
ld=$!
for _ in $(seq 50); do grep -q pids "$tmp/ld" && break; sleep 0.1; done
pids=$(sed -n 's/.*(pids \([0-9]*\) \([0-9]*\)).*/\1 \2/p' "$tmp/ld")
kill -TERM "$ld"
[ -n "$pids" ] || bad "loaded.sh did not name its processes"
alive() { for p in $pids; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
for _ in $(seq 30); do alive || break; sleep 0.1; done # within 3 s, not when the command ends
if alive; then
  bad "loaded.sh left its CPU-bound processes running 3 s after TERM"
  kill $pids "$ld" 2>/dev/null
fi
wait "$ld" 2>/dev/null
[ $fail = 0 ] && echo "verdict_test: the closing lines name the failed and timed-out tests with their rerun commands; loaded.sh passes the exit status and stops everything on a signal"
[ $fail = 0 ] || cat "$tmp/out"
exit $fail
