#!/bin/sh
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# fold without a region of a run with several ranks: the iteration is
# ranked on the busiest thread and found, by the same routine change, in
# every rank, so every rank's instances are folded (docs/algorithms.md,
# "An iteration found without marks").  Two ranks of the unmarked program
# tests/fold/unmarked_app (not an MPI program: the launcher makes them
# ranks, one trace each).
. "${top_srcdir:?run by make check}/tests/mpi/lib.sh"
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: the instrumented programs' timings are not the ones checked (normal build checks this)"
    exit 77
fi
app=$bd/tests/fold/unmarked_app
n=30
timeout 300 mpirun -np 2 --oversubscribe --bind-to none "$tf" record -q -o "$tmp/r.%r.h5" \
    --period 1ms -- "$app" regular $n 2000000 > "$tmp/out" ||
    fail "mpirun tracefold record: exit status $?"
[ -f "$tmp/r.0.h5" ] && [ -f "$tmp/r.1.h5" ] || fail "no trace per rank: $(ls "$tmp")"
"$tf" fold -o "$tmp/f" "$tmp/r.0.h5" "$tmp/r.1.h5" 2> "$tmp/notes" ||
    fail "fold exited $?: $(cat "$tmp/notes")"
cat "$tmp/notes"
grep -q "no region marked: .* instances in 2 processes" "$tmp/notes" ||
    fail "the note does not say the instances of both processes"
# instances.csv: region,group,process,...: most iterations of each rank
for p in 0 1; do
    k=$(awk -F, -v p=$p 'NR > 1 && $3 == p' "$tmp/f/instances.csv" | wc -l)
    echo "process $p: $k instances of $n iterations"
    [ "$k" -ge $((n * 3 / 4)) ] || fail "process $p: $k instances of $n iterations"
done
exit 0
