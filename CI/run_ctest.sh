#!/usr/bin/env bash
# The CTest suite as `make test`, `make test-full` and `make test-loaded` run it, with a verdict
# that says why in its last lines: when a test fails, the closing lines name each failed test, how
# it ended (failed, or timed out: its time against its hang guard), and the command that reruns it
# alone. CTest's own output is printed as it runs (and kept in BUILD_DIR/ctest.log).
#   bash CI/run_ctest.sh BUILD_DIR [CTEST ARGS...]
set -uo pipefail
bd=${1:?usage: run_ctest.sh BUILD_DIR [CTEST ARGS...]}
shift
[ -d "$bd" ] || { echo "run_ctest: no build directory $bd (make build first)"; exit 2; }
bd=$(cd "$bd" && pwd)
log=$bd/ctest.log
(cd "$bd" && ctest --output-on-failure "$@") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && exit 0

# Each failed test: CTest's result line "N/M Test #K: NAME ....***Failed  12.34 sec" (or
# ***Timeout, ***Exception, Not Run) and its guard from the test's TIMEOUT property.
guards=$(cd "$bd" && ctest --show-only=json-v1 2>/dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
for t in d.get("tests", []):
    to = [p["value"] for p in t.get("properties", []) if p["name"] == "TIMEOUT"]
    print(t["name"], ("%g" % float(to[0])) if to else "CTest default 1500")
' 2>/dev/null)
echo
echo "== make test FAILED (exit $rc of ctest; the whole output: $log)"
n=0
while IFS= read -r line; do
  name=$(sed -n 's/.*Test  *#[0-9]*: \([^ ]*\) .*/\1/p' <<<"$line")
  [ -n "$name" ] || continue
  n=$((n + 1))
  secs=$(sed -n 's/.* \([0-9.]*\) sec$/\1/p' <<<"$line")
  guard=$(awk -v t="$name" '$1 == t { $1 = ""; print substr($0, 2) }' <<<"$guards")
  case "$line" in
    *Timeout*) how="TIMED OUT after ${secs:-?} s (its hang guard: ${guard:-?} s; the test hung or the machine is far slower than any seen)" ;;
    *"Not Run"*) how="NOT RUN (its program is missing: did the build fail?)" ;;
    *Exception*) how="CRASHED after ${secs:-?} s (guard ${guard:-?} s)" ;;
    *) how="FAILED after ${secs:-?} s (guard ${guard:-?} s)" ;;
  esac
  echo "== $name: $how"
  echo "   rerun alone: (cd $bd && ctest -R '^${name//./\\.}\$' --output-on-failure)"
done < <(grep -E 'Test +#[0-9]+: .*(\*\*\*|Not Run)' "$log" | grep -v '\*\*\*Skipped')
[ "$n" -gt 0 ] || echo "== no test result line failed: CTest itself failed (see $log)"
exit "$rc"
