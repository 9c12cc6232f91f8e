#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Cost of one `record --region` instance (README.md, "Regions by function
# name"): bench/region_loop run REPS times plain, REPS times under
# `tracefold record --region iteration` (its stops jumps, as the code
# allows) and REPS times with TRACEFOLD_REGION_TRAPS=1 (every stop a
# breakpoint), alternately; prints the medians of the time per call and
# their difference, the cost of an instance.
# Then the same with bench/region_loop_instrumented (built with
# -finstrument-functions, so the recorder's hooks serve the region): the
# cost of an instance through the hooks, and of a call the hooks pass by
# (`--region main`: every iteration() call is then one of no interest).
# And bench/region_loop_marked, the API's marks around each call: what an
# instance costs marked in the source.
# The recorded runs sample nothing (--sampler none): the figures are the
# regions' alone.
# Usage: sh bench/region.sh [BUILDDIR]   (environment: REPS, default 5;
# CALLS, default 100000)
set -eu
bd=${1:-build}
reps=${REPS:-5}
calls=${CALLS:-100000}
tf=$bd/tracefold
loop=$bd/bench/region_loop
hooked=$bd/bench/region_loop_instrumented
marked=$bd/bench/region_loop_marked
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-region.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/plain"
: > "$tmp/region"
: > "$tmp/trapped"
: > "$tmp/hooked_plain"
: > "$tmp/hooked"
: > "$tmp/many_plain"
: > "$tmp/marked"
: > "$tmp/passed"
# a buffer that holds every begin and end of the hooks' fast instances
rec() { "$tf" record -q --force --sampler none --buffer-size 64M -o "$tmp/t.h5" "$@"; }
many=$((calls * 10))   # calls of no interest cost nanoseconds: more of them
i=0
while [ $i -lt "$reps" ]; do
    "$loop" "$calls" >> "$tmp/plain"
    rec --region iteration -- "$loop" "$calls" >> "$tmp/region"
    TRACEFOLD_REGION_TRAPS=1 rec --region iteration -- "$loop" "$calls" >> "$tmp/trapped"
    "$hooked" "$calls" >> "$tmp/hooked_plain"
    rec --region iteration -- "$hooked" "$calls" >> "$tmp/hooked"
    "$hooked" "$many" >> "$tmp/many_plain"
    rec --region main -- "$hooked" "$many" >> "$tmp/passed"
    rec -- "$marked" "$calls" >> "$tmp/marked"
    i=$((i + 1))
done
median() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# compare WHAT BASE RUN: the medians of both and their difference per call
compare() {
    for m in wall_us_per_call cpu_us_per_call; do
        p=$(median $m "$tmp/$2")
        r=$(median $m "$tmp/$3")
        echo "$1: $m: $2 $p, $3 $r, per call $(echo "$r $p" | awk '{printf "%.5f", $1 - $2}') us"
    done
}
compare "jumps, --region iteration" plain region
compare "breakpoints (TRACEFOLD_REGION_TRAPS=1), --region iteration" plain trapped
compare "hooks, --region iteration" hooked_plain hooked
compare "hooks, a call of no interest (--region main)" many_plain passed
compare "API marks" plain marked
echo "load: $(cut -d' ' -f1 /proc/loadavg)"
