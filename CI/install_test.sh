#!/usr/bin/env bash
# install.consumer (CTest, label unit): `cmake --install` of the build tree into a temporary
# prefix, which is then moved elsewhere (the install is relocatable and needs neither the build
# nor the source tree), and a program outside the tree built against it three ways: CMake's
# find_package (shared and static targets), pkg-config (shared), pkg-config --static (static).
# Each must run. The installed `ccb` finds its data under share/ccb and runs a gate.
# Usage: CI/install_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: install_test.sh BUILD_DIR}
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/stage" >/dev/null
mv "$tmp/stage" "$tmp/prefix" # relocated after installation
prefix=$tmp/prefix
libdir=$(dirname "$(find "$prefix" -name 'libccb.so' | head -1)")
[ -n "$libdir" ] || fail "no libccb.so installed"
[ -e "$libdir/libccb.a" ] || fail "no libccb.a installed"
soname=$(objdump -p "$libdir/libccb.so" | awk '/SONAME/ {print $2}')
[ "$soname" = libccb.so.0.7 ] || fail "soname '$soname', expected libccb.so.0.7"
grep -q CCB_VERSION_MAJOR "$prefix/include/ccb/version.h" || fail "no ccb/version.h"

# 1. find_package: shared and static targets
cmake -S "$src/consumer" -B "$tmp/cb" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null \
  || fail "find_package(ccb) did not configure"
cmake --build "$tmp/cb" >/dev/null || fail "the find_package consumer did not build"
LD_LIBRARY_PATH=$libdir "$tmp/cb/consumer" || fail "find_package consumer (shared) failed"
"$tmp/cb/consumer_static" || fail "find_package consumer (static) failed"
deps=$(ldd "$tmp/cb/consumer_static") # whole, then searched: a pipe into grep -q under pipefail
case "$deps" in *libccb*) fail "the static consumer links libccb.so" ;; esac # fails on SIGPIPE

# 2. pkg-config, from the relocated prefix
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --variable=prefix ccb)" -ef "$prefix" ] || fail "ccb.pc's prefix is not relocatable"
# a plugin or consumer of the shared library needs ccb's own flags only: no .pc of GSL or cJSON
# (libccb's public headers include neither; the static link names them in Libs.private)
PKG_CONFIG_LIBDIR=$libdir/pkgconfig pkg-config --cflags --libs ccb >/dev/null \
  || fail "pkg-config ccb needs other packages' .pc files"
# shellcheck disable=SC2046
cc "$src/consumer/consumer.c" -o "$tmp/pc_shared" $(pkg-config --cflags --libs ccb) -lm \
  || fail "pkg-config consumer (shared) did not build"
LD_LIBRARY_PATH=$libdir "$tmp/pc_shared" >/dev/null || fail "pkg-config consumer (shared) failed"
# shellcheck disable=SC2046
cc "$src/consumer/consumer.c" -o "$tmp/pc_static" $(pkg-config --cflags ccb) "$libdir/libccb.a" \
  $(pkg-config --static --libs ccb | sed 's/-lccb\b//') -lm \
  || fail "pkg-config --static consumer did not build"
"$tmp/pc_static" >/dev/null || fail "pkg-config consumer (static) failed"

# 3. the installed program with its data, without CCB_SOURCE_DIR, and the theory it cites
for d in README.md LICENSE docs/README.md docs/formulation-convex.md docs/formulation-tamsi-hydro.md \
         docs/cases.md docs/guide.md docs/testing.md docs/speed.md; do
  [ -s "$prefix/share/doc/ccb/$d" ] || fail "share/doc/ccb/$d not installed"
done
unset CCB_SOURCE_DIR
version=$("$prefix/bin/ccb" --version)
grep -q "data: $prefix/bin/../share/ccb" <<< "$version" \
  || fail "the installed ccb does not use its share/ccb: $("$prefix/bin/ccb" --version)"
"$prefix/bin/ccb" gate sphere --tier quick --out "$tmp/gate" >/dev/null \
  || fail "the installed ccb gate sphere failed"
"$prefix/bin/ccb" study sphere fig6 --out "$tmp/study" >/dev/null \
  || fail "the installed ccb study sphere fig6 failed"
[ -e "$tmp/study/sphere/fig6.png" ] || fail "the installed ccb drew no figure"
# 4. the example plugin: installed, and built again from its installed source against the
# installed headers alone (pkg-config --cflags; a plugin is not linked to libccb), both loaded by
# the installed ccb (docs/architecture.md §5)
[ -s "$prefix/share/ccb/plugins/pgs/pgs.c" ] || fail "the plugin's source is not installed"
installed_pgs=$(find "$prefix" -name pgs.so | head -1)
[ -n "$installed_pgs" ] || fail "pgs.so is not installed"
"$prefix/bin/ccb" --plugin "$installed_pgs" info pgs > /dev/null || fail "the installed pgs.so"
# shellcheck disable=SC2046
cc -shared -fPIC -O2 $(pkg-config --cflags ccb) "$prefix/share/ccb/plugins/pgs/pgs.c" \
  -o "$tmp/pgs.so" -lm || fail "the plugin does not build from its installed source"
"$prefix/bin/ccb" --plugin "$tmp/pgs.so" run sphere --solver pgs --out "$tmp/pgs" > /dev/null \
  || fail "the installed ccb did not run the plugin built outside the tree"
echo "install_test: installed, relocated, 4 consumers built and run, the installed ccb gates and"
echo "  runs the example plugin built from its installed source"
