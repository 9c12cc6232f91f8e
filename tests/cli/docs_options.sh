#!/bin/sh
# Every option a command lists in --help is documented on its manual page
# (docs/commands/CMD.md) and its man page (docs/man/), and every command
# has both.
set -u
tf=${TRACEFOLD:?}
src=${top_srcdir:?}
fail=0
for cmd in $("$tf" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
    page="$src/docs/commands/$cmd.md"
    man="$src/docs/man/tracefold-$cmd.1"
    [ -f "$page" ] || { echo "FAIL: $cmd has no page $page"; fail=1; continue; }
    [ -f "$man" ] || { echo "FAIL: $cmd has no man page $man"; fail=1; }
    for opt in $("$tf" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -q -- "$opt" "$page" || { echo "FAIL: $cmd $opt is not documented in docs/commands/$cmd.md"; fail=1; }
        # man pages write a hyphen as \-
        grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$man" 2>/dev/null ||
            { echo "FAIL: $cmd $opt is not in the man page tracefold-$cmd.1"; fail=1; }
    done
done
exit $fail
