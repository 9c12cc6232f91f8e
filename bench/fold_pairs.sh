#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The bar of issue 32, item 7 (bench/README.md, "Fold"): the whole default
# `tracefold fold -q` against reading every sample of the same trace, in
# pairs (`fold_bench read`, then the command, `sync` before each), at 1e6
# and 1e7 samples (the traces of bench/fold.sh).  With a second build
# (BASE), each pair is followed by the same pair with it, so that a change
# is measured against its base under the same load.  Prints each pair's
# wall-clock and CPU (user + system) ratios and peak RSS, then the medians
# per build and size, and the load before and after.
# Usage: sh bench/fold_pairs.sh [-n PAIRS] [-s "200 2000"] [BUILD [BASE]]
#   PAIRS: pairs per build and size (default 5); -s: samples per iteration
#   (200: 1e6 samples, 2000: 1e7); BUILD defaults to build/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
pairs=5
sizes="200 2000"
while getopts n:s: opt; do
    case $opt in
        n) pairs=$OPTARG ;;
        s) sizes=$OPTARG ;;
        *) echo "usage: sh bench/fold_pairs.sh [-n PAIRS] [-s SIZES] [BUILD [BASE]]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
builds=${1:-$top/build}
[ $# -lt 2 ] || builds="$builds $2"
dir=${TF_BENCH_DIR:-/tmp/tracefold-bench}
for b in $builds; do
    [ -x "$b/tracefold" ] && [ -x "$b/bench/fold_bench" ] || { echo "build first: $b" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian package time)" >&2; exit 1; }
mkdir -p "$dir"
tf=$(echo "$builds" | cut -d' ' -f1)/tracefold
out=$dir/pairs.txt
: > "$out"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-4s %-30s %7s %7s %6s %6s %7s\n' size pair build 'read s' 'fold s' wall× cpu× 'RSS MB'
for spi in $sizes; do
    trace=$dir/fold-$spi.h5
    [ -f "$trace" ] || "$tf" synth -q -o "$trace" --threads 8 --iterations 625 \
        --samples-per-iteration "$spi" --no-memory
    i=1
    while [ "$i" -le "$pairs" ]; do
        for b in $builds; do
            rm -rf "$dir/pair-out"
            sync
            "$b/bench/fold_bench" read "$trace" > "$dir/read.txt"
            sync
            /usr/bin/time -f '%e %U %S %M' -o "$dir/command.txt" \
                "$b/tracefold" fold -q -o "$dir/pair-out" "$trace"
            awk -v spi="$spi" -v i="$i" -v b="$b" \
                -v rw="$(awk '$1 == "read_seconds" { print $2 }' "$dir/read.txt")" \
                -v rc="$(awk '$1 == "cpu_seconds" { print $2 }' "$dir/read.txt")" \
                '{ printf "%-5s %-4d %-30s %7.2f %7.2f %6.2f %6.2f %7.0f\n", spi, i, \
                   substr(b, length(b) > 30 ? length(b) - 29 : 1), rw, $1, $1 / rw, \
                   ($2 + $3) / rc, $4 / 1024 }' "$dir/command.txt" | tee -a "$out"
        done
        i=$((i + 1))
    done
done
rm -rf "$dir/pair-out"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medians (size, build: wall×, cpu×, peak RSS MB):"
sort -k1,1 -k3,3 "$out" | awk '
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function flush() {
        if (n) printf "%-5s %-30s %6.2f %6.2f %7.0f\n", key1, key3, median(w, n), median(c, n),
                      median(r, n)
        n = 0
    }
    $1 != key1 || $3 != key3 { flush(); key1 = $1; key3 = $3 }
    { n++; w[n] = $6; c[n] = $7; r[n] = $8 }
    END { flush() }'
