#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every reader on its seed corpus and on the crashes found and fixed so far
# (tests/fuzz/crashes/READER): no crash, no sanitizer report, no leak, no
# input taking more than 30 s.
. "$top_srcdir/tests/fuzz/lib.sh"
status=0
for r in $readers; do
    set -- "$fuzz_src/corpus/$r"
    has_files "$fuzz_src/crashes/$r" && set -- "$@" "$fuzz_src/crashes/$r"
    "$fuzz_bin/fuzz_$r" -T 30 "$@" || { echo "FAIL: $r: see above"; status=1; }
done
exit $status
