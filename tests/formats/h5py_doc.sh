#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The h5py example of docs/trace-format.md runs on a real trace and prints
# what the fixture holds.
set -u
py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import h5py' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "no python3 with h5py: skipped"; exit 77; }
set -e
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-h5py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
awk '/^<!-- docs-test: file read_trace.py -->$/ { getline; take = 1; next }
     take && /^```/ { exit }
     take' "$top_srcdir/docs/trace-format.md" > "$tmp/example.py"
[ -s "$tmp/example.py" ] || { echo "no h5py example found in docs/trace-format.md"; exit 1; }
"$top_builddir/tests/formats/write_fixture_trace" "$tmp/t.h5"
"$py" "$tmp/example.py" "$tmp/t.h5" > "$tmp/out"
cat "$tmp/out"
grep -q '^100 samples, 33 loads; counters: instructions, cycles, L1D misses$' "$tmp/out"
grep -q "regions entered: .*'main'" "$tmp/out"
