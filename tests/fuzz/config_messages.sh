#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The configuration files the fuzzer found libxml2 printing its own lines
# for (an undecodable byte: "encoding error : ...", "I/O error : ..."): the
# user gets our one message naming the file and line, the cause, exit 1.
. "$top_srcdir/tests/fuzz/lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for f in "$fuzz_src"/crashes/config/*.xml; do
    "$TRACEFOLD" record -c "$f" --print-env >/dev/null 2>"$tmp/err"
    rc=$?
    name=$(basename "$f")
    [ $rc -eq 1 ] || { echo "FAIL: $name: exit status $rc, expected 1"; status=1; }
    if grep -v '^tracefold record: error: ' "$tmp/err" | grep -q .; then
        echo "FAIL: $name: lines that are not ours:"; cat "$tmp/err"; status=1
    fi
    grep -q "^tracefold record: error: $f:[1-9][0-9]*: invalid XML: " "$tmp/err" ||
        { echo "FAIL: $name: no message naming the file and line:"; cat "$tmp/err"; status=1; }
    grep -q 'Premature end of data' "$tmp/err" &&
        { echo "FAIL: $name: a consequence reported instead of the cause"; status=1; }
done
exit $status
