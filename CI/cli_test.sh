#!/usr/bin/env bash
# Command-line contract of `ccb` (CTest, label unit): bad input gets a clear message and exit 2,
# nothing half-written is left behind, a solver failure gives exit 1 and is recorded as failed,
# and the same inputs give bit-identical trajectories.
# Usage: CI/cli_test.sh /path/to/ccb
set -u
CCB=${1:?usage: cli_test.sh /path/to/ccb}
CCB=$(cd "$(dirname "$CCB")" && pwd)/$(basename "$CCB") # absolute: some checks change directory
CCB_SOURCE_DIR=${CCB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
export CCB_SOURCE_DIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0

# The first failure ends the test (fail fast, bounded output: at most 2000 characters of the
# failing command's output are shown).
stop() {
  echo "cli_test: stopped at the first failure ($pass checks passed before it)"
  exit 1
}

# expect CODE PATTERN -- command...: exit code and a stderr/stdout pattern
expect() {
  local code=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ]; then
    echo "FAIL: '$*' exited $rc, expected $code; output: ${out:0:2000}"
    stop
  elif [ -n "$pattern" ] && ! grep -q -- "$pattern" <<<"$out"; then
    echo "FAIL: '$*' output lacks '$pattern': ${out:0:2000}"
    stop
  else
    pass=$((pass + 1))
  fi
}

# same_but_walls A B: two reports (markdown) equal but for the columns whose header names a wall time
same_but_walls() {
  python3 - "$1" "$2" <<'PY'
import sys
def masked(path):
    out, wall = [], set()
    for line in open(path):
        cells = line.rstrip("\n").split("|")
        if line.startswith("|") and not set(line.strip()) <= set("|-"):
            if any("wall" in c for c in cells):
                wall = {i for i, c in enumerate(cells) if "wall" in c}
            else:
                cells = ["*" if i in wall else c for i, c in enumerate(cells)]
        elif not line.startswith("|"):
            wall = set()
        out.append("|".join(cells))
    return out
sys.exit(0 if masked(sys.argv[1]) == masked(sys.argv[2]) else 1)
PY
}

# --- the optional parts' libraries are opened at first use, never linked (peers/peer_dl.h): a
# ccb that needs none of them starts without loading HDF5, MUMPS and the rest
if command -v readelf >/dev/null; then
  needed=$(readelf -d "$CCB" | grep -E 'NEEDED.*(mujoco|libode|Bullet|siconos|fclib|hdf5)')
  if [ -n "$needed" ]; then
    echo "FAIL: $CCB links an optional part's library: $needed"
    stop
  fi
  pass=$((pass + 1))
fi

# --- usage and input errors: exit 2 with a message ---------------------------------------------
expect 2 "usage"                 -- "$CCB"
expect 2 "unknown command"       -- "$CCB" frobnicate
expect 0 "commands"              -- "$CCB" --help
expect 0 "ccb "                  -- "$CCB" --version
# every run single-threaded (cli/main.c single_threaded_libraries): the program restarts itself
# with both limits when the environment lacks them, and keeps a user's own values
expect 0 "threads: OMP_THREAD_LIMIT=1 OPENBLAS_NUM_THREADS=1$" \
  -- env -u OMP_THREAD_LIMIT -u OPENBLAS_NUM_THREADS "$CCB" --version
expect 0 "threads: OMP_THREAD_LIMIT=3 OPENBLAS_NUM_THREADS=1$" \
  -- env -u OPENBLAS_NUM_THREADS OMP_THREAD_LIMIT=3 "$CCB" --version
expect 0 "threads: OMP_THREAD_LIMIT=1 OPENBLAS_NUM_THREADS=2$" \
  -- env -u OMP_THREAD_LIMIT OPENBLAS_NUM_THREADS=2 "$CCB" --version
