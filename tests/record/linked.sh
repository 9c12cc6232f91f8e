#!/bin/sh
# A program linked with libtracefold and started without `tracefold record`:
# the library starts the writer helper itself, which finishes the trace
# after the program exits.
. "$top_srcdir/tests/record/lib.sh"
TRACEFOLD_OUTPUT="$tmp/l-%p.h5" TRACEFOLD_PERIOD=1ms "$apps/threads_app" 8 10 ||
    fail "linked program exit status $?"
# The helper closes the trace shortly after the program's end.
f=$(helper_trace "$tmp/l-") || exit 1
"$check" threads "$f" 8 10 || fail "linked program's trace"
exit 0
