#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tracefold synth from the command line: it writes a readable trace, refuses
# to overwrite one without --force, rejects wrong options with exit 2, and
# leaves nothing behind when it cannot write.
set -u
tf=${TRACEFOLD:?}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-synth-cli.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

out="$dir/t.h5"
"$tf" synth -o "$out" --iterations 5 --threads 2 --quiet || bad "synth exit $?"
[ -s "$out" ] || bad "no trace written"

"$tf" synth -o "$out" --iterations 5 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || bad "existing output: exit $rc, expected 1"
grep -q "$out" "$dir/err" && grep -q -- --force "$dir/err" || bad "existing output: message $(cat "$dir/err")"
"$tf" synth -o "$out" --iterations 5 --force --quiet || bad "--force: exit $?"

# Wrong command lines: exit 2 and a message naming the problem.
for args in "--iterations abc" "--iterations 0" "--scenario nope" "--bogus" "" \
            "--outliers 0.9" "--counters 65" "--period 0" "--duration 5parsecs" "extra" \
            "--sample-cost -1us" "--sample-cost 5parsecs"; do
    # shellcheck disable=SC2086
    if [ -n "$args" ]; then set -- -o "$dir/w.h5" $args; else set --; fi
    "$tf" synth "$@" >/dev/null 2>"$dir/err"
    rc=$?
    [ $rc -eq 2 ] || bad "'synth $args': exit $rc, expected 2"
    [ -s "$dir/err" ] || bad "'synth $args': no message"
    [ -e "$dir/w.h5" ] && bad "'synth $args' wrote a file"
done

# An unwritable place: exit 1, no file, no temporary left over.
"$tf" synth -o "$dir/none/t.h5" --iterations 3 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || bad "missing directory: exit $rc, expected 1"
grep -q "$dir/none/t.h5" "$dir/err" || bad "missing directory: message does not name the file"
[ "$(ls "$dir" | grep -c tmp)" -eq 0 ] || bad "a temporary file was left: $(ls "$dir")"

# h5dump reads it without this project.
if command -v h5dump >/dev/null 2>&1; then
    h5dump -A "$out" >/dev/null 2>&1 || bad "h5dump cannot read the trace"
    h5dump -d /truth/boundaries "$out" | grep -q 'DATASPACE  SIMPLE { ( 6 )' ||
        bad "/truth/boundaries is not 6 long"
fi
exit $fail
