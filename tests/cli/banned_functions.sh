#!/bin/sh
# Functions that invite overflows or hide errors stay out of the code base
# (as curl's checksrc does): use snprintf, strtol-family parsers, strtok_r.
set -u
src=${top_srcdir:?}
hits=$(grep -nE '\<(strcpy|strcat|sprintf|vsprintf|gets|strtok|atoi|atol|atoll)[[:space:]]*\(' \
    $(find "$src/common" "$src/formats" "$src/record" "$src/synth" "$src/extract" "$src/fold" \
           "$src/render" "$src/cli" "$src/examples" "$src/bench" "$src/tests" \
           -name '*.c' -o -name '*.h' 2>/dev/null) 2>/dev/null)
if [ -n "$hits" ]; then
    echo "banned functions used:"
    echo "$hits"
    exit 1
fi
exit 0
