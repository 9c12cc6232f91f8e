#!/bin/sh
# Several traces read as one (the ranks of an MPI run, one file each): the
# set is the union of its members (check_set compares every process, event,
# sample and name with the member read alone), processes come by rank; the
# raw Paraver export of a set has one task per process; a damaged member is
# named and nothing is written.  Needs no MPI.
tf=${TRACEFOLD:?run by make check}
bd=${top_builddir:?run by make check}
check=$bd/tests/mpi/check_set
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-set-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$tf" synth -q -o "$tmp/a.h5" --processes 2 --iterations 40 || fail "synth a"
"$tf" synth -q -o "$tmp/b.h5" --seed 2 --iterations 30 --threads 2 || fail "synth b"
out=$("$check" "$tmp/b.h5" "$tmp/a.h5") || fail "check_set: $out"
[ "$out" = "ok 3 processes" ] || fail "check_set: $out"

# Raw Paraver export: three tasks (b has no rank, so no communicator line).
"$tf" paraver -q "$tmp/b.h5" "$tmp/a.h5" -o "$tmp/ab.prv" || fail "paraver of a set"
head -1 "$tmp/ab.prv" | grep -q ':1:3(1:1,1:2,2:1),0$' ||
    fail "header: want 3 tasks (ranks 0, 1, then the process without a rank): $(head -1 "$tmp/ab.prv")"
"$tf" paraver --check "$tmp/ab.prv" >/dev/null || fail "paraver --check of the set's export"

# A damaged member: its name in the message, exit 1, no output.
head -c 3000 "$tmp/a.h5" >"$tmp/cut.h5"
"$tf" paraver -q "$tmp/b.h5" "$tmp/cut.h5" -o "$tmp/bad.prv" 2>"$tmp/err"
[ $? -eq 1 ] || fail "damaged member: exit status not 1"
grep -q 'cut.h5' "$tmp/err" || fail "damaged member not named: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.prv" ] || fail "damaged member: an output was written"
"$tf" paraver -q "$tmp/b.h5" "$tmp/a.h5" --import -o "$tmp/x.h5" 2>/dev/null
[ $? -eq 2 ] || fail "--import with several inputs must be a usage error"

# Folding a set: every process's instances.  Two copies of one trace fold
# into two halves equal to each other and to the trace folded alone.
cp "$tmp/b.h5" "$tmp/b2.h5"
"$tf" fold -q "$tmp/b.h5" -o "$tmp/b.fold" || fail "fold b"
"$tf" fold -q "$tmp/b.h5" "$tmp/b2.h5" -o "$tmp/bb.fold" || fail "fold of a set"
rows() { awk -F, -v p="$2" 'NR > 1 && (p == "" || $3 == p) { print $4, $5, $6, $9 }' "$1/instances.csv"; }
rows "$tmp/b.fold" >"$tmp/single"
rows "$tmp/bb.fold" 0 >"$tmp/half0"
rows "$tmp/bb.fold" 1 >"$tmp/half1"
[ "$(wc -l <"$tmp/single")" -eq 60 ] || fail "b: want 60 instances (2 threads x 30)"
cmp -s "$tmp/single" "$tmp/half0" && cmp -s "$tmp/half0" "$tmp/half1" ||
    fail "the set's processes do not each hold the single trace's instances"
# A directory of traces: its *.h5 files, the output named after it.
mkdir "$tmp/run"
cp "$tmp/b.h5" "$tmp/b2.h5" "$tmp/run/"
"$tf" fold -q "$tmp/run/" || fail "fold of a directory"
rows "$tmp/run.fold" 1 | cmp -s - "$tmp/single" || fail "directory: process 1 differs"
"$tf" fold -q "$tmp/b.h5" "$tmp/b2.h5" 2>/dev/null
[ $? -eq 2 ] || fail "several traces without -o must be a usage error"
exit 0
