#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The pictures of the docs: every image README.md and docs/ show exists, and
# docs/images/ holds exactly the images `make docs-images`
# (scripts/docs-images) draws from the current code, each shown by a page,
# so none is stale or left over.
set -u
src=${top_srcdir:?run by make check}
cd "$src" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-docs-images.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# Every ![alt](path) of a page, as "page path-from-the-top".
for page in README.md docs/*.md docs/*/*.md; do
    grep -o '!\[[^]]*\]([^)]*)' "$page" | sed 's/.*](\(.*\))/\1/' |
        while read -r ref; do
            case $ref in
            http:* | https:*) echo "$page: $ref: an image from the network" >&2 ;;
            /*) echo "$page: $ref: an absolute path" >&2 ;;
            *) echo "$page $(dirname "$page")/$ref" ;;
            esac
        done
done > "$tmp/refs" 2>"$tmp/bad"
while read -r line; do fail "$line"; done < "$tmp/bad"
while read -r page path; do
    [ -f "$path" ] || fail "$page shows $path, which does not exist"
    # Normalised to the top: docs/commands/../images/x.png is docs/images/x.png.
    (cd "$(dirname "$path")" 2>/dev/null && echo "$(pwd -P)/$(basename "$path")")
done < "$tmp/refs" | sed "s|^$(pwd -P)/||" | sort -u > "$tmp/shown"
sh scripts/docs-images --list | sed 's|^|docs/images/|' | sort > "$tmp/drawn"
[ -s "$tmp/drawn" ] || fail "scripts/docs-images --list lists nothing"
ls docs/images/* | sort > "$tmp/present"
for f in $(comm -23 "$tmp/drawn" "$tmp/shown"); do fail "$f is drawn by scripts/docs-images but shown by no page"; done
for f in $(comm -13 "$tmp/drawn" "$tmp/shown"); do fail "$f is shown but not drawn by scripts/docs-images"; done
for f in $(comm -13 "$tmp/drawn" "$tmp/present"); do fail "$f is in docs/images/ but not drawn by scripts/docs-images"; done
for f in $(comm -23 "$tmp/drawn" "$tmp/present"); do fail "$f is drawn by scripts/docs-images but not checked in"; done
# Small enough for the repository: at most 400 KB each, 3 MB in all.
total=0
for f in $(cat "$tmp/present"); do
    size=$(wc -c < "$f")
    [ "$size" -le 400000 ] || fail "$f is $size bytes (at most 400000)"
    total=$((total + size))
done
[ "$total" -le 3000000 ] || fail "docs/images/ holds $total bytes (at most 3000000)"
echo "docs images: $(wc -l < "$tmp/drawn") drawn, $(wc -l < "$tmp/shown") shown, $total bytes"
[ "$fails" -eq 0 ]
