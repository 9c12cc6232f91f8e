#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# HDF5's own h5dump reads a trace: its layout, its compressed tables and
# its root attributes, with no help from tracefold.
command -v h5dump >/dev/null 2>&1 || { echo "h5dump not installed: skipped"; exit 77; }
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-h5dump.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$top_builddir/tests/formats/write_fixture_trace" "$tmp/t.h5"

h5dump -H "$tmp/t.h5" > "$tmp/header"
for want in 'DATASET "strings"' 'DATASET "samples"' 'DATASET "events"' \
            'DATASET "frames"' 'DATASET "objects"' 'DATASET "modules"' 'DATASET "symbols"' \
            'DATASET "counters"' 'H5T_STD_U64LE "data_source";' \
            'H5T_ARRAY { [3] H5T_STD_U64LE } "counters";' 'ATTRIBUTE "complete"'; do
    grep -qF "$want" "$tmp/header" || { echo "h5dump -H lacks: $want"; exit 1; }
done

h5dump -a /format "$tmp/t.h5" | grep -q '"tracefold-trace"' || { echo "format attribute"; exit 1; }
h5dump -a /complete "$tmp/t.h5" | grep -q '(0): 1' || { echo "complete attribute"; exit 1; }
# Data goes through the deflate filter: the 4th event's time is 3000 ns.
h5dump -d /process/0/thread/0/events -s 3 -c 1 "$tmp/t.h5" > "$tmp/events"
grep -q '3000' "$tmp/events" || { cat "$tmp/events"; echo "event data"; exit 1; }
# The string table: bytes, each string ended by a zero byte (-r: as text).
h5dump -r -d /strings "$tmp/t.h5" | grep -qF '\000L1D misses\000' || { echo "strings"; exit 1; }
h5dump -a /host "$tmp/t.h5" | grep -q 'STRSIZE [0-9]' || { echo "fixed-length host"; exit 1; }
echo "h5dump reads the trace"
