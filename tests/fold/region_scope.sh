#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# fold --region-scope on an OpenMP program (libgomp) whose master thread
# marks the iteration around two parallel loops, with 2 and 4 threads:
# by default each instance covers every thread of the team (instances.csv,
# threads), the instances hold 95 % of the samples or more (the used ones
# 90 %: the filter may exclude disturbed instances), the
# phases are the parallel loops' lines and the barrier waits are counted
# apart, not as a phase; --region-scope thread folds the master's alone.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: the instrumented loops' lines and timings differ (normal build checks this)"
    exit 77
fi
app=$top_builddir/tests/fold/omp_app
src=$top_srcdir/tests/fold/omp_app.c
line_a=$(grep -n '/\* LOOP_A' "$src" | cut -d: -f1)
line_b=$(grep -n '/\* LOOP_B' "$src" | cut -d: -f1)
# info_samples TRACE: every sample of the trace
info_samples() {
    "$tf" info --json "$1" | sed -n 's/.*"samples": {"timer".*"total": \([0-9]*\)}.*/\1/p'
}
for n in 2 4; do
    OMP_NUM_THREADS=$n "$tf" record -q -o "$tmp/o$n.h5" --period 1ms -- "$app" 40 ${work:-10000} \
        >/dev/null || { echo "FAIL: recording with $n threads exited $?"; exit 1; }
    busy=$("$tf" info --json "$tmp/o$n.h5" | grep -c '"tid": [0-9]*, "events": [0-9]*, "samples": [1-9]')
    if [ "$busy" -lt "$n" ]; then
        echo "SKIP: $busy threads with samples of $n: no OpenMP in this build (configure's AC_OPENMP)"
        exit 77
    fi
    "$tf" fold -q -o "$tmp/f$n" "$tmp/o$n.h5" || { bad "$n threads: fold exited $?"; continue; }
    covers=$(csv "$tmp/f$n/instances.csv" threads | sort -u | tr '\n' ' ')
    [ "$covers" = "$n " ] || bad "$n threads: instances cover '$covers' threads, not $n"
    total=$(info_samples "$tmp/o$n.h5")
    folded=$(csv "$tmp/f$n/instances.csv" status samples |
             awk -F, '$1 == "used" { s += $2 } END { print s + 0 }')
    inside=$(csv "$tmp/f$n/instances.csv" samples | awk '{ s += $1 } END { print s + 0 }')
    echo "$n threads: $folded samples folded, $inside inside instances, of $total"
    # every sample of the team inside the instances (thread scope: 1/n);
    # the used ones less those of instances the outlier filter excluded
    # (disturbed ones: 4 threads on 2 busy CPUs left 94.7 % in one run)
    awk -v f="$inside" -v t="$total" 'BEGIN { exit !(f >= 0.95 * t) }' ||
        bad "$n threads: $inside of $total samples inside the instances, under 95 %"
    # On a busy machine (the test suite's other jobs on 2 CPUs) the filter
    # may exclude many disturbed instances: under 90 % only fails when no
    # instance was excluded, i.e. when samples went missing otherwise.
    excluded=$(csv "$tmp/f$n/instances.csv" status | grep -vc '^used$')
    awk -v f="$folded" -v t="$total" 'BEGIN { exit !(f >= 0.9 * t) }' ||
        if [ "$excluded" -gt 0 ]; then
            echo "note: $n threads: $folded of $total samples in used instances" \
                 "($excluded instances excluded as disturbed)"
        else
            bad "$n threads: $folded of $total samples in used instances, under 90 %"
        fi
    # top-level phases: the loops' lines hold the code samples; no phase
    # is the runtime's (the barrier)
    csv "$tmp/f$n/phases.csv" phase routine line share waiting | grep -v '^[0-9]*\.' \
        >"$tmp/phases$n"
    sed "s/^/  /" "$tmp/phases$n"
    loops=$(awk -F, -v a="$line_a" -v b="$line_b" '$3 == a || $3 == b { s += $4 }
                                                   END { printf "%.3f", s }' "$tmp/phases$n")
    awk -v s="$loops" 'BEGIN { exit !(s >= 0.9) }' ||
        bad "$n threads: the loops' lines $line_a and $line_b hold $loops of the code samples"
    for l in $line_a $line_b; do
        awk -F, -v l="$l" '$3 == l { f = 1 } END { exit !f }' "$tmp/phases$n" ||
            bad "$n threads: no phase on line $l"
    done
    grep -iq 'gomp\|barrier' "$tmp/phases$n" && bad "$n threads: a phase of the OpenMP runtime"
    "$tf" fold -q --region-scope thread -o "$tmp/t$n" "$tmp/o$n.h5" ||
        { bad "$n threads: fold --region-scope thread exited $?"; continue; }
    [ "$(csv "$tmp/t$n/instances.csv" threads | sort -u)" = 1 ] ||
        bad "$n threads: thread scope covers other threads"
    master=$(csv "$tmp/t$n/instances.csv" samples | awk '{ s += $1 } END { print s + 0 }')
    awk -v m="$master" -v i="$inside" -v n="$n" 'BEGIN { exit !(m < 1.5 * i / n) }' ||
        bad "$n threads: thread scope holds $master samples of $inside"
done
# every worker marks its own iterations (tests/record/threads_app): auto
# keeps each thread's, process refuses them
"$tf" record -q -o "$tmp/w.h5" --period 1ms -- "$top_builddir/tests/record/threads_app" 2 50 \
    >/dev/null || { echo "FAIL: recording threads_app exited $?"; exit 1; }
"$tf" fold -q --region iteration -o "$tmp/w" "$tmp/w.h5" || bad "threads_app: fold exited $?"
[ "$(csv "$tmp/w/instances.csv" threads | sort -u)" = 1 ] || bad "threads_app: copies made"
"$tf" fold -q --region iteration --region-scope process -o "$tmp/wp" "$tmp/w.h5" 2>"$tmp/err" &&
    bad "--region-scope process accepted several marking threads"
grep -q "region 'iteration' is marked by several threads" "$tmp/err" ||
    bad "message: $(cat "$tmp/err")"
[ -e "$tmp/wp" ] && bad "output left behind"
"$tf" fold -q --region-scope all -o "$tmp/x" "$tmp/o2.h5" 2>"$tmp/err" && bad "--region-scope all accepted"
grep -q "region-scope: 'all' is not auto, thread or process" "$tmp/err" || bad "message: $(cat "$tmp/err")"
[ $fails -eq 0 ]
