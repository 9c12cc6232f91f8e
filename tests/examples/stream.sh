#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# examples/stream recorded and folded end to end (the BSC study's STREAM).
# Always: the four kernels are phases of the iteration, in order, each with
# its routine, and each kernel's own region has that routine.  Copy compiles
# to a call of memmove (glibc's __memmove_*), as the study found: the Copy
# phase is accepted under that routine.  A run of 35 us Copy kernels at a
# sample a ms keeps half or more of its sampled instances.
# With memory samples (on a machine that gives the program most of a CPU):
# b is a heap object named by its call site, a and c static objects of
# their declared size; Add and Triad sweep their arrays linearly upwards,
# Copy (memmove's unrolled vector loop: linear, or a stride of up to 256
# bytes) sweeps a and c the same way, up or down (glibc picks its copy loop
# by processor: seen upwards on an Intel VM, downwards on an AMD Zen 3 VM),
# and Scale reads c at random; the bytes each of Copy (twice those of a,
# the well-sampled side of its copy), Add and Triad sweeps over its folded
# duration are within 25 % of the bandwidth stream itself prints in the
# same run.  docs/examples.md, "Tests".
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
n=2000000
run="stream -n $n -i 100"

# is_kernel ROUTINE KERNEL: the routine a kernel's phase may carry.
is_kernel() {
    case $2 in
    Copy) case $1 in copy | __memmove_* | memmove | __memcpy_* | memcpy) return 0 ;; esac; return 1 ;;
    *) [ "$1" = "$(echo "$2" | tr 'A-Z' 'a-z')" ] ;;
    esac
}

