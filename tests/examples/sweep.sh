#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# examples/sweep recorded and folded: the symmetric Gauss-Seidel pattern.
# Always: the iteration's time is in the sweep routine.  With memory
# samples: the sweep shows as a forward then a backward sub-phase, x swept
# up in the first and down in the second, 8 bytes at a time.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
period=500us
record_example software "$tmp/s.h5" sweep -n 2097152 -i 80
"$tf" fold -q "$tmp/s.h5" --region iteration -o "$tmp/fold" || bad "fold exited $?"
check_layout "$tmp/fold"
csv "$tmp/fold/phases.csv" phase routine line share
r=$(main_routine "$tmp/fold")
[ "$r" = symmetric_sweep ] || bad "main routine '$r', expected symmetric_sweep"
memory_checks_possible "$tmp/s.h5" "$tmp/fold"
x=$(call_site sweep.c 'double \*x = calloc')
csv "$tmp/fold/streams.csv" phase object pattern direction stride_bytes
# x's streams in the order of the phases: PATTERN:DIRECTION:STRIDE each.
got=$(csv "$tmp/fold/streams.csv" phase object pattern direction stride_bytes |
      awk -F, -v o="$x" '$2 == o { printf "%s:%s:%s ", $3, $4, $5 }')
[ "$got" = "linear:up:8 linear:down:8 " ] ||
    bad "x ($x): got '$got', expected a linear sweep up then one down"
[ $fails -eq 0 ]
