#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# From the advice to the fix (issue 33, docs/algorithms.md, "Advice"):
# examples/membench -w makes 8 passes over 16 MiB per iteration, one
# double per cache line, far past the L2 of a quick calibrate profile.
# Folded with the profile, the fold advises blocking ("reuse distance past
# a cache") for the array, with the reuse distance and the cache level it
# exceeds as evidence, a tile size, and a bound on the saving at least
# what the program's own timings show; the same program blocked with that
# tile (-b) gets no such advice: its walk is ordered again.  tracefold
# diff of the two folds reports the iteration's phase faster,
# significantly, by the ratio of the
# program's own timings within 15 %, and each fold against itself no
# significant change.  The advice needs memory samples (skipped without
# them); on a machine too busy to time the runs (too_busy, lib.sh) a
# ratio off by more than 15 % skips instead of failing, as in
# matmul_diff.sh, and so does advice missing or misplaced (advice_off).
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
advice=$(grep -F 'reuse distance past a cache' "$tmp/before/advice.csv" | grep -F "$x")
echo "before: $advice"
if [ -z "$advice" ]; then
    levels=$(cache_levels "$tmp/machine.h5")
    [ -n "$levels" ] && [ "$levels" -lt 2 ] &&
        { echo "SKIP: no blocking advice; the quick profile has $levels cache level(s), no L2"; exit 77; }
    busy=$(too_busy "$tmp/before")
    [ -z "$busy" ] || { echo "SKIP: no blocking advice for x ($x) on a busy machine ($busy)"; exit 77; }
    echo "x's streams: $(grep -F "$x" "$tmp/before/streams.csv")"
    echo "FAIL: no blocking advice for x ($x) on a run it could judge: $(cat "$tmp/before/advice.csv")"
    exit 1
fi
# the evidence: the reuse distance (the bytes of x's 16 MiB the passes
# sweep between two uses of a line) above the profile's L2 or a larger level
echo "$advice" | grep -q 'reuse distance [0-9]* KiB, above L[2-9]' ||
    bad "the advice does not give the reuse distance and the level as evidence"
# the tile the advice suggests, in KiB
tile=$(echo "$advice" | sed -n 's/.*tiles of at most \([0-9]*\) KiB.*/\1/p')
[ -n "$tile" ] && [ "$tile" -gt 0 ] || { bad "no tile size in the advice"; exit 1; }
record_example software "$tmp/after.h5" membench -w $bytes -p 8 -i 100 -b $((tile * 1024))
"$tf" fold -q "$tmp/after.h5" --region iteration --machine "$tmp/machine.h5" -o "$tmp/after" ||
    { echo "FAIL: fold after"; exit 1; }
grep -F 'reuse distance past a cache' "$tmp/after/advice.csv" &&
    advice_off "$tmp/after" "blocking advice after blocking"
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
off=0
case $row in
*,yes) ;;
*) timing_off "the iteration not significantly faster: '$row'" ;;
esac
within 15 "$ratio" "$expected" || timing_off "ratio $ratio not within 15 % of the program's $expected"
# the advice's bound on the saving holds what the program measured
gain=${advice##*,}
awk -v g="$gain" -v r="$expected" 'BEGIN { exit !(1 - r <= g) }' ||
    timing_off "bound $gain below the saving the program measured, 1 - $expected"
diff_itself "$tmp/before" "$tmp/after"
timing_verdict "$off" "$tmp/before" "$tmp/after"
advice_verdict
[ $fails -eq 0 ]
