#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI benchmark (protocol: bench/README.md, "MPI").  Measures
#   set      `tracefold fold` of P processes held in one trace file against
#            the same number of processes in P files (a set, as an MPI run
#            records them), P = 64 and 1000: wall-clock, CPU and peak memory;
#   record   the MPI example under `mpirun -np 2`: bare, recorded, and
#            recorded with --mpi-calls yes (median wall-clock of 3
#            interleaved runs each);
#   parallel `tracefold fold` alone against `mpirun -np 2 tracefold fold`
#            of one file of P processes x I iterations, P:I in
#            $TF_MPI_SPECS (default 1:20, the fixed cost; 64:300; 64:3000;
#            1000:20): wall-clock and CPU of $TF_MPI_RUNS (default 5)
#            interleaved pairs, their ratios and medians, each rank's CPU
#            and peak memory, the load average.
# Usage: sh bench/mpi.sh [BUILDDIR] (default build/); inputs are kept in
# $TF_BENCH_DIR (default /tmp/tracefold-bench) and reused.  TF_MPI_PARTS
# chooses the parts (default "set record parallel").
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

parts=${TF_MPI_PARTS:-set record parallel}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
mpi="mpirun -np 2 --oversubscribe --bind-to none"
have_mpi() { [ -x "$app" ] && command -v mpirun >/dev/null 2>&1; }

# one_input P ITERATIONS: one file of P processes, $dir/one-PxITERATIONS.h5.
one_input() {
    [ -f "$dir/one-$1x$2.h5" ] ||
        "$tf" synth -q -o "$dir/one-$1x$2.h5" --processes "$1" --iterations "$2" --no-memory
}

# inputs P ITERATIONS: one file of P processes, and P one-process files.
inputs() {
    p=$1
    it=$2
    one_input "$p" "$it"
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

want set && printf '%-34s %8s %8s %8s\n' fold wall_s cpu_s peak_MB
want set && for spec in 64:300 1000:20; do
    p=${spec%:*}
    inputs "$p" "${spec#*:}"
    for run in 1 2; do
        rm -rf "$dir/out"
        timed "one file, $p processes (run $run)" "$tf" fold -q "$dir/one-${p}x${spec#*:}.h5" \
            -o "$dir/out"
        rm -rf "$dir/out"
        timed "$p files (run $run)" "$tf" fold -q "$dir/set-$p" -o "$dir/out"
    done
done
rm -rf "$dir/out"

if want record && have_mpi; then
    printf '\n%-34s %8s\n' "stencil_mpi -np 2 -i 600" wall_s
    for run in 1 2 3; do
        for mode in bare record calls; do
            case $mode in
                bare) set -- $mpi "$app" -i 600 ;;
                record) set -- $mpi "$tf" record -q --force -o "$dir/st.%r.h5" -- "$app" -i 600 ;;
                calls) set -- $mpi "$tf" record -q --force --mpi-calls yes -o "$dir/st.%r.h5" -- "$app" -i 600 ;;
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

# median FILE COLUMN: the median of a column of numbers.
median() {
    awk -v c="$2" '{ print $c }' "$1" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

if want parallel && have_mpi; then
    runs=${TF_MPI_RUNS:-5}
    printf '\n%-14s %4s %8s %8s %6s %6s %6s %6s %7s %6s %6s %6s %5s\n' "P x I" run serial_s np2_s \
        ratio cpu_s cpu0_s cpu1_s cpu_rt MB MB0 MB1 load
    for spec in ${TF_MPI_SPECS:-1:20 64:300 64:3000 1000:20}; do
        p=${spec%:*}
        one_input "$p" "${spec#*:}"
        in=$dir/one-${p}x${spec#*:}.h5
        : >"$dir/parallel.times"
        run=1
        while [ $run -le "$runs" ]; do
            load=$(cut -d' ' -f1 /proc/loadavg)
            rm -rf "$dir/out"
            /usr/bin/time -f '%e %U %S %M' -o "$dir/time.s" "$tf" fold -q -j 1 "$in" -o "$dir/out" ||
                { echo "failed: serial fold of $in" >&2; exit 1; }
            rm -rf "$dir/out"
            /usr/bin/time -f '%e' -o "$dir/time.p" $mpi sh -c \
                '/usr/bin/time -f "%U %S %M" -o "$1.$OMPI_COMM_WORLD_RANK" "$2" fold -q "$3" -o "$4"' \
                sh "$dir/rss" "$tf" "$in" "$dir/out" ||
                { echo "failed: mpirun -np 2 fold of $in" >&2; exit 1; }
            # wall_s wall_p ratio cpu_s cpu_0 cpu_1 cpu_s/cpu_0 rss_s rss_0 rss_1 load
            cat "$dir/time.s" "$dir/time.p" "$dir/rss.0" "$dir/rss.1" | tr '\n' ' ' |
                awk -v l="$load" '{ printf "%.2f %.2f %.2f %.2f %.2f %.2f %.2f %.0f %.0f %.0f %s\n",
                    $1, $5, $1 / $5, $2 + $3, $6 + $7, $9 + $10, ($2 + $3) / ($6 + $7),
                    $4 / 1024, $8 / 1024, $11 / 1024, l }' >>"$dir/parallel.times"
            awk -v p="${p}x${spec#*:}" -v r="$run" '{ printf "%-14s %4d %8.2f %8.2f %6.2f %6.2f %6.2f %6.2f %7.2f %6.0f %6.0f %6.0f %5s\n",
                p, r, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$dir/parallel.times" | tail -1
            run=$((run + 1))
        done
        printf '%-14s %4s %8.2f %8.2f %6.2f %6s %6s %6s %7.2f\n' "${p}x${spec#*:}" median \
            "$(median "$dir/parallel.times" 1)" "$(median "$dir/parallel.times" 2)" \
            "$(median "$dir/parallel.times" 3)" "" "" "" "$(median "$dir/parallel.times" 7)"
    done
    rm -rf "$dir/out" "$dir/parallel.times" "$dir"/rss.* "$dir"/time.s "$dir"/time.p
fi
