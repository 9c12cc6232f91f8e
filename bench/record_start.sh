#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The recorder's fixed cost (protocol in bench/README.md, "Recorder: start
# and stop"): wall time of `tracefold record -q -- PROGRAM` against PROGRAM
# alone, paired and alternating, REPS pairs (the trace removed before each
# run: an existing one is refused); also the parts of it: the tracefold
# binary's own start (`tracefold --help`), PROGRAM with the recorder
# library preloaded but not recording (TRACEFOLD_AUTOSTART=no), and the
# writer program's start (tracefold-writer loads HDF5 and libdw, then
# refuses an empty command line), which overlaps the program's.  On a
# loaded machine wall times measure the other users too: the CPU time of a
# recorded run (every process of it, perf stat's task-clock, in a run of
# its own) against the plain program's tells the recorder's own work apart.
# Prints every time in ms, the medians and the median of the paired
# differences.  With BASE (another build, e.g. main's), each pair is
# joined by BASE's recorded run, wall and CPU, in the same loop: the
# medians of this build's over BASE's times are the before/after ratios.
# Usage: sh bench/record_start.sh [BUILDDIR]
#        (env: REPS=10 PROGRAM=/bin/true BASE=OTHER-BUILDDIR)
set -eu
bd=${1:-build}
tf=$bd/tracefold
base=${BASE:-}
lib=$bd/record/.libs/libtracefold.so
writer=$bd/cli/tracefold-writer
reps=${REPS:-10}
prog=${PROGRAM:-/bin/true}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-start.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Microseconds of wall time of one command (its output discarded).
us() {
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1 || true
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 ))
}
# Microseconds of CPU time of one command and every process it starts
# (perf's task-clock, counted in software: no PMU needed).
cpu() {
    perf stat -x, -e task-clock -o "$tmp/cpu" "$@" > /dev/null 2>&1 || true
    awk -F, '$3 == "task-clock" {printf "%d\n", $1 * 1000}' "$tmp/cpu"
}
echo "# $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
echo "# $reps pairs, program $prog, load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$tmp/runs"
for rep in $(seq "$reps"); do
    # Alternate which of the pair goes first, so that drifts in the
    # machine's load favour neither.
    if [ $((rep % 2)) -eq 0 ]; then
        a=$(us "$prog"); rm -f "$tmp/t.h5"; b=$(us "$tf" record -q -o "$tmp/t.h5" -- "$prog")
    else
        rm -f "$tmp/t.h5"; b=$(us "$tf" record -q -o "$tmp/t.h5" -- "$prog"); a=$(us "$prog")
    fi
    [ -s "$tmp/t.h5" ] || { echo "no trace written: $tf record failed" >&2; exit 1; }
    h=$(us "$tf" --help)
    l=$(us env LD_PRELOAD="$lib" TRACEFOLD_AUTOSTART=no "$prog")
    e=$(us env "$prog")
    w=$(us "$writer")
    ca=$(cpu "$prog")
    rm -f "$tmp/t.h5"; cb=$(cpu "$tf" record -q -o "$tmp/t.h5" -- "$prog")
    if [ -n "$base" ]; then
        # Alternating with this build's run, as the pair does.
        rm -f "$tmp/t.h5"; z=$(us "$base/tracefold" record -q -o "$tmp/t.h5" -- "$prog")
        [ -s "$tmp/t.h5" ] || { echo "no trace written: $base/tracefold record failed" >&2; exit 1; }
        rm -f "$tmp/t.h5"; cz=$(cpu "$base/tracefold" record -q -o "$tmp/t.h5" -- "$prog")
        echo "$a $b $((b - a)) $h $l $e $w $ca $cb $z $cz" >> "$tmp/runs"
    else
        echo "$a $b $((b - a)) $h $l $e $w $ca $cb" >> "$tmp/runs"
    fi
done
median() { sort -n | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1000}'; }
col() { awk -v c="$1" '{print $c}' "$tmp/runs"; }
printf '%-34s' "run"; for r in $(seq "$reps"); do printf ' %7s' "$r"; done; printf ' %8s\n' median
row() {
    printf '%-34s' "$1"
    for v in $(col "$2"); do printf ' %7.1f' "$(echo "$v" | awk '{print $1 / 1000}')"; done
    printf ' %8s\n' "$(col "$2" | median)"
}
row "plain (ms)" 1
row "tracefold record -q (ms)" 2
row "record - plain, paired (ms)" 3
row "tracefold --help (ms)" 4
row "env, library preloaded, off (ms)" 5
row "env alone (ms)" 6
row "tracefold-writer start (ms)" 7
row "CPU, plain (ms)" 8
row "CPU, tracefold record -q (ms)" 9
if [ -n "$base" ]; then
    row "BASE tracefold record -q (ms)" 10
    row "CPU, BASE tracefold record -q (ms)" 11
    # %d: awk's default %.6g would write 1.2e+06, which sort -n misreads.
    ratio() { awk -v n="$1" -v d="$2" '{printf "%d\n", $n / $d * 1000000}' "$tmp/runs" | median; }
    printf '%-34s %s\n' "record wall, this / BASE (median)" "$(ratio 2 10 | awk '{printf "%.3f", $1 / 1000}')"
    printf '%-34s %s\n' "record CPU, this / BASE (median)" "$(ratio 9 11 | awk '{printf "%.3f", $1 / 1000}')"
fi
