#!/bin/sh
# A program with its own SIGPROF handler (ITIMER_PROF) and SIGALRM blocked
# keeps working under the recorder, which samples it with its own signal;
# one that takes over the recorder's signal does not stop the sampling.
. "$top_srcdir/tests/record/lib.sh"
out=$("$tf" record -q -o "$tmp/s.h5" --period 2ms -- "$apps/sigprof_app") ||
    fail "sigprof_app failed under the recorder: $out"
case $out in sigprof=[1-9]*) ;; *) fail "the program's SIGPROF handler did not run: $out" ;; esac
"$check" stack "$tmp/s.h5" sigprof_work || fail "no samples in sigprof_work"

# A program that installs a handler for the very signal the recorder uses
# (here forced to record_loop's own): sampling goes on, and the
# program's handler does not see the recorder's signals.
loop=$bd/bench/record_loop
if [ -x "$loop" ]; then
    sig=$("$loop" --signal)
    out=$("$tf" record -q -o "$tmp/l.h5" --signal "$sig" --period 1ms -- "$loop" 20000) ||
        fail "record_loop under the recorder"
    case $out in *" signals=0 "*) ;; *) fail "the program's handler got the recorder's signals: $out" ;; esac
    [ "$(field samples "$tmp/l.h5")" -gt 0 ] || fail "no samples once the program took the signal"
fi
exit 0
