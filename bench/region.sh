#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Cost of one `record --region` instance (README.md, "Regions by function
# name"): bench/region_loop run REPS times plain and REPS times under
# `tracefold record --region iteration`, alternately; prints the medians
# of the time per call and their difference, the cost of an instance.
# Usage: sh bench/region.sh [BUILDDIR]   (environment: REPS, default 5;
# CALLS, default 100000)
set -eu
bd=${1:-build}
reps=${REPS:-5}
calls=${CALLS:-100000}
tf=$bd/tracefold
loop=$bd/bench/region_loop
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-region.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/plain"
: > "$tmp/region"
i=0
while [ $i -lt "$reps" ]; do
    "$loop" "$calls" >> "$tmp/plain"
    "$tf" record -q --force -o "$tmp/t.h5" --region iteration -- "$loop" "$calls" >> "$tmp/region"
    i=$((i + 1))
done
median() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for m in wall_us_per_call cpu_us_per_call; do
    p=$(median $m "$tmp/plain")
    r=$(median $m "$tmp/region")
    echo "$m: plain $p, --region $r, per instance $(echo "$r $p" | awk '{printf "%.3f", $1 - $2}') us"
done
echo "load: $(cut -d' ' -f1 /proc/loadavg)"
