#!/bin/sh
# Data objects by the names every output gives them: two allocations on
# one line are told apart by their call sites' columns (FILE:LINE:COLUMN)
# alike in info (text and JSON), the fold's objects.csv and summary.md,
# and the synthetic and raw Paraver traces' labels; info lists no static variable
# of the system's libraries or the recorder unless --all-objects.
tf=${TRACEFOLD:?run by make check}
app=${top_builddir:?run by make check}/tests/analysis/two_allocs_app
src=${top_srcdir:?run by make check}/tests/analysis/two_allocs_app.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-objnames-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
line=$(grep -n 'the-allocations' "$src" | cut -d: -f1)
set -- $(sed -n "${line}p" "$src" |
         awk '{ i = index($0, "calloc"); j = index(substr($0, i + 1), "calloc") + i; print i, j }')
first=two_allocs_app.c:$line:$1 second=two_allocs_app.c:$line:$2
echo "expected: $first and $second"
"$tf" record -q -o "$tmp/t.h5" --period 1ms -- "$app" 5000 200000 >/dev/null ||
    fail "recording exit status $?"

"$tf" info "$tmp/t.h5" >"$tmp/info" || fail "info exit status $?"
"$tf" info --all-objects "$tmp/info.h5" 2>/dev/null && fail "info of a missing file succeeded"
"$tf" info --all-objects "$tmp/t.h5" >"$tmp/all" || fail "info --all-objects exit status $?"
sed -n '/data objects/,/^$/p' "$tmp/info"
for name in "$first" "$second"; do
    grep -Eq "^ +#[0-9]+ heap +$name " "$tmp/info" || fail "info: no heap object $name"
done
grep -q "$first#2\|$second#2\|two_allocs_app.c:$line#2" "$tmp/info" &&
    fail "info: the second allocation named by its rank, not its column"
# the statics of libc and of the recorder are left out, and said to be
listed=$(sed -n 's/^  data objects: \([0-9]*\).*/\1/p' "$tmp/info")
hidden=$(sed -n 's/^  data objects: [0-9]* (and \([0-9]*\) static variables* \(and small blocks \)\{0,1\}of system.*/\1/p' "$tmp/info")
all=$(sed -n 's/^  data objects: \([0-9]*\)$/\1/p' "$tmp/all")
[ -n "$hidden" ] && [ "$hidden" -gt 0 ] || fail "info: no system library statics left out"
[ "$((listed + hidden))" = "$all" ] ||
    fail "info: $listed listed + $hidden left out != $all with --all-objects"
"$tf" info --json --all-objects "$tmp/t.h5" >"$tmp/all.json" || fail "info --json exit $?"
"$tf" info --json "$tmp/t.h5" >"$tmp/info.json" || fail "info --json exit $?"
grep -q '"tf_rec_g"' "$tmp/all.json" || fail "--all-objects: the recorder's statics missing"
grep -q '"tf_rec_g"' "$tmp/info.json" && fail "info --json lists the recorder's statics"
grep -q "\"objects_not_listed\": $hidden," "$tmp/info.json" ||
    fail "info --json: no objects_not_listed $hidden"
for name in "$first" "$second"; do
    grep -q "\"label\": \"$name\"" "$tmp/info.json" || fail "info --json: no label $name"
done

"$tf" fold -q -o "$tmp/fold" --region iteration "$tmp/t.h5" || fail "fold exit status $?"
cat "$tmp/fold/objects.csv"
# heap objects: only the two, by the same names; and at least one sampled
awk -F, -v a="$first" -v b="$second" '
    NR > 1 && $4 == "heap" { if ($3 != a && $3 != b) bad = 1; n++ }
    END { exit bad || !n }' "$tmp/fold/objects.csv" ||
    fail "objects.csv: heap objects not named $first or $second"
awk -F, 'NR > 1 && $4 == "heap" { print $3 }' "$tmp/fold/objects.csv" | while read -r name; do
    grep -q "^| $name | heap |" "$tmp/fold/summary.md" || fail "summary.md: no $name"
done || exit 1
for name in "$first" "$second"; do
    grep -Eq "^[0-9]+ +$name\$" "$tmp/fold/folded.pcf" || fail "folded.pcf: no label $name"
done
"$tf" paraver -q -o "$tmp/raw.prv" "$tmp/t.h5" || fail "paraver exit status $?"
for name in "$first" "$second"; do
    grep -Eq "^[0-9]+ +$name\$" "$tmp/raw.pcf" || fail "raw.pcf: no label $name"
done
exit 0
