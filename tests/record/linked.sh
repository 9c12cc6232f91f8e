#!/bin/sh
# A program linked with libtracefold and started without `tracefold record`:
# the library starts the writer helper itself, which finishes the trace
# after the program exits; TRACEFOLD_AUTOSTART=off defers the start to
# tracefold_init.
. "$top_srcdir/tests/record/lib.sh"
TRACEFOLD_OUTPUT="$tmp/l-%p.h5" TRACEFOLD_PERIOD=1ms "$apps/threads_app" 8 10 ||
    fail "linked program exit status $?"
# The helper closes the trace shortly after the program's end.
f=$(helper_trace "$tmp/l-") || exit 1
"$check" threads "$f" 8 10 || fail "linked program's trace"
# Not started at load time (TRACEFOLD_AUTOSTART=off, read by the library's
# constructor itself), then by the program's tracefold_init.
TRACEFOLD_AUTOSTART=off TRACEFOLD_OUTPUT="$tmp/late-%p.h5" TRACEFOLD_PERIOD=1ms \
    "$apps/threads_app" 4 10 late-init || fail "linked, late init: exit status $?"
f=$(helper_trace "$tmp/late-") || exit 1
"$check" threads "$f" 4 10 || fail "linked, late init: trace"
exit 0