expect 0 "conveyor"              -- "$CCB" list
expect 0 "valid range"           -- "$CCB" info conveyor
expect 0 "5/7"                   -- "$CCB" info sphere
expect 0 "ic_gap"                -- "$CCB" info rod
expect 2 "out of range"          -- "$CCB" run rod --set theta0=90 --out "$tmp/a"
# --peers: a scene no peer translates (the coin's hydroelastic meshes), or a build without a peer
expect 2 "peers: "                -- "$CCB" bench coin --peers --repeat 1
expect 2 "unknown variant 'mujoco-x'" -- "$CCB" run sphere --variant mujoco-x --out "$tmp/a"
expect 2 "exceed the radius"     -- "$CCB" run sphere --set z0=0.01 --out "$tmp/a"
expect 2 "stop-scale"            -- "$CCB" run rod --stop-scale nonsense --out "$tmp/a"
expect 2 "unknown case"          -- "$CCB" info nosuchcase
expect 2 "unknown case"          -- "$CCB" run nosuchcase
# ccb reproduce CASE...: every name is checked before anything runs or is written
expect 2 "unknown case 'nosuchcase'" -- "$CCB" reproduce conveyor nosuchcase --tier quick --out "$tmp/rq"
[ -e "$tmp/rq" ] && { echo "FAIL: a refused reproduce created $tmp/rq"; stop; }
expect 2 "unknown case '-'"      -- "$CCB" reproduce - --tier quick --out "$tmp/rq"
expect 0 "runs written"          -- "$CCB" reproduce push push --tier quick --emit-manifest "$tmp/rq.txt" --out "$tmp/rq"
grep -q -v " run push " "$tmp/rq.txt" && { echo "FAIL: reproduce push emitted another case's run"; stop; }
expect 2 "unknown parameter 'nosuch'" -- "$CCB" run conveyor --set nosuch=1 --out "$tmp/a"
expect 2 "out of range"          -- "$CCB" run conveyor --set mass=-1.5 --out "$tmp/a"
expect 2 "out of range"          -- "$CCB" run conveyor --set mu=-0.1 --out "$tmp/a"
expect 2 "finite"                -- "$CCB" run conveyor --set mu=nan --out "$tmp/a"
expect 2 "finite"                -- "$CCB" run conveyor --set k=inf --out "$tmp/a"
expect 2 "not a number"          -- "$CCB" run conveyor --set mu=abc --out "$tmp/a"
expect 2 "whole number"          -- "$CCB" run conveyor --set contacts=1.5 --out "$tmp/a"
expect 2 "name=value"            -- "$CCB" run conveyor --set mu --out "$tmp/a"
expect 2 "dt must be > 0"        -- "$CCB" run conveyor --dt 0 --out "$tmp/a"
expect 2 "dt must be > 0"        -- "$CCB" run conveyor --dt -0.01 --out "$tmp/a"
expect 2 "finite number"         -- "$CCB" run conveyor --dt abc --out "$tmp/a"
expect 2 "finite number"         -- "$CCB" run conveyor --dt nan --out "$tmp/a"
# one number grammar (ccb_parse_decimal) for options, --set and --from: decimal, whole text
expect 2 "in decimal"            -- "$CCB" run conveyor --dt 0x1p-7 --out "$tmp/a"
expect 2 "in decimal"            -- "$CCB" run conveyor --dt " 0.01" --out "$tmp/a"
expect 2 "not a number"          -- "$CCB" run conveyor --set mu=0x1 --out "$tmp/a"
expect 2 "not a number"          -- "$CCB" run conveyor --set "mu= 0.3" --out "$tmp/a"
expect 2 "expects a number in"   -- "$CCB" run conveyor --rtol " 1e-5" --out "$tmp/a"
expect 2 "whole number"          -- "$CCB" study conveyor fig3 --jobs " 2" --out "$tmp/a"
expect 2 "named twice"           -- "$CCB" gate push push --out "$tmp/a"
# every option given to a study reaches one of its runs, or is refused before anything is made
expect 2 "no run of box/fig4 reads it" -- "$CCB" study box fig4 --rtol 1e-6 --out "$tmp/a"
expect 2 "no run of box/fig4 reads it" -- "$CCB" study box fig4 --kappa --out "$tmp/a"
[ ! -e "$tmp/a" ] || { echo "FAIL: a refused study created $tmp/a"; stop; }
expect 2 "too many arguments"    -- "$CCB" gate $(printf 'push %.0s' $(seq 17)) --out "$tmp/a"
[ ! -e "$tmp/a" ] || { echo "FAIL: a refused command created $tmp/a"; stop; }
expect 2 "whole number"          -- "$CCB" run conveyor --dt 0.01 --t-final 0.015 --out "$tmp/a"
expect 2 "unknown approximation" -- "$CCB" run conveyor --approx tamsi --out "$tmp/a"
expect 2 "unknown option"        -- "$CCB" run conveyor --frobnicate
# getopt_long(3): flags take no value, misspellings get a suggestion, short options and options
# of another command are named as such, an option without a name is rejected
expect 2 "takes no value"        -- "$CCB" run conveyor --kappa=0 --out "$tmp/a"
expect 2 "takes no value"        -- "$CCB" run conveyor --solver ie --error-control=no --out "$tmp/a"
expect 2 "did you mean --approx" -- "$CCB" run conveyor --aprox sap --out "$tmp/a"
expect 2 "ambiguous option"      -- "$CCB" run conveyor --t 1 --out "$tmp/a"
expect 2 "options are long"      -- "$CCB" run conveyor -o "$tmp/a"
expect 2 "has no name"           -- "$CCB" run conveyor --=3 --out "$tmp/a"
expect 2 "does not apply"        -- "$CCB" run conveyor --peers --out "$tmp/a"
# every option is validated, whether or not it applies to the solver chosen
expect 2 "accuracy expects a number in (0, 0.5]" -- "$CCB" run conveyor --accuracy -5 --out "$tmp/a"
expect 2 "--gsl-tol expects a number in (0, 1]" -- "$CCB" run conveyor --gsl-tol 5 --out "$tmp/a"
expect 2 "--tals expects"        -- "$CCB" run conveyor --tals maybe --out "$tmp/a"
expect 2 "--friction expects"    -- "$CCB" run conveyor --friction sticky --out "$tmp/a"
# a valid option that the run's one solver would ignore is an error, not silently dropped
expect 2 "--h applies to --solver ie, rk3 and gsl only; this run (tamsi)" \
                                 -- "$CCB" run box --solver tamsi --h 1e-5 --out "$tmp/a"
expect 2 "--accuracy applies to --solver newton and ie only; this run (rk3)" -- "$CCB" run box --solver rk3 --accuracy 0.01 --out "$tmp/a"
expect 2 "--error-control applies to --solver newton and ie only; this run (tamsi)" \
                                 -- "$CCB" run box --solver tamsi --error-control --out "$tmp/a"
expect 2 "--error-control applies to --solver newton and ie only; this run (rk3)" \
                                 -- "$CCB" run box --solver rk3 --error-control --out "$tmp/a"
expect 2 "--rtol applies to --solver newton only" -- "$CCB" run box --solver gsl --rtol 1e-6 --out "$tmp/a"
expect 2 "--coupling applies to --solver tamsi only" -- "$CCB" run box --coupling one-way --out "$tmp/a"
# issue 25: options that a run would ignore, one table of which runs read which option
expect 2 "--approx applies to --solver newton" -- "$CCB" run box --approx sap --solver tamsi --out "$tmp/a"
expect 2 "--delassus applies to --solver newton" -- "$CCB" run box --solver tamsi --delassus full --out "$tmp/a"
expect 2 "--accuracy applies to --solver newton with --error-control only" \
  -- "$CCB" run box --accuracy 1e-3 --out "$tmp/a"
expect 2 "--max-iterations applies to --solver newton, tamsi and ie only; this run (rk3)" \
  -- "$CCB" run box --solver rk3 --max-iterations 5 --out "$tmp/a"
expect 2 "--estimator applies to --solver ie with --error-control only" -- "$CCB" run box --solver ie --estimator doubling --out "$tmp/a"
expect 2 "--export-steps expects positive step numbers separated by commas (got an empty list)" \
  -- "$CCB" run box --export-steps "" --out "$tmp/a"
