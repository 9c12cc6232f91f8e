#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A long mutation campaign of one reader with our driver:
#   sh tests/fuzz/campaign.sh BUILDDIR READER RUNS OUTDIR [SECONDS]
# runs BUILDDIR/tests/fuzz/fuzz_READER on tests/fuzz/corpus/READER until RUNS
# inputs have run (or SECONDS have passed), starting again with the next
# seed after each finding
# (the driver stops at the first).  Findings are kept in OUTDIR; the last
# line says how many runs, how long, and how many findings.
set -u
[ $# -eq 4 ] || [ $# -eq 5 ] ||
    { echo "usage: campaign.sh BUILDDIR READER RUNS OUTDIR [SECONDS]" >&2; exit 2; }
build=$1 reader=$2 want=$3 out=$4 budget=${5:-1000000}
src=$(cd "$(dirname "$0")/../.." && pwd)
harness="$build/tests/fuzz/fuzz_$reader"
[ -x "$harness" ] || { echo "campaign: $harness: not built (make check builds it)" >&2; exit 2; }
mkdir -p "$out" || exit 2
done_runs=0 seed=${TF_FUZZ_SEED:-1} findings=0
start=$(date +%s)
while [ "$done_runs" -lt "$want" ]; do
    left=$((start + budget - $(date +%s)))
    [ $left -gt 0 ] || break
    log=$("$harness" -n $((want - done_runs)) -t $left -s "$seed" -o "$out" -T 10 \
          "$src/tests/fuzz/corpus/$reader" 2>"$out/stderr-$seed")
    rc=$?
    if [ $rc -eq 0 ]; then
        rm -f "$out/stderr-$seed"
        done_runs=$((done_runs + $(echo "$log" | sed -n 's/^fuzz: \([0-9]*\) runs.*/\1/p')))
    else
        # The finding is named *-SEED-RUN: runs 0..RUN were done.
        last=$(ls "$out" | sed -n "s/^[a-z]*-$seed-\([0-9]*\)\$/\1/p" | head -n 1)
        [ -n "$last" ] || { echo "campaign: seed $seed failed without a finding:"; \
                            tail -n 5 "$out/stderr-$seed"; exit 1; }
        findings=$((findings + 1))
        done_runs=$((done_runs + last + 1))
        echo "finding: $(tail -n 1 "$out/stderr-$seed")"
    fi
    seed=$((seed + 1))
done
echo "campaign: $reader: $done_runs runs in $(($(date +%s) - start)) s, $findings findings"
