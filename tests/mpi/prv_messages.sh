#!/bin/sh
# MPI in the raw Paraver export: two ranks exchange messages by MPI_Send /
# MPI_Recv (some from any source with any tag), MPI_Isend / MPI_Irecv
# completed by MPI_Wait and MPI_Waitall, and MPI_Sendrecv, recorded with
# --mpi-calls and exported together.  The communication records (3:) are
# exactly the messages the program says it sent (sender, receiver, bytes,
# tag), each received after it was sent; the calls show as Extrae's MPI
# states and events, labelled in the .pcf; `paraver --check` passes.
. "${top_srcdir:?run by make check}/tests/mpi/lib.sh"
app=$bd/tests/mpi/messages
[ -x "$app" ] || { echo "SKIP: tests/mpi/messages not built (no MPI)"; exit 77; }
if ! timeout 60 mpirun -np 2 --oversubscribe --bind-to none true >/dev/null 2>&1; then
    echo "SKIP: mpirun cannot start 2 processes here"; exit 77
fi
timeout 120 mpirun -np 2 --oversubscribe --bind-to none \
    "$tf" record -q --mpi-calls yes -o "$tmp/m.%r.h5" -- "$app" "$tmp/sent" \
    >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "mpirun tracefold record: exit status $?"; }
"$tf" paraver "$tmp"/m.0.h5 "$tmp"/m.1.h5 -o "$tmp/run.prv" 2>"$tmp/note" ||
    { cat "$tmp/note"; fail "tracefold paraver of the two traces"; }
"$tf" paraver --check "$tmp/run.prv" >/dev/null || fail "paraver --check run.prv"

# Tasks are ranks + 1 (traces ordered by rank).  Record fields:
# 3:cpu:appl:task:thread:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag
awk -F: '$1 == 3 { print $4 - 1, $10 - 1, $14, $15 }' "$tmp/run.prv" | sort >"$tmp/got"
cat "$tmp/sent.0" "$tmp/sent.1" | sort >"$tmp/want"
[ -s "$tmp/want" ] || fail "the program wrote no message list"
cmp -s "$tmp/got" "$tmp/want" ||
    fail "communication records differ from the messages sent:$(diff "$tmp/want" "$tmp/got")"
n=$(wc -l <"$tmp/want")
grep -q "$n messages" "$tmp/note" || fail "paraver does not report $n messages: $(cat "$tmp/note")"
bad=$(awk -F: '$1 == 3 && ($13 < $7 || $12 > $13 || $6 > $7)' "$tmp/run.prv" | head -3)
[ -z "$bad" ] || fail "a message received before it was sent: $bad"

# States: every kind of call of the program, on both ranks.
for st in 1 3 4 5 10 11 13 16; do
    for task in 1 2; do
        awk -F: -v s=$st -v t=$task '$1 == 1 && $4 == t && $8 == s { f = 1 } END { exit !f }' \
            "$tmp/run.prv" || [ "$st$task" = 41 ] || [ "$st$task" = 42 ] ||
            fail "no state $st on task $task"
    done
done
awk -F: '$1 == 1 && $4 == 1 && $8 == 4 { f = 1 } END { exit !f }' "$tmp/run.prv" ||
    fail "rank 0's MPI_Send is not in state 4 (Blocking Send)"
for label in '3    Waiting a message' '4    Blocking Send' '13    Group Communication' \
    '16    Send Receive' '50000001    MPI Point-to-point' '41      MPI_Sendrecv' \
    '10      MPI_Allreduce'; do
    grep -q "$label" "$tmp/run.pcf" || fail "run.pcf lacks '$label'"
done
# Extrae's values: MPI_Send (1) entered 3 times on rank 0, MPI_Irecv (4) 6 times per rank.
s=$(awk -F: '$1 == 2 && $4 == 1 { for (i = 7; i < NF; i += 2) if ($i == 50000001 && $(i + 1) == 1) n++ }
    END { print n + 0 }' "$tmp/run.prv")
[ "$s" -eq 3 ] || fail "rank 0: $s MPI_Send events, want 3"
s=$(awk -F: '$1 == 2 && $4 == 2 { for (i = 7; i < NF; i += 2) if ($i == 50000001 && $(i + 1) == 4) n++ }
    END { print n + 0 }' "$tmp/run.prv")
[ "$s" -eq 6 ] || fail "rank 1: $s MPI_Irecv events, want 6"
exit 0
