#!/bin/sh
# A fixed output name under mpirun: `mpirun -np 4 tracefold record -o t.h5`
# writes one trace per rank, the rank in its name before the extension
# (t.0000.h5 ... t.0003.h5), each readable and of its own rank; none
# collides, none is refused, record exits 0 on every rank.  A second run
# onto the same names is refused by every rank before the program starts.
. "${top_srcdir:?run by make check}/tests/mpi/lib.sh"
app=$bd/examples/stencil_mpi
run4() {
    timeout 120 mpirun -np 4 --oversubscribe --allow-run-as-root --bind-to none "$@" \
        >"$tmp/out" 2>"$tmp/err"
}
if ! timeout 60 mpirun -np 4 --oversubscribe --allow-run-as-root --bind-to none true \
    >/dev/null 2>&1; then
    echo "SKIP: mpirun cannot start 4 processes here"; exit 77
fi

run4 "$tf" record -q -o "$tmp/t.h5" -- "$app" -i 20 -n 4096 ||
    { cat "$tmp/err"; fail "mpirun tracefold record -o t.h5: exit status $?"; }
grep -q 'cannot create' "$tmp/err" && fail "a rank could not create its trace: $(cat "$tmp/err")"
for r in 0 1 2 3; do
    f=$tmp/t.000$r.h5
    [ -f "$f" ] || fail "no trace $f for rank $r: $(ls "$tmp")"
    "$tf" info "$f" >"$tmp/info" || fail "tracefold info $f"
    grep -q "rank $r of 4" "$tmp/info" || fail "$f: info does not show rank $r of 4"
done
[ "$(ls "$tmp" | grep -c '\.h5$')" -eq 4 ] || fail "not exactly four traces: $(ls "$tmp")"
[ -e "$tmp/t.h5" ] && fail "a trace without the rank in its name"

# Every rank's name exists now: refused before the program starts.
run4 "$tf" record -q -o "$tmp/t.h5" -- "$app" -i 20 -n 4096 && fail "second run onto the traces: exit 0"
grep -q "t.000[0-3].h5: exists (use --force" "$tmp/err" || fail "second run: message: $(cat "$tmp/err")"
grep -q '^stencil_mpi' "$tmp/out" && fail "second run: the program ran"
exit 0
