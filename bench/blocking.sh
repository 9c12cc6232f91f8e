#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Blocking on the bundled examples (docs/examples.md, "From the advice to
# the fix"): the ratio blocked / unblocked of the programs' own mean times,
# per repetition in one process where the program runs both.
#   matmul: mm_blocked / mm_ikj (both in each iteration), N = 512, 640 and
#     1024 (640: not a power of two, whose rows 4 or 8 KiB apart fall into
#     the same cache sets), blocks of 32, 64 and 128, built three times from
#     examples/matmul.c: as the project builds it (-O2 -fno-tree-vectorize:
#     one double at a time), vectorised for any x86-64 as the project
#     builds examples/matmul_vec (-ftree-vectorize -fvect-cost-model=dynamic:
#     SSE2, two doubles) and for this CPU (-O3 -march=native);
#   membench -w 16 MiB, 8 passes: blocked by 32 and 256 KiB against not
#     blocked (two runs, alternating which goes first).
# Prints every run and the median ratio of each case.
# Usage: sh bench/blocking.sh [BUILDDIR]   (env: REPS=3)
set -eu
bd=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/stats_lib.sh"
# the compiler decides what vectorising does to the kernels
echo "# ${REPS:=3} rounds, load $(cut -d' ' -f1-3 /proc/loadavg), $(gcc --version | head -n1)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-blocking.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
lib=$(cd "$bd/record/.libs" && pwd)
link="-L$lib -ltracefold -Wl,-rpath,$lib"
gcc -O2 -fno-tree-vectorize -I"$src/include" -o "$tmp/matmul_scalar" "$src/examples/matmul.c" $link
gcc -O3 -march=native -I"$src/include" -o "$tmp/matmul_vector" "$src/examples/matmul.c" $link
gcc -O2 -ftree-vectorize -fvect-cost-model=dynamic -I"$src/include" -o "$tmp/matmul_portable" \
    "$src/examples/matmul.c" $link
# mean_ms OUTPUT NAME: the program's mean time of NAME
mean_ms() { awk -v v="$2" '$1 == v { print $2 }' "$1"; }
: > "$tmp/runs"
for rep in $(seq "$REPS"); do
    for build in scalar portable vector; do
        for n in 512 640 1024; do
            for b in 32 64 128; do
                "$tmp/matmul_$build" -n $n -b $b -i 2 -v mm_ikj,mm_blocked >"$tmp/out" 2>/dev/null
                echo "matmul-$build-n$n-b$b $(mean_ms "$tmp/out" mm_ikj) $(mean_ms "$tmp/out" mm_blocked)" >> "$tmp/runs"
            done
        done
    done
    for kib in 32 256; do
        for k in 1 2; do
            if [ $(((rep + k) % 2)) -eq 0 ]; then
                "$bd/examples/membench" -w 16777216 -i 50 >"$tmp/a" 2>/dev/null
            else
                "$bd/examples/membench" -w 16777216 -i 50 -b $((kib * 1024)) >"$tmp/b" 2>/dev/null
            fi
        done
        echo "membench-16MiB-b${kib}KiB $(mean_ms "$tmp/a" mean_ms) $(mean_ms "$tmp/b" mean_ms)" >> "$tmp/runs"
    done
done
echo "# case unblocked_ms blocked_ms"
cat "$tmp/runs"
printf '%-28s %s\n' case "median blocked/unblocked"
awk '{ print $1 }' "$tmp/runs" | awk '!seen[$0]++' | while read -r c; do
    printf '%-28s %s\n' "$c" "$(awk -v c="$c" '$1 == c { print $3 / $2 }' "$tmp/runs" | med)"
done
