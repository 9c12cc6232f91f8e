#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Datasets whose extent claims more than the file stores (docs/trace-format.md,
# "The extent rule"), built by claim_h5: a trace table claiming 240 MB with
# one MB of incompressible rows stored (within deflate's 1032:1 ratio of
# what is stored, so only the unstored chunks give it away), and a fold.h5
# column with a fill value of its own claiming 512 MiB with no chunk
# stored.  Each command gives exit 1, one line naming the file and the
# dataset, and stays under 2x the file's size plus 64 MB more than the
# memory of reading a small valid file.
set -u
tf=${TRACEFOLD:?run by make check}
bin=$top_builddir/tests/formats
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-claims.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# Under the sanitizer build a report must not pass for a refusal (exit 1),
# and the allocator's quarantine holds freed memory: only time is bounded.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export ASAN_OPTIONS
timer=
if /usr/bin/time -f '%M' -o "$tmp/usage" true 2> /dev/null; then
    timer=/usr/bin/time
else
    echo "note: no GNU time (/usr/bin/time): memory not measured"
fi

# refused FILE DATASET COMMAND...: exit 1 within 20 s, one line on stderr
# naming FILE: DATASET, and the memory bound.
refused() {
    file=$1 dset=$2
    shift 2
    rm -rf "$tmp/out" "$tmp/p".*
    if [ -n "$timer" ]; then
        timeout 20 $timer -o "$tmp/usage" -f '%M' "$@" > /dev/null 2> "$tmp/msg"
    else
        timeout 20 "$@" > /dev/null 2> "$tmp/msg"
    fi
    rc=$?
    [ $rc -eq 1 ] || { bad "$*: exit $rc, expected 1: $(cat "$tmp/msg")"; return; }
    [ "$(wc -l < "$tmp/msg")" -eq 1 ] || bad "$*: not one line: $(cat "$tmp/msg")"
    grep -qF "$file: $dset" "$tmp/msg" || bad "$*: does not name $file: $dset: $(cat "$tmp/msg")"
    [ -n "$timer" ] && [ "${TF_SANITIZERS:-}" != yes ] || return 0
    kb=$(tail -n 1 "$tmp/usage")
    most=$((base_kb + 2 * $(wc -c < "$file") / 1024 + 65536))
    [ "$kb" -le "$most" ] || bad "$*: $kb KB resident, more than $most KB"
}

"$bin/write_fixture_trace" "$tmp/good.h5" || { echo "FAIL: write_fixture_trace"; exit 1; }
base_kb=0
if [ -n "$timer" ]; then
    $timer -o "$tmp/usage" -f '%M' "$tf" info "$tmp/good.h5" > /dev/null ||
        bad "info on the valid trace"
    base_kb=$(tail -n 1 "$tmp/usage")
fi

# 5,000,000 objects (about 240 MB), the first 20,000 stored.
cp "$tmp/good.h5" "$tmp/objects.h5"
"$bin/claim_h5" "$tmp/objects.h5" /process/0/objects 5000000 20000 || bad "claim_h5 objects"
for args in "info" "fold -q -o $tmp/out" "paraver -o $tmp/p.prv"; do
    # shellcheck disable=SC2086
    refused "$tmp/objects.h5" /process/0/objects "$tf" $args "$tmp/objects.h5"
done
grep -q 'chunks its extent needs' "$tmp/msg" || bad "the unstored chunks are not the reason: $(cat "$tmp/msg")"

# fold.h5: 2^26 doubles of a fill value, nothing stored.
"$tf" synth -q -o "$tmp/s.h5" --iterations 40 --no-memory || bad "synth"
"$tf" fold -q -o "$tmp/f" "$tmp/s.h5" || bad "fold"
"$bin/claim_h5" "$tmp/f/fold.h5" /region/0/instances/begin_ns 67108864 0 fill ||
    bad "claim_h5 fold.h5"
refused "$tmp/f/fold.h5" /region/0/instances/begin_ns "$tf" render -q -o "$tmp/r.pdf" "$tmp/f/fold.h5"
exit $fail
