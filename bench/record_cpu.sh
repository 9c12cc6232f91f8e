#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The recorder's cost in CPU time on real-code patterns (protocol in
# bench/README.md, "Recorder: CPU time on real-code patterns"): an
# allocation-heavy C++ iteration (bench/cxx_iter.cc) and an OpenMP loop
# (bench/omp_loop.c), each run plain and under `tracefold record` at the
# default period and at 1 ms, in turn, REPS times; the CPU time (user +
# system) of the whole command, so the recorded run's includes its threads
# and the writer (tracefold record itself).  Prints every run, the medians
# and the median of the paired ratios recorded / plain.
# Usage: sh bench/record_cpu.sh [BUILDDIR]
#   (env: REPS=5 CXX_ITER=200000 OMP_ITER=3500 OMP_NUM_THREADS=2
#    BASE=OTHER_BUILDDIR: the recorded modes also with that build's
#    tracefold and libtracefold, in the same rotation, to compare two
#    versions on the same machine state
#    OMP_WAIT_POLICY=passive: idle OpenMP threads sleep rather than spin, so
#    that CPU time counts work, not how long a thread waited for a CPU)
set -eu
bd=${1:-build}
tf=$bd/tracefold
reps=${REPS:-5}
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_NUM_THREADS OMP_WAIT_POLICY
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-cpu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$(dirname "$0")
g++ -O2 -g -o "$tmp/cxx_iter" "$src/cxx_iter.cc"
gcc -O2 -g -fopenmp -o "$tmp/omp_loop" "$src/omp_loop.c"
# CPU seconds (user + system) of a command and its waited-for children.
cpu() {
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
    awk '{printf "%.3f", $1 + $2}' "$tmp/time"
}
echo "# $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
echo "# $reps repetitions, OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_WAIT_POLICY=$OMP_WAIT_POLICY, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# tracefold --help: $(cpu "$tf" --help) s CPU (the binary's own start, part of every recorded run)"
echo "# tracefold record -q -- /bin/true: $(cpu "$tf" record -q --force -o "$tmp/t.h5" -- /bin/true) s CPU (the fixed cost), /bin/true: $(cpu /bin/true) s"
modes="plain default 1ms${BASE:+ base-default base-1ms}"
: > "$tmp/runs"
for rep in $(seq "$reps"); do
    for prog in cxx_iter omp_loop; do
        case $prog in
        # About 5 s of CPU each on the project's VM: a recorded run pays
        # a fixed start and stop (50-100 ms of CPU, bench/RESULTS.md,
        # "Recorder: start and stop") and, with the default small-blocks
        # cap, a fixed cost for the blocks the writer keeps; on a 2 s
        # program either alone is over the 1 % bar.
        cxx_iter) args=${CXX_ITER:-200000};;
        omp_loop) args=${OMP_ITER:-3500};;
        esac
        # Rotate the order each repetition so that drifts in the machine's
        # load favour no mode.
        set -- $modes
        i=$((rep % $#))
        while [ "$i" -gt 0 ]; do m=$1; shift; set -- "$@" "$m"; i=$((i - 1)); done
        for mode in "$@"; do
            case $mode in
            plain) t=$(cpu "$tmp/$prog" $args);;
            default) t=$(cpu "$tf" record -q --force -o "$tmp/t.h5" -- "$tmp/$prog" $args);;
            1ms) t=$(cpu "$tf" record -q --force --period 1ms -o "$tmp/t.h5" -- "$tmp/$prog" $args);;
            base-default) t=$(cpu "$BASE/tracefold" record -q --force -o "$tmp/t.h5" -- "$tmp/$prog" $args);;
            base-1ms) t=$(cpu "$BASE/tracefold" record -q --force --period 1ms -o "$tmp/t.h5" -- "$tmp/$prog" $args);;
            esac
            echo "$rep $prog $mode $t" >> "$tmp/runs"
        done
    done
done
median() { sort -n | awk '{v[NR] = $1} END {printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-10s %-8s %s\n' program mode "CPU seconds per repetition; median; median of recorded/plain"
for prog in cxx_iter omp_loop; do
    for mode in $modes; do
        list=$(awk -v p=$prog -v m=$mode '$2 == p && $3 == m {printf "%s ", $4}' "$tmp/runs")
        med=$(awk -v p=$prog -v m=$mode '$2 == p && $3 == m {print $4}' "$tmp/runs" | median)
        ratio=""
        if [ $mode != plain ]; then
            ratio=$(awk -v p=$prog -v m=$mode '$2 == p && $3 == "plain" {b[$1] = $4}
                $2 == p && $3 == m {r[$1] = $4} END {for (k in r) print r[k] / b[k]}' "$tmp/runs" | median)
        fi
        printf '%-10s %-8s %s; %s; %s\n' $prog $mode "$list" "$med" "$ratio"
    done
done
