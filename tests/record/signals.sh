#!/bin/sh
# A program with its own SIGPROF handler (ITIMER_PROF) and SIGALRM blocked
# keeps working under the recorder, which samples it with its own signal.
. "$top_srcdir/tests/record/lib.sh"
out=$("$tf" record -q -o "$tmp/s.h5" --period 2ms -- "$apps/sigprof_app") ||
    fail "sigprof_app failed under the recorder: $out"
case $out in sigprof=[1-9]*) ;; *) fail "the program's SIGPROF handler did not run: $out" ;; esac
"$check" stack "$tmp/s.h5" sigprof_work || fail "no samples in sigprof_work"
exit 0
