#!/bin/bash
# docs.tour: the README's five-minute tour runs as it stands. The block between
# `<!-- tour: begin -->` and `<!-- tour: end -->` is run line by line from a scratch directory
# where `build` is the build tree under test; every command must exit 0, and every path
# `tour/...` that the README names afterwards must exist. Usage: tour_test.sh BUILD_DIR SOURCE_DIR
set -u
build=${1:?usage: tour_test.sh BUILD_DIR SOURCE_DIR}
src=$(cd "${2:?usage: tour_test.sh BUILD_DIR SOURCE_DIR}" && pwd)
readme="$src/README.md"
fail=0
ok()  { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

block=$(sed -n '/^<!-- tour: begin -->$/,/^<!-- tour: end -->$/p' "$readme" | grep -v '^<!--\|^```')
[ -n "$block" ] || { echo "FAIL README.md has no tour block"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
ln -s "$(cd "$build" && pwd)" "$tmp/build"
n=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  out=$(cd "$tmp" && CCB_SOURCE_DIR="$src" bash -c "$line" 2>&1); rc=$?
  [ $rc -eq 0 ] && ok "exit 0: $line" || { bad "exit $rc: $line"; echo "$out" | tail -5; }
done <<< "$block"
[ $n -ge 5 ] && ok "the tour has $n commands" || bad "the tour has $n commands, 5 steps promised"

# every tour/... path the README names after the block exists
paths=$(sed -n '/^<!-- tour: end -->$/,/^## /p' "$readme" | grep -o 'tour/[A-Za-z0-9_./-]*' | sort -u)
[ -n "$paths" ] || bad "the README names no tour/ output"
for p in $paths; do
  [ -e "$tmp/$p" ] && ok "$p exists" || bad "the README names $p, the tour did not leave it"
done
# the files the README lists by name inside a step's directory (steps 1 and 2)
for f in run/trajectory.csv run/steps.csv run/times.csv run/meta.json gates/sphere/gates.csv \
         gates/sphere/report.md; do
  [ -f "$tmp/tour/$f" ] && ok "tour/$f exists" || bad "tour/$f is missing"
done
exit $fail
