#!/bin/sh
# A trace recorded by `tracefold record` (examples/stream, with its debug
# information) written as a raw Paraver trace: routines and lines come from
# the DWARF of the binary, the regions are user functions, and the trace
# passes --check.
set -u
tf=${TRACEFOLD:?}
app=${top_builddir:?}/examples/stream
[ -x "$app" ] || { echo "skip: $app is not built"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-prvrec-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
check() { echo "FAIL: $*"; fail=1; }

"$tf" record -o "$work/rec.h5" -- "$app" > "$work/record.txt" 2>&1 ||
    { echo "skip: tracefold record cannot record here:"; cat "$work/record.txt"; exit 77; }
# The recorded process is the one with the regions (helpers may write traces too).
trace=$(for t in "$work"/rec*.h5; do
            "$tf" info "$t" 2>/dev/null | grep -q '^  Triad ' && echo "$t"
        done | head -1)
[ -n "$trace" ] || { echo "skip: no trace with the Triad region was recorded"; exit 77; }
"$tf" paraver -q "$trace" -o "$work/rec.prv" || check "raw trace exit $?"
"$tf" paraver --check "$work/rec.prv" > /dev/null || check "raw trace fails --check"
grep -Eq '^[0-9]+ +triad$' "$work/rec.pcf" || check "routine triad not labelled from the debug information"
grep -Eq '^[0-9]+ +[0-9]+ \(stream\.c\)$' "$work/rec.pcf" || check "no stream.c line labels"
grep -Eq '^[0-9]+ +Triad$' "$work/rec.pcf" || check "region Triad not labelled as a user function"
exit $fail
