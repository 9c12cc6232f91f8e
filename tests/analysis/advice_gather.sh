#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# The advice that needs the machine profile (docs/algorithms.md, "Advice"),
# on a gather c[idx[j]] over an 8 MiB array (tests/analysis/advice_app.c),
# recorded with software memory samples and folded with the profile of a
# quick `tracefold calibrate`: "random over a large object" (prefetch or
# layout) and "pages beyond the TLB's reach" (huge pages) with the
# profile's figures as evidence and bounds in (0, 1]; the first, whose
# change (a layout) is the one made, bounds the saving the program's own
# timings show (the huge-page bound is about the TLB misses alone, and
# sorting removes the cache misses too); with idx sorted neither.
# Without the profile the two rules are not tried, and summary.md says
# which figures they lack.
set -u
tf=${TRACEFOLD:?run by make check}
app=${top_builddir:?run by make check}/tests/analysis/advice_app
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-advice-gather.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$tf" calibrate -q --quick --max-size 2M -o "$tmp/m.h5" || { echo "FAIL: calibrate exited $?"; exit 1; }
# run MODE: records MODE and folds it with the profile into $tmp/MODE.
run() {
    "$tf" record -q -o "$tmp/$1.h5" --period 1ms --mem-sampler software -- "$app" "$1" 200 8 \
        >"$tmp/$1.txt" || { echo "FAIL: recording $1 exited $?"; exit 1; }
    "$tf" fold -q "$tmp/$1.h5" --machine "$tmp/m.h5" -o "$tmp/$1" ||
        { echo "FAIL: fold of $1 exited $?"; exit 1; }
    echo "$1: $(cat "$tmp/$1.txt")"
    sed 1d "$tmp/$1/advice.csv"
}
findings() { awk -F, 'NR > 1 { print $5 }' "$tmp/$1/advice.csv"; }
ms() { sed 's/ ms per iteration.*//' "$tmp/$1.txt"; }

run gather
run sorted
if grep -q '^Not tried' "$tmp/gather/summary.md"; then
    echo "SKIP: the quick profile lacks a figure: $(grep '^Not tried' "$tmp/gather/summary.md")"
    exit 77
fi
# the random rules rest on 32 samples at least (docs/algorithms.md)
refs=$(awk -F, 'NR > 1 && $3 ~ /^advice_app\.c:/ { print $7 + $8; exit }' "$tmp/gather/objects.csv")
[ "${refs:-0}" -ge 32 ] || { echo "SKIP: ${refs:-0} samples on c, under the rules' 32"; exit 77; }
awk -F, 'NR > 1 && $8 == "random" && $4 ~ /^advice_app\.c:/' "$tmp/gather/streams.csv" | grep -q . ||
    bad "gather: c's stream not random: $(cat "$tmp/gather/streams.csv")"
for finding in "random over a large object" "pages beyond the TLB's reach"; do
    # c's row (under the sanitizers their shadow memory, in no object, gets one too)
    row=$(awk -F, -v f="$finding" 'NR > 1 && $5 == f && $4 ~ /^advice_app\.c:/' \
          "$tmp/gather/advice.csv")
    [ -n "$row" ] || { bad "gather: no advice '$finding'"; continue; }
    case $row in *"(profile)"*) ;; *) bad "gather: '$finding' without the profile's figures" ;; esac
    gain=${row##*,}
    awk -v g="$gain" 'BEGIN { exit !(g > 0 && g <= 1) }' || bad "gather: '$finding' bound $gain"
    # under the sanitizers the change also removes the shadow memory's
    # loads, which the bound is not about: timings checked by the normal build
    [ "${TF_SANITIZERS:-no}" = yes ] || [ "$finding" != "random over a large object" ] ||
        awk -v g="$gain" -v a="$(ms gather)" -v b="$(ms sorted)" 'BEGIN { exit !(1 - b / a <= g) }' ||
        bad "gather: '$finding' bound $gain below the saving measured ($(ms gather) -> $(ms sorted) ms)"
    # after the change: none, or a weaker one (a few samples of a sub-phase)
    after=$(awk -F, -v f="$finding" 'NR > 1 && $5 == f && $4 ~ /^advice_app\.c:/' \
            "$tmp/sorted/advice.csv")
    [ -z "$after" ] || awk -v a="${after##*,}" -v g="$gain" 'BEGIN { exit !(a < g) }' ||
        bad "sorted: advice '$finding' after the change as strong as before: $after"
done

# Paraver input: the gather exported as a raw Paraver trace (Extrae's
# events for the samples' addresses and the data objects) and folded from
# it gives the same findings on the same object (which the export names
# object@PROCESS.ID: it carries no call site)
"$tf" paraver -q -o "$tmp/gather.prv" "$tmp/gather.h5" || bad "paraver export exited $?"
"$tf" fold -q "$tmp/gather.prv" --machine "$tmp/m.h5" -o "$tmp/gather-prv" ||
    bad "fold of the Paraver trace exited $?"
awk -F, 'NR > 1 && $4 ~ /^advice_app\.c:/ { print $5 }' "$tmp/gather/advice.csv" |
while read -r finding; do
    awk -F, -v f="$finding" 'NR > 1 && $4 ~ /^object@/ && $5 == f { found = 1 } END { exit !found }' \
        "$tmp/gather-prv/advice.csv" ||
        { echo "FAIL: Paraver input: no '$finding': $(cat "$tmp/gather-prv/advice.csv")"; exit 1; }
done || bad "the advice from the Paraver trace differs"

"$tf" fold -q "$tmp/gather.h5" -o "$tmp/plain" || bad "fold without the profile exited $?"
findings plain | grep -q 'random over a large object\|TLB' && bad "advice that needs the profile without it"
grep -q "^Not tried, for want of the machine profile.*random over a large object" "$tmp/plain/summary.md" ||
    bad "summary.md does not say which figures the rules lack"
[ $fails -eq 0 ]
