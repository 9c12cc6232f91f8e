#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The writer's CPU time per sample on real code (protocol in
# bench/README.md, "Recorder: the writer's CPU per sample"): bench's
# record_loop (the loop the documented figure was first measured on), the
# allocation-heavy C++ iteration (bench/cxx_iter.cc) and the matmul and
# stream examples, recorded at 5 ms and 1 ms with kernel capture, with the
# software memory sampler (the default here) and without
# (--mem-sampler none), REPS times in turn.  From the writer's --stats
# lines: the drains' CPU per kernel sample (unwinding, decoding memory
# references) and the writer's whole CPU time (start, set-up, HDF5, ticks)
# per sample written.  Prints every run and the medians.
# Usage: sh bench/record_writer.sh [BUILDDIR]   (env: REPS=3 PERIODS="5ms 1ms")
set -eu
bd=${1:-build}
tf=$bd/tracefold
reps=${REPS:-3}
periods=${PERIODS:-5ms 1ms}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-writer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -g -o "$tmp/cxx_iter" "$(dirname "$0")/cxx_iter.cc"
n=$("$bd/bench/record_loop" --calibrate 2)
echo "# $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
echo "# $reps repetitions, load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$tmp/runs"
for rep in $(seq "$reps"); do
    for p in $periods; do
        for mem in auto none; do
            for prog in record_loop cxx_iter matmul stream; do
                case $prog in
                record_loop) set -- "$bd/bench/record_loop" "$n";;
                cxx_iter) set -- "$tmp/cxx_iter" 80000;;
                matmul) set -- "$bd/examples/matmul" -n 256 -i 2;;
                stream) set -- "$bd/examples/stream";;
                esac
                "$tf" record -q --stats yes --period "$p" --mem-sampler $mem --force -o "$tmp/t.h5" -- "$@" \
                    > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
                drain=$(sed -n 's/.*captured by the kernel.*writer \([0-9]*\) ns CPU per sample.*/\1/p' "$tmp/err" | head -n1)
                whole=$(sed -n 's/.*writer \([0-9.]*\) ms CPU in all, \([0-9]*\) samples written, \([0-9.]*\) us per sample.*/\1 \2 \3/p' "$tmp/err")
                echo "$p $mem $prog ${drain:-0} $whole" >> "$tmp/runs"
            done
        done
    done
done
median() { sort -n | awk '{v[NR] = $1} END {printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-5s %-5s %-12s %18s %16s %14s %18s\n' period mem program "drain us/ksample" "writer ms CPU" "samples" "writer us/sample"
for p in $periods; do for mem in auto none; do for prog in record_loop cxx_iter matmul stream; do
    sel() { awk -v p=$p -v m=$mem -v g=$prog -v c="$1" '$1 == p && $2 == m && $3 == g {print $c}' "$tmp/runs"; }
    printf '%-5s %-5s %-12s %18s %16s %14s %18s\n' $p $mem $prog "$(sel 4 | awk '{print $1 / 1000}' | median)" \
        "$(sel 5 | median)" "$(sel 6 | median)" "$(sel 7 | median)"
done; done; done
