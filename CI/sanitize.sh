#!/usr/bin/env bash
# Debug build with ASan + UBSan (no recover) on what memory and undefined-behaviour bugs live in:
# every unit test (lib/, references, analysis, the command line and its contract, the file
# readers: --from, diff, manifests, plugins, fuzz replays, the allocation-failure sweep), the
# three cheapest gate tiers (conveyor, sphere, push: every convex approximation, TAMSI, the
# continuous model and the gradients on short studies), and a short run of every solver path of
# the other cases: every approximation with kappa and the k = 1e13 failure (clutter); polygons and
# triangles with Lagged, TAMSI and the continuous model on a polar mesh (coin); compliant meshes
# with SAP and TAMSI (spatula); TAMSI, implicit Euler (quasi-Newton + TALS, error control), RK3
# and GSL (box); the rod's Painleve run; articulated trees with Newton, TAMSI and implicit Euler
# (gripper, grasp; implicit Euler also under Drake's fixed-step control); the clutter's
# newton-trace study on a small pile (its replay, dense independent solves and BFGS). The other
# gate tiers are hundreds of long runs of the same code (hours
# unoptimized): their verdicts are make test's, their memory safety these runs'. Runnable locally.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCCB_SANITIZE=ON -DCCB_WERROR=ON \
  -DCCB_TEST_TIMEOUT_SCALE=20
cmake --build build-asan -j "${JOBS:-2}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/CI/lsan.supp # third-party leaks only (the file says which)
export CCB_SOURCE_DIR=$PWD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for m in sap similar lagged lagged-reg; do
  echo "== ccb run clutter --approx $m --kappa"
  build-asan/ccb run clutter --approx "$m" --t-final 0.3 --kappa --out "$out/$m" >/dev/null
done
echo "== ccb run clutter, Lagged, k = 1e13: an explicit failure"
rc=0
build-asan/ccb run clutter --dt 5e-3 --t-final 0.5 --set k=1e13 --out "$out/k13" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { echo "expected exit 1 (solver failure), got $rc"; exit 1; }
# (the list read whole: a pipe into grep -q under pipefail fails when grep stops reading first)
# every peer variant this build has (reference/peers): one short run of each case it applies to
list=$(build-asan/ccb list)
for v in mujoco mujoco-pgs mujoco-cg mujoco-pyramidal ode-worldstep ode-quickstep bullet \
         bullet-mlcp-dantzig; do
  grep -q "^  $v " <<< "$list" || continue
  # the box: its applied load reaches the engine; the gripper and the grasp: prismatic joints
  for c in conveyor sphere rod box clutter gripper grasp; do
    echo "== ccb run $c --variant $v"
    T=0.2 && [ "$c" = rod ] && T=0.03 # the rod's dt is 1e-5 s: 3,000 steps through the jam
    [ "$c" = gripper ] && T=0.201     # 67 of its steps of 3 ms
    build-asan/ccb run "$c" --variant "$v" --t-final $T --out "$out/peer_$c" >/dev/null
  done
done
for sv in "" "--solver tamsi --set repr=1" "--solver gsl --set layout=1 --set rings=4" \
          "--set compliant=1 --set repr=1"; do
  echo "== ccb run coin $sv"
  # shellcheck disable=SC2086
  build-asan/ccb run coin $sv --t-final 0.005 --out "$out/coin" >/dev/null
done
for sv in "--variant sap" "--variant tamsi --set repr=1"; do
  echo "== ccb run spatula $sv"
  # shellcheck disable=SC2086
  build-asan/ccb run spatula $sv --t-final 0.05 --out "$out/spatula" >/dev/null
done
echo "== ccb run rod (Painleve), box (TAMSI, implicit Euler, RK3, GSL), gripper and grasp (trees)"
build-asan/ccb run rod --dt 1e-5 --out "$out/rod" >/dev/null
for sv in "--solver tamsi" "--solver tamsi --coupling one-way" "--solver ie --jacobian quasi --tals on" \
          "--solver ie --error-control --accuracy 1e-3" "--solver rk3 --h 1e-5" "--solver gsl"; do
  # shellcheck disable=SC2086
  build-asan/ccb run box $sv --t-final 0.5 --out "$out/box" >/dev/null
done
for c in gripper grasp; do
  for sv in "--approx lagged" "--solver tamsi" "--variant ie-fn-ec-tals" \
            "--variant ie-fn-tals --fixed-control drake"; do
    # shellcheck disable=SC2086
    build-asan/ccb run $c $sv --t-final 0.06 --out "$out/$c" >/dev/null
  done
done
echo "== ccb study clutter newton-trace on a column of four objects (the trace, the independent solves)"
build-asan/ccb study clutter newton-trace --set side=1 --set levels=4 --no-figures --out "$out/nt" \
  >/dev/null
cd build-asan
ctest --output-on-failure -j "${JOBS:-2}" -E '^gate\.(rod|box|clutter|coin|gripper|grasp|spatula)$'
