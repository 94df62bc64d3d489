#!/usr/bin/env bash
# The CI templates (CI/templates/*.yml, guide §10), tested as far as a machine
# without GitHub or GitLab can: usage templates_test.sh CCB.
#   - each parses as YAML (with Python's yaml module where installed; otherwise said and skipped)
#     and has the structure its CI system reads;
#   - the build-and-test command of each is exactly `make test`, and the JUnit files it publishes
#     are those make test writes (CI/ctest.cmake: build/junit/gate.CASE.xml);
#   - the ccb commands each runs, and the baseline command its header gives, run as written in a
#     scratch checkout layout (build/ccb, build/gate-results/quick, ccb-baseline/) on the push
#     case, and do what the template says: the baseline is made, the diff against it is empty.
set -euo pipefail
ccb=$1
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/ccb-tpl.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "templates_test: $*"; exit 1; }
gh=$here/templates/github-actions.yml gl=$here/templates/gitlab-ci.yml
[ -f "$gh" ] && [ -f "$gl" ] || fail "a template is missing"

if command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null; then
  python3 - "$gh" "$gl" <<'PY'
import sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))
steps = gh["jobs"]["gates"]["steps"]
runs = [s["run"] for s in steps if "run" in s]
assert "make test" in runs, runs
assert any(s.get("uses", "").startswith("actions/checkout") for s in steps)
junit = [s["with"]["report_paths"] for s in steps if "junit" in s.get("uses", "")]
assert junit == ["build/junit/gate.*.xml"], junit
gl = yaml.safe_load(open(sys.argv[2]))
job = gl["ccb-gates"]
assert job["script"] == ["make test"], job["script"]
assert job["artifacts"]["reports"]["junit"] == "build/junit/gate.*.xml"
print("templates_test: both templates parse as YAML with the expected structure")
PY
else
  echo "templates_test: no Python yaml module here: the YAML parse is skipped (the checks below run)"
fi

# the commands, as the templates write them
gh_runs=$(sed -n 's/^ *run: //p' "$gh")
gl_runs=$(sed -n 's/^    - //p' "$gl" | grep -v '^build/\(junit\|diff\|gate-results\)')
for runs in "$gh_runs" "$gl_runs"; do
  [ "$(echo "$runs" | grep -c '^make')" = 1 ] && echo "$runs" | grep -qx 'make test' \
    || fail "the build-and-test command is not exactly 'make test': $runs"
done
grep -q 'junit/gate\.${case}\.xml' "$here/ctest.cmake" || fail "make test writes no build/junit/gate.CASE.xml"
grep -q '^BUILD_DIR ?= build$' "$here/../Makefile" || fail "make test's build directory is not build/"

# run the ccb commands in a scratch layout: the baseline command of the header (on one case),
# make test's gate run of that case (as CI/ctest.cmake writes it), then each template's diff
base_cmd=$(sed -n 's/^#   \(build\/ccb gate .*--save-baseline ccb-baseline\)$/\1/p' "$gh" | head -1)
[ -n "$base_cmd" ] || fail "no baseline command in the header of $gh"
[ "$base_cmd" = "$(sed -n 's/^#   \(build\/ccb gate .*--save-baseline ccb-baseline\)$/\1/p' "$gl" | head -1)" ] \
  || fail "the two templates give different baseline commands"
mkdir -p "$T/build"
ln -s "$(cd "$(dirname "$ccb")" && pwd)/$(basename "$ccb")" "$T/build/ccb"
cd "$T"
eval "${base_cmd/gate /gate push }" >/dev/null || fail "the baseline command failed: $base_cmd"
[ -f ccb-baseline/baseline.json ] || fail "the baseline command made no baseline"
build/ccb gate push --tier quick --out build/gate-results/quick --jobs 2 \
  --junit build/junit/gate.push.xml >/dev/null || fail "the gate run of make test failed"
n=0
while IFS= read -r cmd; do
  case $cmd in build/ccb*) ;; *) continue ;; esac
  rm -rf build/diff
  eval "$cmd" >"$T/out" 2>&1 || { cat "$T/out"; fail "exit $? from: $cmd"; }
  [ -f build/diff/diff.md ] && [ -f build/diff/diff.csv ] || fail "no report from: $cmd"
  [ "$(tail -n +2 build/diff/diff.csv | wc -l)" = 0 ] || fail "the rerun differs from its baseline: $cmd"
  n=$((n + 1))
done < <(echo "$gh_runs"; echo "$gl_runs")
[ "$n" = 2 ] || fail "expected one ccb diff command per template, ran $n"
echo "templates_test: make test, the baseline command and both diff commands check out"
