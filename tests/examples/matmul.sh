#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# examples/matmul recorded and folded (Hennessy & Patterson's loop
# interchange).  Always: each variant's region has its routine.  With memory
# samples: in mm_naive the column-walking matrix z is swept up with a stride
# of a row, N x 8 bytes; after interchange (mm_ikj) z is swept linearly, 8
# bytes at a time.  (Expected to fail for now: see Makefile.inc.am.)
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
N=256
period=500us
record_example software "$tmp/m.h5" matmul -n $N -i 10 -v mm_naive,mm_ikj
for v in mm_naive mm_ikj; do
    "$tf" fold -q "$tmp/m.h5" --region $v -o "$tmp/$v" || bad "fold $v exited $?"
    r=$(csv "$tmp/$v/phases.csv" phase routine share |
        awk -F, '$1 !~ /\./ && $3 > best { best = $3; r = $2 } END { print r }')
    [ "$r" = $v ] || bad "region $v: main routine '$r'"
    echo "region $v: $r"
done
memory_checks_possible "$tmp/m.h5" "$tmp/mm_naive"
line=$(grep -n '\*z = malloc' "$src/matmul.c" | cut -d: -f1)
z=matmul.c:$line

# streams V: OBJECT,PATTERN,DIRECTION,STRIDE of the variant's streams.
streams() {
    csv "$tmp/$1/streams.csv" object pattern direction stride_bytes | sort -u
}
for v in mm_naive mm_ikj; do
    echo "$v: $(streams $v | tr '\n' ' ')"
done
streams mm_naive | grep -qx "$z,strided,up,$((N * 8))" ||
    bad "mm_naive: z ($z) not strided up by $((N * 8)) bytes"
streams mm_ikj | grep -qx "$z,linear,up,8" || bad "mm_ikj: z ($z) not linear up by 8 bytes"
streams mm_ikj | grep -q ",strided,up,$((N * 8))$" && bad "mm_ikj: still a stride of a row"
[ $fails -eq 0 ]
