#!/bin/bash
# cli.fulldisk: a full disk never leaves a half-written result (issue 25). On a small tmpfs (needs
# root to mount one; exit 77, a skip, where it cannot) the data of a run, a study's figures, a
# manifest and the files --from copies each meet ENOSPC: the command exits non-zero, no
# temporary file (*.tmp.*) is left, no figure is empty or truncated, and a run directory without
# a complete set of files has no meta.json (the commit marker: it holds no run).
set -u
CCB=$(realpath "${1:?usage: fulldisk_test.sh CCB}")
tmp=$(mktemp -d) || exit 2
mnt="$tmp/mnt"
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=2m tmpfs "$mnt" 2>/dev/null; then
  echo "SKIP cannot mount a tmpfs here (needs root): the full-disk checks did not run"
  rm -rf "$tmp"
  exit 77
fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
leftovers() { find "$mnt" -name '*.tmp.*' | head -3; }
# fill the file system up to $1 KiB free
fill() {
  rm -f "$mnt/fill"
  local avail
  avail=$(df -k --output=avail "$mnt" | tail -1)
  [ "$avail" -gt "$1" ] && dd if=/dev/zero of="$mnt/fill" bs=1k count=$((avail - $1)) 2>/dev/null
  return 0
}

# 1. a run whose data do not fit: exit 2, no meta.json, nothing temporary
fill 40
out=$("$CCB" run conveyor --dt 1e-4 --t-final 2 --physics --out "$mnt/r" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ ! -e "$mnt/r/meta.json" ] && [ -z "$(leftovers)" ] \
  && ok "a run on a full disk: exit 2, no meta.json, no temporary file ($(head -1 <<<"$out" | cut -c1-70))" \
  || bad "a run on a full disk: exit $rc, $(ls "$mnt/r" 2>/dev/null | tr '\n' ' ') $(leftovers)"

# 1b. a short run whose files fit in their buffers and meet the full disk at the commit (fflush,
# fsync): every writer of the set ends, physics.csv's included (was: physics.csv.tmp.* left)
rm -rf "$mnt"/* && fill 0
out=$("$CCB" run sphere --t-final 0.004 --physics --out "$mnt/r" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ ! -e "$mnt/r/meta.json" ] && [ -z "$(leftovers)" ] \
  && ok "a run meeting a full disk at its commit: exit 2, no meta.json, no temporary file" \
  || bad "a run meeting a full disk at its commit: exit $rc, left: $(ls "$mnt/r" 2>/dev/null | tr '\n' ' ')"

# 2. a study whose tables fit and whose figures do not: exit 2, no figure, nothing temporary
rm -rf "$mnt"/* && fill 1900
"$CCB" study conveyor fig3 --tier quick --no-figures --out "$mnt/s" >/dev/null 2>&1 || bad "the study's data did not fit in 2 MB"
fill 40
out=$("$CCB" study conveyor fig3 --tier quick --from "$mnt/s" 2>&1)
rc=$?
figs=$(find "$mnt" -name '*.png' -o -name '*.svg' | head -3)
[ $rc -eq 2 ] && [ -z "$figs" ] && [ -z "$(leftovers)" ] && grep -q "incomplete\|No space" <<<"$out" \
  && ok "figures on a full disk: exit 2, no figure and no temporary file ($(grep -o 'gnuplot wrote an incomplete[^(]*' <<<"$out" | head -1 | sed "s|$mnt/||"))" \
  || bad "figures on a full disk: exit $rc, figures: $figs $(leftovers): $(head -2 <<<"$out")"

# 3. a manifest that does not fit: exit 2, no manifest, nothing temporary
rm -rf "$mnt"/* && fill 1
out=$("$CCB" study clutter fig15 --emit-manifest "$mnt/m.txt" --out "$mnt/x" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ ! -e "$mnt/m.txt" ] && [ -z "$(leftovers)" ] \
  && ok "a manifest on a full disk: exit 2, none written, no temporary file" \
  || bad "a manifest on a full disk: exit $rc $(leftovers): $(head -2 <<<"$out")"

# 4. --from copying a run set into a full --out: exit 2, nothing temporary
rm -rf "$mnt"/*
"$CCB" study conveyor fig3 --tier quick --no-figures --out "$tmp/src" >/dev/null 2>&1
fill 30
out=$("$CCB" study conveyor fig3 --tier quick --from "$tmp/src" --no-figures --out "$mnt/c" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ -z "$(leftovers)" ] && [ ! -e "$mnt/c" ] \
  && ok "--from into a full --out: exit 2, the refused tree removed, no temporary file" \
  || bad "--from into a full --out: exit $rc $(leftovers) $(ls "$mnt"): $(head -2 <<<"$out")"
exit $fail
