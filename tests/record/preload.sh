#!/bin/sh
# An uninstrumented program, recorded by preloading only: samples with call
# stacks; the POSIX-timer back end; an unwritable output directory leaves
# the program running untraced with a clear message.
. "$top_srcdir/tests/record/lib.sh"
out=$("$tf" record -q -o "$tmp/p.h5" -- "$apps/plain_app" 300) || fail "record exit status $?"
[ "$out" = "plain_app done" ] || fail "program output changed: $out"
"$check" stack "$tmp/p.h5" plain_hot_loop || fail "samples do not reach plain_hot_loop"
[ "$(field samples "$tmp/p.h5")" -ge 20 ] || fail "too few samples at 5 ms over 300 ms"

"$tf" record -q -o "$tmp/posix.h5" --sampler posix --period 4ms -- "$apps/plain_app" 300 \
    >/dev/null || fail "record --sampler posix"
[ "$(field samples "$tmp/posix.h5")" -ge 10 ] || fail "posix sampler: too few samples"

out=$("$tf" record -o /nonexistent-dir/t.h5 -- "$apps/plain_app" 50 2>"$tmp/err") ||
    fail "unwritable output: the program should still succeed"
[ "$out" = "plain_app done" ] || fail "unwritable output: program output changed"
grep -q '/nonexistent-dir/t.h5' "$tmp/err" || fail "unwritable output: no message naming the file"
exit 0