# Phases and routines, from a run without memory sampling (its timing is the
# program's own).
record_example none "$tmp/plain.h5" $run
"$tf" fold -q "$tmp/plain.h5" --region iteration -o "$tmp/plain" || bad "fold exited $?"
check_layout "$tmp/plain"
csv "$tmp/plain/phases.csv" phase routine share
got=""
# Phases under 2 % of the iteration (a fifth of a sampling period) are below
# the fold's resolution: on a busy machine a few samples of one kernel can
# form one between two phases of another.
for r in $(csv "$tmp/plain/phases.csv" phase routine share |
           awk -F, '$1 !~ /\./ && $3 >= 0.02 { print $2 }'); do
    last=${got##* }
    [ "$r" = "$last" ] || got="$got $r"
done
set -- $got
[ $# -eq 4 ] || bad "expected four phases of distinct routines, got:$got"
k=1
for kernel in Copy Scale Add Triad; do
    eval "r=\${$k:-none}"
    is_kernel "$r" $kernel || bad "phase $k is $r, expected the $kernel kernel"
    k=$((k + 1))
done
kernel_regions "$tmp/plain.h5" Copy Scale Add Triad

# A region much shorter than the sampling period (Copy of 200 000 elements,
# about 35 us, a sample every ms): most instances hold no sample, each
# sample's cost lengthens the ones that do, and the fold takes it out and
# keeps them (docs/algorithms.md, "The recording's cost per sample").
record_example none "$tmp/short.h5" stream -n 200000 -i 2000
"$tf" fold -q "$tmp/short.h5" --region Copy -o "$tmp/short" || bad "fold the short run's Copy"
set -- $(csv "$tmp/short/instances.csv" status samples |
         awk -F, '$2 > 0 { n++; u += $1 == "used" } END { print u + 0, n + 0 }')
[ "$2" -ge 20 ] && [ $((2 * $1)) -ge "$2" ] ||
    bad "short Copy: $1 of its $2 sampled instances used, expected half or more"
r=$(main_routine "$tmp/short")
is_kernel "$r" Copy || bad "short Copy: main routine '$r'"
echo "short Copy: $1 of its $2 sampled instances used, main routine $r"

# Objects, access patterns and bandwidth, from a run with memory samples:
# twice the iterations and samples, so each kernel's region has enough.
period=500us
run="stream -n $n -i 200"
record_example software "$tmp/mem.h5" $run
"$tf" fold -q "$tmp/mem.h5" --region iteration -o "$tmp/mem" || bad "fold exited $?"
check_layout "$tmp/mem"
memory_checks_possible "$tmp/mem.h5" "$tmp/mem"
# the call site: line and column of the call (1-based, as DWARF gives it)
site=$(call_site stream.c 'double \*b = malloc')
static=$(( ($(sed -n 's/^#define STREAM_MAX (\([0-9]*\)u << \([0-9]*\))$/\1 << \2/p' "$src/stream.c")) * 8 ))
objects=$(csv "$tmp/mem/objects.csv" object kind size_bytes)
echo "$objects" | grep -qx "$site,heap,$((n * 8))" || bad "b: no heap object $site of $((n * 8)) bytes"
echo "$objects" | grep -qx "a,static,$static" || bad "a: no static object of $static bytes"
echo "$objects" | grep -qx "c,static,$static" || bad "c: no static object of $static bytes"

# main_pattern DIR OBJECT: the object's pattern in the phase (finest level)
# that covers the most of the kernel, with its direction and stride.
main_pattern() {
    { csv "$1/phases.csv" phase share | sed 's/^/P,/'
      csv "$1/streams.csv" phase object pattern direction stride_bytes | sed 's/^/S,/'; } |
        awk -F, -v o="$2" '$1 == "P" { share[$2] = $3; next }
                           $3 == o && share[$2] > best { best = share[$2]; p = $4 ":" $5 ":" $6 }
                           END { print p }'
}

# Per kernel, from its own region: OBJECT:PATTERN of its streams.  Copy is
# glibc's memmove, whose unrolled vector loop the analysis may see as a
# 128-byte stride rather than a linear sweep: a sweep either way.
for spec in "Copy a:sweep c:sweep" "Scale c:random" "Add a:linear $site:linear c:linear" \
            "Triad a:linear $site:linear c:linear"; do
    set -- $spec
    kernel=$1 sweeps=""
    shift
    dir=$tmp/mem-$kernel
    "$tf" fold -q "$tmp/mem.h5" --region $kernel -o "$dir" || bad "fold $kernel"
    echo "$kernel: $(csv "$dir/streams.csv" phase object pattern direction stride_bytes | tr '\n' ' ')"
    for want in "$@"; do
        obj=${want%:*} pat=${want##*:}
        got=$(main_pattern "$dir" "$obj")
        case $pat:$got in
        sweep:linear:up:* | sweep:linear:down:*) ;;
        sweep:strided:up:64 | sweep:strided:up:128 | sweep:strided:up:256) ;;
        sweep:strided:down:64 | sweep:strided:down:128 | sweep:strided:down:256) ;;
        linear:linear:up:8 | random:random:*) ;;
        *) bad "$kernel: $obj is '${got:-absent}', expected $pat" ;;
        esac
        [ $pat = sweep ] && sweeps="$sweeps $(echo "$got" | cut -d: -f2)"
    done
    # memmove copies a and c in one loop: the same way.
    [ $kernel = Copy ] && [ "$(echo $sweeps | tr ' ' '\n' | sort -u | wc -l)" -ne 1 ] &&
        bad "Copy: a and c swept in different directions:$sweeps"
    [ $kernel = Scale ] && continue
    # Copy's own figure: memmove's reads of a, linear or strided, carry a
    # bandwidth (bytes moved; docs/algorithms.md, streams step 6), twice
    # which is what stream counts for the copy.  Over the whole phase only:
    # a sub-phase's share of the sweep is checked by the bytes below.
    a_bw=
    [ $kernel = Copy ] &&
        a_bw=$(csv "$dir/streams.csv" phase object pattern bandwidth_MBps |
               awk -F, '$1 !~ /\./ && $2 == "a" && ($3 == "linear" || $3 == "strided") && $4 != "" {
                        print $4; exit }')
    if [ -n "$a_bw" ]; then
        own_bw=$(awk '$1 == "Copy" { print $3 }' "$tmp/mem.txt")
        awk -v f="${a_bw:-0}" -v o="$own_bw" \
            'BEGIN { exit !(o > 0 && 2 * f >= 0.75 * o && 2 * f <= 1.25 * o) }' ||
            bad "Copy: a's bandwidth_MBps '${a_bw}' x 2, stream printed $own_bw MB/s (25 % allowed)"
    fi
    # Bytes the kernel's ordered streams sweep per instance, over its
    # folded duration, against stream's own median bandwidth (the fold
    # leaves disturbed iterations out; a mean would count them).  Copy:
    # twice the bytes of a, which memmove reads as it writes c; its stores
    # draw about a twentieth of the samples (the sampling skids past them
    # to the loads), a few dozen that at times cover only part of the
    # sweep, so c's bytes are checked by their pattern above only.
    only=; [ $kernel = Copy ] && only=a
    fold_bw=$({ csv "$dir/phases.csv" phase end_ns | sed 's/^/P,/'
                csv "$dir/streams.csv" object pattern bytes | sed 's/^/S,/'; } |
              awk -F, -v only="$only" '$1 == "P" && $2 !~ /\./ && $3 > t { t = $3 }
                       $1 == "S" && ($3 == "linear" || $3 == "strided") &&
                           (only == "" || $2 == only) { b += $4 }
                       END { if (only != "") b *= 2
                             printf "%.0f\n", (t > 0 ? 1e3 * b / t : 0) }')
    own_bw=$(awk -v k=$kernel '$1 == k { print $3 }' "$tmp/mem.txt")
    awk -v f="$fold_bw" -v o="$own_bw" 'BEGIN { exit !(o > 0 && f >= 0.75 * o && f <= 1.25 * o) }' ||
        bad "$kernel: folded bandwidth $fold_bw MB/s, stream printed $own_bw MB/s (25 % allowed)"
    echo "$kernel: folded $fold_bw MB/s, stream printed $own_bw MB/s"
done
[ $fails -eq 0 ]
