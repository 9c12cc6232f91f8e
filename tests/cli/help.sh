#!/bin/sh
# Every command answers --help on stdout with exit 0, and the binary --version;
# an unknown command is a usage error (exit 2).
set -u
tf=${TRACEFOLD:?}
fail=0
"$tf" --version | grep -q '^tracefold [0-9]' || { echo "FAIL: --version"; fail=1; }
"$tf" --help | grep -q '^Usage: tracefold' || { echo "FAIL: --help"; fail=1; }
for cmd in $("$tf" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
    out=$("$tf" "$cmd" --help) || { echo "FAIL: $cmd --help exit $?"; fail=1; continue; }
    echo "$out" | grep -q "tracefold $cmd" || { echo "FAIL: $cmd --help does not name the command"; fail=1; }
    echo "$out" | grep -q "^Exit status: " || { echo "FAIL: $cmd --help has no exit-status line"; fail=1; }
done
# What a new user looks for: where fold's report is, every option record takes.
"$tf" fold --help | tr '\n' ' ' | grep -q 'report.pdf.*folded.prv' ||
    { echo "FAIL: fold --help does not name report.pdf and folded.prv"; fail=1; }
"$tf" record --help | grep -q '^      --autostart VALUE' ||
    { echo "FAIL: record --help does not list --autostart"; fail=1; }
"$tf" record --help | grep -A1 '^      --kernel-stack' | grep -q '512 to 32K' ||
    { echo "FAIL: record --help does not give --kernel-stack's range"; fail=1; }
"$tf" info --help | grep -q -- '--all-objects' ||
    { echo "FAIL: info --help does not list --all-objects"; fail=1; }
"$tf" no-such-command 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL: unknown command exit code"; fail=1; }
exit $fail
