#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# fold without a region on programs that mark nothing: the regular main
# loop of tests/fold/unmarked_app is found from its samples (said in a
# note with the candidates), its instance period within 2 % of the
# program's own measure (on a shared machine, between 2 % under its CPU
# time and 2 % over its wall time per iteration: preemption makes the two
# differ, and the found span need not cover the same iterations), and a
# candidate is folded when named with --region; a program without a
# regular loop gets "no regular iteration" and the ways to mark one.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: the instrumented programs' timings are not the ones checked (normal build checks this)"
    exit 77
fi
app=$top_builddir/tests/fold/unmarked_app
"$tf" record -q -o "$tmp/r.h5" --period 1ms -- "$app" regular 40 ${work:-8000000} >"$tmp/r.txt" ||
    { echo "FAIL: recording exited $?"; exit 1; }
true_ns=$(sed -n 's/^period_ns //p' "$tmp/r.txt")
cpu_ns=$(sed -n 's/^cpu_period_ns //p' "$tmp/r.txt")
"$tf" fold -o "$tmp/f" "$tmp/r.h5" 2>"$tmp/notes" || { cat "$tmp/notes"; echo "FAIL: fold exited $?"; exit 1; }
cat "$tmp/notes"
grep -q "no region marked: the iteration found from the samples" "$tmp/notes" || bad "no note of what was found"
grep -q "candidate 1" "$tmp/notes" || bad "no candidates listed"
region=$(csv "$tmp/f/instances.csv" region | sort -u)
case $region in
stage_a|stage_b|stage_c) ;;
*) bad "the iteration begins in '$region', not in a stage of the loop" ;;
esac
# the period the note gives (from the first to the last boundary, in
# whole periods of the CPU clock: docs/algorithms.md)
found_ns=$(sed -n 's/.*no region marked:.* period \([0-9.]*\) ms.*/\1/p' "$tmp/notes" |
           awk '{ printf "%.0f\n", $1 * 1e6 }')
instances=$(csv "$tmp/f/instances.csv" region | wc -l)
echo "period: true $true_ns ns (CPU $cpu_ns ns), found $found_ns ns, $instances instances"
awk -v t="$true_ns" -v c="$cpu_ns" -v f="${found_ns:-0}" \
    'BEGIN { exit !(f > 0.98 * c && f < 1.02 * t) }' ||
    bad "period $found_ns ns, not within 2 % of the program's $cpu_ns ns (CPU) to $true_ns ns (wall)"
[ "$instances" -ge 35 ] || bad "$instances instances of 40 iterations"
# a candidate chosen by name
other=stage_b
[ "$region" = stage_b ] && other=stage_c
"$tf" fold -q --region "$other" -o "$tmp/g" "$tmp/r.h5" || bad "--region $other exited $?"
[ "$(csv "$tmp/g/instances.csv" region | sort -u)" = "$other" ] || bad "--region $other not folded"

"$tf" record -q -o "$tmp/i.h5" --period 1ms -- "$app" irregular 120 ${work:-8000000} >/dev/null ||
    { echo "FAIL: recording exited $?"; exit 1; }
"$tf" fold -o "$tmp/h" "$tmp/i.h5" 2>"$tmp/err" && bad "an irregular program folded"
cat "$tmp/err"
grep -q "no regular iteration" "$tmp/err" || bad "no 'no regular iteration' message"
grep -q "tracefold record --region FUNC" "$tmp/err" || bad "record --region not suggested"
[ -e "$tmp/h" ] && bad "output left behind"
[ $fails -eq 0 ]
