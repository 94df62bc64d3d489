#!/usr/bin/env bash
# Mutation runs: do the tests catch the one-line mistakes a researcher makes when editing the
# solver? (issue 24, part 6; not part of `make test`: reference/mutation.md has its last run and its time.)
#
#   bash CI/mutate.sh [OUT_DIR] [ID...]     (default OUT_DIR: build-mutate/report; ID: only those)
#
# Each mutant below is one textual change of one line of lib/src (the old text must occur exactly
# once in its file). The script copies HEAD into a git worktree, builds it once (RelWithDebInfo,
# as `make test`) and runs the suite there to get every test's time; then, per mutant, applies
# the change, rebuilds, and runs the CTest tests one at a time in order of their measured time
# (the unit tests and the cheap gates first, as a developer's first minute would), until the
# first failure; it restores the file afterwards. A mutant is killed when a test fails (or the
# build fails: a change that does not compile is reported as such), survived when the whole
# suite passes. OUT_DIR/mutation.csv and OUT_DIR/mutation.md list per mutant the place it
# changes, the first test that failed and the test time until then. Exit 0 when every mutant is
# killed, 1 otherwise.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$src/build-mutate/report}
shift $(($# > 0 ? 1 : 0))
only=" $* "
wt=$src/build-mutate/tree
bd=$src/build-mutate/build
mkdir -p "$out"
out=$(cd "$out" && pwd)

# id | place | file | old | new      (one-line changes; the reason each is plausible in its comment)
mutants=(
  # the Similar Hessian's n' t t^T coefficient as ICF prints it (mu instead of mu^2)
  "approx-similar-hessian|approximation: Hessian coefficient|lib/src/approx_similar.c|const double b = -c->mu * c->mu * dn;|const double b = -c->mu * dn;"
  # Lagged's frozen normal impulse without its Hunt & Crossley factor
  "approx-lagged-gn0|approximation: cost coefficient|lib/src/approx_lagged.c|return step->dt * in->k * x * (f > 0 ? f : 0.0);|return step->dt * in->k * x;"
  # SAP's bias vhat_n without tau_d
  "approx-sap-bias|approximation: SAP bias|lib/src/approx_sap.c|c->vn_hat = -in->phi0 / (dt + tau);|c->vn_hat = -in->phi0 / dt;"
  # Hunt & Crossley: the dissipation term dropped from n'(v)
  "approx-hc-hessian|approximation: H&C Hessian|lib/src/approx.c|*dn = -dtk * (c->dt * f + c->d * x);|*dn = -dtk * (c->dt * f);"
  # a sign in the Lagged friction impulse
  "approx-lagged-sign|approximation: gradient sign|lib/src/approx_lagged.c|gamma[1] = -mg * s.ts[1];|gamma[1] = mg * s.ts[1];"
  # the Newton matrix: joint damping without dt in A = M + dt D
  "newton-matrix-damping|Newton matrix: damping|lib/src/problem.c|A[k * n + k] += dt * D;|A[k * n + k] += D;"
  # the mass matrix: the body-frame inertia not rotated into the world
  "newton-matrix-inertia|Newton matrix: mass|lib/src/model.c|const ccb_mat3 IW = ccb_m3_mul(&tmp, &RT); /* I_W = R I_B R^T */|const ccb_mat3 IW = b->def.inertia;"
  # the stopping tolerance 100x looser
  "newton-stop|stopping tolerance|lib/src/newton.c|is->tol = ws->prm.eps_a + ws->prm.eps_r * (np > nj ? np : nj);|is->tol = ws->prm.eps_a + 100.0 * ws->prm.eps_r * (np > nj ? np : nj);"
  # the line search accepts alpha_max whenever the slope there is below the initial one
  "line-search|line search|lib/src/newton_line.c|if (fabs(fu) < P->ls_ftol) {|if (fabs(fu) < 1.0) {"
  # the broad phase's cells half as large as the reach of two shapes
  "broad-phase|broad phase|lib/src/geometry.c|double h = (2.0 * rmax + margin) * (1.0 + 1e-9);|double h = (rmax + margin) * (1.0 + 1e-9);"
  # sphere-sphere distance without the second radius
  "narrow-phase|narrow phase|lib/src/geometry.c|const double phi = dist - ra - rb;|const double phi = dist - ra - 0.5 * rb;"
  # the far-contact test declares contacts far that the iteration can reach
  "far-contact|far-contact test|lib/src/newton_far.c|if (far_bound(ws, a, ws->far_s + 2 * j, ws->far_d + 2 * j) * (1.0 + 1e-10) <|if (0.5 * far_bound(ws, a, ws->far_s + 2 * j, ws->far_d + 2 * j) <"
  # CRBA: a child's composite inertia not added to its parent's
  "tree-crba|tree dynamics|lib/src/tree.c|inertia_add(&Ic[k.up[j]], &Ic[j]);|(void)Ic;"
  # TALS case II: twice the step out of stiction
  "tals|TALS|lib/src/tamsi_tals.c|alpha = p->vs / (2.0 * ndv);|alpha = p->vs / ndv;"
  # TAMSI: the sign of the Hunt & Crossley dissipation in the two-way normal force
  "tamsi-hc|TAMSI residual|lib/src/tamsi.c|const double x1 = 1.0 - in->d * vc[2], x2 = -in->k * ws->phi[i] - hs * in->k * vc[2];|const double x1 = 1.0 + in->d * vc[2], x2 = -in->k * ws->phi[i] - hs * in->k * vc[2];"
  # the error controller's exponent for a first-order local error (1/2) replaced by 1
  "error-controller|error controller|lib/src/errctl.c|hn = err == 0.0 ? 5.0 * h : 0.9 * h * sqrt(a / err);|hn = err == 0.0 ? 5.0 * h : 0.9 * h * (a / err);"
  # the lag defect over the internal step h instead of the sampling interval dt
  "ec-lag-defect|error estimate: lag defect|lib/src/sim.c|e = fmax(e, sim->prm.dt * in->w * c->mu * fabs(r->gamma[2] - c->gn0) * ts);|e = fmax(e, sim->h_last * in->w * c->mu * fabs(r->gamma[2] - c->gn0) * ts);"
  # local extrapolation of the positions only
  "ec-extrapolate|error control: local extrapolation|lib/src/sim.c|sim->ec_v2[i] = 2.0 * sim->ec_v2[i] - sim->ec_vf[i];|sim->ec_v2[i] = sim->ec_v2[i];"
  # implicit Euler's residual with half the step
  "implicit-euler|implicit Euler residual|lib/src/ode_ie.c|o->r[i] = o->x[i] - x0[i] - h * o->r[i];|o->r[i] = o->x[i] - x0[i] - 0.5 * h * o->r[i];"
  # hydroelastic: the polygon centroid weights of a triangle fan (1/3 -> 1/2)
  "hydro-centroid|hydroelastic integration|lib/src/hydro.c|s = ccb_v3_add(s, ccb_v3_scale(w / 3, ccb_v3_add(ccb_v3_add(v[0], v[j]), v[j + 1])));|s = ccb_v3_add(s, ccb_v3_scale(w / 2, ccb_v3_add(ccb_v3_add(v[0], v[j]), v[j + 1])));"
  # hydroelastic: the face area doubled
  "hydro-area|hydroelastic integration|lib/src/hydro.c|*area = 0.5 * W;|*area = W;"
  # the bounding-volume traversal: a child of B's node tested with its sibling's box
  "hydro-bvh-box|hydroelastic broad phase|lib/src/hydro_bvh.c|box_in_a(&tb->node[b->right], X_AB,|box_in_a(&tb->node[b->left], X_AB,"
  # the soft-rigid pairs keep the first tetrahedron's planes for every later one
  "hydro-tet-cache|hydroelastic clipping|lib/src/hydro_pair.c|if (tc->ea != ea) {|if (tc->ea < 0) {"
  # kappa(H) island by island: the largest eigenvalue taken from the bottom of each block
  "kappa-blocks|condition number|lib/src/dense.c|vhi = w[m - 1] > vhi ? w[m - 1] : vhi;|vhi = w[0] > vhi ? w[0] : vhi;"
  # anisotropic friction: the impulse mapped back with the wrong axis' scale
  "aniso-impulse|anisotropic friction: impulse|lib/src/approx.c|gamma[1] *= s[1];|gamma[1] *= s[0];"
  # anisotropic friction: the contact frame not turned to the grain
  "aniso-frame|anisotropic friction: frame|lib/src/geometry.c|*R = c->material.mu2 > 0 ? grain_frame|*R = c->material.mu2 < 0 ? grain_frame"
  # anisotropic friction: TAMSI's Jacobian scaled on one side only
  "aniso-tamsi|anisotropic friction: TAMSI Jacobian|lib/src/friction.c|Dt[2 * i + j] *= a[i] * a[j];|Dt[2 * i + j] *= a[i];"
  # anisotropic friction: the pair rule skipped across the grain
  "aniso-pair|anisotropic friction: pair rule|lib/src/model_finalize.c|const double mu2 = harmonic_mu(A->mu2 > 0 ? A->mu2 : A->mu, B->mu2 > 0 ? B->mu2 : B->mu);|const double mu2 = A->mu2 > 0 ? A->mu2 : B->mu2;"
)

log() { echo "mutate: $*" >&2; }

# the worktree at HEAD and its build (once)
if [ ! -d "$wt" ]; then
  git -C "$src" worktree add --detach -f "$wt" HEAD >/dev/null 2>&1 || { log "cannot make the worktree $wt"; exit 2; }
else
  git -C "$wt" checkout -q --detach "$(git -C "$src" rev-parse HEAD)" && git -C "$wt" checkout -q -- . \
    || { log "cannot reset the worktree $wt"; exit 2; }
fi
if [ ! -f "$bd/CMakeCache.txt" ]; then
  cmake -S "$wt" -B "$bd" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || { log "configure failed"; exit 2; }
fi
cmake --build "$bd" -j 2 >/dev/null 2>&1 || { log "the unmutated build failed"; exit 2; }
# every test's time, from an unmutated run (it must pass: a failing suite kills every mutant)
log "the unmutated suite (to order the tests by time)"
(cd "$bd" && ctest -j 2 >"$out/baseline.log" 2>&1) || { log "the unmutated suite fails: $out/baseline.log"; exit 2; }
mapfile -t tests < <(awk 'NF == 3 && $1 != "---" { print $3, $1 }' "$bd/Testing/Temporary/CTestCostData.txt" \
                     | sort -g | awk '{ print $2 }')
log "${#tests[@]} tests in order of time: ${tests[*]:0:6} ..."

echo "mutant,place,file,result,first_failing_test,seconds_to_failure,tests_run" >"$out/mutation.csv"
killed=0 total=0
for m in "${mutants[@]}"; do
  IFS='|' read -r id place file old new <<<"$m"
  if [ "$only" != "  " ] && [[ "$only" != *" $id "* ]]; then continue; fi
  total=$((total + 1))
  n=$(OLD="$old" perl -0ne 'my $c = () = /\Q$ENV{OLD}\E/g; print $c' "$wt/$file")
  if [ "$n" != 1 ]; then
    log "$id: the text occurs $n times in $file (must be once): fix the mutant"
    echo "$id,$place,$file,invalid,,," >>"$out/mutation.csv"
    continue
  fi
  OLD="$old" NEW="$new" perl -0pi -e 's/\Q$ENV{OLD}\E/$ENV{NEW}/' "$wt/$file"
  result=survived first="" secs=0 ran=0
  if ! cmake --build "$bd" -j 2 >"$out/$id.build.log" 2>&1; then
    result="killed" first="(build)"
  else
    for t in "${tests[@]}"; do
      ran=$((ran + 1))
      t0=$(date +%s.%N)
      (cd "$bd" && ctest -R "^${t//./\\.}\$" --timeout 600 >"$out/$id.test.log" 2>&1)
      rc=$?
      secs=$(awk -v a="$secs" -v b="$t0" -v c="$(date +%s.%N)" 'BEGIN { printf "%.1f", a + c - b }')
      if [ $rc -ne 0 ]; then
        result=killed first=$t
        break
      fi
    done
  fi
  git -C "$wt" checkout -q -- "$file"
  [ "$result" = killed ] && killed=$((killed + 1))
  log "$id ($place): $result${first:+ by $first after $secs s of tests}"
  echo "$id,$place,$file,$result,$first,$secs,$ran" >>"$out/mutation.csv"
done
cmake --build "$bd" -j 2 >/dev/null 2>&1 # leave the build unmutated

{
  echo "# Mutation runs ($(git -C "$src" rev-parse --short HEAD))"
  echo
  echo "\`bash CI/mutate.sh\`: one-line changes of lib/src; per mutant the first test that fails, in"
  echo "order of the tests' measured times, and the test time until then."
  echo
  echo "| mutant | place | file | result | first failing test | test time to it [s] | tests run |"
  echo "|---|---|---|---|---|---|---|"
  tail -n +2 "$out/mutation.csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }'
  echo
  echo "Mutation score: $killed of $total killed."
} >"$out/mutation.md"
cat "$out/mutation.md"
[ "$killed" -eq "$total" ]
