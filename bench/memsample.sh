#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The memory-sampling and heap-tracking benchmark (protocol in
# bench/README.md, "Memory sampling and heap tracking"):
#  1. alloc_bench with small blocks (below the heap threshold) under
#     `tracefold record`: the interposed malloc/free against the C
#     library's own, in one run; and the same without the recorder
#     (control: what the two call paths differ by when nothing is
#     interposed);
#  2. alloc_bench with blocks above the threshold (each pair recorded as an
#     object, call stack included);
#  3. stream_loop (reads and writes 8 MiB arrays) at 1 ms with
#     --mem-sampler none and software, interleaved: the loop's CPU time and
#     the handler's median cost.
# Usage: sh bench/memsample.sh [BUILDDIR]   (env: REPS=5 SECONDS_OF_WORK=1.2)
set -eu
bd=${1:-build}
tf=$bd/tracefold
ab=$bd/bench/alloc_bench
loop=$bd/bench/stream_loop
reps=${REPS:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-memsample.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/stats_lib.sh"
echo "# $reps repetitions, load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$tmp/small"; : > "$tmp/control"; : > "$tmp/large"
for rep in $(seq "$reps"); do
    "$tf" record -q --force -o "$tmp/t.h5" -- "$ab" 64 100000 21 2>/dev/null | field diff_ns >> "$tmp/small"
    "$ab" 64 100000 21 | field diff_ns >> "$tmp/control"
    # A ring large enough for every record of the run: none dropped.
    "$tf" record -q --force -o "$tmp/t.h5" --buffer-size 256M -- "$ab" 65536 2000 21 2>/dev/null |
        field diff_ns >> "$tmp/large"
done
echo "small (64 B) pair, interposed - libc, recorded:  $(med < "$tmp/small") ns (median of $reps runs)"
echo "small (64 B) pair, same without the recorder:   $(med < "$tmp/control") ns"
echo "large (64 KiB) pair, recorded object - libc:     $(med < "$tmp/large") ns"
n=$("$loop" --calibrate "${SECONDS_OF_WORK:-1.2}")
: > "$tmp/none"; : > "$tmp/software"
for rep in $(seq "$reps"); do
    case $((rep % 2)) in 0) order="none software";; *) order="software none";; esac
    for mode in $order; do
        out=$(TRACEFOLD_STATS=yes "$tf" record -q --force -o "$tmp/t.h5" --period 1ms \
              --mem-sampler "$mode" -- "$loop" "$n" 2>"$tmp/err")
        cost=$(sed -n 's/.*handler cost median \([0-9]*\) ns.*/\1/p' "$tmp/err")
        echo "$(echo "$out" | field cpu) ${cost:-0}" >> "$tmp/$mode"
    done
done
none=$(cut -d' ' -f1 "$tmp/none" | med)
soft=$(cut -d' ' -f1 "$tmp/software" | med)
echo "1 kHz, timer sampling only:      cpu $none s, handler $(cut -d' ' -f2 "$tmp/none" | med) ns"
echo "1 kHz, with software decoding:   cpu $soft s, handler $(cut -d' ' -f2 "$tmp/software" | med) ns"
echo "software decoding adds: $(echo "scale=3; 100 * ($soft - $none) / $none" | bc) %"
