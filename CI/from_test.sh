#!/bin/bash
# cli.from: results from elsewhere cannot lie or harm (issue 25). A study's runs are made from its
# manifest once (conveyor fig3, quick tier: three runs); then each probe copies that tree, breaks
# one thing in one run directory as a broken or hostile cluster job could, and `ccb study --from`
# must refuse it: exit 2, a message naming the file (and the line where there is one), and no
# output tree created. A path with quotes, $ and ; is data everywhere (figures are drawn, nothing
# in it runs). Each probe is a defect of issue 25 that this script failed on before the fix.
set -u
CCB=$(realpath "${1:?usage: from_test.sh CCB}")
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
cs=conveyor st=fig3
run=sap_dt0.01 # the probed run of the study
"$CCB" study $cs $st --tier quick --emit-manifest "$tmp/m.txt" --out "$tmp/good" >/dev/null 2>&1 \
  && bash "$tmp/m.txt" >/dev/null 2>&1 \
  && "$CCB" study $cs $st --tier quick --from "$tmp/good" --no-figures --out "$tmp/ref" >/dev/null 2>&1 \
  || { echo "FAIL the study's runs could not be made and read back"; exit 1; }
N=$(grep -Eo '"steps_planned":[[:space:]]*[0-9]+' "$tmp/good/$cs/$st/$run/meta.json" | grep -Eo '[0-9]+$')
[ -n "$N" ] || { echo "FAIL no steps_planned in meta.json"; exit 1; }

# probe NAME EXPECT -- a shell snippet that breaks $R (the run directory of a fresh copy)
probe() {
  local name=$1 expect=$2 snippet=$3 d="$tmp/p" out
  rm -rf "$d" "$tmp/o"
  cp -a "$tmp/good" "$d"
  R="$d/$cs/$st/$run" bash -c "$snippet" || { bad "$name: the probe could not be set up"; return; }
  out=$(timeout 120 "$CCB" study $cs $st --tier quick --from "$d" --no-figures --out "$tmp/o" 2>&1)
  local rc=$?
  if [ $rc -ne 2 ]; then
    bad "$name: exit $rc (want 2): $(head -2 <<<"$out")"
  elif ! grep -Eq -- "$expect" <<<"$out"; then
    bad "$name: the message does not say /$expect/: $(head -2 <<<"$out")"
  elif [ -e "$tmp/o" ]; then
    bad "$name: refused, but $tmp/o was created"
  else
    ok "$name: exit 2, $(grep -Eo -- "$expect" <<<"$out" | head -1)"
  fi
}
meta() { # a jq-less edit of meta.json: sed expression
  echo "sed -i -E '$1' \"\$R/meta.json\""
}
half=$((N / 2))
probe "status ok with half the steps and half the trajectory" "status \"ok\" with $half of $N steps" \
  "head -n $((half + 1)) \"\$R/trajectory.csv\" > x && mv x \"\$R/trajectory.csv\"; head -n $((half + 1)) \"\$R/steps.csv\" > x && mv x \"\$R/steps.csv\"; $(meta "s/\"steps_completed\":[[:space:]]*[0-9]+/\"steps_completed\": $half/")"
probe "more completed steps than planned" "steps planned and [0-9]+ completed" "$(meta "s/\"steps_completed\":[[:space:]]*[0-9]+/\"steps_completed\": $((N + 1))/")"
probe "a failed run without its failing step" "status \"failed\" needs" "$(meta 's/"status":[[:space:]]*"ok"/"status": "failed"/')"
probe "an unknown status" "status \"done\"" "$(meta 's/"status":[[:space:]]*"ok"/"status": "done"/')"
for v in nan inf -inf 1e999 0x1p3; do
  probe "trajectory.csv with $v" "trajectory.csv: line 3: field 2 \('$v'\) is not a finite number" \
    "sed -i '3s/^\\([^,]*\\),[^,]*/\\1,$v/' \"\$R/trajectory.csv\""
done
probe "trajectory.csv with an empty field" "trajectory.csv: line 4: field 3 is empty" \
  "sed -i '4s/^\\([^,]*\\),\\([^,]*\\),[^,]*/\\1,\\2,/' \"\$R/trajectory.csv\""
probe "trajectory.csv with a time off its step" "trajectory.csv: line 5: t = 7 is not the time of step 4" \
  "sed -i '5s/^[^,]*/7/' \"\$R/trajectory.csv\""
probe "trajectory.csv with an extra column" "trajectory.csv: line 2: more than" "sed -i '2s/\$/,1/' \"\$R/trajectory.csv\""
probe "trajectory.csv with a duplicated row" "trajectory.csv: line 3: t = 0.01 is not the time of step 2" \
  "sed -i '2p' \"\$R/trajectory.csv\""
probe "trajectory.csv with a row too many" "trajectory.csv: line $((N + 2)): more rows than the $N completed steps" \
  "tail -n 1 \"\$R/trajectory.csv\" > x && cat x >> \"\$R/trajectory.csv\""
