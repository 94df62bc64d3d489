#!/usr/bin/env bash
# The fuzz tier (issue 44, part 2): every libFuzzer program (fuzz/CMakeLists.txt: the command line,
# --set, the gate files, --from's run directories, manifest lines, the diff's table reader and its
# comparison) built with clang, ASan and UBSan, and run for a short while from a copy of its
# committed corpus (fuzz/corpus/NAME; the copy is dropped, the tree is left as it was). A crash, a
# sanitizer report, a leak or a violated property (fuzz_diff's symmetry and self-comparison) fails
# the tier with the input libFuzzer wrote; `make test` replays the committed corpora
# (fuzz.replay.*). Usage: CI/fuzz.sh [SECONDS per target, default 20; fuzz_diff gets three times
# as long, being the newest]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
src=$PWD
if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz tier: clang is not installed (apt-get install clang)"
  exit 1
fi
dir=build-fuzz
work=$(mktemp -d "${TMPDIR:-/tmp}/ccb-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=()
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  gen=(-G Ninja)
fi
CC=clang cmake -S . -B "$dir" "${gen[@]}" -DCCB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=(options set gates from manifest diff)
cmake --build "$dir" -j 2 --target "${targets[@]/#/fuzz_}" >/dev/null
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  cp fuzz/corpus/"$t"/* "$work/$t/"
  n=$(ls "$work/$t" | wc -l)
  s=$secs
  [ "$t" = diff ] && s=$((3 * secs))
  log=$work/$t.log
  if ! (cd "$work" && CCB_SOURCE_DIR=$src "$src/$dir/fuzz/fuzz_$t" -max_total_time="$s" \
        -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work/$t" >"$log" 2>&1); then
    echo "fuzz_$t: FAILED after $(grep -c '' "$log") lines of output; the end of it:"
    grep -v '^#' "$log" | tail -40
    for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [ -e "$f" ] && { echo "input ($f):"; od -c "$f" | head -20; }
    done
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz_$t: ${s} s, ${runs:-?} inputs run from a corpus of $n, no finding"
done
