#!/usr/bin/env bash
# Debug build with ASan + UBSan (no recover) and the whole CTest suite. Runnable locally.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCCB_SANITIZE=ON -DCCB_WERROR=ON
cmake --build build-asan -j "${JOBS:-2}"
cd build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "${JOBS:-2}"