expect 2 "error control of the convex step is not offered for sap" -- "$CCB" run box --approx sap --error-control --out "$tmp/a"
expect 2 "error control of the convex step is not offered for similar" -- "$CCB" run box --approx similar --error-control --out "$tmp/a"
[ ! -e "$tmp/a" ] || { echo "FAIL: a refused run created $tmp/a"; stop; }
# compare: its help prints a percent sign once; a case named twice is refused; compare.csv holds
# no literal nan (an interval that does not exist is an empty field)
"$CCB" compare --help | grep -q "95 % interval" || { echo "FAIL: compare --help: no '95 % interval'"; stop; }
expect 2 "conveyor is named twice" -- "$CCB" compare --cases conveyor,conveyor --out "$tmp/cmp2"
[ ! -e "$tmp/cmp2" ] || { echo "FAIL: a refused compare created its output"; stop; }
expect 0 "" -- "$CCB" compare --quick --cases sphere --variants lagged,sap --no-figures --out "$tmp/cmp"
! grep -qi "nan" "$tmp/cmp/compare.csv" || { echo "FAIL: compare.csv holds nan: $(grep -i nan "$tmp/cmp/compare.csv" | head -1)"; stop; }
# a run failing at its first step: the iterations are those of the step attempted
expect 1 "Newton iterations mean [0-9.]* max [0-9]* over 1 step attempted" \
  -- "$CCB" run conveyor --approx similar --max-iterations 1 --rtol 1e-12 --t-final 0.01 --out "$tmp/it"
# --dt below error control's h_min is a fixed-step run's business only: it runs
expect 0 "1/1 steps" -- "$CCB" run sphere --dt 1e-10 --t-final 1e-10 --out "$tmp/dt"
expect 2 "below the smallest step h_min" -- "$CCB" run box --solver ie --error-control --h 1e-12 --out "$tmp/a"
[ ! -e "$tmp/a" ] || { echo "FAIL: rejected options created $tmp/a"; stop; }
# output that cannot be written is an error, not a success
if [ -w /dev/full ]; then
  expect 2 "cannot write to standard output" -- sh -c "\"$CCB\" list > /dev/full"
  expect 2 "cannot write to standard output" -- sh -c "\"$CCB\" run --help > /dev/full"
fi
expect 2 "needs a value"         -- "$CCB" run conveyor --dt
expect 2 "rtol"                  -- "$CCB" run conveyor --rtol 2 --out "$tmp/a"
expect 2 "unknown study"         -- "$CCB" study conveyor nosuch --out "$tmp/s"
expect 2 "jobs"                  -- "$CCB" study conveyor fig3 --jobs 0 --out "$tmp/s"
expect 2 "unknown case"          -- "$CCB" gate nosuchcase --out "$tmp/g"
expect 0 "RK3 reference"         -- "$CCB" info box
expect 0 "solver defaults"       -- "$CCB" info box
expect 2 "--solver expects one of newton, tamsi, ie, rk3, gsl" -- "$CCB" run box --solver sap --out "$tmp/a"
expect 2 "--coupling expects"    -- "$CCB" run box --solver tamsi --coupling both --out "$tmp/a"
expect 2 "--friction expects"    -- "$CCB" run box --solver tamsi --friction coulomb --out "$tmp/a"
expect 2 "--tals expects"        -- "$CCB" run box --solver ie --tals maybe --out "$tmp/a"
expect 2 "accuracy expects a number in (0, 0.5]" -- "$CCB" run box --solver ie --accuracy 2 --out "$tmp/a"
expect 2 "accuracy expects a number in (0, 0.5]" -- "$CCB" run box --solver ie --accuracy -1 --out "$tmp/a"
expect 2 "--h expects a number in" -- "$CCB" run box --solver ie --h -1 --out "$tmp/a"
expect 2 "whole number of fixed" -- "$CCB" run box --solver ie --h 3e-4 --out "$tmp/a"
expect 2 "out of range"          -- "$CCB" run box --set friction=7 --out "$tmp/a"
expect 2 "out of range"          -- "$CCB" run box --set a_fixed=0 --out "$tmp/a"
expect 0 "through its 26 spheres" -- "$CCB" info clutter
expect 2 "out of range"          -- "$CCB" run clutter --set side=0 --out "$tmp/a"
expect 2 "whole number"          -- "$CCB" run clutter --set levels=2.5 --out "$tmp/a"
expect 2 "out of range"          -- "$CCB" run clutter --set k=-1 --out "$tmp/a"
expect 0 "fan of 152 triangles"  -- "$CCB" info coin
expect 2 "below the diameter"    -- "$CCB" run coin --set thickness=0.05 --out "$tmp/a"
expect 2 "out of range"          -- "$CCB" run coin --set fan_n=2 --out "$tmp/a"
expect 2 "whole number"          -- "$CCB" run coin --set rings=2.5 --out "$tmp/a"
expect 2 "must not exceed"       -- "$CCB" run coin --set com_height=0.01 --out "$tmp/a"
if [ -e "$tmp/a" ]; then
  echo "FAIL: rejected runs created $tmp/a"
  stop
fi

# --- gate tiers and gate files: bad input is rejected before anything runs or is written ---------
expect 2 "--tier expects quick or full" -- "$CCB" gate conveyor --tier medium --out "$tmp/g"
expect 2 "unknown case 'nosuchcase'" -- "$CCB" gate conveyor nosuchcase --out "$tmp/g"
[ -e "$tmp/g" ] && { echo "FAIL: a rejected gate command created $tmp/g"; stop; }
expect 0 "COIN-2-q *quick" -- "$CCB" info coin
expect 0 "BOX-2a *both" -- "$CCB" info box
# a broken gate file (copy of the source tree's reference/ with one defect each) is an input
# error naming the defect, before any study runs
src="$tmp/src"
mkdir -p "$src/reference"
defects=('d["gates"] = []|no gates'
         'g[1]["id"] = g[0]["id"]|duplicate gate id'
         'g[0]["value"] = "__1e400__"|bound must be finite'
         'del g[0]["tier"]|needs a non-empty string "tier"'
         'g[0]["tier"] = "nightly"|"tier" must be "quick", "full" or "both"'
         'del g[0]["basis"]|needs a non-empty string "basis"'
         'g[0]["op"] = "=="|op must be'
         '[x.pop("xfail_value") for x in g if x.get("expect")]|needs "xfail_value"'
         # an expected failure whose value drifts beyond its stated spread fails the gate (XDRIFT)
         '[x.update(xfail_value=x["xfail_value"] * 1.01) for x in g if x.get("expect")]|XDRIFT')
