#!/bin/sh
# Traces of `tracefold synth` (two processes of two threads, nested regions,
# timer and memory samples, data objects) written as raw and synthetic
# Paraver traces: both pass --check; the raw trace converted back has the
# same regions, samples by kind and objects; routines and memory levels are
# labelled; gzip output is the same trace.
set -u
tf=${TRACEFOLD:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-prvsynth-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
check() { echo "FAIL: $*"; fail=1; }

"$tf" synth -q -o "$work/s.h5" --processes 2 --threads 2 --iterations 40 --nested ||
    { echo "FAIL: synth exit $?"; exit 1; }
"$tf" paraver -q "$work/s.h5" -o "$work/raw.prv" || check "raw trace exit $?"
"$tf" paraver --check "$work/raw.prv" > "$work/check.txt" || check "raw trace fails --check"
grep -q ', 4 threads, ' "$work/check.txt" || check "raw trace: not 4 threads"
grep -q 'stream_copy' "$work/raw.pcf" || check "raw trace: routines not labelled"
grep -q '^7 *Local DRAM' "$work/raw.pcf" || check "raw trace: memory levels not labelled"
grep -q '^THREAD 1.2.2 ' "$work/raw.row" || check "raw trace: threads not named"

# Back to a tracefold trace: the same summary, but for the header lines.
"$tf" paraver -q --import "$work/raw.prv" -o "$work/back.h5" || check "--import exit $?"
"$tf" info "$work/s.h5" | sed -n '/^regions:/,$p' > "$work/a.txt"
"$tf" info "$work/back.h5" | sed -n '/^regions:/,$p' > "$work/b.txt"
cmp -s "$work/a.txt" "$work/b.txt" || { check "regions and samples differ after the round trip"; diff "$work/a.txt" "$work/b.txt"; }
[ "$("$tf" info "$work/s.h5" | grep -c '^    object ')" = "$("$tf" info "$work/back.h5" | grep -c '^    object ')" ] ||
    check "objects differ after the round trip"

"$tf" paraver -q "$work/s.h5" -o "$work/raw-gz.prv.gz" || check "gzip raw trace exit $?"
tail -n +2 "$work/raw.prv" > "$work/plain.body"
gzip -dc "$work/raw-gz.prv.gz" | tail -n +2 | cmp -s - "$work/plain.body" ||
    check "the .prv.gz records differ from the .prv ones"

"$tf" fold -q "$work/s.h5" -o "$work/fold" || check "fold exit $?"
"$tf" paraver -q "$work/fold/fold.h5" -o "$work/folded.prv" || check "synthetic trace exit $?"
"$tf" paraver --check "$work/folded.prv" > /dev/null || check "synthetic trace fails --check"
grep -q 'Folded phase' "$work/folded.pcf" || check "synthetic trace: no phases"
grep -Eq '^[0-9]+ +stream_copy' "$work/folded.pcf" || check "synthetic trace: routines not labelled"
grep -q ':32000000:' "$work/folded.prv" || check "synthetic trace: no folded load samples"
exit $fail
