#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The unit tests' harness (LOG_DRIVER and LOG_COMPILER of Makefile.am, given
# here as TF_LOG_DRIVER and TF_LOG_COMPILER) on a cmocka program whose
# second case skips, then fails: a skip counts as SKIP, never as FAIL, and a
# failure still counts as FAIL.
set -u
cases=${top_builddir:?}/tests/harness/tap_cases
[ -x "$cases" ] || { echo "FAIL: $cases is not built"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-tap-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
check() { echo "FAIL: $*"; fail=1; }

# run MODE: the harness on tap_cases MODE; leaves $work/MODE.trs and .log.
run() {
    eval "${TF_LOG_DRIVER:?} --test-name tap_cases-$1 --log-file '$work/$1.log'" \
        "--trs-file '$work/$1.trs' --color-tests no --enable-hard-errors yes" \
        "--expect-failure no -- ${TF_LOG_COMPILER:?} '$cases' $1" > "$work/$1.out" 2>&1
}
# results FILE: the per-case results of a .trs, one word each, in order.
results() { sed -n 's/^:test-result: \([A-Z]*\).*/\1/p' "$1" | tr '\n' ' '; }

run skip
[ "$(results "$work/skip.trs")" = "PASS SKIP " ] ||
    check "skip: case results '$(results "$work/skip.trs")', expected 'PASS SKIP '"
grep -q '^:global-test-result: PASS' "$work/skip.trs" ||
    check "skip: the program's result is not PASS: $(grep global "$work/skip.trs")"

# The failing case is a FAIL; the program's exit status (cmocka's count of
# failures) adds an ERROR, which scripts/test counts as a failure too.
run fail
case $(results "$work/fail.trs") in
    "PASS FAIL "*) ;;
    *) check "fail: case results '$(results "$work/fail.trs")', expected 'PASS FAIL ...'" ;;
esac
grep -Eq '^:global-test-result: (FAIL|ERROR)' "$work/fail.trs" ||
    check "fail: the program's result is not a failure: $(grep global "$work/fail.trs")"
grep -q 'fails on purpose' "$work/fail.log" || check "fail: the failure's message is not in the log"

[ $fail -eq 0 ] || { echo "---- logs"; cat "$work"/*.log; }
exit $fail
