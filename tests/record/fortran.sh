#!/bin/sh
# The Fortran example under `tracefold record`: its regions, user counter
# and data object reach the trace.
. "$top_srcdir/tests/record/lib.sh"
[ -x "$apps/fortran_app" ] || { echo "SKIP: no Fortran compiler"; exit 77; }
out=$("$tf" record -q -o "$tmp/f.h5" -- "$apps/fortran_app") || fail "fortran_app exit status $?"
case $out in "fortran_app:"*) ;; *) fail "fortran_app output: $out" ;; esac
"$check" summary "$tmp/f.h5" > "$tmp/s.txt" || fail "trace does not open"
[ "$(grep -c '^enter timestep$' "$tmp/s.txt")" -eq 30 ] || fail "30 timesteps expected"
grep -q '^counter cells kind=2$' "$tmp/s.txt" || fail "user counter cells missing"
grep -q '^object grid size=1600000 kind=2$' "$tmp/s.txt" || fail "data object grid missing"
exit 0
