#!/bin/sh
# A program linked with libtracefold and started without `tracefold record`:
# the library starts the writer helper itself, which finishes the trace
# after the program exits.
. "$top_srcdir/tests/record/lib.sh"
TRACEFOLD_OUTPUT="$tmp/l-%p.h5" TRACEFOLD_PERIOD=1ms "$apps/threads_app" 8 10 ||
    fail "linked program exit status $?"
# The helper closes the trace shortly after the program's end.
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    f=$(ls "$tmp"/l-*.h5 2>/dev/null | head -n1)
    [ -n "$f" ] && [ "$(field complete "$f" 2>/dev/null)" = 1 ] && break
    sleep 0.5
done
[ -n "$f" ] || fail "no trace written by the helper"
"$check" threads "$f" 8 10 || fail "linked program's trace"
exit 0
