#!/bin/sh
# Functions that invite overflows or hide errors stay out of the code base
# (as curl's checksrc does): use snprintf, strtol-family parsers, strtok_r.
# Every C file of the source tree is scanned, build folders excepted.
set -u
src=${top_srcdir:?}
files=$(find "$src" \( -path "$src/build*" -o -path "$src/.git" -o -path "$src/autom4te.cache" \) -prune \
        -o \( -name '*.c' -o -name '*.h' \) -print)
# A line that is a string literal (text handed to another language, such
# as gnuplot's own sprintf) calls nothing.
hits=$(grep -nE '\<(strcpy|strcat|sprintf|vsprintf|gets|strtok|atoi|atol|atoll)[[:space:]]*\(' $files |
       grep -vE '^[^:]+:[0-9]+:[[:space:]]*"')
if [ -n "$hits" ]; then
    echo "banned functions used:"
    echo "$hits"
    exit 1
fi
exit 0
