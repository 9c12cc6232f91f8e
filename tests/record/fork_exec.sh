#!/bin/sh
# fork gives the child its own trace (or none with --fork none); exec
# closes the trace before the new image starts its own; a vfork child's
# exec leaves the parent's recording alone.
. "$top_srcdir/tests/record/lib.sh"
"$tf" record -q -o "$tmp/fe-%p.h5" -- "$apps/fork_exec_app" || fail "record exit status $?"
n=$(ls "$tmp"/fe-*.h5 | wc -l)
[ "$n" -eq 4 ] || fail "expected 4 traces (parent, child, vfork+exec, after exec), got $n"
for f in "$tmp"/fe-*.h5; do
    "$check" summary "$f" >> "$tmp/all.txt" || fail "$f does not open"
done
[ "$(grep -c 'complete=1' "$tmp/all.txt")" -eq 4 ] || fail "a trace is not complete"
for r in parent child after_vfork after_exec; do
    [ "$(grep -c "^enter $r\$" "$tmp/all.txt")" -eq 1 ] || fail "region $r not recorded once"
done

mkdir "$tmp/none"
"$tf" record -q --fork none -o "$tmp/none/fe-%p.h5" -- "$apps/fork_exec_app" ||
    fail "record --fork none exit status $?"
n=$(ls "$tmp"/none/fe-*.h5 | wc -l)
[ "$n" -eq 3 ] || fail "--fork none: expected 3 traces, got $n"
for f in "$tmp"/none/fe-*.h5; do "$check" summary "$f"; done > "$tmp/none.txt"
grep -q '^enter child$' "$tmp/none.txt" && fail "--fork none: the child was recorded"
exit 0
