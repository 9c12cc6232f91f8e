#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# tracefold fold --machine: the profile's levels are kept in fold.h5
# (/machine, docs/fold-format.md) exactly as calibrate measured them, the
# report is drawn with them, and a fold without --machine has no /machine.
# A profile that cannot be read stops the fold before any output: one
# message naming it, exit 1, no output directory.
set -u
tf=${TRACEFOLD:?run by make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-fold-machine.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v h5dump >/dev/null || { echo "SKIP: h5dump not found"; exit 77; }

"$tf" synth -q -o "$tmp/run.h5" --seed 3 --iterations 30 || exit 1
"$tf" calibrate -q --quick --max-size 2M -o "$tmp/m.h5" || { echo "FAIL: calibrate"; exit 1; }
"$tf" fold -q "$tmp/run.h5" --machine "$tmp/m.h5" -o "$tmp/fold" || bad "fold --machine exited $?"
check_layout "$tmp/fold"
[ -s "$tmp/fold/report.pdf" ] || bad "no report.pdf"

# The rows of a levels dataset as h5dump prints them.
levels() { h5dump -d "$2" -w 2000 "$1" | sed -n '/DATA {/,/}/p' | sed 1d | tr -d ' \n'; }
want=$(levels "$tmp/m.h5" /levels)
got=$(levels "$tmp/fold/fold.h5" /machine/levels)
[ -n "$want" ] || bad "no levels in the profile"
[ "$got" = "$want" ] || bad "fold.h5 /machine/levels '$got', profile /levels '$want'"
h5dump -a /machine/source "$tmp/fold/fold.h5" | grep -qF "$tmp/m.h5" || bad "/machine/source"
echo "levels: $got"
"$tf" render -q "$tmp/fold/fold.h5" --format png -o "$tmp/r.png" || bad "render with /machine"

"$tf" fold -q "$tmp/run.h5" -o "$tmp/plain" || bad "fold exited $?"
h5dump -g /machine "$tmp/plain/fold.h5" >/dev/null 2>&1 && bad "/machine without --machine"

# expect_fail NAME PROFILE: fold --machine PROFILE fails cleanly.
expect_fail() {
    "$tf" fold -q "$tmp/run.h5" --machine "$2" -o "$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || bad "$1: exit $rc, expected 1"
    grep -qF "$2" "$tmp/err" || bad "$1: message does not name $2: $(cat "$tmp/err")"
    [ -e "$tmp/out" ] && bad "$1: left $tmp/out"
    ls "$tmp" | grep -q '^out\.tmp' && bad "$1: left a temporary directory"
    echo "$1: $(cat "$tmp/err")"
}
expect_fail "missing profile" "$tmp/none.h5"
printf 'not a profile\n' >"$tmp/text.h5"
expect_fail "text as profile" "$tmp/text.h5"
expect_fail "trace as profile" "$tmp/run.h5"
exit $fail
