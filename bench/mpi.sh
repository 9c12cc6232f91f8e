#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI benchmark (protocol: bench/README.md, "MPI").  Measures
#   set      `tracefold fold` of P processes held in one trace file against
#            the same number of processes in P files (a set, as an MPI run
#            records them), P = 64 and 1000: wall-clock, CPU and peak memory;
#   record   the MPI example under `mpirun -np 2`: bare, recorded, and
#            recorded with --mpi-calls yes (median wall-clock of 3
#            interleaved runs each).
# Usage: sh bench/mpi.sh [BUILDDIR] (default build/); inputs are kept in
# $TF_BENCH_DIR (default /tmp/tracefold-bench) and reused.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
tf=$build/tracefold
app=$build/examples/stencil_mpi
dir=${TF_BENCH_DIR:-/tmp/tracefold-bench}/mpi
[ -x "$tf" ] || { echo "build first: $tf" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian package time)" >&2; exit 1; }
mkdir -p "$dir"

# timed LABEL CMD...: one line, wall s, CPU s (user + system), peak RSS MB.
timed() {
    label=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$@" >/dev/null 2>&1 ||
        { echo "failed: $*" >&2; exit 1; }
    awk -v l="$label" '{ printf "%-34s %8.2f %8.2f %8.0f\n", l, $1, $2 + $3, $4 / 1024 }' "$dir/time"
}

# inputs P ITERATIONS: one file of P processes, and P one-process files.
inputs() {
    p=$1
    it=$2
    [ -f "$dir/one-$p.h5" ] ||
        "$tf" synth -q -o "$dir/one-$p.h5" --processes "$p" --iterations "$it" --no-memory
    [ -d "$dir/set-$p" ] && return 0
    mkdir -p "$dir/set-$p.tmp"
    i=0
    while [ $i -lt "$p" ]; do
        "$tf" synth -q -o "$dir/set-$p.tmp/$(printf 'rank%04d' $i).h5" --seed $((i + 1)) \
            --iterations "$it" --no-memory
        i=$((i + 1))
    done
    mv "$dir/set-$p.tmp" "$dir/set-$p"
}

printf '%-34s %8s %8s %8s\n' fold wall_s cpu_s peak_MB
for spec in 64:300 1000:20; do
    p=${spec%:*}
    inputs "$p" "${spec#*:}"
    for run in 1 2; do
        rm -rf "$dir/out"
        timed "one file, $p processes (run $run)" "$tf" fold -q "$dir/one-$p.h5" -o "$dir/out"
        rm -rf "$dir/out"
        timed "$p files (run $run)" "$tf" fold -q "$dir/set-$p" -o "$dir/out"
    done
done
rm -rf "$dir/out"

if [ -x "$app" ] && command -v mpirun >/dev/null 2>&1; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    mpi="mpirun -np 2 --oversubscribe --bind-to none"
    printf '\n%-34s %8s\n' "stencil_mpi -np 2 -i 600" wall_s
    for run in 1 2 3; do
        for mode in bare record calls; do
            case $mode in
                bare) set -- $mpi "$app" -i 600 ;;
                record) set -- $mpi "$tf" record -q -o "$dir/st.%r.h5" -- "$app" -i 600 ;;
                calls) set -- $mpi "$tf" record -q --mpi-calls yes -o "$dir/st.%r.h5" -- "$app" -i 600 ;;
            esac
            /usr/bin/time -f '%e' -o "$dir/time" "$@" >/dev/null 2>&1
            echo "$mode $(cat "$dir/time")" >>"$dir/record.times"
        done
    done
    for mode in bare record calls; do
        awk -v m="$mode" '$1 == m { print $2 }' "$dir/record.times" | sort -n |
            awk -v m="$mode" '{ v[NR] = $1 } END { printf "%-34s %8.2f\n", m " (median of " NR ")", v[int((NR + 1) / 2)] }'
    done
    rm -f "$dir/record.times" "$dir"/st.*.h5
fi
