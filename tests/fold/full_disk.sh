#!/bin/sh
# `tracefold fold` whose output file system fills up (a small tmpfs, full
# while fold.h5 is written, then while the CSV files are): one message
# naming the file, exit status 1 (not a crash while exiting), and nothing
# left behind, neither OUTDIR nor its temporary sibling; with one thread and
# with two.  Mounting tmpfs may be refused: skipped (77).
set -u
tf=${TRACEFOLD:?}
tmp=$(mktemp -d)
mnt=$tmp/small
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }

mkdir "$mnt"
"$tf" synth -q -o "$tmp/run.h5" --seed 5 --iterations 300 || exit 1
for size in 128k:fold.h5 1m:curves.csv; do
    if ! mount -t tmpfs -o size=${size%:*} tmpfs "$mnt" 2>/dev/null; then
        echo "SKIP: cannot mount a tmpfs here (needs root and mount permission)"
        exit 77
    fi
    for j in 1 2; do
        what="${size%:*} tmpfs, -j $j"
        "$tf" fold -q -j $j -o "$mnt/out" "$tmp/run.h5" 2> "$tmp/err"
        rc=$?
        [ "$rc" -eq 1 ] || say_fail "$what: exit status $rc, expected 1: $(cat "$tmp/err")"
        [ "$(wc -l < "$tmp/err")" -eq 1 ] || say_fail "$what: not one message: $(cat "$tmp/err")"
        grep -q "$mnt/out[^ ]*/${size#*:}: .*" "$tmp/err" ||
            say_fail "$what: the message does not name ${size#*:}: $(cat "$tmp/err")"
        [ -z "$(ls -A "$mnt")" ] || say_fail "$what: left behind: $(ls -A "$mnt")"
    done
    umount "$mnt"
done
exit $fail
