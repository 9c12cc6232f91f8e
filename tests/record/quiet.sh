#!/bin/sh
# Quiet means quiet: with -q (or TRACEFOLD_QUIET) a successful run says
# nothing, in tracefold record and in every recorded process (threads,
# fork, exec), except a loss (a user counter defined too late); a linked
# program run on its own says nothing; without -q
# the line about unavailable counters comes once per run, not once per
# process.
. "$top_srcdir/tests/record/lib.sh"
quiet_run() {
    what=$1
    shift
    "$@" 2> "$tmp/err" || fail "$what: exit status $?"
    [ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "$what: stderr is not empty"; }
}
quiet_run "-q, one thread" "$tf" record -q -o "$tmp/q1.h5" -- "$apps/plain_app" 100
quiet_run "-q, threads" "$tf" record -q -o "$tmp/q2.h5" -- "$apps/threads_app" 4 10
quiet_run "-q, fork and exec" "$tf" record -q -o "$tmp/q3-%p.h5" -- "$apps/fork_exec_app"
[ "$(ls "$tmp"/q3-*.h5 | wc -l)" -eq 4 ] || fail "fork and exec: expected 4 traces"
TRACEFOLD_QUIET=1 quiet_run "TRACEFOLD_QUIET" "$tf" record -o "$tmp/q4.h5" -- "$apps/plain_app" 100
# A counter that no machine has: the line must be said, once for the run's
# four processes.
"$tf" record --counters no-such-counter -o "$tmp/c-%p.h5" -- "$apps/fork_exec_app" \
    2> "$tmp/err" || fail "counters run: exit status $?"
[ "$(ls "$tmp"/c-*.h5 | wc -l)" -eq 4 ] || fail "counters run: expected 4 traces"
n=$(grep -c "counters unavailable" "$tmp/err")
[ "$n" -eq 1 ] || { cat "$tmp/err"; fail "counters line said $n times, not once"; }
grep -q "no-such-counter" "$tmp/err" || fail "counters line does not name the counter"
# The same with -q: not said.
quiet_run "-q, counters missing" "$tf" record -q --counters no-such-counter -o "$tmp/d.h5" -- \
    "$apps/plain_app" 100
# Quiet is not silent about a loss: a user counter defined after the
# trace's counter columns were fixed is refused, and said even with -q.
"$tf" record -q -o "$tmp/late.h5" -- "$apps/threads_app" 2 5 late-counter 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "late counter run: exit status $?"; }
grep -q "user counter 'late' not recorded" "$tmp/err" || { cat "$tmp/err"; fail "late counter not said"; }
# A linked program on its own: nothing, and its trace is still written.
TRACEFOLD_OUTPUT="$tmp/l-%p.h5" TRACEFOLD_PERIOD=1ms quiet_run "linked, on its own" "$apps/threads_app" 8 10
f=$(helper_trace "$tmp/l-") || exit 1
"$check" threads "$f" 8 10 || fail "linked program's trace"
exit 0
