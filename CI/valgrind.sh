#!/usr/bin/env bash
# Memcheck on the unit tests and one run of every approximation and solver (no leaks, no invalid
# accesses).
# Runnable locally; needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCB_WERROR=ON >/dev/null
cmake --build build -j "${JOBS:-2}"
export OMP_THREAD_LIMIT=1 OPENBLAS_NUM_THREADS=1 # as ccb sets (it restarts only outside valgrind)
vg="valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet
    --suppressions=$PWD/CI/valgrind.supp" # third-party leaks only (the file says which)
for t in build/lib/tests/test_*; do
  echo "== $t"
  # exit 77: the test's optional part is not in this build (test_peer without MuJoCo): a skip, as
  # CTest counts it; valgrind's own findings exit 3
  rc=0
  $vg "$t" >/dev/null || rc=$?
  if [ "$rc" = 77 ]; then
    echo "   skipped (exit 77: its optional part is not in this build)"
  elif [ "$rc" != 0 ]; then
    echo "   exit $rc"
    exit "$rc"
  fi
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for m in sap similar lagged lagged-reg; do
  echo "== ccb run conveyor --approx $m"
  CCB_SOURCE_DIR=$PWD $vg build/ccb run conveyor --approx "$m" --t-final 0.5 --out "$out/$m" >/dev/null
done
# every peer engine this build has (reference/peers): a short run with contacts (the engines'
# own leaks are suppressed by name in CI/valgrind.supp, where there are any)
list=$(build/ccb list)
for v in mujoco ode-worldstep ode-quickstep bullet bullet-mlcp-dantzig; do
  grep -q "^  $v " <<< "$list" || continue
  echo "== ccb run sphere --variant $v"
  CCB_SOURCE_DIR=$PWD $vg build/ccb run sphere --variant "$v" --t-final 0.15 --out "$out/p_$v" >/dev/null
  echo "== ccb run box --variant $v (an applied load); gripper (prismatic joints)"
  CCB_SOURCE_DIR=$PWD $vg build/ccb run box --variant "$v" --set normal=1 --t-final 0.2 \
    --out "$out/pb_$v" >/dev/null
  CCB_SOURCE_DIR=$PWD $vg build/ccb run gripper --variant "$v" --t-final 0.201 \
    --out "$out/pg_$v" >/dev/null
done
echo "== ccb run sphere / rod"
CCB_SOURCE_DIR=$PWD $vg build/ccb run sphere --out "$out/sphere" >/dev/null
CCB_SOURCE_DIR=$PWD $vg build/ccb run rod --dt 1e-5 --out "$out/rod" >/dev/null
echo "== ccb run box: TAMSI, implicit Euler (QN + TALS, error control), RK3, GSL; study fig4"
for sv in "--solver tamsi" "--solver tamsi --coupling one-way" "--solver ie --jacobian quasi --tals on" \
          "--solver ie --error-control --accuracy 1e-3" "--solver rk3 --h 1e-5" "--solver gsl"; do
  # shellcheck disable=SC2086
  CCB_SOURCE_DIR=$PWD $vg build/ccb run box $sv --t-final 0.5 --out "$out/box" >/dev/null
done
CCB_SOURCE_DIR=$PWD $vg build/ccb run conveyor --solver tamsi --t-final 0.5 --out "$out/ct" >/dev/null
CCB_SOURCE_DIR=$PWD $vg build/ccb study box fig4 --no-figures --out "$out/study" >/dev/null
echo "== ccb gate sphere: quick-tier gates, runs shared between studies (run cache, file copies)"
CCB_SOURCE_DIR=$PWD $vg build/ccb gate sphere --out "$out/gate" --junit "$out/gate.xml" \
  --save-baseline "$out/base" >/dev/null
echo "== ccb diff: that tree against a copy with one value of one run moved (exit 1, overlaid),"
echo "   and against its baseline (exit 0)"
cp -r "$out/gate" "$out/gate2"
run=sphere/fig6/sap_dt0.002/trajectory.csv
awk -F, -v OFS=, 'NR == 11 { $2 = $2 * 1.001 } { print }' "$out/gate/$run" >"$out/gate2/$run"
rc=0
CCB_SOURCE_DIR=$PWD $vg build/ccb diff "$out/gate" "$out/gate2" --out "$out/diff" >/dev/null || rc=$?
[ "$rc" -eq 1 ] || { echo "ccb diff: exit $rc (want 1: one value moved)"; exit 1; }
CCB_SOURCE_DIR=$PWD $vg build/ccb diff "$out/base" "$out/gate" --out "$out/diff0" >/dev/null
echo "== ccb study sphere convergence: the standard sweep of every variant (Newton, TAMSI, ODE)"
CCB_SOURCE_DIR=$PWD $vg build/ccb study sphere convergence --no-figures --out "$out/std" >/dev/null
echo "== ccb run clutter: free bodies, broad phase, CHOLMOD with pools, kappa"
CCB_SOURCE_DIR=$PWD $vg build/ccb run clutter --t-final 0.4 --kappa --out "$out/clutter" >/dev/null
echo "== ccb run coin: hydroelastic mesh slice, per-face contacts (Lagged, TAMSI, triangles)"
CCB_SOURCE_DIR=$PWD $vg build/ccb run coin --t-final 0.01 --out "$out/coin" >/dev/null
CCB_SOURCE_DIR=$PWD $vg build/ccb run coin --solver tamsi --set repr=1 --t-final 0.01 --out "$out/coin" >/dev/null
CCB_SOURCE_DIR=$PWD $vg build/ccb run coin --set compliant=1 --t-final 0.01 --out "$out/coin" >/dev/null
echo "== ccb run spatula: compliant meshes against a rigid mesh, bounding-volume search (SAP, TAMSI)"
CCB_SOURCE_DIR=$PWD $vg build/ccb run spatula --variant sap --t-final 0.02 --out "$out/spatula" >/dev/null
CCB_SOURCE_DIR=$PWD $vg build/ccb run spatula --variant tamsi --set repr=1 --t-final 0.02 --out "$out/spatula" >/dev/null
echo "== ccb run gripper / grasp: articulated trees on prescribed parents (Newton, TAMSI, ODE)"
for sv in "--approx lagged" "--solver tamsi" "--variant ie-fn-ec-tals"; do
  # shellcheck disable=SC2086
  CCB_SOURCE_DIR=$PWD $vg build/ccb run gripper $sv --t-final 0.06 --out "$out/gripper" >/dev/null
done
CCB_SOURCE_DIR=$PWD $vg build/ccb run grasp --approx similar --t-final 0.02 --out "$out/grasp" >/dev/null
echo "valgrind: clean"
