#!/bin/bash
# cli.manifest: studies outside the process (guide §11). For a paper study
# with convergence sweeps (conveyor fig4), a standard study (sphere convergence, quick tier) and
# the work-precision study of the box (every variant: TAMSI, implicit Euler with fixed steps and
# error control, TALS, RK3, GSL, the error-controlled convex step; quick tier), and the sphere's
# rigid-limit study (its runs export FCLIB files; when the build has FCLIB): `ccb study ... --emit-manifest` writes the runs as `ccb run` lines, each line runs in a
# process of its own (two at a time, by GNU parallel or xargs), and `ccb study ... --from` analyses
# the finished directories. The analysis must equal the in-process study byte for byte: every
# metric, every table of the study (wall times, the one thing that differs between two
# executions — metrics and columns named wall — are left out of the comparison). Also: a missing run, a run made with other settings and
# conflicting options are clear errors that create nothing.
set -u
CCB=${1:?usage: manifest_test.sh CCB}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

round_trip() { # case study tier [parallel]
  local cs=$1 st=$2 tier=$3 engine=${4:-xargs} d="$tmp/$1-$2"
  mkdir -p "$d"
  "$CCB" study "$cs" "$st" --tier "$tier" --no-figures --out "$d/A" >"$d/a.out" 2>"$d/a.err"
  "$CCB" study "$cs" "$st" --tier "$tier" --emit-manifest "$d/m.txt" --out "$d/B" >"$d/e.out" 2>&1 \
    || { bad "$cs/$st: --emit-manifest: $(cat "$d/e.out")"; return; }
  [ -e "$d/B" ] && { bad "$cs/$st: --emit-manifest ran something into $d/B"; return; }
  local n
  n=$(wc -l <"$d/m.txt")
  grep -qv "^/.* run $cs .*--record-every 1 --out $d/B/$cs/" "$d/m.txt" \
    && { bad "$cs/$st: a manifest line is not a ccb run of the study: $(grep -v "run $cs" "$d/m.txt" | head -1)"; return; }
  # every line in a process of its own, two at a time: by GNU parallel for one study
  # (guide §11; the cluster tier runs six cases' reproduction under it), by xargs for
  # the others and where parallel is not installed (GNU parallel adds ~1 s of its own a study); exit
  # 1 is a run that failed and says so in its meta.json (the studies include solvers that are
  # expected to fail), exit 2 is an error
  if [ "$engine" = parallel ] && command -v parallel >/dev/null 2>&1; then
    parallel --will-cite -j 2 --joblog "$d/joblog" <"$d/m.txt" >/dev/null 2>&1
    [ "$(awk 'NR > 1 && $7 > 1' "$d/joblog" | wc -l)" -eq 0 ] && [ "$(($(wc -l <"$d/joblog") - 1))" -eq "$(wc -l <"$d/m.txt")" ] \
      || { bad "$cs/$st: a manifest line did not run under GNU parallel"; return; }
    engine="GNU parallel"
  else
    xargs -P 2 -I{} sh -c '{} >/dev/null 2>&1; [ $? -le 1 ]' <"$d/m.txt" \
      || { bad "$cs/$st: a manifest line did not run"; return; }
    [ "$engine" = parallel ] && engine="xargs -P 2 (GNU parallel is not installed)" || engine="xargs -P 2"
  fi
  "$CCB" study "$cs" "$st" --tier "$tier" --from "$d/B" --no-figures >"$d/b.out" 2>"$d/b.err" \
    || { bad "$cs/$st: --from: $(head -3 "$d/b.err")"; return; }
  # metrics: all lines after the first (which names the output directory) but wall times
  if ! cmp -s <(tail -n +2 "$d/a.out" | grep -v wall) <(tail -n +2 "$d/b.out" | grep -v wall); then
    bad "$cs/$st: the metrics differ: $(diff <(tail -n +2 "$d/a.out") <(tail -n +2 "$d/b.out") | head -4)"
    return
  fi
  local nt=0 f cols
  while IFS= read -r f; do
    nt=$((nt + 1))
    cols=$(head -1 "$d/A/$f" | tr ',' '\n' | grep -n -i wall | cut -d: -f1 | paste -sd, -)
    if [ -n "$cols" ]; then
      cmp -s <(cut -d, --complement -f"$cols" "$d/A/$f") <(cut -d, --complement -f"$cols" "$d/B/$f") \
        || { bad "$cs/$st: $f differs"; return; }
    else
      cmp -s "$d/A/$f" "$d/B/$f" || { bad "$cs/$st: $f differs"; return; }
    fi
  done < <(cd "$d/A" && find "$cs/$st" -maxdepth 1 -name '*.csv' | sort)
  [ "$nt" -gt 0 ] || { bad "$cs/$st: no table compared"; return; }
  ok "$cs/$st ($tier): $n runs in separate processes by $engine; $(($(wc -l <"$d/a.out") - 1)) metrics and $nt tables equal the in-process study"
}

