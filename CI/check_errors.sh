#!/bin/bash
# docs.errors (CTest): one way for the suite to report (docs/architecture.md §7, study/log.h).
# In study/, cases/ and cli/ an error is returned with its message and printed once by the
# command (cli_error); what is not an error goes through study_log. So no file writes to stderr
# itself, except the writers named here with the reason, and no study/ or cases/ file calls
# exit() or abort() outside the internal-error guard of variant.c. The check fails when it
# should: a planted fprintf(stderr, ...) and a planted exit() are each reported.
# Usage: check_errors.sh SOURCE_DIR
set -u
src=${1:?usage: check_errors.sh SOURCE_DIR}
# file (relative to the source) : why it may write to stderr itself
allowed='
study/log.c:study_log, the one writer of diagnostics
study/run.c:the progress line of `ccb run` (rewritten in place with \r on a terminal)
study/study.c:the progress bar of a study (rewritten in place with \r on a terminal)
cli/main.c:the usage text of `ccb` without a command
'
check() { # root: prints each offending line; returns the number found
  local root=$1 n=0 f rel line
  while IFS= read -r line; do
    f=${line%%:*}
    rel=${f#"$root"/}
    if echo "$allowed" | grep -q "^$rel:"; then
      continue
    fi
    echo "$rel:${line#*:}"
    n=$((n + 1))
  done < <(grep -nE '(fprintf|fputs|fputc|vfprintf)\([^;]*\bstderr\b|\bperror\(' \
             "$root"/study/*.c "$root"/cases/*.c "$root"/cli/*.c 2>/dev/null)
  while IFS= read -r line; do
    f=${line%%:*}
    rel=${f#"$root"/}
    [ "$rel" = study/variant.c ] && echo "$line" | grep -q 'abort()' && continue
    echo "$rel:${line#*:}"
    n=$((n + 1))
  done < <(grep -nE '(^|[^_a-z])(exit|abort)\(' "$root"/study/*.c "$root"/cases/*.c 2>/dev/null)
  return $n
}
fail=0
out=$(check "$src"); found=$?
if [ $found -eq 0 ]; then
  echo "ok   study/, cases/ and cli/ write to stderr only through study_log and cli_error"
else
  echo "$out"
  echo "FAIL $found line(s) report outside study_log / cli_error (docs/architecture.md §7)"
  fail=1
fi
# the check fails when it should
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for d in study cases cli; do
  mkdir -p "$tmp/$d" && cp "$src/$d"/*.c "$tmp/$d/"
done
printf '\nstatic void planted(void) { fprintf(stderr, "ccb: planted\\n"); }\n' >> "$tmp/study/std.c"
out=$(check "$tmp"); found=$?
if [ $found -eq 1 ] && [[ $out == study/std.c:*planted* ]]; then
  echo "ok   a planted fprintf(stderr, ...) in study/std.c is reported"
else
  echo "FAIL a planted fprintf(stderr, ...) was not reported alone: $out"
  fail=1
fi
cp "$src/study/std.c" "$tmp/study/std.c"
printf '\nstatic void planted(void) { exit(2); }\n' >> "$tmp/cases/box.c"
out=$(check "$tmp"); found=$?
if [ $found -eq 1 ] && [[ $out == cases/box.c:*exit* ]]; then
  echo "ok   a planted exit() in cases/box.c is reported"
else
  echo "FAIL a planted exit() was not reported alone: $out"
  fail=1
fi
exit $fail
