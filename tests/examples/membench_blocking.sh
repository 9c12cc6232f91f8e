#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# From the advice to the fix (issue 33, docs/algorithms.md, "Advice"):
# examples/membench -w makes 8 passes over 16 MiB per iteration, one
# double per cache line, far past the L2 of a quick calibrate profile.
# Folded with the profile, the fold advises blocking ("working set past a
# cache") for the array, with its size and the profile's L2 as evidence and
# a tile size and a bound on the saving at least what the program's own
# timings show; the same program blocked with that tile (-b) gets no such
# advice: its walk is ordered again.  tracefold diff of the two folds
# reports the iteration's phase faster, significantly, by the ratio of the
# program's own timings within 15 %, and each fold against itself no
# significant change.  The advice needs memory samples (skipped without
# them); on a machine too busy to time the runs (too_busy, lib.sh) a
# missing advice or a ratio off by more than 15 % skips instead of
# failing, as in matmul_diff.sh.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: the instrumented programs' timings are not the ones checked (normal build checks this)"
    exit 77
fi
period=500us
bytes=$((16 << 20))
"$tf" calibrate -q --quick --max-size 2M -o "$tmp/machine.h5" || { echo "FAIL: calibrate"; exit 1; }
record_example software "$tmp/before.h5" membench -w $bytes -p 8 -i 100
memory_checks_possible "$tmp/before.h5"
"$tf" fold -q "$tmp/before.h5" --region iteration --machine "$tmp/machine.h5" -o "$tmp/before" ||
    { echo "FAIL: fold before"; exit 1; }
x=$(call_site membench.c 'double \*x = malloc(n')
advice=$(grep -F 'working set past a cache' "$tmp/before/advice.csv" | grep -F "$x")
echo "before: $advice"
if [ -z "$advice" ]; then
    busy=$(too_busy "$tmp/before")
    # preempted iterations are left out, and their samples with them
    [ -n "$busy" ] && { echo "SKIP: no blocking advice; too busy a machine ($busy)"; exit 77; }
    # a quick profile timed on a busy machine may lack L2 (calibrate.sh
    # checks the levels against sysfs)
    if command -v h5dump >/dev/null; then
        levels=$(h5dump -d /levels "$tmp/machine.h5" | grep -c '^ *([0-9]*,0):')
        [ "$levels" -lt 2 ] && { echo "SKIP: no blocking advice; the quick profile has $levels cache level(s), no L2"; exit 77; }
    fi
    bad "no blocking advice for x ($x): $(cat "$tmp/before/advice.csv")"
    exit 1
fi
# the evidence: the working set (what the passes swept of x's 16 MiB) above
# the profile's L2
echo "$advice" | grep -q 'working set [0-9]* KiB over 1 objects, above L2' ||
    bad "the advice does not give the working set and L2 as evidence"
# the tile the advice suggests, in KiB
tile=$(echo "$advice" | sed -n 's/.*tiles of at most \([0-9]*\) KiB.*/\1/p')
[ -n "$tile" ] && [ "$tile" -gt 0 ] || { bad "no tile size in the advice"; exit 1; }
record_example software "$tmp/after.h5" membench -w $bytes -p 8 -i 100 -b $((tile * 1024))
"$tf" fold -q "$tmp/after.h5" --region iteration --machine "$tmp/machine.h5" -o "$tmp/after" ||
    { echo "FAIL: fold after"; exit 1; }
grep -F 'working set past a cache' "$tmp/after/advice.csv" && bad "blocking advice after blocking"
sum() { awk '$1 == "checksum" { print $2 }' "$1"; }
[ "$(sum "$tmp/before.txt")" = "$(sum "$tmp/after.txt")" ] || bad "blocked checksum differs"

"$tf" diff -q "$tmp/before/fold.h5" "$tmp/after/fold.h5" -o "$tmp/diff" || { echo "FAIL: diff exit $?"; exit 1; }
cat "$tmp/diff/diff.csv"
ms() { awk '$1 == "mean_ms" { print $2 }' "$1"; }
a=$(ms "$tmp/before.txt") b=$(ms "$tmp/after.txt")
expected=$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')
row=$(csv "$tmp/diff/diff.csv" phase ratio significant | awk -F, '$1 == "total"')
ratio=$(echo "$row" | cut -d, -f2)
echo "program's timings: $a -> $b ms (tile $tile KiB); diff's ratio $ratio, the program's $expected"
case $row in
*,yes) ;;
*) bad "the iteration not significantly faster: '$row'" ;;
esac
off=0
within 15 "$ratio" "$expected" || off="ratio $ratio not within 15 % of the program's $expected"
# the advice's bound on the saving holds what the program measured
gain=${advice##*,}
awk -v g="$gain" -v r="$expected" 'BEGIN { exit !(1 - r <= g) }' ||
    off="bound $gain below the saving the program measured, 1 - $expected"
diff_itself "$tmp/before" "$tmp/after"
timing_verdict "$off" "$tmp/before" "$tmp/after"
[ $fails -eq 0 ]
