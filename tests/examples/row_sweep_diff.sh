#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# The loop of issue 33 on examples/row_sweep: its matrix a row per
# allocation (8000 blocks of 256 bytes, below the heap threshold: one
# object of kind small), the rows scattered over the heap among other
# objects as a real code's setup leaves them, against the same rows as
# slices of one allocation (-C), everything else the same.  With memory
# samples: the advice "many small allocations" on the first fold names
# the rows' call site and its 8000 blocks, and none on the second.
# Always: the program's own median iteration at most 0.9 of the scattered
# rows' with one allocation (the gain the advice promises; 0.59-0.70 in
# eight recorded runs, docs/examples.md; when the recorded pair misses it
# but unrecorded pairs keep it, the host disturbed the runs: skipped; when
# unrecorded pairs miss it too, the machine shows no gain to measure:
# skipped, the advice still checked),
# diff's ratio of the iterations significant
# and within 15 % of the program's ratio (on a busy machine a check of
# these timings that fails skips, lib.sh timing_verdict); each fold
# against itself no significant change.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: the instrumented programs' timings are not the ones checked (normal build checks this)"
    exit 77
fi
period=500us
record_example software "$tmp/rows.h5" row_sweep -i 1000
record_example software "$tmp/one.h5" row_sweep -i 1000 -C
for v in rows one; do
    "$tf" fold -q "$tmp/$v.h5" --region iteration -o "$tmp/$v" || { echo "FAIL: fold $v"; exit 1; }
done
diff_itself "$tmp/rows" "$tmp/one"
"$tf" diff -q "$tmp/rows/fold.h5" "$tmp/one/fold.h5" -o "$tmp/diff" || { echo "FAIL: diff exit $?"; exit 1; }
cat "$tmp/diff/diff.csv"
median() { awk '$1 == "median_ms" { print $2 }' "$tmp/$1.txt"; }
expected=$(awk -v a="$(median rows)" -v b="$(median one)" 'BEGIN { print b / a }')
row=$(csv "$tmp/diff/diff.csv" phase ratio significant | grep '^total,')
total=$(echo "$row" | cut -d, -f2)
echo "iteration: diff's ratio ${total:-none}, the program's $expected ($(median rows) -> $(median one) ms)"
off=0
# The premise, one allocation faster, is the program's; an iteration of
# 0.3 ms bound by the memory shows the host's other work (CI, 2026-12-07:
# the recorded pair 0.282 -> 0.356 ms, with a whole CPU and diff's ratio
# within 3 % of the program's).  When the recorded pair says otherwise, the
# two layouts are timed again unrecorded, three pairs in turn (the median
# of their medians): if those keep the premise, the recorded pair was
# disturbed and the test skips; if not, the example lost it and fails.
unrecorded_ratio() {
    for i in 1 2 3; do
        for v in rows one; do
            flag=; [ $v = one ] && flag=-C
            TRACEFOLD_AUTOSTART=no "$examples/row_sweep" -i 1000 $flag 2>/dev/null |
                awk -v v=$v '$1 == "median_ms" { print v, $2 }'
        done
    done | awk '{ t[$1, ++n[$1]] = $2 }
                function med(v,  a, b, c) { a = t[v, 1]; b = t[v, 2]; c = t[v, 3]
                    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b)) }
                END { if (n["rows"] == 3 && n["one"] == 3) print med("one") / med("rows") }'
}
if ! awk -v e="$expected" 'BEGIN { exit !(e <= 0.9) }'; then
    again=$(unrecorded_ratio)
    if [ -n "$again" ] && awk -v e="$again" 'BEGIN { exit !(e <= 0.9) }'; then
        disturbed="the recorded pair's ratio $expected, above 0.9, unrecorded pairs' $again"
        echo "$disturbed"
    elif [ -n "$again" ]; then
        # The machine, not tracefold: unrecorded, the one allocation is
        # not faster either (on 2026-12-07 this VM timed it 1.24 times the
        # scattered rows for a while, 0.59-0.70 before): there is no gain
        # for diff to measure, so its timings are not judged.
        lost="the program's ratio $expected and unrecorded pairs' $again, above 0.9"
        echo "$lost"
    else
        timing_off "one allocation not faster: the program's ratio $expected, above 0.9 (unrecorded: not timed)"
    fi
fi
if [ -z "${lost:-}" ]; then
    case $row in total,?*,yes) ;; *) timing_off "no significant change of the iteration: '$row'" ;; esac
    within 15 "$total" "$expected" ||
        timing_off "iteration ratio $total not within 15 % of the program's $expected"
fi

# the advice needs memory samples (the timings above do not)
nmem=$(memory_samples "$tmp/rows.h5")
if [ "$nmem" -gt 0 ]; then
    site=$(call_site row_sweep.c 'a block per row')
    row=$(awk -F, -v s="$site" 'NR > 1 && $4 == s && $5 == "many small allocations"' \
          "$tmp/rows/advice.csv" | head -n1)
    case $row in
    *"8000 blocks from call site $site, 256 B each on average"*) ;;
    *) bad "rows: no advice to allocate the rows of $site as one: $(cat "$tmp/rows/advice.csv")" ;;
    esac
    grep -q 'many small allocations' "$tmp/one/advice.csv" && bad "one allocation: advice after the change"
fi
timing_verdict "$off" "$tmp/rows" "$tmp/one"
[ $fails -eq 0 ] || exit 1
[ -z "${disturbed:-}" ] || { echo "SKIP: the host disturbed the recorded runs: $disturbed"; exit 77; }
[ -z "${lost:-}" ] || { echo "SKIP: this machine shows no gain from one allocation now: $lost"; exit 77; }
[ "$nmem" -gt 0 ] || { echo "SKIP: $tmp/rows.h5 has no memory samples: the advice not checked"; exit 77; }
