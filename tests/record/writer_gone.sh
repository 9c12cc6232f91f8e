#!/bin/sh
# A writer that dies never makes the program wait beyond its bounds: the
# recorded program, its writer (tracefold record) killed under it, runs to
# its end, and says at most once that the writer has gone: it sees that
# the writer no longer holds the session's FIFO, without waiting to the
# bound for a writer that does not answer.
. "$top_srcdir/tests/record/lib.sh"
"$tf" record -o "$tmp/w.h5" -- "$apps/plain_app" 1500 > "$tmp/out" 2> "$tmp/err" &
rec=$!
app=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    app=$(ps -o pid= --ppid $rec | tr -d ' ')
    [ -n "$app" ] && grep -q TRACEFOLD_SESSION "/proc/$app/environ" 2>/dev/null && break
    sleep 0.1
done
[ -n "$app" ] || fail "recorded program not found"
session=$(tr '\0' '\n' < "/proc/$app/environ" | sed -n 's/^TRACEFOLD_SESSION=//p')
sleep 0.3
kill -KILL $rec
wait $rec 2>/dev/null
# The program's work is 1.5 s of CPU; its waits at its end see the writer
# gone within 0.1 s (bounded by 5 s, should they not): 60 s is far beyond
# both, even on a loaded machine.
for i in $(seq 600); do
    kill -0 "$app" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$app" 2>/dev/null && { kill -KILL "$app"; fail "the program still runs 60 s after its writer died"; }
[ -n "$session" ] && rm -rf "$session"
grep -q "plain_app done" "$tmp/out" || fail "the program did not reach its end: $(cat "$tmp/err")"
n=$(grep -c "has gone\|did not answer" "$tmp/err" || true)
[ "$n" -le 1 ] || fail "the late writer was said $n times: $(cat "$tmp/err")"
grep -q "did not answer" "$tmp/err" && fail "the dead writer was waited for to the bound: $(cat "$tmp/err")"

# A linked program's own writer (its helper) killed while the program
# runs: the program's end, which waits for its trace to be closed, sees
# the helper gone and says so once, rather than waiting to its bound.
TRACEFOLD_OUTPUT="$tmp/l-%p.h5" TRACEFOLD_PERIOD=1ms "$apps/threads_app" 2 3000 \
    > "$tmp/lout" 2> "$tmp/lerr" &
lapp=$!
helper=""
for i in $(seq 100); do
    helper=$(ps -o pid= --ppid $lapp | tr -d ' ')
    [ -n "$helper" ] && break
    sleep 0.05
done
[ -n "$helper" ] || fail "the linked program's writer helper not found"
sleep 0.3
kill -KILL "$helper"
wait $lapp || fail "linked program: exit status $?"
n=$(grep -c "has gone" "$tmp/lerr" || true)
[ "$n" -eq 1 ] || fail "linked program, helper killed: 'has gone' said $n times: $(cat "$tmp/lerr")"
grep -q "did not answer" "$tmp/lerr" && fail "the dead helper was waited for to the bound: $(cat "$tmp/lerr")"
exit 0
