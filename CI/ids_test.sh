#!/bin/bash
# docs.ids: every case, study and gate id named in docs/, README.md and the gate files' texts
# exists in `ccb list` and reference/*.json (CI/check_ids.pl), and the check fails when it should:
# a study a case does not have (in prose and in a table), a gate id no file has, a case that does
# not exist; a gate family (SPH-1 for SPH-1a ...) is not reported.
set -u
src=${1:?usage: ids_test.sh SOURCE_DIR CCB}
ccb=${2:?usage: ids_test.sh SOURCE_DIR CCB}
chk="$src/CI/check_ids.pl"
fail=0
ok()  { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$ccb" list >"$tmp/list.txt" || { echo "FAIL ccb list"; exit 1; }

out=$(perl "$chk" "$src" "$tmp/list.txt" 2>&1) && ok "the repository's ids exist ($(echo "$out" | tail -1))" \
    || { echo "$out"; bad "the repository's ids exist"; }

mkdir -p "$tmp/src/docs" "$tmp/src/reference"
cp "$src"/docs/*.md "$tmp/src/docs/"
cp "$src"/reference/*.json "$tmp/src/reference/"
cat > "$tmp/src/README.md" <<'MD'
Good: `ccb study coin fig5`, `ccb study sphere|box error-control`, SPH-1 and SPH-1a, CLU-4, `ccb run gripper`.
| `coin` — a disk | PFC | `fig5`, `convergence-dt` | COIN-1 |
Bad: `ccb study coin fig6`
| ICF 6 | sphere | SAP | `fig6`, `fig9` |
Bad: SPH-10 and SPH-1z
Bad: `ccb run drum --dt 1`
MD
out=$(perl "$chk" "$tmp/src" "$tmp/list.txt" 2>&1); rc=$?
[ $rc -eq 1 ] && ok "a bad id fails the check (exit $rc)" || bad "a bad id fails the check (exit $rc): $out"
for want in "README.md:3: 'fig6' is not a study of coin" "README.md:4: 'fig9' is not a study of sphere" \
            "README.md:5: gate 'SPH-10' is not in reference" "README.md:5: gate 'SPH-1z' is not in reference" \
            "README.md:6: 'drum' is not a case of ccb list" "5 problems"; do
  grep -qF "$want" <<<"$out" && ok "reported: $want" || bad "not reported: $want ($out)"
done
exit $fail
