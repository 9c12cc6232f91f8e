#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tracefold info on bad input: one clear message naming the file, exit 1,
# no crash and no HDF5 error stack; wrong command lines exit 2.
set -u
tf=${TRACEFOLD:?}
mk=${top_builddir:?}/tests/formats/make_bad_trace
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-info-bad.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# expect_error NAME FILE: info must fail cleanly on FILE.
expect_error() {
    "$tf" info "$2" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ $rc -eq 1 ] || bad "$1: exit $rc, expected 1"
    [ -s "$dir/out" ] && bad "$1: wrote to stdout"
    grep -q "HDF5-DIAG" "$dir/err" && bad "$1: HDF5 error stack printed"
    [ "$(wc -l <"$dir/err")" -eq 1 ] || bad "$1: expected one line, got: $(cat "$dir/err")"
    grep -qF "$2" "$dir/err" || bad "$1: message does not name the file: $(cat "$dir/err")"
    echo "$1: $(cat "$dir/err")"
}

expect_error "missing file" "$dir/missing.h5"
: >"$dir/empty.h5"
expect_error "empty file" "$dir/empty.h5"
printf 'this is not an HDF5 file\n' >"$dir/text.h5"
expect_error "not HDF5" "$dir/text.h5"

"$tf" synth -o "$dir/good.h5" --iterations 20 --quiet || { echo "FAIL: synth"; exit 1; }
size=$(wc -c <"$dir/good.h5")
head -c $((size / 2)) "$dir/good.h5" >"$dir/half.h5"
expect_error "truncated synth trace" "$dir/half.h5"

[ -x "$mk" ] || { echo "FAIL: $mk is not built"; exit 1; }
for mode in wrong-format wrong-version missing-dataset events-out-of-order \
            samples-out-of-order truncated; do
    "$mk" "$mode" "$dir/$mode.h5" || { bad "make_bad_trace $mode"; continue; }
    expect_error "$mode" "$dir/$mode.h5"
done

# Wrong command lines.
for args in "" "--bogus $dir/good.h5" "$dir/good.h5 $dir/good.h5"; do
    # shellcheck disable=SC2086
    "$tf" info $args >/dev/null 2>&1
    rc=$?
    [ $rc -eq 2 ] || bad "'info $args': exit $rc, expected 2"
done
exit $fail
