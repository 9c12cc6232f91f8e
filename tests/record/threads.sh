#!/bin/sh
# 8 threads with nested regions and user counters under `tracefold record`:
# exact instances and counter totals, samples with monotone counters and
# call stacks that resolve to the workers' functions; the same program
# built without -g; threads started before init; tracefold info reads the
# trace; exit() from a worker.
. "$top_srcdir/tests/record/lib.sh"
"$tf" record -q -o "$tmp/t.h5" --period 1ms -- "$apps/threads_app" 8 20 ||
    fail "record exit status $?"
"$check" threads "$tmp/t.h5" 8 20 || fail "threads_app trace"
"$tf" info "$tmp/t.h5" > "$tmp/info.txt" || fail "tracefold info exit status $?"
grep -q iteration "$tmp/info.txt" || fail "tracefold info lists no region 'iteration'"

# Without debug information (as if built without -g): no .debug_* sections,
# so no .debug_frame; stacks must come from .eh_frame, names from .symtab.
if command -v objcopy >/dev/null; then
    objcopy --strip-debug "$apps/threads_app" "$tmp/threads_app_nodebug" ||
        fail "objcopy --strip-debug"
    if readelf -S "$tmp/threads_app_nodebug" 2>/dev/null | grep -q '\.debug_'; then
        fail "debug sections left in the stripped copy"
    fi
    "$tf" record -q -o "$tmp/nodebug.h5" --period 1ms -- "$tmp/threads_app_nodebug" 4 10 ||
        fail "record (no debug info) exit status $?"
    "$check" threads "$tmp/nodebug.h5" 4 10 || fail "trace of the program without debug info"
fi

# Threads started before tracefold_init: attached at their first call.
# TRACEFOLD_AUTOSTART=0 is the spelling tracefold.h documents.
TRACEFOLD_AUTOSTART=0 "$tf" record -q -o "$tmp/late.h5" --period 1ms -- \
    "$apps/threads_app" 4 10 late-init || fail "late init: record exit status $?"
"$check" threads "$tmp/late.h5" 4 10 || fail "late init: threads started before init"

# exit(3) called by a worker while the main thread computes.
"$tf" record -q -o "$tmp/exit.h5" -- "$apps/threads_app" 4 5 exit-in-thread
rc=$?
[ $rc -eq 3 ] || fail "exit from a worker: status $rc, expected 3"
[ "$(field complete "$tmp/exit.h5")" = 1 ] || fail "exit from a worker: trace not complete"
[ "$("$check" summary "$tmp/exit.h5" | grep -c '^enter iteration')" -ge 5 ] ||
    fail "exit from a worker: iterations missing"
exit 0
