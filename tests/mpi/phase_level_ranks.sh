#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# `mpirun -np 2 tracefold fold --phase-level caller` over two traces: each
# rank reads one, and the frame that names each point's phase travels with
# the points to rank 0, whose phases are those of the serial fold, named
# at the caller level (tests/analysis/phase_level.sh's program).
. "${top_srcdir:?run by make check}/tests/mpi/lib.sh"
if ! timeout 60 mpirun -np 2 --oversubscribe --bind-to none true >/dev/null 2>&1; then
    echo "SKIP: mpirun cannot start 2 processes here"; exit 77
fi
TRACEFOLD_PROGRAM=$tf
export TRACEFOLD_PROGRAM
for k in 1 2; do
    "$tf" record -q -o "$tmp/t$k.h5" --counters task-clock --period 1ms -- \
        "$bd/tests/analysis/phase_level_app" 600 4096 >/dev/null || fail "recording $k exit status $?"
done
"$tf" fold -q -o "$tmp/alone" --region step --phase-level caller "$tmp/t1.h5" "$tmp/t2.h5" ||
    fail "fold exit status $?"
timeout 300 mpirun -np 2 --oversubscribe --bind-to none "$tf" fold -q -o "$tmp/ranks" \
    --region step --phase-level caller "$tmp/t1.h5" "$tmp/t2.h5" ||
    fail "mpirun -np 2 tracefold fold exit status $?"
cat "$tmp/ranks/phases.csv"
cmp "$tmp/alone/phases.csv" "$tmp/ranks/phases.csv" || fail "phases.csv differs from the serial fold's"
routines=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                    $(col["phase"]) !~ /\./ { printf "%s ", $(col["routine"]) }' "$tmp/ranks/phases.csv")
[ "$routines" = "integrate_element kinematics_element " ] ||
    fail "phases named '$routines', not at the caller level"
exit 0
