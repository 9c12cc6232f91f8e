#!/bin/sh
# tracefold diff (docs/commands/diff.md): a fold compared with itself
# reports a ratio of 1 and no significant change in any phase or column
# (a before/after pair: tests/examples/matmul_diff.sh), on a synthetic
# trace and on an Extrae trace.  Bad input
# (not a fold.h5, a region it lacks, folds of two regions not both named,
# an existing or unwritable OUT) exits 1 with one message and leaves no OUT
# behind.
set -u
tf=${TRACEFOLD:?run by make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-diff-XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$tf" synth -q -o "$tmp/s.h5" --seed 5 --iterations 120 || exit 1
"$tf" fold -q "$tmp/s.h5" -o "$tmp/s.fold" || exit 1
"$tf" diff -q "$tmp/s.fold/fold.h5" "$tmp/s.fold/fold.h5" -o "$tmp/self" || bad "self diff exit $?"
for f in diff.csv diff.md diff.pdf .tracefold-diff; do
    [ -s "$tmp/self/$f" ] || bad "self diff wrote no $f"
done
# column NAME: that column of self/diff.csv, one value a line, no header.
column() {
    awk -F, -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == want) c = i; next }
                          c { print $c }' "$tmp/self/diff.csv"
}
rows=$(column phase | wc -l)
[ "$rows" -ge 3 ] || bad "self diff: $rows rows, expected the phases and total"
column phase | tail -n1 | grep -qx total || bad "self diff: no row total last"
[ -z "$(column ratio | grep -vx 1)" ] || bad "self diff: a ratio other than 1: $(column ratio | tr '\n' ' ')"
grep -q ',yes' "$tmp/self/diff.csv" && bad "self diff: a significant change: $(grep ',yes' "$tmp/self/diff.csv")"
grep -q 'x faster\|x slower' "$tmp/self/diff.md" && bad "self diff: diff.md calls a change"

# refused PATTERN OUT ARGS...: exit 1, one line on stderr matching PATTERN, no OUT
# (nor its temporary) left.
refused() {
    pattern=$1 out=$2
    shift 2
    "$tf" diff "$@" -o "$out" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || bad "diff $*: exit $rc, expected 1: $(cat "$tmp/err")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "diff $*: not one line: $(cat "$tmp/err")"
    grep -Eq -- "$pattern" "$tmp/err" || bad "diff $*: message '$(cat "$tmp/err")' lacks /$pattern/"
    ls -d "$out".tmp-* >/dev/null 2>&1 && bad "diff $*: a temporary output was left"
}
refused "s\.h5" "$tmp/o1" "$tmp/s.h5" "$tmp/s.fold/fold.h5"
[ -e "$tmp/o1" ] && bad "not a fold.h5: OUT was written"
refused "no folded region 'nothing'" "$tmp/o2" --region nothing "$tmp/s.fold/fold.h5" "$tmp/s.fold/fold.h5"
[ -e "$tmp/o2" ] && bad "no such region: OUT was written"
refused "self: exists" "$tmp/self" "$tmp/s.fold/fold.h5" "$tmp/s.fold/fold.h5"
mkdir "$tmp/ro" && chmod a-w "$tmp/ro"
if [ ! -w "$tmp/ro" ]; then
    refused "ro/out" "$tmp/ro/out" "$tmp/s.fold/fold.h5" "$tmp/s.fold/fold.h5"
    [ -e "$tmp/ro/out" ] && bad "unwritable OUT: something was written"
fi
# --force replaces what diff wrote
"$tf" diff -q --force -f svg "$tmp/s.fold/fold.h5" "$tmp/s.fold/fold.h5" -o "$tmp/self" ||
    bad "--force: exit $?"
[ -s "$tmp/self/diff.svg" ] && [ ! -e "$tmp/self/diff.pdf" ] || bad "--force did not replace OUT as a whole"

# Two regions: a fold of region phase names (synth --nested) against the
# iteration's fold is refused unless both are named.
"$tf" synth -q -o "$tmp/n.h5" --seed 5 --iterations 60 --nested || exit 1
"$tf" fold -q "$tmp/n.h5" --region copy -o "$tmp/n.fold" || exit 1
refused "different regions" "$tmp/o3" "$tmp/s.fold/fold.h5" "$tmp/n.fold/fold.h5"
"$tf" diff -q --region iteration --region-b copy "$tmp/s.fold/fold.h5" "$tmp/n.fold/fold.h5" \
    -o "$tmp/o4" || bad "two named regions: exit $?"
[ -s "$tmp/o4/diff.csv" ] || bad "two named regions: no diff.csv"
# Paraver input (the Extrae trace of 444.namd): a routine that runs twice
# in the iteration is matched with its own occurrence, by routine.
namd=${top_srcdir:?run by make check}/tests/data/extrae/444.namd.prv.gz
"$tf" fold -q "$namd" -o "$tmp/namd" || bad "fold namd: exit $?"
"$tf" diff -q "$tmp/namd/fold.h5" "$tmp/namd/fold.h5" -o "$tmp/namd-self" || bad "namd self diff: exit $?"
grep -q ',yes' "$tmp/namd-self/diff.csv" && bad "namd self diff: a significant change"
awk -F, 'NR > 1 && $1 != "total" && ($2 != "routine" || $3 != $4) { exit 1 }' "$tmp/namd-self/diff.csv" ||
    bad "namd self diff: a phase not matched with itself by routine: $(cat "$tmp/namd-self/diff.csv")"
awk -F, 'NR > 1 && $13 == "" { exit 1 }' "$tmp/namd-self/diff.csv" || bad "namd self diff: no MIPS (PAPI_TOT_INS)"
# The page's layout checked as the report's (tests/render/layout_check.py):
# the namd diff (long routine names) and the two-region one.
if command -v python3 >/dev/null; then
    "$tf" diff -q --force --layout-json "$tmp/namd.json" "$tmp/namd/fold.h5" "$tmp/namd/fold.h5" \
        -o "$tmp/namd-self" || bad "namd diff --layout-json: exit $?"
    "$tf" diff -q --force --layout-json "$tmp/o4.json" --region iteration --region-b copy \
        "$tmp/s.fold/fold.h5" "$tmp/n.fold/fold.h5" -o "$tmp/o4" || bad "diff --layout-json: exit $?"
    python3 "$top_srcdir/tests/render/layout_check.py" namd-diff "$tmp/namd.json" \
        two-regions "$tmp/o4.json" || bad "the diff page fails the layout check"
fi
"$tf" diff 2>/dev/null; [ $? -eq 2 ] || bad "no arguments: exit code not 2"
exit $fail