probe "a header-only steps.csv" "steps.csv: 0 rows for $N completed steps" "sed -i '2,\$d' \"\$R/steps.csv\""
probe "a duplicated steps.csv row" "steps.csv: line 3: step 1 where step 2 was due" "sed -i '2p' \"\$R/steps.csv\""
probe "steps.csv twice over" "steps.csv: line $((N + 2)): step 1 where step $((N + 1)) was due" \
  "tail -n +2 \"\$R/steps.csv\" > x && cat x >> \"\$R/steps.csv\""
probe "a huge iteration count" "steps.csv: line 2: a status, count or condition number out of range" \
  "sed -i '2s/^\\([^,]*,[^,]*,[^,]*\\),[^,]*/\\1,1e300/' \"\$R/steps.csv\""
probe "a fractional contact count" "steps.csv: line 2: a status, count or condition number out of range" \
  "sed -i '2s/,[^,]*\$/,1.5/' \"\$R/steps.csv\""
probe "a huge count in meta.json" "work.steps is not a count|statistics.factorizations is not a count" \
  "$(meta 's/"factorizations":[[:space:]]*[0-9]+/"factorizations": 1e300/')"
probe "format_version 999" "format_version other than expected, this ccb reads 2" "$(meta 's/"format_version":[[:space:]]*2/"format_version": 999/')"
probe "format_version \"2\"" "format_version missing or not a number" "$(meta 's/"format_version":[[:space:]]*2/"format_version": "2"/')"
probe "meta.json not an object" "meta.json is not a JSON object" "echo '[1]' > \"\$R/meta.json\""
probe "meta.json a symbolic link" "meta.json: .*symbolic link: not followed" \
  "cp \"\$R/meta.json\" \"\$R/../m.json\" && ln -sf ../m.json \"\$R/meta.json\""
probe "times.csv a link to a system file" "times.csv.*symbolic link: not followed" "ln -sf /etc/passwd \"\$R/times.csv\""
probe "trajectory.csv a directory" "trajectory.csv is not a regular file" "rm \"\$R/trajectory.csv\" && mkdir \"\$R/trajectory.csv\""
probe "steps.csv a FIFO" "steps.csv is not a regular file" "rm \"\$R/steps.csv\" && mkfifo \"\$R/steps.csv\""
probe "the run directory a symbolic link" "$run is not a directory \(a symbolic link" \
  "mv \"\$R\" \"\$R.real\" && ln -s \"\$R.real\" \"\$R\""
probe "a NUL byte in steps.csv" "steps.csv holds a NUL byte" "printf '\\0' >> \"\$R/steps.csv\""
probe "meta.json with bytes after its object" "meta.json is not a JSON object .or has something after it." "printf '{}' >> \"\$R/meta.json\""

# a path that is code in gnuplot or a shell is data here: with no --out the figures go under the
# --from root itself, whose name closes a quote and calls system()
evil="$tmp/e'); system('touch pwned'); x=('\$(touch pwned2);\`touch pwned3\`"
cp -a "$tmp/good" "$evil"
out=$(cd "$tmp" && "$CCB" study $cs $st --tier quick --from "$evil" 2>&1)
rc=$?
if [ $rc -eq 0 ] && ! ls "$tmp"/pwned* >/dev/null 2>&1 && [ -s "$evil/$cs/$st.png" ] \
   && [ -s "$evil/$cs/$st.svg" ]; then
  ok "a --from root with quotes, \$(), backquotes and ;: figures drawn under it, nothing ran"
else
  bad "a hostile --from root: exit $rc, $(ls "$tmp" | grep pwned) $(head -2 <<<"$out")"
fi
# the defect of issue 25 exactly: a single quote and system() (no other character that the old
# filter refused), with no --out
evil2="$tmp/x'; z=system('touch pwned4'); y='"
cp -a "$tmp/good" "$evil2"
out=$(cd "$tmp" && "$CCB" study $cs $st --tier quick --from "$evil2" 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ ! -e "$tmp/pwned4" ] && [ -s "$evil2/$cs/$st.png" ]; then
  ok "a --from root that closes gnuplot's string and calls system(): figures drawn, nothing ran"
else
  bad "a --from root calling system(): exit $rc, $(ls "$tmp" | grep pwned) $(head -2 <<<"$out")"
fi
# the follow-up line a manifest prints runs as printed: the root quoted, the --set kept
out=$(cd "$tmp" && "$CCB" study $cs $st --tier quick --set mu=0.4 --emit-manifest "$tmp/m2.txt" --out "$evil/s" 2>&1)
follow=$(tail -1 <<<"$out" | sed 's/^ *//')
if grep -q -- "--set mu=0.4" <<<"$follow" && (cd "$tmp" && bash "$tmp/m2.txt") >/dev/null 2>&1 \
   && (cd "$tmp" && bash -c "${follow/ccb /$CCB } --no-figures") >/dev/null 2>&1 \
   && ! ls "$tmp"/pwned* >/dev/null 2>&1; then
  ok "the printed follow-up command runs as printed (the root quoted, --set kept)"
