#!/bin/sh
# SIGKILL: the program killed mid-run leaves a complete trace (the writer
# outlives it); program and writer killed together leave a trace that
# still opens, with what was flushed before the kill.
. "$top_srcdir/tests/record/lib.sh"
kill_recorded 2.5 -q -o "$tmp/k.h5" --period 2ms -- "$apps/threads_app" 2 0 forever
[ "$(field complete "$tmp/k.h5")" = 1 ] || fail "killed program: trace not complete"
[ "$(field events "$tmp/k.h5")" -gt 10 ] || fail "killed program: events missing"
"$tf" info "$tmp/k.h5" >/dev/null || fail "tracefold info on the killed program's trace"

"$tf" record -q -o "$tmp/k2.h5" --period 2ms --flush-interval 200ms -- \
    "$apps/threads_app" 2 0 forever &
rec=$!
sleep 2.5
app=$(ps -o pid= --ppid $rec | tr -d ' ')
# Nobody is left to remove the session's shared memory: the test does.
session=$(tr '\0' '\n' < "/proc/$app/environ" | sed -n 's/^TRACEFOLD_SESSION=//p')
kill -KILL $rec $app
wait $rec
case $session in /dev/shm/tracefold-*|/tmp/tracefold-*) rm -rf "$session" ;; esac
"$check" summary "$tmp/k2.h5" > "$tmp/k2.txt" || fail "trace of a killed writer does not open"
grep -q 'complete=0' "$tmp/k2.txt" || fail "trace of a killed writer claims to be complete"
[ "$(field events "$tmp/k2.h5")" -gt 10 ] || fail "killed writer: flushed events missing"
"$tf" info "$tmp/k2.h5" >/dev/null || fail "tracefold info on a killed writer's trace"
exit 0
