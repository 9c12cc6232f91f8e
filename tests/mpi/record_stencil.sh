#!/bin/sh
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# The MPI example recorded per rank: `mpirun -np 4 tracefold record --
# stencil_mpi` writes four traces named by rank (%r), each with the rank,
# the world size, the host and the node layout; `tracefold info` shows
# them.  By default the halo exchange and the reductions appear as call
# events with the neighbours as partners and the exact bytes; with
# --mpi-calls no, no call is recorded.
. "${top_srcdir:?run by make check}/tests/mpi/lib.sh"
app=$bd/examples/stencil_mpi
check=$bd/tests/mpi/check_mpi
iters=100
run4() {
    timeout 120 mpirun -np 4 --oversubscribe --bind-to none "$@" >"$tmp/out" 2>"$tmp/err"
}
if ! timeout 60 mpirun -np 4 --oversubscribe --bind-to none true >/dev/null 2>&1; then
    echo "SKIP: mpirun cannot start 4 processes here"; exit 77
fi

run4 "$tf" record -q --mpi-calls no -o "$tmp/st.%r.h5" -- "$app" -i $iters -n 65536 ||
    { cat "$tmp/err"; fail "mpirun tracefold record --mpi-calls no: exit status $?"; }
grep -q '^stencil_mpi: 4 ranks, 100 iterations' "$tmp/out" || fail "program output: $(cat "$tmp/out")"
for r in 0 1 2 3; do
    f=$tmp/st.$r.h5
    [ -f "$f" ] || fail "no trace $f for rank $r"
    "$tf" info "$f" >"$tmp/info" || fail "tracefold info $f"
    grep -q "rank $r of 4, host $(hostname)" "$tmp/info" || fail "$f: info does not show rank $r of 4"
    s=$("$check" "$f") || fail "check_mpi $f"
    want="rank=$r nranks=4 ev_rank=$r ev_size=4 node=0 nodes=1 local_rank=$r local_size=4 calls=0 "
    case "$s" in "$want"*) ;; *) fail "$f: got '$s', want '$want...'" ;; esac
done
[ "$(ls "$tmp" | grep -c '\.h5$')" -eq 4 ] || fail "not exactly four traces: $(ls "$tmp")"
# The four traces as one set (times moved onto the earliest start), and
# their raw Paraver export: one task per rank and the world communicator.
s=$("$bd/tests/mpi/check_set" "$tmp"/st.3.h5 "$tmp"/st.1.h5 "$tmp"/st.0.h5 "$tmp"/st.2.h5) ||
    fail "check_set of the four traces: $s"
"$tf" paraver -q "$tmp"/st.*.h5 -o "$tmp/run.prv" || fail "paraver of the four traces"
sed -n 2p "$tmp/run.prv" | grep -qx 'c:1:1:4:1:2:3:4' || fail "no world communicator line: $(sed -n 2p "$tmp/run.prv")"
grep -q '^THREAD 1.4.1 rank 3 ' "$tmp/run.row" || fail "task 4 is not rank 3 in run.row"
"$tf" paraver --check "$tmp/run.prv" >/dev/null || fail "paraver --check run.prv"

# The four ranks folded together, one group per rank, numbered in rank
# order; every instance of a rank in its rank's group, preempted ones too
# (docs/commands/fold.md).  On 2 CPUs a rank may have every instance
# preempted: it then has no group (none of its instances is folded), and
# the ranks after it number on from the last group.
"$tf" fold -q "$tmp"/st.*.h5 -o "$tmp/st.fold" --group-by rank || fail "fold of the four traces"
last=-1
for r in 0 1 2 3; do
    n=$(awk -F, -v r=$r 'NR > 1 && $3 == r' "$tmp/st.fold/instances.csv" | wc -l)
    [ "$n" -eq $iters ] || fail "fold: $n instances of rank $r, want $iters"
    groups=$(awk -F, -v r=$r 'NR > 1 && $3 == r { print $2 }' "$tmp/st.fold/instances.csv" | sort -u)
    case $groups in
    "") echo "note: rank $r has no group: every instance preempted" ;;
    *[!0-9]*) fail "fold: rank $r in several groups: $(echo $groups)" ;;
    *) [ "$groups" -eq $((last + 1)) ] || fail "fold: rank $r in group $groups, want $((last + 1))"
       last=$groups ;;
    esac
done
[ $last -ge 0 ] || fail "fold: no rank has a group"

# Calls: per iteration 2 Irecv + 2 Isend + Waitall + Allreduce, then one
# Reduce to rank 0.  Bytes: four one-double messages and one double reduced
# per iteration, one double at the end.  Partners: the neighbours that
# exist, and rank 0 as the Reduce's root.
# Recorded by default under an MPI launcher (docs/commands/record.md).
run4 "$tf" record -q -o "$tmp/c.%r.h5" -- "$app" -i $iters -n 65536 ||
    { cat "$tmp/err"; fail "mpirun tracefold record: exit status $?"; }
for r in 0 1 2 3; do
    case $r in
        0) peers=0x3 partners=$((2 * iters + 1)) ;;
        1) peers=0x5 partners=$((4 * iters + 1)) ;;
        2) peers=0xb partners=$((4 * iters + 1)) ;;
        3) peers=0x5 partners=$((2 * iters + 1)) ;;
    esac
    s=$("$check" "$tmp/c.$r.h5") || fail "check_mpi c.$r.h5"
    want="calls=$((6 * iters + 1)) partners=$partners bytes=$((40 * iters + 8)) peers=$peers"
    case "$s" in *" $want") ;; *) fail "rank $r by default: got '$s', want '... $want'" ;; esac
done

# A Fortran program (`use mpi`): Open MPI's Fortran MPI_Init calls PMPI_Init
# directly, so the layout comes from libtracefold-mpi's Fortran entry points,
# built when configure found libmpi_mpifh.
if command -v mpifort >/dev/null 2>&1 && grep -q mpi_init_ "$bd/record/.libs/libtracefold-mpi.so"; then
    printf '%s\n' 'program f' '  use mpi' '  integer :: ierr' '  call MPI_Init(ierr)' \
        '  call MPI_Finalize(ierr)' 'end program' >"$tmp/f.f90"
    mpifort "$tmp/f.f90" -o "$tmp/fapp" || fail "mpifort"
    run4 "$tf" record -q -o "$tmp/f.%r.h5" -- "$tmp/fapp" || fail "Fortran program: exit status $?"
    s=$("$check" "$tmp/f.3.h5") || fail "check_mpi f.3.h5"
    case "$s" in "rank=3 nranks=4 ev_rank=3 ev_size=4 "*) ;; *) fail "Fortran rank 3: got '$s'" ;; esac
fi
exit 0
