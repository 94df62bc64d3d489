#!/usr/bin/env bash
# Memcheck on the unit tests and one run of every approximation (no leaks, no invalid accesses).
# Runnable locally; needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCB_WERROR=ON >/dev/null
cmake --build build -j "${JOBS:-2}"
vg="valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet"
for t in build/lib/tests/test_*; do
  echo "== $t"
  $vg "$t" >/dev/null
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for m in sap similar lagged lagged-reg; do
  echo "== ccb run conveyor --approx $m"
  CCB_SOURCE_DIR=$PWD $vg build/ccb run conveyor --approx "$m" --t-final 0.5 --out "$out/$m" >/dev/null
done
echo "== ccb run sphere / rod"
CCB_SOURCE_DIR=$PWD $vg build/ccb run sphere --out "$out/sphere" >/dev/null
CCB_SOURCE_DIR=$PWD $vg build/ccb run rod --dt 1e-5 --out "$out/rod" >/dev/null
echo "valgrind: clean"