else
  bad "the follow-up command: $follow"
fi

"$CCB" study $cs $st --tier quick --set mu=0.4 --from "$evil/s" --no-figures --out "$tmp/f" >/dev/null 2>&1
[ $? -eq 0 ] && ok "a study with --set read back from its quoted root" || bad "--set study from a quoted root"

# --emit-manifest into a directory: a clear error, no crash (was: double free)
mkdir -p "$tmp/adir"
out=$("$CCB" study $cs $st --tier quick --emit-manifest "$tmp/adir" --out "$tmp/x" 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "is a directory" <<<"$out" && ! ls "$tmp/adir"/* >/dev/null 2>&1 \
  && ok "--emit-manifest to a directory: exit 2, nothing left" || bad "--emit-manifest to a directory: exit $rc: $out"
# an --out too long for the runs below it: refused before anything is written, no temporary
# directory left
# (1,013 characters whatever the length of $tmp, i.e. of $TMPDIR: accepted as a path, too long
# for the runs' directories under it)
last=$((1013 - ${#tmp} - 4 - 750))
long="$tmp/$(printf 'l%.0s' $(seq 1 250))/$(printf 'm%.0s' $(seq 1 250))/$(printf 'n%.0s' $(seq 1 250))/$(printf 'o%.0s' $(seq 1 $last))"
mkdir -p "$tmp/td"
before=$(ls -d "$tmp"/td/ccb-manifest-* 2>/dev/null | wc -l)
out=$(TMPDIR="$tmp/td" "$CCB" study $cs fig4 --emit-manifest "$tmp/m3.txt" --out "$long" 2>&1)
rc=$?
after=$(ls -d "$tmp"/td/ccb-manifest-* 2>/dev/null | wc -l)
[ $rc -eq 2 ] && grep -q -- "--out .* is too long for a manifest" <<<"$out" && [ "$after" -le "$before" ] && [ ! -e "$tmp/m3.txt" ] \
  && ok "an --out too long for its runs: exit 2 naming --out, no manifest, no temporary directory" \
  || bad "a long --out: exit $rc, temporary directories $before -> $after: $(head -2 <<<"$out")"

# a reproduction from a root where nothing ran: exit 2 naming the first missing run, --out not
# created
mkdir -p "$tmp/nothing"
out=$("$CCB" reproduce --tier quick --no-figures --from "$tmp/nothing" --out "$tmp/rep" 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "meta.json.*was the run executed" <<<"$out" && [ ! -e "$tmp/rep" ] \
  && ok "reproduce --from a root where nothing ran: exit 2 naming the run, nothing created" \
  || bad "reproduce --from an empty root: exit $rc: $(tail -2 <<<"$out")"

# a study --from the user's own directory where nothing ran (the --out it writes into, since
# --from is also the default --out): exit 2, the error printed once, nothing left in the user's
# directory (it made the case's and the study's directories, empty, before the first read failed)
mkdir -p "$tmp/mine" && touch "$tmp/mine/notes.txt"
out=$("$CCB" study conveyor fig3 --no-figures --from "$tmp/mine" 2>&1)
rc=$?
left=$(cd "$tmp/mine" && find . -mindepth 1 | sort | tr '\n' ' ')
[ $rc -eq 2 ] && [ "$(grep -c 'was the run executed' <<<"$out")" -eq 1 ] && [ "$left" = "./notes.txt " ] \
  && ok "study --from a directory of the user's where nothing ran: exit 2, one message, nothing left" \
  || bad "study --from an empty directory of the user's: exit $rc, left: $left: $(tail -2 <<<"$out")"

# a run directory holds only what the last run wrote: --physics, then a run without it; FCLIB
# exports (when the build has FCLIB), then a run without them
"$CCB" run sphere --t-final 0.02 --physics --out "$tmp/stale" >/dev/null 2>&1 \
  && "$CCB" run sphere --t-final 0.02 --out "$tmp/stale" >/dev/null 2>&1 \
  && [ ! -e "$tmp/stale/physics.csv" ] && [ -s "$tmp/stale/meta.json" ] \
  && ok "a run without --physics removes the previous run's physics.csv" \
  || bad "physics.csv of the previous run left beside the new meta.json"
if "$CCB" run sphere --t-final 0.02 --export-steps 2,3 --out "$tmp/stale" >/dev/null 2>&1; then
  "$CCB" run sphere --t-final 0.02 --export-steps 4 --out "$tmp/stale" >/dev/null 2>&1
  [ -e "$tmp/stale/step4.fclib.hdf5" ] && [ ! -e "$tmp/stale/step2.fclib.hdf5" ] \
    && [ ! -e "$tmp/stale/step3.fclib.hdf5" ] \
    && ok "a run's FCLIB exports replace the previous run's" \
    || bad "FCLIB exports of the previous run left: $(ls "$tmp/stale")"
fi
exit $fail
