#!/bin/bash
# golden.digests: a short run of every case (and of each solver family) against the data stored in
# reference/golden/, so that a change in physics shows up as a diff and not only run-vs-run.
#
#   CI/golden_test.sh CCB SOURCE_DIR            check (CTest golden.digests)
#   CI/golden_test.sh CCB SOURCE_DIR --update   rewrite reference/golden/NAME/ and digests.sha256
#   CI/golden_test.sh CCB SOURCE_DIR --measure  the round-off sensitivity behind each tolerance
#
# A check passes when trajectory.csv and steps.csv are byte-identical to the stored ones (their
# SHA-256 in digests.sha256). If the bytes differ, trajectory.csv is compared with the stored one
# column by column: within the run's tolerance (reference/golden/runs.txt: relative to the
# column's largest magnitude) the run passes with a note — another CPU's libm may round a last bit
# differently — and beyond it the test fails and shows the first value that moved.
# CCB_GOLDEN_STRICT=1 fails on any byte difference.
set -u
CCB=${1:?usage: golden_test.sh CCB SOURCE_DIR [--update|--measure]}
SRC=${2:?usage: golden_test.sh CCB SOURCE_DIR [--update|--measure]}
MODE=${3:-check}
G="$SRC/reference/golden"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0

# largest |a - b| / max(max_row |gold|, 1e-6) over the columns of two CSV files with the same
# shape, and where it is; the floor of 1e-6 (SI units: m, m/s, N, ...) keeps columns that are
# physically zero and hold only round-off (a locked velocity of 1e-17) from dominating
deviation() {
  awk -F, 'NR == FNR { if (FNR > 1) for (j = 1; j <= NF; ++j) { g[FNR, j] = $j; a = $j < 0 ? -$j : $j; if (a > s[j]) s[j] = a }
                       n = FNR; nf = NF; next }
           FNR == 1 { for (j in s) if (s[j] < 1e-6) s[j] = 1e-6; next }
           { if (NF != nf) { printf "shape %d %d\n", NF, nf; bad = 1; exit }
             for (j = 1; j <= NF; ++j) { d = $j - g[FNR, j]; if (d < 0) d = -d
               r = d / (s[j] > 1e-6 ? s[j] : 1e-6); if (r > worst) { worst = r; wr = FNR; wj = j; wv = $j; wg = g[FNR, j] } } }
           END { if (bad) exit 1; if (FNR != n) { printf "rows %d %d\n", FNR, n; exit 1 }
                 printf "%.3e row %d column %d: %s (stored %s)\n", worst, wr, wj, wv, wg }' "$1" "$2"
}

run_one() { # name dir args...
  local name=$1 dir=$2
  shift 2
  # shellcheck disable=SC2068
  "$CCB" run $@ --out "$dir" >"$tmp/$name.log" 2>&1 || { echo "FAIL $name: ccb run $*"; cat "$tmp/$name.log"; return 1; }
}

while read -r name tol args; do
  case "$name" in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086
  run_one "$name" "$tmp/$name" $args || { fail=1; continue; }
  case "$MODE" in
  --update)
    mkdir -p "$G/$name"
    cp "$tmp/$name/trajectory.csv" "$tmp/$name/steps.csv" "$G/$name/"
    echo "stored $name"
    ;;
  --measure)
    g=$("$CCB" info "${args%% *}" | awk '$1 == "g" { print $2 }')
    gp=$(awk -v g="$g" 'BEGIN { printf "%.17g", g * (1 + 1e-15) }')
    # shellcheck disable=SC2086
    run_one "$name-p" "$tmp/$name-p" $args --set g="$gp" || { fail=1; continue; }
    echo "$name: g $g -> $gp: deviation $(deviation "$tmp/$name/trajectory.csv" "$tmp/$name-p/trajectory.csv")"
    ;;
  *)
    exp_t=$(awk -v f="$name/trajectory.csv" '$2 == f { print $1 }' "$G/digests.sha256")
    exp_s=$(awk -v f="$name/steps.csv" '$2 == f { print $1 }' "$G/digests.sha256")
    got_t=$(sha256sum <"$tmp/$name/trajectory.csv" | cut -d' ' -f1)
    got_s=$(sha256sum <"$tmp/$name/steps.csv" | cut -d' ' -f1)
    if [ -z "$exp_t" ] || [ -z "$exp_s" ]; then
      echo "FAIL $name: no digest in reference/golden/digests.sha256 (run with --update)"
      fail=1
    elif [ "$got_t" = "$exp_t" ] && [ "$got_s" = "$exp_s" ]; then
      echo "ok   $name: trajectory.csv and steps.csv bit-identical to reference/golden/$name"
    else
      dev=$(deviation "$G/$name/trajectory.csv" "$tmp/$name/trajectory.csv") || dev="1 ($dev)"
      worst=${dev%% *}
      if [ "${CCB_GOLDEN_STRICT:-0}" != 0 ] || ! awk -v w="$worst" -v t="$tol" 'BEGIN { exit !(w <= t) }'; then
        echo "FAIL $name: differs from reference/golden/$name: largest relative deviation $dev (tolerance $tol)"
        diff <(head -3 "$G/$name/trajectory.csv") <(head -3 "$tmp/$name/trajectory.csv") | head -6
        fail=1
      else
        echo "ok   $name: NOT bit-identical (steps.csv $([ "$got_s" = "$exp_s" ] && echo same || echo differs)), trajectory within $tol of the stored one: $dev"
      fi
    fi
    ;;
  esac
done <"$G/runs.txt"

# The tolerance can see physics: friction 1e-8 larger on the conveyor (a change far below any
# gate's resolution) must move the trajectory beyond the conveyor's tolerance.
if [ "$MODE" = check ]; then
  tol=$(awk '$1 == "conveyor" { print $2 }' "$G/runs.txt")
  if run_one detect "$tmp/detect" conveyor --approx lagged --t-final 0.5 --set mu=0.700000007; then
    dev=$(deviation "$G/conveyor/trajectory.csv" "$tmp/detect/trajectory.csv")
    if awk -v w="${dev%% *}" -v t="$tol" 'BEGIN { exit !(w > t) }'; then
      echo "ok   detection: mu 1e-8 larger moves the conveyor by $dev, beyond its tolerance $tol"
    else
      echo "FAIL detection: mu 1e-8 larger moves the conveyor only by $dev (tolerance $tol)"
      fail=1
    fi
  else
    fail=1
  fi
fi

if [ "$MODE" = --update ] && [ $fail = 0 ]; then
  (cd "$G" && sha256sum -- */trajectory.csv */steps.csv >digests.sha256)
  echo "wrote reference/golden/digests.sha256"
fi
exit $fail
