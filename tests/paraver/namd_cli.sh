#!/bin/sh
# The real Extrae trace (444.namd) through the command line: info sees 38
# instances of main; fold accepts "User function=main" and "60000019=5" and
# writes the synthetic trace folded.prv with named routines;
# the raw and the synthetic Paraver traces written from it pass --check;
# the gzip-compressed trace reads the same.  The trace is the repository's
# copy (tests/data/extrae), decompressed here for the plain-text runs.
set -u
tf=${TRACEFOLD:?}
repo_data=${top_srcdir:?}/tests/data/extrae
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-namd-XXXXXX") || exit 1
export TMPDIR="$work/tmp"
mkdir "$TMPDIR"
trap 'rm -rf "$work"' EXIT
fail=0
check() { echo "FAIL: $*"; fail=1; }
data=$work/plain
mkdir "$data" && gzip -dc "$repo_data/444.namd.prv.gz" > "$data/444.namd.prv" &&
    cp "$repo_data/444.namd.pcf" "$repo_data/444.namd.row" "$data/" ||
    { echo "FAIL: cannot decompress $repo_data/444.namd.prv.gz"; exit 1; }

"$tf" info "$data/444.namd.prv" > "$work/info.txt" || check "info exit $?"
grep -Eq '^  main +38 +0 ' "$work/info.txt" || check "info: no 38 complete instances of main"

"$tf" fold -q "$data/444.namd.prv" --region "User function=main" -o "$work/fold" ||
    check "fold --region 'User function=main' exit $?"
[ "$(grep -c '^main,' "$work/fold/instances.csv" 2>/dev/null)" = 38 ] ||
    check "fold: instances.csv does not list 38 instances of main"
"$tf" paraver --check "$work/fold/folded.prv" > /dev/null || check "fold's folded.prv fails --check"
grep -q 'ComputeNonbondedUtil::calc_self_energy' "$work/fold/folded.pcf" ||
    check "fold's folded.prv: routines not named"
# The synthetic trace's phases are the analysis's top-level phases.
phases=$(grep -c '^main,0,[0-9]*,' "$work/fold/phases.csv")
[ "$phases" -gt 0 ] && [ "$(grep -c '^[0-9]* *Phase [0-9]* of thread 1 ' "$work/fold/folded.pcf")" = "$phases" ] ||
    check "fold's folded.prv: not the $phases phases of phases.csv"
"$tf" fold -q "$data/444.namd.prv" --region 60000019=5 -o "$work/fold2" ||
    check "fold --region 60000019=5 exit $?"
"$tf" fold -q "$data/444.namd.prv" --region "User function=nope" -o "$work/fold3" 2> "$work/err.txt"
[ $? -eq 1 ] || check "fold of an unknown region spec did not exit 1"
grep -q "User function=main (60000019=5)" "$work/err.txt" || check "unknown spec: regions not listed"

"$tf" paraver -q "$work/fold/fold.h5" -o "$work/synth.prv" || check "synthetic trace exit $?"
"$tf" paraver --check "$work/synth.prv" > /dev/null || check "synthetic trace fails --check"
grep -q '^THREAD 1.1.1 main group 0' "$work/synth.row" || check "synthetic .row: thread not named after the region"

"$tf" paraver -q --import "$data/444.namd.prv" -o "$work/namd.h5" || check "--import exit $?"
"$tf" paraver -q "$work/namd.h5" -o "$work/raw.prv.gz" || check "raw trace exit $?"
"$tf" paraver --check "$work/raw.prv.gz" > /dev/null || check "raw trace fails --check"

# The compressed original as kept in the repository, with its .pcf and
# .row beside it.
"$tf" info "$repo_data/444.namd.prv.gz" > "$work/info-gz.txt" || check "info on .prv.gz exit $?"
grep -Eq '^  main +38 +0 ' "$work/info-gz.txt" || check "info on .prv.gz: no 38 instances of main"

# Conversions leave nothing behind in TMPDIR.
[ -z "$(ls -A "$TMPDIR")" ] || check "temporary files left: $(ls "$TMPDIR")"
exit $fail
