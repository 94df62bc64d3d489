#!/usr/bin/env bash
# style.format (CTest): every C file of the repository is as .clang-format formats it
# (`clang-format --dry-run --Werror`), so a diff never mixes layout with code. The style is pinned
# to the clang-format of Debian 12 (version 14): another version formats some constructs
# differently, so with another one, or none, the test is skipped (exit 77) and says which.
# Usage: CI/format_test.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: format_test.sh SOURCE_DIR}
if ! command -v clang-format > /dev/null; then
  echo "format_test: SKIP: clang-format is not installed (Debian: apt-get install clang-format)"
  exit 77
fi
ver=$(clang-format --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
if [ "$ver" != 14 ]; then
  echo "format_test: SKIP: clang-format $ver; the style is pinned to clang-format 14 (Debian 12)"
  exit 77
fi
cd "$src" || exit 1
if [ -e .git ]; then
  mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^fuzz/corpus/')
else
  mapfile -t files < <(find . -path './build*' -prune -o -path ./fuzz/corpus -prune -o \
    \( -name '*.c' -o -name '*.h' \) -type f -print | sed 's|^\./||' | sort)
fi
[ "${#files[@]}" -gt 100 ] || { echo "format_test: FAIL: only ${#files[@]} C files found"; exit 1; }
# the check can fail: a misformatted copy of a file is reported
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'int  f( int x ){return x;}\n' > "$tmp/bad.c"
cp .clang-format "$tmp/"
if clang-format --dry-run --Werror "$tmp/bad.c" > /dev/null 2>&1; then
  echo "format_test: FAIL: a misformatted file passes the check"
  exit 1
fi
# one clang-format process for every file (a process per file costs ~0.15 s of start-up each on a
# slow machine: 194 files took 29 s there, one call 1.4 s); --dry-run --Werror names each
# misformatted file in its diagnostics ("FILE:LINE:COL: error: code should be clang-formatted")
clang-format --dry-run --Werror "${files[@]}" > "$tmp/out" 2>&1
rc=$?
mapfile -t badf < <(sed -n 's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: code should be clang-formatted.*/\1/p' "$tmp/out" | sort -u)
for f in "${badf[@]}"; do
  echo "not formatted: $f (clang-format -i $f)"
done
if [ "$rc" != 0 ] && [ "${#badf[@]}" = 0 ]; then
  echo "format_test: FAIL: clang-format exited $rc without naming a file: $(head -3 "$tmp/out")"
  exit 1
fi
echo "format_test: ${#files[@]} files, ${#badf[@]} not formatted"
[ "${#badf[@]}" = 0 ] && [ "$rc" = 0 ]
