#!/bin/sh
# An application writing its own HDF5 file while recorded: both files are
# right (the recorder keeps HDF5 out of the application's process).
. "$top_srcdir/tests/record/lib.sh"
out=$("$tf" record -q -o "$tmp/trace.h5" -- "$apps/hdf5_app" "$tmp/app.h5") ||
    fail "hdf5_app under the recorder: $out"
[ "$out" = "hdf5_app: ok" ] || fail "hdf5_app output: $out"
[ "$("$check" summary "$tmp/trace.h5" | grep -c '^enter hdf5_io$')" -eq 5 ] ||
    fail "regions of hdf5_app missing"
if command -v h5dump >/dev/null; then
    h5dump -H "$tmp/app.h5" | grep -q 'DATASET "values"' || fail "the application's file is damaged"
fi
exit 0
