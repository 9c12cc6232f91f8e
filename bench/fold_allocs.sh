#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `tracefold fold` against the number of allocations (bench/README.md,
# "Object map"): for N = 10^3 to 10^6, objmap_bench writes a trace of N
# allocations over 1000 iterations (half heap temporaries, half small
# blocks kept to the end, 20 memory samples per iteration: the same
# samples whatever N) and times the object map alone; then the whole
# `tracefold fold -q -j 1` of that trace is timed (CPU user + system of
# the command, /usr/bin/time).  Prints per N: the object map's build and
# lookup seconds, the fold's CPU and wall seconds, and the fold's CPU per
# allocation above that of 10^3 allocations (linear: the same figure at
# every N).  Usage: sh bench/fold_allocs.sh [BUILDDIR]   (env: REPS=3, SIZES)
set -eu
bd=${1:-build}
tf=$bd/tracefold
ob=$bd/bench/objmap_bench
reps=${REPS:-3}
sizes=${SIZES:-1000 10000 100000 1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-allocs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/stats_lib.sh"
# value NAME: the value of objmap_bench's line "NAME VALUE" on stdin.
value() { sed -n "s/^$1 //p"; }
echo "# medians of $reps runs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%9s %9s %12s %12s %10s %10s %22s\n' allocations families create_s lookup_s fold_cpu_s \
    fold_wall_s "fold us/alloc above 1e3"
base=
for n in $sizes; do
    : > "$tmp/create"; : > "$tmp/lookup"; : > "$tmp/cpu"; : > "$tmp/wall"
    for rep in $(seq "$reps"); do
        "$ob" "$n" "$tmp/t.h5" > "$tmp/ob.out"
        value create_seconds < "$tmp/ob.out" >> "$tmp/create"
        value lookup_seconds < "$tmp/ob.out" >> "$tmp/lookup"
        rm -rf "$tmp/fold"
        /usr/bin/time -f "%U %S %e" -o "$tmp/time" "$tf" fold -q -j 1 -o "$tmp/fold" "$tmp/t.h5"
        awk '{ print $1 + $2 }' "$tmp/time" >> "$tmp/cpu"
        awk '{ print $3 }' "$tmp/time" >> "$tmp/wall"
    done
    cpu=$(med < "$tmp/cpu")
    [ -n "$base" ] || base=$cpu
    per=$(echo "$cpu $base $n" | awk '$3 > 1000 { printf "%.3f", ($1 - $2) * 1e6 / ($3 - 1000); next } { print "-" }')
    printf '%9s %9s %12s %12s %10s %10s %22s\n' "$(value allocations < "$tmp/ob.out")" \
        "$(value families < "$tmp/ob.out")" "$(med < "$tmp/create")" "$(med < "$tmp/lookup")" \
        "$cpu" "$(med < "$tmp/wall")" "$per"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
