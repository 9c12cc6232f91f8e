#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Regions by function name against API marks on the bundled examples
# (README.md, "Regions by function name"): each example built twice with
# the same flags plus -fno-inline (its kernels are static functions that
# -O2 inlines into main, where no breakpoint can find them): the marked
# twin, the example as it is (tracefold_region_begin/end around the
# iteration and its kernels), and the unmarked twin, whose marks are calls
# that do nothing (bench/region_unmarked.c).  Each repetition records the
# marked twin as it is (`tracefold record -- EXAMPLE`) and the unmarked one
# with `tracefold record --region FUNC` (FUNC: the kernel called once per
# iteration), in alternating order; the CPU time (user + system) of the
# whole command, writer included, is paired per repetition.  Prints every
# run, the medians, and the median of the paired differences and ratios
# (by name − marks, by name / marks), with the instances each recording
# holds (`iteration` marked, FUNC by name).
# Usage: sh bench/region_examples.sh [BUILDDIR]   (env: REPS=5)
set -eu
bd=${1:-build}
tf=$bd/tracefold
reps=${REPS:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
lib=$(cd "$bd/record/.libs" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-regex.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$src/bench/stats_lib.sh"
echo "# $reps repetitions, load $(cut -d' ' -f1-3 /proc/loadavg)"
# example, kernel (--region), its arguments and extra flags (commas for spaces)
examples="sweep symmetric_sweep -i60 -fno-inline
stream copy -i100 -fno-inline
matmul run_variant -vmm_blocked,-i30 -fno-inline,-fno-tree-vectorize"
echo "$examples" | while read -r ex fn args flags; do
    cc="gcc -O2 -g $(echo "$flags" | tr ',' ' ') -I$src/include"
    link="-L$lib -ltracefold -Wl,-rpath,$lib -lm"
    $cc -o "$tmp/marked_$ex" "$src/examples/$ex.c" $link
    $cc -Dtracefold_region_begin=bench_no_mark -Dtracefold_region_end=bench_no_mark \
        -o "$tmp/unmarked_$ex" "$src/examples/$ex.c" "$src/bench/region_unmarked.c" $link
done
# cpu OUT.h5 ARGS...: CPU seconds of `tracefold record -o OUT.h5 ARGS...`
cpu() {
    out=$1
    shift
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$tf" record -q --force -o "$out" "$@" \
        </dev/null >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    awk '{printf "%.3f", $1 + $2}' "$tmp/time"
}
# instances REGION TRACE: the complete instances of REGION in TRACE
instances() {
    "$tf" info "$2" </dev/null | awk -v r="$1" '$1 == r && $2 ~ /^[0-9]+$/ { print $2; exit }'
}
: > "$tmp/runs"
for rep in $(seq "$reps"); do
    echo "$examples" | while read -r ex fn args flags; do
        args=$(echo "$args" | tr ',' ' ')
        # alternate which mode goes first
        for k in 1 2; do
            if [ $(((rep + k) % 2)) -eq 0 ]; then
                t=$(cpu "$tmp/m.h5" -- "$tmp/marked_$ex" $args)
                echo "$rep $ex marks $t $(instances iteration "$tmp/m.h5")" >> "$tmp/runs"
            else
                t=$(cpu "$tmp/n.h5" --region "$fn" -- "$tmp/unmarked_$ex" $args)
                echo "$rep $ex byname $t $(instances "$fn" "$tmp/n.h5")" >> "$tmp/runs"
            fi
        done
    done
done
cat "$tmp/runs"
printf '%-8s %-18s %-9s %-9s %-14s %s\n' example "instances (m, n)" marks_s byname_s \
    "n-m_s (pairs)" "n/m (pairs)"
echo "$examples" | while read -r ex fn args flags; do
    m=$(awk -v x="$ex" '$2 == x && $3 == "marks" {print $4}' "$tmp/runs" | med)
    n=$(awk -v x="$ex" '$2 == x && $3 == "byname" {print $4}' "$tmp/runs" | med)
    pairs() { awk -v x="$ex" -v op="$1" '$2 == x {v[$1, $3] = $4}
        END {for (r = 1; (r, "marks") in v; r++)
                 print op == "-" ? v[r, "byname"] - v[r, "marks"] : v[r, "byname"] / v[r, "marks"]}' \
        "$tmp/runs" | med; }
    im=$(awk -v x="$ex" '$2 == x && $3 == "marks" {print $5; exit}' "$tmp/runs")
    in=$(awk -v x="$ex" '$2 == x && $3 == "byname" {print $5; exit}' "$tmp/runs")
    printf '%-8s %-18s %-9s %-9s %-14s %s\n' "$ex" "$im, $in" "$m" "$n" "$(pairs -)" "$(pairs /)"
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