round_trip conveyor fig4 full
round_trip sphere convergence quick
round_trip box work-precision quick
# the FCLIB files the runs export are read from the manifest's directories
# (formulation-convex §16; with FCLIB and Siconos in the build)
# (without FCLIB the runs export nothing and the round trip holds just the same)
round_trip sphere rigid-limit quick parallel

# every study of every case (quick tier) writes its manifest: exit 0, nothing run or created (its
# analysis sees runs that did not happen and must cope, as with failed runs)
nst=0 nruns=0 bad_st=""
for cs in $("$CCB" list | awk '/^variants/ {exit} /^[a-z]/ {print $1}'); do
  for st in $("$CCB" info "$cs" | sed -n '/^studies:/,/^gates/p' | awk 'NF > 1 && $1 != "studies:" && $1 != "gates" {print $1}'); do
    nst=$((nst + 1))
    if "$CCB" study "$cs" "$st" --tier quick --emit-manifest "$tmp/all.txt" --out "$tmp/all" >/dev/null 2>&1 \
       && [ ! -e "$tmp/all" ]; then
      nruns=$((nruns + $(wc -l <"$tmp/all.txt")))
    else
      bad_st="$bad_st $cs/$st"
    fi
  done
done
[ -z "$bad_st" ] && [ "$nst" -ge 50 ] && ok "every study of every case ($nst) writes its manifest ($nruns runs), runs nothing" \
  || bad "manifests of every study: failed for$bad_st ($nst studies)"

# errors: nothing is created, the message says what is wrong
d="$tmp/conveyor-fig4"
gone=$(head -1 "$d/m.txt" | sed 's/.* --out //')
rm -rf "$gone"
out=$("$CCB" study conveyor fig4 --from "$d/B" --no-figures --out "$tmp/C" 2>&1)
[ $? -eq 2 ] && grep -q "${gone##*/}/meta.json.*was the run executed" <<<"$out" \
  && ok "a missing run: exit 2 naming it" || bad "a missing run: $out"
out=$("$CCB" study sphere convergence --tier quick --from "$tmp/sphere-convergence/B" --set mu=0.6 \
  --no-figures --out "$tmp/D" 2>&1)
[ $? -eq 2 ] && grep -q "made with mu = 0.5; the study's run has 0.59999999999999998" <<<"$out" \
  && ok "runs made with other settings: exit 2 naming the parameter" || bad "other settings: $out"
out=$("$CCB" study conveyor fig3 --emit-manifest "$tmp/x.txt" --from "$tmp" 2>&1)
[ $? -eq 2 ] && [ ! -e "$tmp/x.txt" ] && ok "--emit-manifest with --from: exit 2, nothing written" \
  || bad "--emit-manifest with --from: $out"
out=$("$CCB" study conveyor fig3 --from "$tmp/nonexistent" 2>&1)
[ $? -eq 2 ] && grep -q "is not a directory" <<<"$out" && ok "--from a missing directory: exit 2" \
  || bad "--from a missing directory: $out"
exit $fail
