#!/usr/bin/env bash
# unit.toy_variant: a variant is one file plus one registration (guide §12).
# cases/tests/toy_variant.c defines a toy approximation through the public API and registers
# it; the resulting program must show it in `ccb list` and `ccb info`, and run it in `ccb compare`
# and in the three standard studies of the cases, with no other change. Plain `ccb` must not
# know it. Stops at the first failure.
# Usage: CI/toy_variant_test.sh /path/to/ccb_toy /path/to/ccb
set -u
TOY=${1:?usage: toy_variant_test.sh ccb_toy ccb}
CCB=${2:?usage: toy_variant_test.sh ccb_toy ccb}
export CCB_SOURCE_DIR=${CCB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail() {
  echo "FAIL: $*"
  echo "toy_variant_test: stopped at the first failure ($pass checks passed before it)"
  exit 1
}
ok() { pass=$((pass + 1)); }

"$TOY" list | grep -q '^  toy-penalty  *fixed  *convex  *every case' && ok || fail "ccb list lacks the toy variant"
"$TOY" info box | grep 'variants that apply' | grep -q 'toy-penalty' && ok || fail "ccb info box lacks it"
"$TOY" run conveyor --variant toy-penalty --t-final 0.5 --out "$tmp/run" >/dev/null 2>&1 && ok \
  || fail "ccb run --variant toy-penalty failed"
grep -q '"approximation":[[:space:]]*"toy-penalty"' "$tmp/run/meta.json" && ok || fail "meta.json does not name it"

# ccb compare picks it up on the cases checked below (quick ladders), with finite errors: a prescribed
# conveyor, a free sphere, the rod, the box, the clutter's free-body pile and the coin's
# hydroelastic faces (the other four cases' ladders took 12 of the 16 s of a compare of all ten, and
# reach a variant through the same point contacts: trees and compliant meshes end in them too)
"$TOY" compare --quick --cases conveyor,sphere,rod,box,clutter,coin --variants toy-penalty,lagged \
  --no-figures --out "$tmp/cmp" >"$tmp/cmp.log" 2>&1 \
  || fail "ccb compare: $(tail -c 2000 "$tmp/cmp.log")"
for c in conveyor sphere rod box clutter coin; do
  row=$(grep "^$c,toy-penalty,fixed," "$tmp/cmp/compare.csv") || fail "compare.csv has no toy row for $c"
  e1=$(cut -d, -f5 <<<"$row")
  awk -v e="$e1" 'BEGIN { exit !(e + 0 > 0 && e + 0 < 1e300) }' || fail "$c: toy error '$e1' is not finite"
  grep -q "^| toy-penalty |" "$tmp/cmp/compare.md" || fail "compare.md lacks the toy"
  ok
done

# the three standard studies of a case run it beside the others (convergence in the full tier: its
# three levels fit an order, the quick tier's two do not; the other two in the quick tier)
for st in convergence conditioning work-precision; do
  tier=quick
  [ "$st" = convergence ] && tier=full
  "$TOY" study conveyor "$st" --tier "$tier" --no-figures --out "$tmp/std" >"$tmp/std.log" 2>&1 \
    || fail "ccb study conveyor $st: $(tail -c 2000 "$tmp/std.log")"
  grep -q "^toy-penalty,fixed," "$tmp/std/conveyor/$st/runs.csv" || fail "$st runs.csv lacks the toy"
  ok
done
grep -q "^toy-penalty,3," "$tmp/std/conveyor/convergence/orders.csv" || fail "no fitted order for the toy"
grep -q "^toy-penalty," "$tmp/std/conveyor/conditioning/slopes.csv" || fail "no conditioning slopes"
grep -q "^toy-penalty,fixed," "$tmp/std/conveyor/work-precision/work_precision.csv" || fail "no work-precision row"
ok

# the plain program does not know it: an input error, nothing written
out=$("$CCB" compare --variants toy-penalty --out "$tmp/plain" 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "unknown variant 'toy-penalty'" <<<"$out" && [ ! -e "$tmp/plain" ] && ok \
  || fail "plain ccb: exit $rc, output ${out:0:500}"
echo "toy_variant_test: $pass passed"