if command -v python3 >/dev/null; then
  # one Python process writes every broken copy, $tmp/badK/reference/conveyor.json for defect K
  # (a Python start takes 0.3 s on the development machine)
  python3 - "$CCB_SOURCE_DIR/reference/conveyor.json" "$tmp/bad" "${defects[@]%%|*}" <<'PY'
import copy, json, os, sys
base = json.load(open(sys.argv[1]))
for k, expr in enumerate(sys.argv[3:]):
    d = copy.deepcopy(base); g = d["gates"]
    exec(expr)
    os.makedirs(f"{sys.argv[2]}{k}/reference")
    open(f"{sys.argv[2]}{k}/reference/conveyor.json", "w").write(json.dumps(d).replace('"__1e400__"', "1e400"))
PY
  last=$((${#defects[@]} - 1))
  for k in $(seq 0 $((last - 1))); do
    expect 2 "${defects[$k]#*|}" -- env CCB_SOURCE_DIR="$tmp/bad$k" "$CCB" gate conveyor --out "$tmp/g"
  done
  [ -e "$tmp/g" ] && { echo "FAIL: a rejected gate file let ccb gate write $tmp/g"; stop; }
  expect 1 "XDRIFT" -- env CCB_SOURCE_DIR="$tmp/bad$last" "$CCB" gate conveyor --tier quick --out "$tmp/gd"
fi
rm -f "$src/reference/conveyor.json" && mkdir "$src/reference/conveyor.json"
expect 2 "not a regular file" -- env CCB_SOURCE_DIR="$src" "$CCB" gate conveyor --out "$tmp/g"
# ccb info says where each gate runs: the clutter's k = 1e13 sweep only in the full tier
expect 0 "CLU-6.sap *full" -- "$CCB" info clutter

# --- unwritable output: exit 2, nothing written --------------------------------------------------
echo x >"$tmp/plainfile"
expect 2 "cannot create directory" -- "$CCB" run conveyor --out "$tmp/plainfile/run"
expect 2 "cannot create directory" -- "$CCB" study conveyor fig3 --no-figures --out "$tmp/plainfile/res"
mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then # root ignores directory permissions
  expect 2 "" -- "$CCB" run conveyor --out "$tmp/ro/run"
fi
expect 2 "cannot create directory" -- "$CCB" run conveyor --out /proc/ccb-cannot-exist/run

# --- a good run: files complete, status ok -------------------------------------------------------
expect 0 "status ok" -- "$CCB" run conveyor --approx lagged --out "$tmp/ok"
for f in trajectory.csv steps.csv times.csv meta.json; do
  [ -s "$tmp/ok/$f" ] || { echo "FAIL: missing $f"; stop; }
done
grep -q '"status":[[:space:]]*"ok"' "$tmp/ok/meta.json" || { echo "FAIL: meta status"; stop; }
[ "$(wc -l <"$tmp/ok/trajectory.csv")" -eq 201 ] || { echo "FAIL: 200 rows + header expected"; stop; }
head -1 "$tmp/ok/trajectory.csv" | grep -q '^t \[s\],box.x \[m\]' || { echo "FAIL: header units"; stop; }
# wall times only in times.csv (steps.csv holds results alone), and the format says so
head -1 "$tmp/ok/steps.csv" | grep -q 'time' && { echo "FAIL: steps.csv has wall-time columns"; stop; }
head -1 "$tmp/ok/times.csv" | grep -q '^step,time_geometry \[s\],time_problem \[s\],time_solve \[s\],time_assemble' \
  || { echo "FAIL: times.csv header: $(head -1 "$tmp/ok/times.csv")"; stop; }
[ "$(wc -l <"$tmp/ok/times.csv")" -eq "$(wc -l <"$tmp/ok/steps.csv")" ] || { echo "FAIL: times.csv rows"; stop; }
grep -q '"format_version":[[:space:]]*2' "$tmp/ok/meta.json" || { echo "FAIL: format_version 2"; stop; }
# physics metrics (formulation-convex §14): per run in meta.json, per step on request
grep -q '"physics":' "$tmp/ok/meta.json" && grep -q '"complementarity":' "$tmp/ok/meta.json" \
  || { echo "FAIL: physics metrics in meta.json"; stop; }
[ ! -e "$tmp/ok/physics.csv" ] || { echo "FAIL: physics.csv written without --physics"; stop; }
expect 0 "status ok" -- "$CCB" run conveyor --approx sap --physics --t-final 0.5 --out "$tmp/ph"
head -1 "$tmp/ph/physics.csv" | grep -q '^step,momentum_residual,signorini \[N s m\],cone_violation \[N s\],dissipation_gap \[J\],complementarity \[J\]$' \
  || { echo "FAIL: physics.csv header"; stop; }
[ "$(wc -l <"$tmp/ph/physics.csv")" -eq 51 ] || { echo "FAIL: physics.csv: a row per step"; stop; }
# SAP's impulse is a projection on the cone: the cone column is 0 in every step
[ "$(tail -n +2 "$tmp/ph/physics.csv" | cut -d, -f4 | sort -u)" = "0" ] \
  || { echo "FAIL: SAP outside its friction cone"; stop; }
if ls "$tmp/ok" | grep -q tmp; then
  echo "FAIL: temporary files left in $tmp/ok"
  stop
fi

# --- figures: a path cannot reach gnuplot as code; a figure that cannot be drawn is an error -----
# a quote in --out is data (issue 25: every path reaches gnuplot through one quoting function)
expect 0 "written under" -- "$CCB" study conveyor fig3 --out "$tmp/x'); system('touch $tmp/pwned"
[ ! -e "$tmp/pwned" ] || { echo "FAIL: a quote in --out ran gnuplot code"; stop; }
[ -s "$tmp/x'); system('touch $tmp/pwned/conveyor/fig3.png" ] || { echo "FAIL: no figure under a quoted --out"; stop; }
expect 2 "the path has a control character" -- "$CCB" study conveyor fig3 --out "$tmp/a
b"
expect 2 "could not be drawn"    -- env PATH=/nonexistent "$CCB" study conveyor fig3 --out "$tmp/nognuplot"
expect 0 ""                      -- env PATH=/nonexistent "$CCB" study conveyor fig3 --no-figures --out "$tmp/nognuplot"
expect 2 "not a number"          -- "$CCB" study conveyor fig3 --set mu=abc --out "$tmp/nd"
[ ! -e "$tmp/nd" ] || { echo "FAIL: a rejected study created its output directory"; stop; }

# a value that does not exist for the parameters is an empty field, never "nan" (the rigid rod
# has no Painleve singularity at mu = 1)
expect 0 "no rigid singularity\|rigid.t_singular" -- "$CCB" study rod rigid --set mu=1 --no-figures --out "$tmp/rr"
grep -qi nan "$tmp/rr/rod/rigid/rigid.csv" && { echo "FAIL: rigid.csv holds nan"; stop; }

# --- work limits: a run that cannot make progress ends, as a failure, with the limit named ------
for sv in "--solver ie" "--solver ie --error-control" "--solver gsl"; do
  rm -rf "$tmp/lim"
  # shellcheck disable=SC2086
  expect 1 "work limit\|h_min" -- timeout 60 "$CCB" run sphere $sv --set vs=1e-300 --out "$tmp/lim"
  grep -q '"status":[[:space:]]*"work limit reached"' "$tmp/lim/meta.json" \
    || { echo "FAIL: $sv: the limit is not recorded in meta.json"; stop; }
done

# --- signals and file modes --------------------------------------------------------------------
# SIGTERM/SIGINT during a run: the process dies of the signal and leaves no temporary file
# and no directory it created (issue 25: an empty run directory was left)
for sig in TERM INT; do
  rm -rf "$tmp/sig"
  "$CCB" run clutter --out "$tmp/sig/a/b" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 50); do ls "$tmp/sig/a/b"/*.tmp.* >/dev/null 2>&1 && break; sleep 0.1; done
  kill -"$sig" "$pid"
  rc=0; wait "$pid" || rc=$?
  [ "$rc" -ge 128 ] || { echo "FAIL: SIG$sig: exit $rc, expected death by the signal"; stop; }
  if [ -e "$tmp/sig" ]; then
    echo "FAIL: SIG$sig left $(find "$tmp/sig")"; stop
  fi
  pass=$((pass + 1))
done
# result files follow the umask (not mkstemp's 0600)
( umask 027 && "$CCB" run conveyor --t-final 0.05 --out "$tmp/um" >/dev/null 2>&1 )
[ "$(stat -c %a "$tmp/um/trajectory.csv")" = 640 ] && [ "$(stat -c %a "$tmp/um/meta.json")" = 640 ] \
  || { echo "FAIL: umask 027 gave modes $(stat -c %a "$tmp/um"/*)"; stop; }
pass=$((pass + 1))

# --- a solver failure: exit 1, recorded as failed, never as success ------------------------------
expect 1 "did not converge" -- "$CCB" run conveyor --approx similar --max-iterations 1 --rtol 1e-12 --out "$tmp/fail"
grep -q '"status":[[:space:]]*"failed"' "$tmp/fail/meta.json" || { echo "FAIL: failed run not recorded as failed"; stop; }
# numerical breakdown from in-range parameters is a solver failure (exit 1, a failed record
# naming the step and the quantity), not bad input (exit 2, nothing written)
for a in "--approx sap --set sigma=1e-300" "--set vs=1e-300" "--set mass=1e-300"; do
  rm -rf "$tmp/brk"
  # shellcheck disable=SC2086
  expect 1 "solver failure at step 1" -- "$CCB" run conveyor $a --out "$tmp/brk"
  grep -q '"status":[[:space:]]*"failed"' "$tmp/brk/meta.json" && grep -q '"step":[[:space:]]*1' "$tmp/brk/meta.json" \
    || { echo "FAIL: breakdown ($a) not recorded as a failure at step 1"; stop; }
done

# --- every solver runs through the same command; a TAMSI failure is a failure ----------------------
for sv in "--solver tamsi" "--solver tamsi --coupling one-way" "--solver ie" \
          "--solver ie --jacobian quasi --tals on" "--solver ie --error-control --accuracy 1e-3" \
          "--solver rk3 --h 1e-5" "--solver gsl"; do
  # shellcheck disable=SC2086
  expect 0 "status ok" -- "$CCB" run box $sv --t-final 0.5 --out "$tmp/sv"
done
grep -q '"work.f_evaluations"\|"f_evaluations"' "$tmp/sv/meta.json" || { echo "FAIL: ODE work not in meta.json"; stop; }
expect 1 "TAMSI failed with 1..20 substeps" -- "$CCB" run box --solver tamsi --tals off --dt 0.01 --t-final 1 --out "$tmp/tf"
grep -q '"status":[[:space:]]*"failed"' "$tmp/tf/meta.json" || { echo "FAIL: TAMSI failure not recorded"; stop; }

# --- determinism: identical inputs, bit-identical trajectories and step statistics ----------------
# (wall times live in times.csv, the only data file that may differ)
same_run() { cmp -s "$1/trajectory.csv" "$2/trajectory.csv" && cmp -s "$1/steps.csv" "$2/steps.csv"; }
for m in sap similar lagged lagged-reg; do
  "$CCB" run conveyor --approx "$m" --out "$tmp/d1_$m" >/dev/null 2>&1
  "$CCB" run conveyor --approx "$m" --out "$tmp/d2_$m" >/dev/null 2>&1
  if ! same_run "$tmp/d1_$m" "$tmp/d2_$m"; then
    echo "FAIL: $m trajectories differ between identical runs"
    stop
  else
    pass=$((pass + 1))
  fi
done
for sv in "--solver tamsi" "--solver ie --tals on --jacobian quasi" "--solver ie --error-control"; do
  # shellcheck disable=SC2086
  "$CCB" run box $sv --out "$tmp/e1" >/dev/null 2>&1
  # shellcheck disable=SC2086
  "$CCB" run box $sv --out "$tmp/e2" >/dev/null 2>&1
  if same_run "$tmp/e1" "$tmp/e2"; then
    pass=$((pass + 1))
  else
    echo "FAIL: box $sv trajectories differ between identical runs"
    stop
  fi
done
# 3-D free bodies through the broad phase and CHOLMOD: bit-identical too
"$CCB" run clutter --t-final 0.3 --out "$tmp/c1" >/dev/null 2>&1
"$CCB" run clutter --t-final 0.3 --out "$tmp/c2" >/dev/null 2>&1
if [ -s "$tmp/c1/trajectory.csv" ] && same_run "$tmp/c1" "$tmp/c2"; then
  pass=$((pass + 1))
else
  echo "FAIL: clutter trajectories missing or different between identical runs"
  stop
fi
# hydroelastic faces (slice of a tetrahedral mesh): bit-identical too, also with triangles
for rp in "repr=0" "repr=1" "compliant=1"; do
  "$CCB" run coin --set $rp --t-final 0.02 --out "$tmp/h1" >/dev/null 2>&1
  "$CCB" run coin --set $rp --t-final 0.02 --out "$tmp/h2" >/dev/null 2>&1
  if [ -s "$tmp/h1/trajectory.csv" ] && same_run "$tmp/h1" "$tmp/h2"; then
    pass=$((pass + 1))
  else
    echo "FAIL: coin ($rp) trajectories missing or different between identical runs"
    stop
  fi
done
# studies give the same data whatever the number of parallel jobs
"$CCB" study conveyor fig3 --no-figures --out "$tmp/j1" --jobs 1 >/dev/null 2>&1
"$CCB" study conveyor fig3 --no-figures --out "$tmp/j2" --jobs 2 >/dev/null 2>&1
for m in sap similar lagged; do
  cmp -s "$tmp/j1/conveyor/fig3/${m}_dt0.01/trajectory.csv" "$tmp/j2/conveyor/fig3/${m}_dt0.01/trajectory.csv" \
    || { echo "FAIL: --jobs changes the $m data"; stop; }
done
# a declared study's tidy table: one row per run (variant, label, dt, status, steps, parameters,
# the study's columns, work and conditioning), equal whatever --jobs but for the wall time
t1="$tmp/j1/conveyor/fig3/table.csv" t2="$tmp/j2/conveyor/fig3/table.csv"
head -1 "$t1" | grep -q '^variant,label,dt \[s\],status,steps,parameters,.*,mean_newton_iterations,max_newton_iterations,mean_line_search,max_line_search,factorizations,f_evaluations,mean_kappa,max_kappa,failed,wall_time \[s\]$' \
  || { echo "FAIL: fig3's table.csv header: $(head -1 "$t1")"; stop; }
[ "$(tail -n +2 "$t1" | cut -d, -f1 | tr '\n' ' ')" = "sap similar lagged " ] \
  || { echo "FAIL: fig3's table.csv rows: $(cut -d, -f1 "$t1" | tr '\n' ' ')"; stop; }
cmp -s <(rev "$t1" | cut -d, -f2- | rev) <(rev "$t2" | cut -d, -f2- | rev) \
  || { echo "FAIL: fig3's table.csv depends on --jobs"; stop; }
pass=$((pass + 1))
# a reproduction of two cases: one after the other (--jobs 1) or each in a process of its own
# (--jobs 2; testing §1): the same report, gate table and data but for wall times
for j in 1 2; do
  "$CCB" reproduce push conveyor --tier quick --no-figures --jobs $j --out "$tmp/r$j" >"$tmp/r$j.out" 2>/dev/null \
    || { echo "FAIL: reproduce push conveyor --jobs $j: exit $?"; stop; }
done
cmp -s <(grep -v -i 'wall\|^report: ' "$tmp/r1.out") <(grep -v -i 'wall\|^report: ' "$tmp/r2.out") \
  || { echo "FAIL: reproduce --jobs 2 prints otherwise: $(diff "$tmp/r1.out" "$tmp/r2.out" | head -4)"; stop; }
same_but_walls "$tmp/r1/README.md" "$tmp/r2/README.md" \
  || { echo "FAIL: reproduce --jobs 2 reports otherwise: $(diff "$tmp/r1/README.md" "$tmp/r2/README.md" | head -4)"; stop; }
for f in $(cd "$tmp/r1" && find . -name trajectory.csv -o -name steps.csv -o -name gates.csv | sort); do
  cmp -s "$tmp/r1/$f" "$tmp/r2/$f" || { echo "FAIL: reproduce --jobs 2 changes $f"; stop; }
done
pass=$((pass + 1))
# a case whose process fails (a regular file where a study's directory goes): its message, exit
# 2, and no README.md of a reproduction that did not finish; a regular file where a case's own
# directory goes is refused before anything runs (its tree is locked first)
mkdir -p "$tmp/rf/push" && : >"$tmp/rf/push/ilqr"
expect 2 "output directory '$tmp/rf/push/ilqr' is not a writable directory" -- \
  "$CCB" reproduce push --tier quick --no-figures --jobs 2 --out "$tmp/rf"
[ -e "$tmp/rf/README.md" ] && { echo "FAIL: a failed reproduction wrote README.md"; stop; }
mkdir -p "$tmp/rf2" && : >"$tmp/rf2/push"
expect 2 "output directory '$tmp/rf2/push' is not a writable directory" -- \
  "$CCB" reproduce push conveyor --tier quick --no-figures --jobs 2 --out "$tmp/rf2"
[ -e "$tmp/rf2/conveyor/fig3" ] && { echo "FAIL: a refused reproduction ran a case"; stop; }

# identical runs of a case execute once: in the conveyor's gate the runs at dt = 0.01 of the
# convergence sweep of fig4 are fig3's runs (same configuration), copied with their provenance;
# they equal the runs of fig4 alone (trajectory and step statistics, byte for byte)
"$CCB" gate conveyor --out "$tmp/gc" >/dev/null 2>&1
"$CCB" study conveyor fig4 --no-figures --out "$tmp/gs" >/dev/null 2>&1
for m in sap similar lagged; do
  a="$tmp/gc/conveyor/fig4/paper-${m}_dt0.01" b="$tmp/gs/conveyor/fig4/paper-${m}_dt0.01"
  grep -q "\"reused_from\":[[:space:]]*\"conveyor/fig3/${m}_dt0.01\"" "$a/meta.json" \
    || { echo "FAIL: $a is not marked as fig3's run"; stop; }
  grep -q "\"reused_from\"" "$b/meta.json" && { echo "FAIL: $b ran alone yet is marked reused"; stop; }
  cmp -s "$a/trajectory.csv" "$b/trajectory.csv" \
    || { echo "FAIL: the reused $m run differs from a fresh one"; stop; }
  cmp -s "$a/steps.csv" "$b/steps.csv" \
    || { echo "FAIL: the reused $m steps.csv differs from a fresh one"; stop; }
  pass=$((pass + 1))
done

# ccb study leaves the study's report section beside its data (guide §8)
head -1 "$tmp/gs/conveyor/fig4/report.md" 2>/dev/null | grep -q "^### fig4 " \
  && grep -q "^(e_q in metres.)" "$tmp/gs/conveyor/fig4/report.md" \
  || { echo "FAIL: ccb study wrote no report section of conveyor fig4"; stop; }
pass=$((pass + 1))

# ccb gate leaves the case's report section in ROOT/CASE/report.md (guide §8); two
# identical gates write the same report except in the wall-time columns of its tables
"$CCB" gate conveyor --out "$tmp/gc2" >/dev/null 2>&1
r1="$tmp/gc/conveyor/report.md" r2="$tmp/gc2/conveyor/report.md"
head -1 "$r1" | grep -q "^## conveyor" && grep -q "| CONV-1a |" "$r1" \
  || { echo "FAIL: $r1 is not the conveyor's report section with its gate table"; stop; }
same_but_walls "$r1" "$r2" || { echo "FAIL: the reports of two identical gates differ outside wall times"; stop; }
pass=$((pass + 1))

# --- round-off sensitivity of the gates (ccb gate --sensitivity K, cases.md §10) ----------------
expect 2 "whole number in \[1, 6\]" -- "$CCB" gate sphere --sensitivity 7 --out "$tmp/sens0"
expect 2 "--perturb expects contacts, ulp or member=K" -- "$CCB" run sphere --perturb ulps --out "$tmp/p0"
expect 2 "whole number in \[1, 10000\]" -- "$CCB" run sphere --perturb member=0 --out "$tmp/p0"
[ -e "$tmp/p0" ] && { echo "FAIL: a refused --perturb created $tmp/p0"; stop; }
[ -e "$tmp/sens0" ] && { echo "FAIL: a refused --sensitivity created $tmp/sens0"; stop; }
# (two perturbations show the machinery: CHOLMOD and the reversed contacts; the one-ulp start is
# the path of the clutter's ensemble members, which gate.clutter runs)
expect 0 "push: [0-9]* gates, 0 not a verdict under 2 perturbation" -- \
  "$CCB" gate push --sensitivity 2 --out "$tmp/sens"
# one row per evaluated gate, with its spread and margin; the perturbed runs say what they are
# (the push case: its gates include both classes and its studies take 3 s under two perturbations)
ng=$(grep -c -v ',SKIP,' "$tmp/sens/push/gates.csv")
[ "$(wc -l <"$tmp/sens/push/sensitivity.csv")" -eq "$ng" ] \
  || { echo "FAIL: sensitivity.csv: not one row per evaluated gate ($ng lines in gates.csv)"; stop; }
grep -q '^PUSH-1-sap,ilqr.sap.cost_increases,"<= 0",.*,exact$' "$tmp/sens/push/sensitivity.csv" \
  && grep -q '^PUSH-2-sap,ilqr.sap.final_error,"<= 0.005",.*,robust$' "$tmp/sens/push/sensitivity.csv" \
  || { echo "FAIL: PUSH-1-sap's (exact) and PUSH-2-sap's (robust) sensitivity rows"; stop; }
grep -q '"perturbation":[[:space:]]*"contacts reversed"' \
  "$tmp/sens/sensitivity/contacts-reversed/push/gradients/sap/meta.json" \
  || { echo "FAIL: a perturbed run's meta.json does not name its perturbation"; stop; }
grep -q '^| PUSH-1-sap |' "$tmp/sens/sensitivity.md" || { echo "FAIL: sensitivity.md has no table"; stop; }
# issue 44, H6: the same --out rewritten as a run of changed code without --sensitivity would (one
# trajectory value +50 %): the old perturbed trees are no spread for the new results, so the
# change is significant; the unchanged tree keeps its spreads (the binding holds while it is)
cp -r "$tmp/sens" "$tmp/sens6"
f6=push/gradients/sap/trajectory.csv
awk -F, -v OFS=, 'NR == 11 { $3 = sprintf("%.17g", $3 * 1.5) } { print }' "$tmp/sens6/$f6" >"$tmp/sens/$f6"
expect 1 "" -- "$CCB" diff "$tmp/sens6" "$tmp/sens" --no-figures --out "$tmp/sens6d"
grep -q "^trajectory,$f6,.*,1,first beyond round-off" "$tmp/sens6d/diff.csv" \
  || { echo "FAIL: H6: a +50 % change rated within round-off by stale spreads"; stop; }
cp "$tmp/sens6/$f6" "$tmp/sens/$f6"
expect 0 "" -- "$CCB" diff "$tmp/sens6" "$tmp/sens" --no-figures --out "$tmp/sens6e"
pass=$((pass + 1))

# --- the peers (each engine in a build that has it): a peer run is recorded like a ccb run -------
for e in mujoco ode-worldstep bullet; do
  "$CCB" list | grep -q "^  $e " || continue
  expect 2 "no observables for a peer run" -- "$CCB" run coin --variant $e --out "$tmp/a"
  # a step far too large flings the grasp's rod away: ODE's collision detection aborted the
  # process once a body was far enough (an internal error in collide()); now the run fails there
  [ "$e" = ode-worldstep ] && expect 1 "beyond 1e+09 m" \
    -- "$CCB" run grasp --variant $e --dt 0.5 --out "$tmp/a"
  # One free-flight step (no contact yet) is semi-implicit Euler with the same rotation update in
  # both: the engine's state mapped to ccb's coordinates (planar x, z, theta; free p, quaternion,
  # world omega, v) equals ccb's step to round-off (measured 4.4e-16 for MuJoCo; bound 1e-12
  # absolute).
  for c in sphere clutter; do
    "$CCB" run $c --variant $e --t-final 0.002 --out "$tmp/pm_$c" >/dev/null 2>&1 \
      && "$CCB" run $c --variant lagged --t-final 0.002 --out "$tmp/pl_$c" >/dev/null 2>&1 \
      || { echo "FAIL: $c: a one-step run of $e or lagged failed"; stop; }
    id=$e && [ "$e" = ode-worldstep ] && id=libode # solver.name: the engine's id
    grep -q '"name":[[:space:]]*"'$id'"' "$tmp/pm_$c/meta.json" \
      || { echo "FAIL: $c: meta.json of the peer run does not name $e"; stop; }
    d=$(paste -d, <(sed -n 1p "$tmp/pm_$c/trajectory.csv") <(sed -n 2p "$tmp/pm_$c/trajectory.csv") \
                  <(sed -n 2p "$tmp/pl_$c/trajectory.csv") | awk -F, '{
          n = NF / 3; m = 0
          for (i = 2; i <= n; ++i) if (index($i, ".") > 0) {   # body coordinates: "ball.x [m]"
            e = $(n + i) - $(2 * n + i); if (e < 0) e = -e; if (e > m) m = e }
          printf "%.3g", m }')
    awk -v d="$d" 'BEGIN { exit !(d <= 1e-12) }' \
      || { echo "FAIL: $c: $e's free-flight step differs from ccb's by $d (bound 1e-12)"; stop; }
    pass=$((pass + 1))
  done
  # deterministic: two processes (other addresses) give the same data, contacts included
  for k in 1 2; do
    "$CCB" run clutter --variant $e --t-final 0.3 --out "$tmp/pd$k" >/dev/null 2>&1 \
      || { echo "FAIL: clutter --variant $e --t-final 0.3 failed"; stop; }
  done
  cmp -s "$tmp/pd1/trajectory.csv" "$tmp/pd2/trajectory.csv" \
    && cmp -s "$tmp/pd1/steps.csv" "$tmp/pd2/steps.csv" \
    || { echo "FAIL: two runs of clutter --variant $e differ"; stop; }
  pass=$((pass + 1))
  rm -rf "$tmp"/pm_* "$tmp"/pl_* "$tmp"/pd1 "$tmp"/pd2
done
if "$CCB" list | grep -q '^  mujoco '; then
  # bench --peers' iteration breakdown: its whole-run rows count the iterations of every step (the
  # same mean as the timed runs' table: the runs are deterministic) and a line search evaluates
  # the cost at least once
  "$CCB" bench sphere --peers --repeat 1 > "$tmp/bp.out" 2>&1 \
    || { echo "FAIL: bench sphere --peers: $(tail -3 "$tmp/bp.out")"; stop; }
  awk '$1 == "sap" && $2 ~ /^[0-9]+$/ { it = $7 } $1 == "mujoco-same-geometry" { mit = $7 }
       $1 == "all" && $2 == "ccb" { c = $3; cl = $6 } $1 == "all" && $2 == "mujoco" { m = $3; ml = $6 }
       END { ok = it != "" && c != "" && m != "" && sprintf("%.2f", c) == sprintf("%.2f", it) &&
                  sprintf("%.2f", m) == sprintf("%.2f", mit) && cl >= 1 && ml >= 1
             exit !ok }' "$tmp/bp.out" \
    || { echo "FAIL: bench --peers' breakdown disagrees with its table: $(cat "$tmp/bp.out")"; stop; }
  pass=$((pass + 1))
  # one step: one window per engine, no empty window (six windows of rows of zeros before)
  "$CCB" bench sphere --peers --repeat 1 --t-final 0.002 > "$tmp/bp1.out" 2>&1 \
    || { echo "FAIL: bench sphere --peers, one step: $(tail -3 "$tmp/bp1.out")"; stop; }
  [ "$(grep -cE '^[0-9.e+-]+-[0-9.e+-]+ +(ccb|mujoco) ' "$tmp/bp1.out")" = 2 ] \
    || { echo "FAIL: one step, not one window per engine: $(cat "$tmp/bp1.out")"; stop; }
  pass=$((pass + 1))
  # a variant Newton does not solve has no breakdown (it printed rows of zeros before)
  expect 0 "no iteration breakdown: the variant is not solved by Newton" \
    -- "$CCB" bench sphere --peers --repeat 1 --variants tamsi
  # MuJoCo resets a state with a bad number to the initial one and goes on: the run fails there
  # (it finished "ok" with the reset trajectory before), and MuJoCo's warning is neither printed
  # nor appended to MUJOCO_LOG.TXT in the working directory (it wrote one before)
  mkdir -p "$tmp/mjcwd"
  (cd "$tmp/mjcwd" && expect 1 "mjWARN_BADQACC" \
    -- "$CCB" run box --variant mujoco-k --set normal=1 --set k=1e15 --out "$tmp/mjbad") || stop
  [ -z "$(ls -A "$tmp/mjcwd")" ] \
    || { echo "FAIL: a MuJoCo run wrote into the working directory: $(ls -A "$tmp/mjcwd")"; stop; }
  grep -q '"status":[[:space:]]*"failed"' "$tmp/mjbad/meta.json" \
    || { echo "FAIL: the reset MuJoCo run is not recorded as failed"; stop; }
  pass=$((pass + 1))
fi

echo "cli_test: $pass passed"
