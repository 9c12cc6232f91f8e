#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# examples/matmul recorded and folded (Hennessy & Patterson's loop
# interchange).  Always: each variant's region has its routine.  With memory
# samples: in mm_naive the column-walking matrix z is walked up with a
# stride of a row, N x 8 bytes; after interchange (mm_ikj) the matrices are
# walked along their rows, 8 bytes at a time, and none by a row.  The walks
# repeat within a microsecond, far below the sampling period: the strides
# come from the sampled instructions' loops (stride_from "code",
# docs/algorithms.md, "Strides from the code").  In mm_ikj the load of z is
# followed by the load and store of x, on which the software sampler's
# samples land (about 1-3 % of them on z: the kernel's region is one
# phase, with no neighbour, so z is reported once it has the 8 samples a
# pattern needs): z is checked there when it has a pattern, and x always.
# Advice (docs/algorithms.md, "Advice"): mm_naive's fold advises a loop
# interchange for z with its stride as evidence and a bound on the gain at
# least the saving the program's own timings show (mm_naive -> mm_ikj);
# mm_ikj's fold gives no such advice (on a run too busy to judge the
# advice, lib.sh advice_off, a missing or misplaced advice skips).  The
# blocked product (mm_blocked, mm_ikj over B x B tiles of z) walks rows
# too: no stride of a row, no column-walk advice, and the same product to
# the bit as mm_ikj.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
N=256
period=500us
record_example software "$tmp/m.h5" matmul -n $N -i 10 -v mm_naive,mm_ikj,mm_blocked
# is_kernel ROUTINE VARIANT: each variant is a routine of its name.
is_kernel() { [ "$1" = "$2" ]; }
kernel_regions "$tmp/m.h5" mm_naive mm_ikj mm_blocked
# the strides come from the code, which a busy machine does not blur: no
# CPU-share condition
memory_checks_possible "$tmp/m.h5"
x=$(call_site matmul.c 'double \*x = malloc') z=$(call_site matmul.c '\*z = malloc')

# streams V: OBJECT,PATTERN,DIRECTION,STRIDE,FROM of the variant's streams.
streams() {
    csv "$tmp/m-$1/streams.csv" object pattern direction stride_bytes stride_from | sort -u
}
for v in mm_naive mm_ikj mm_blocked; do
    echo "$v: $(streams $v | tr '\n' ' ')"
done
streams mm_naive | grep -qx "$z,strided,up,$((N * 8)),code" ||
    bad "mm_naive: z ($z) not strided up by $((N * 8)) bytes from the code"
streams mm_ikj | grep -qx "$x,linear,up,8,code" || bad "mm_ikj: x ($x) not linear up by 8 bytes"
zikj=$(streams mm_ikj | grep "^$z,")
case $zikj in
"") echo "mm_ikj: z has too few samples to be reported" ;;
"$z,sparse,"*) echo "mm_ikj: z has too few samples to tell (sparse)" ;;
# z is read along rows, but all of it per row of x: the samples may show
# no order, and then it is random (never linear) with the code's stride
"$z,random,none,8,code" | "$z,random,up,8,code") ;;
*) [ "$zikj" = "$z,linear,up,8,code" ] || bad "mm_ikj: z is '$zikj', not linear up by 8 bytes" ;;
esac
for v in mm_ikj mm_blocked; do
    streams $v | grep -q ",$((N * 8)),[a-z]*$" && bad "$v: still a stride of a row"
done
streams mm_blocked | grep -q "^$x,[a-z]*,[a-z]*,8,code" || bad "mm_blocked: x not walked 8 bytes at a time"

advice=$(csv "$tmp/m-mm_naive/advice.csv" object finding expected_gain | grep "^$z,column walk,")
echo "mm_naive advice: $advice"
grep -q '^### Advice' "$tmp/m-mm_naive/summary.md" || bad "mm_naive: summary.md has no advice section"
if [ -z "$advice" ]; then
    advice_off "$tmp/m-mm_naive" "no column-walk advice for z ($z)"
else
    grep -q "stride $((N * 8)) B" "$tmp/m-mm_naive/advice.csv" || bad "mm_naive: the advice does not give z's stride"
    ms() { awk -v v="$1" '$1 == v { print $2 }' "$tmp/m.txt"; }
    gain=${advice##*,}
    awk -v g="$gain" -v a="$(ms mm_naive)" -v b="$(ms mm_ikj)" 'BEGIN { exit !(1 - b / a <= g) }' ||
        bad "mm_naive: bound $gain below the saving the program measured ($(ms mm_naive) -> $(ms mm_ikj) ms)"
fi
for v in mm_ikj mm_blocked; do
    csv "$tmp/m-$v/advice.csv" finding | grep -q 'column walk' &&
        advice_off "$tmp/m-$v" "column-walk advice after the interchange"
done
# checksum V: the checksum matmul prints after variant V alone (N not a
# multiple of the block: the tiles at the edges are partial)
checksum() { "$examples/matmul" -n 100 -i 1 -b 32 -v "$1" 2>/dev/null | awk '$1 == "checksum" { print $2 }'; }
[ "$(checksum mm_blocked)" = "$(checksum mm_ikj)" ] || bad "mm_blocked's product differs from mm_ikj's"
advice_verdict
[ $fails -eq 0 ]
