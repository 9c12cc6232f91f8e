#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The fold benchmark (protocol: bench/README.md, "Fold").  For traces of
# 1e5, 1e6 and 1e7 samples (8 counters, 5 000 instances: 8 threads x 625
# iterations, from `tracefold synth`), measures in one run:
#   read     only reading every sample with its counters (fold_bench read)
#   engine   the fold engine's whole job: read, extract, filter, fit with
#            bands, write fold.h5 and the CSV files (fold_bench fold)
#   command  the whole `tracefold fold` command, with everything it writes,
#            with its default threads (one per CPU), then with -j 1
# and prints the wall-clock and CPU times (user + system), their ratios to
# the read's, and the peak memory of each against the samples' in-memory
# size.  With threads the wall-clock is what a user waits for; it means
# something on an idle machine only.
# Usage: sh bench/fold.sh [BUILDDIR] (default build/); traces are kept in
# $TF_BENCH_DIR (default /tmp/tracefold-bench) and reused.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
tf=$build/tracefold
bench=$build/bench/fold_bench
dir=${TF_BENCH_DIR:-/tmp/tracefold-bench}
[ -x "$tf" ] && [ -x "$bench" ] || { echo "build first: $tf, $bench" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian package time)" >&2; exit 1; }
mkdir -p "$dir"

value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

printf '%-9s %-4s %8s %8s %6s %8s %6s %8s %6s\n' samples time read engine ratio command ratio \
    'cmd -j1' ratio
for spi in 20 200 2000; do
    trace=$dir/fold-$spi.h5
    [ -f "$trace" ] || "$tf" synth -q -o "$trace" --threads 8 --iterations 625 \
        --samples-per-iteration "$spi" --no-memory
    rm -rf "$dir/engine-$spi" "$dir/command-$spi" "$dir/serial-$spi"
    "$bench" read "$trace" > "$dir/read.txt"
    "$bench" fold "$trace" "$dir/engine-$spi" > "$dir/engine.txt"
    /usr/bin/time -f '%e %U %S %M' -o "$dir/command.txt" \
        "$tf" fold -q -o "$dir/command-$spi" "$trace"
    /usr/bin/time -f '%e %U %S %M' -o "$dir/serial.txt" \
        "$tf" fold -q -j 1 -o "$dir/serial-$spi" "$trace"
    set -- $(cat "$dir/command.txt") $(cat "$dir/serial.txt")
    awk -v n="$(value samples "$dir/read.txt")" -v b="$(value bytes "$dir/read.txt")" \
        -v rw="$(value read_seconds "$dir/read.txt")" -v rc="$(value cpu_seconds "$dir/read.txt")" \
        -v ew="$(value fold_seconds "$dir/engine.txt")" -v ec="$(value cpu_seconds "$dir/engine.txt")" \
        -v er="$(value peak_rss_bytes "$dir/engine.txt")" \
        -v cw="$1" -v cc="$(echo "$2 $3" | awk '{ print $1 + $2 }')" -v cr="$(( $4 * 1024 ))" \
        -v sw="$5" -v sc="$(echo "$6 $7" | awk '{ print $1 + $2 }')" -v sr="$(( $8 * 1024 ))" 'BEGIN {
        printf "%-9d %-4s %8.2f %8.2f %6.2f %8.2f %6.2f %8.2f %6.2f\n", n, "wall", rw, ew, ew / rw,
            cw, cw / rw, sw, sw / rw
        printf "%-9s %-4s %8.2f %8.2f %6.2f %8.2f %6.2f %8.2f %6.2f\n", "", "cpu", rc, ec, ec / rc,
            cc, cc / rc, sc, sc / rc
        printf "%-9s %-4s %8.0f %8.2f %6s %8.2f %6s %8.2f\n", "", "MB/x", b / 1e6, er / b, "",
            cr / b, "", sr / b }'
done
echo "ratio: time / read time; MB/x: the samples' in-memory size in MB, then each peak RSS / that size"
