#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The small-block log's cost (protocol in bench/README.md, "Small blocks"):
# for each block size of 16 to 4096 bytes, alloc_bench under `tracefold
# record` with the log on (--small-blocks large enough that it never
# fills), with the log off (--small-blocks 0: the interposition alone), and
# without the recorder (control); each run times the malloc/free pairs of
# the symbols the program links to against the C library's own, in
# alternating blocks of one run, so the ratio and difference come from one
# run.  Prints per size the medians over REPS runs.
# alloc_bench pauses PAUSE_MS after each block, so that the writer takes
# the entries of the thread's ring between blocks (a block's are fewer
# than the ring holds) and no block is lost; its warm-up touches every
# page of the ring first.  A run that loses blocks is refused.
# Usage: sh bench/small_blocks.sh [BUILDDIR]   (env: REPS=3 PAIRS=5000 BLOCKS=11 PAUSE_MS=200)
set -eu
bd=${1:-build}
tf=$bd/tracefold
ab=$bd/bench/alloc_bench
reps=${REPS:-3}
pairs=${PAIRS:-5000}
blocks=${BLOCKS:-11}
pause=${PAUSE_MS:-200}
# Every pair of a run kept, warm-up included: (blocks + 4) * pairs entries.
cap=$(( (blocks + 4) * pairs + 4096 ))
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-small.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/stats_lib.sh"
echo "# $reps repetitions of $blocks blocks of $pairs pairs, load $(cut -d' ' -f1-3 /proc/loadavg)"
run() {   # MODE SIZE: one line "diff ratio"
    case $1 in
    log) out=$("$tf" record -q --force -o "$tmp/t.h5" --small-blocks "$cap" -- "$ab" "$2" "$pairs" "$blocks" "$pause" 2>"$tmp/err") ;;
    nolog) out=$("$tf" record -q --force -o "$tmp/t.h5" --small-blocks 0 -- "$ab" "$2" "$pairs" "$blocks" "$pause" 2>"$tmp/err") ;;
    control) : > "$tmp/err"; out=$("$ab" "$2" "$pairs" "$blocks" "$pause") ;;
    esac
    if grep -q "not attributed" "$tmp/err"; then
        echo "small_blocks.sh: blocks lost ($(cat "$tmp/err")): fewer PAIRS, a longer PAUSE_MS" >&2
        exit 1
    fi
    d=$(echo "$out" | field diff_ns)
    p=$(echo "$out" | field plain_ns)
    i=$(echo "$out" | field interposed_ns)
    echo "$d $(echo "scale=3; $i / $p" | bc)"
}
printf '%6s  %-28s %-28s %-20s\n' size "log on: +ns/pair (ratio)" "log off: +ns/pair (ratio)" "control: +ns/pair"
for size in 16 64 256 1024 4096; do
    : > "$tmp/log"; : > "$tmp/nolog"; : > "$tmp/control"
    for rep in $(seq "$reps"); do
        case $((rep % 2)) in 0) order="log nolog control";; *) order="nolog log control";; esac
        for mode in $order; do
            run "$mode" "$size" >> "$tmp/$mode"
        done
    done
    printf '%6s  %-28s %-28s %-20s\n' "$size" \
        "$(cut -d' ' -f1 "$tmp/log" | med) ($(cut -d' ' -f2 "$tmp/log" | med))" \
        "$(cut -d' ' -f1 "$tmp/nolog" | med) ($(cut -d' ' -f2 "$tmp/nolog" | med))" \
        "$(cut -d' ' -f1 "$tmp/control" | med)"
done
