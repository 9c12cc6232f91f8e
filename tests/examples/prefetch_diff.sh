#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# The loop of issue 33 on examples/prefetch: the gather through a random
# index over 32 MiB (16 iterations) against the same gather with software
# prefetches 32 elements ahead, folded with the profile of a quick
# `tracefold calibrate` (as tests/analysis/advice_gather.sh).  With memory
# samples: the advice "random over a large object", whose suggestion is a
# software prefetch, on the gathered array in the first fold, weaker (a
# smaller bound) or absent in the second.  Always: diff's ratio of the
# iterations (each holds the gather alone; its phases are aligned by
# order, the routines differ) within 15 % of the ratio of the program's
# own median times of the gathers, both below 1 and the change
# significant (on a busy machine a check of these timings that fails
# skips, lib.sh timing_verdict, as does a fold left with too few
# instances of similar duration); each fold against itself no
# significant change.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: the instrumented programs' timings are not the ones checked (normal build checks this)"
    exit 77
fi
"$tf" calibrate -q --quick --max-size 2M -o "$tmp/m.h5" || { echo "FAIL: calibrate exited $?"; exit 1; }
for v in gather gather_prefetched; do
    record_example software "$tmp/$v.h5" prefetch -v $v -m 32 -i 16
    cat "$tmp/$v.txt"
    if ! "$tf" fold -q "$tmp/$v.h5" --region iteration --machine "$tmp/m.h5" -o "$tmp/$v" \
        2>"$tmp/$v.err"; then
        cat "$tmp/$v.err"
        grep -q 'usable instance' "$tmp/$v.err" &&
            { echo "SKIP: the instances of $v too scattered to fold: too busy a machine"; exit 77; }
        echo "FAIL: fold $v"
        exit 1
    fi
done
diff_itself "$tmp/gather" "$tmp/gather_prefetched"
"$tf" diff -q "$tmp/gather/fold.h5" "$tmp/gather_prefetched/fold.h5" -o "$tmp/diff" ||
    { echo "FAIL: diff exit $?"; exit 1; }
cat "$tmp/diff/diff.csv"
median() { awk -v v="$1" '$1 == v { print $3 }' "$tmp/$1.txt"; }
expected=$(awk -v a="$(median gather)" -v b="$(median gather_prefetched)" 'BEGIN { print b / a }')
# the iteration holds the gather alone: its row total
row=$(csv "$tmp/diff/diff.csv" phase ratio significant | grep '^total,')
ratio=$(echo "$row" | cut -d, -f2)
echo "gather -> gather_prefetched: diff's ratio ${ratio:-none}, the program's $expected"
off=0
awk -v e="$expected" 'BEGIN { exit !(e < 1) }' ||
    timing_off "the program's prefetched gather not faster ($expected)"
case $row in total,?*,yes) ;; *) timing_off "no significant change of the iteration: '$row'" ;; esac
within 15 "$ratio" "$expected" ||
    timing_off "iteration ratio $ratio not within 15 % of the program's $expected"

# the advice needs memory samples (the timings above do not) and the
# profile's last-level cache and memory latency
nmem=$(memory_samples "$tmp/gather.h5")
untried=$(grep '^Not tried' "$tmp/gather/summary.md")
if [ "$nmem" -gt 0 ] && [ -z "$untried" ]; then
    # advice finding GATHER_OR_PREFETCHED: the bound of FINDING on c, empty if none
    advice() {
        awk -F, -v f="$1" 'NR > 1 && $5 == f && $4 ~ /^prefetch\.c:/ { print $NF; exit }' \
            "$tmp/$2/advice.csv"
    }
    before=$(advice "random over a large object" gather)
    after=$(advice "random over a large object" gather_prefetched)
    echo "random over a large object: bound ${before:-none} before, ${after:-none} after"
    if [ -z "$before" ]; then
        advice_off "$tmp/gather" "no advice 'random over a large object'"
    else
        grep -q 'random over a large object,"software prefetch' "$tmp/gather/advice.csv" ||
            bad "gather: the advice does not suggest a software prefetch"
        [ -z "$after" ] || awk -v a="$after" -v b="$before" 'BEGIN { exit !(a < b) }' ||
            bad "gather_prefetched: the advice as strong as before ($after against $before)"
    fi
fi
timing_verdict "$off" "$tmp/gather" "$tmp/gather_prefetched"
[ $fails -eq 0 ] || exit 1
advice_verdict
[ "$nmem" -gt 0 ] || { echo "SKIP: $tmp/gather.h5 has no memory samples: the advice not checked"; exit 77; }
[ -z "$untried" ] || { echo "SKIP: the quick profile lacks a figure, the advice not checked: $untried"; exit 77; }
