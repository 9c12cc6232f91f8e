#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI calls of a Fortran program (`use mpi`) recorded as a C program's are:
# Open MPI's Fortran layer calls the C PMPI_ entries directly, so only
# libtracefold-mpi's Fortran entry points (record/lib/tf_mpi_calls_fortran.c)
# see them.  tests/mpi/fortran_ring.f90 on 4 ranks: each rank's ten calls,
# their partners (its two neighbours) and bytes; exported together, the
# twelve messages as communication records with their tags (a receive
# completed by MPI_Waitall, MPI_Waitany or MPI_Waitsome, 1-based indices).
. "${top_srcdir:?run by make check}/tests/mpi/lib.sh"
command -v mpifort >/dev/null 2>&1 || { echo "SKIP: no mpifort"; exit 77; }
grep -q mpi_send_ "$bd/record/.libs/libtracefold-mpi.so" ||
    { echo "SKIP: libtracefold-mpi built without Fortran MPI (no libmpi_mpifh)"; exit 77; }
if ! timeout 60 mpirun -np 4 --oversubscribe --bind-to none true >/dev/null 2>&1; then
    echo "SKIP: mpirun cannot start 4 processes here"; exit 77
fi
check=$bd/tests/mpi/check_mpi
(cd "$tmp" && mpifort "$top_srcdir/tests/mpi/fortran_ring.f90" -o ring) || fail "mpifort"
timeout 120 mpirun -np 4 --oversubscribe --bind-to none \
    "$tf" record -q -o "$tmp/r.%r.h5" -- "$tmp/ring" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; fail "mpirun tracefold record: exit status $?"; }
# Send, Recv, Irecv, Isend, Waitall, Irecv, Isend, Waitany, Waitsome,
# Allreduce; partners: Send, Recv (from its status), the Irecvs and Isends;
# 8 bytes each but the waits'.
for r in 0 1 2 3; do
    peers=$(printf '0x%x' $(( (1 << ((r + 1) % 4)) | (1 << ((r + 3) % 4)) )))
    s=$("$check" "$tmp/r.$r.h5") || fail "check_mpi r.$r.h5"
    want="calls=10 partners=6 bytes=56 peers=$peers"
    case "$s" in *" $want") ;; *) fail "rank $r: got '$s', want '... $want'" ;; esac
done
"$tf" paraver -q "$tmp"/r.*.h5 -o "$tmp/run.prv" || fail "tracefold paraver of the four traces"
# 3:cpu:appl:task:thread:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag
got=$(awk -F: '$1 == 3 { print $4 - 1, $10 - 1, $14, $15 }' "$tmp/run.prv" | sort | tr '\n' ' ')
want=$(for r in 0 1 2 3; do for tag in 7 8 9; do echo "$r $(( (r + 1) % 4 )) 8 $tag"; done; done |
    sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "messages: got '$got', want '$want'"
exit 0
