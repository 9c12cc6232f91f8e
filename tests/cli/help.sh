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
done
"$tf" no-such-command 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL: unknown command exit code"; fail=1; }
exit $fail
