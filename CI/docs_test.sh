#!/bin/bash
# docs.citations: every section citation in the repository resolves to a heading of docs/
# (CI/check_citations.pl), and the check fails when it should: a made-up section, a citation that
# names no document, an Arabic section after a paper tag, a heading removed from docs/, and a
# Markdown link to a file or heading that does not exist.
set -u
src=${1:?usage: docs_test.sh SOURCE_DIR}
chk="$src/CI/check_citations.pl"
fail=0
ok()  { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

out=$(perl "$chk" "$src" 2>&1) && ok "the repository's citations resolve ($(echo "$out" | tail -1))" \
    || { echo "$out"; bad "the repository's citations resolve"; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs" "$tmp/lib"
cp "$src"/docs/*.md "$tmp/docs/"
cat > "$tmp/lib/x.c" <<'C'
/* good: formulation-convex §4.2, §8.5 and cases §4.4; formulation-tamsi-hydro §F.4 and §H-B4;
 * a paper: ICF §XI-A; a book: Numerical Recipes §9.4; formulation-convex §11 carries over to
 * the next line of the paragraph: SAP's regularization (§4.3). */
/* bad: formulation-convex §99 */
/* bad: spec §4.2 */
/* bad: ICF §4.2 */
C
out=$(perl "$chk" "$tmp" 2>&1); rc=$?
[ $rc -eq 1 ] && ok "a bad citation fails the check (exit $rc)" || bad "a bad citation fails the check (exit $rc)"
echo "$out" | grep -q "lib/x.c:4: §99 is not a section of docs/formulation-convex.md" \
    && ok "a made-up section is reported" || bad "a made-up section is reported: $out"
echo "$out" | grep -q "lib/x.c:5: §4.2 names no document" \
    && ok "a citation without a document is reported" || bad "a citation without a document: $out"
echo "$out" | grep -q "lib/x.c:6: §4.2 after the paper tag ICF" \
    && ok "an Arabic section after a paper tag is reported" || bad "Arabic after a paper tag: $out"
echo "$out" | grep -q "3 problems" \
    && ok "exactly the three bad citations are reported" || bad "exactly three problems: $out"

sed -i '4,6d' "$tmp/lib/x.c"
sed -i 's/^### 4.3 /### 4.3x /' "$tmp/docs/formulation-convex.md"
out=$(perl "$chk" "$tmp" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "lib/x.c:3: §4.3 is not a section of docs/formulation-convex.md" \
    && ok "a section removed from docs/ fails its citations" || bad "a removed section: $out"

# Links: a missing file, a missing anchor and an anchor of the file itself are reported, also in
# the <...> destination form; a link in a code block or code span, and an external one, are not
# links of the repository.
sed -i 's/^### 4.3x /### 4.3 /' "$tmp/docs/formulation-convex.md" && rm "$tmp/lib/x.c"
cat > "$tmp/docs/links.md" <<'MD'
# Links

## 2. A heading, with punctuation (`code`)

[good](guide.md#6-running) [good](#2-a-heading-with-punctuation-code) [external](https://example.org/x)
[gone](nothing.md) [no anchor](guide.md#99-nowhere) [self](#nowhere) `[span](nothing.md)`
[angle](<guide.md>) [angle gone](<nothing2.md>)

```sh
[block](nothing.md)
```
MD
out=$(perl "$chk" "$tmp" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "docs/links.md:6: link to nothing.md: no file docs/nothing.md" \
    && echo "$out" | grep -q "docs/links.md:6: link to guide.md#99-nowhere: no heading of docs/guide.md" \
    && echo "$out" | grep -q "docs/links.md:6: link to #nowhere: no heading of docs/links.md" \
    && echo "$out" | grep -q "docs/links.md:7: link to nothing2.md: no file docs/nothing2.md" \
    && echo "$out" | grep -q ", 4 problems" \
    && ok "a link to a missing file or heading is reported, code is not read" \
    || bad "links: $out"
exit $fail
