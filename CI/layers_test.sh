#!/bin/bash
# docs.layers: the include graph of lib/ and of the suite's folders against the tables of
# docs/architecture.md §1 and §2 (CI/check_layers.pl), and the check fails when it should: the
# engine including the list of cases, a case file including the engine's own header instead of
# results.h and runs.h, the results layer including the engine, and a lib/ file climbing a layer.
set -u
src=${1:?usage: layers_test.sh SOURCE_DIR}
chk="$src/CI/check_layers.pl"
fail=0
ok()  { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

out=$(perl "$chk" "$src" 2>&1) && ok "the repository's includes follow the layers ($(echo "$out" | tail -1))" \
    || { echo "$out"; bad "the repository's includes follow the layers"; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for d in docs lib/src lib/include/ccb study cases cli analysis; do
  mkdir -p "$tmp/$d" && cp "$src/$d"/*.[ch] "$tmp/$d/" 2>/dev/null
done
cp "$src/docs/architecture.md" "$tmp/docs/"
expect() { # what: the file to plant into, the include, the message it must give
  local what=$1 file=$2 inc=$3 want=$4
  cp "$src/$file" "$tmp/$file.orig"
  sed -i "0,/^#include/s||#include \"$inc\"\n#include|" "$tmp/$file"
  local o rc
  o=$(perl "$chk" "$tmp" 2>&1); rc=$?
  [ $rc -eq 1 ] && echo "$o" | grep -q -- "$want" && echo "$o" | grep -q ", 1 problems" \
    && ok "$what is reported" || bad "$what: $o"
  mv "$tmp/$file.orig" "$tmp/$file"
}
expect "the engine including the list of cases" study/figure.c registry.h \
  "study/figure.c:[0-9]*: module engine includes registry.h of module registry"
expect "a case including the engine's own header" cases/sphere.c study.h \
  "cases/sphere.c:[0-9]*: module cases includes study.h of module engine"
expect "the results layer including the engine" study/result.c runs.h \
  "study/result.c:[0-9]*: module results includes runs.h of module runs"
expect "a case including the command line" cases/rod.c cli.h \
  "cases/rod.c:[0-9]*: module cases includes cli.h of module cli"
expect "a lib/ file climbing a layer" lib/src/friction.c ccb/sim.h \
  "lib/src/friction.c:[0-9]*: module friction (layer 1) includes ccb/sim.h of module sim"
exit $fail
