#!/bin/bash
# install.exports: the ccb program exports every function and object that libccb's public
# headers declare (CCB_API), so that a plugin, which resolves libccb's API against the program
# (docs/architecture.md §5), can call any of them — also those the program itself never calls
# (ccb/dual.h). The check is shown to fail on a declaration the program does not define.
# Usage: exports_test.sh CCB SOURCE_DIR
set -u
ccb=${1:?usage: exports_test.sh CCB SOURCE_DIR}
src=${2:?usage: exports_test.sh CCB SOURCE_DIR}
command -v nm >/dev/null || { echo "SKIP: nm (binutils) is not installed"; exit 77; }
declared() { # the names CCB_API declares in the headers given
  python3 - "$@" <<'PY'
import re, sys
names = set()
for path in sys.argv[1:]:
    text = re.sub(r"/\*.*?\*/", " ", open(path, encoding="utf-8").read(), flags=re.S)
    for decl in re.findall(r"CCB_API\b([^;{]*)", text):
        decl = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", decl)
        m = re.search(r"\b([A-Za-z_]\w*)\s*\(", decl)      # a function
        if m is None:
            m = re.search(r"\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$", decl)  # an object
        if m:
            names.add(m.group(1))
print("\n".join(sorted(names)))
PY
}
exported=$(nm -D --defined-only "$ccb" | awk '{print $3}' | sort -u)
check() { comm -23 <(declared "$@") <(echo "$exported"); }
fail=0
n=$(declared "$src"/lib/include/ccb/*.h | wc -l)
missing=$(check "$src"/lib/include/ccb/*.h)
if [ -z "$missing" ] && [ "$n" -gt 200 ]; then
  echo "ok   $ccb exports all $n names of libccb's public headers"
else
  echo "FAIL $ccb does not export (of $n): $missing"; fail=1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '/* a declaration nobody defines */\nCCB_API int ccb_no_such_function(void);\n' > "$tmp/extra.h"
missing=$(check "$tmp/extra.h")
[ "$missing" = ccb_no_such_function ] && echo "ok   a declared name the program lacks is reported" \
  || { echo "FAIL the check missed ccb_no_such_function ($missing)"; fail=1; }
exit $fail
