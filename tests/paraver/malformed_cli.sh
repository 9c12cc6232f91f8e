#!/bin/sh
# Malformed Paraver input through the command line: one message naming the
# file and the line, exit 1, nothing left behind (also when interrupted);
# --lenient skips and counts.
set -u
tf=${TRACEFOLD:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-badprv-XXXXXX") || exit 1
export TMPDIR="$work/tmp"
mkdir "$TMPDIR"
trap 'rm -rf "$work"' EXIT
fail=0
hdr='#Paraver (01/01/2025 at 10:00):1000_ns:1(2):1:2(1:1,1:1),0'

# case NAME, LINE OF THE ERROR, WHAT THE MESSAGE SAYS, RECORDS...
bad() {
    name=$1 line=$2 says=$3
    shift 3
    { [ "$name" = header ] || echo "$hdr"; for r in "$@"; do echo "$r"; done; } > "$work/$name.prv"
    "$tf" info "$work/$name.prv" > /dev/null 2> "$work/err.txt"
    rc=$?
    [ $rc -eq 1 ] || { echo "FAIL: $name: exit $rc, expected 1"; fail=1; }
    [ "$(wc -l < "$work/err.txt")" -eq 1 ] || { echo "FAIL: $name: not one message"; cat "$work/err.txt"; fail=1; }
    grep -q "$name.prv: line $line: .*$says" "$work/err.txt" ||
        { echo "FAIL: $name: message lacks 'line $line: ...$says':"; cat "$work/err.txt"; fail=1; }
}
bad header 1 "bad Paraver header" '#Paraver (x):10_ns:1(1):1:1(1:1'
bad fields 3 "expected 8 numeric fields" '2:1:1:1:1:0:100:1' '1:1:1:1:1:0:10'
bad odd 2 "type 200 has no value" '2:1:1:1:1:5:100:1:200'
bad nonnumeric 2 "numeric 64-bit value" '2:1:1:1:1:5:100:abc'
bad backwards 3 "goes backwards" '2:1:1:1:1:9:100:1' '2:1:1:1:1:8:100:1'
bad cpu 2 "CPU 5 is not in the header" '2:5:1:1:1:9:100:1'
bad appl 2 "application 2 is not in the header" '2:1:2:1:1:9:100:1'
bad task 2 "task 3 is not in application 1" '2:1:1:3:1:9:100:1'
bad thread 2 "thread 4 is not in task 1.2" '2:1:1:2:4:9:100:1'
bad unknown 2 "unknown record type '9'" '9:1:1:1:1:9:100:1'

# Lenient: the two bad records are counted, the rest converted.
printf '%s\n' "$hdr" '2:1:1:1:1:5:60000019:1' '2:1:1:1:1:4:100:1' 'junk' \
    '2:1:1:1:1:9:60000019:0' > "$work/mixed.prv"
"$tf" paraver --import "$work/mixed.prv" -o "$work/mixed.h5" 2> /dev/null
[ $? -eq 1 ] || { echo "FAIL: strict import of bad records did not exit 1"; fail=1; }
[ -e "$work/mixed.h5" ] && { echo "FAIL: failed import left $work/mixed.h5"; fail=1; }
"$tf" paraver --import --lenient "$work/mixed.prv" -o "$work/mixed.h5" 2> "$work/err.txt" ||
    { echo "FAIL: lenient import exit $?"; fail=1; }
grep -q "skipped 2 bad records (first: line 3: " "$work/err.txt" ||
    { echo "FAIL: lenient import does not say how many records it skipped:"; cat "$work/err.txt"; fail=1; }
"$tf" info "$work/mixed.h5" | grep -Eq '^  60000019=1 +1 +0 ' ||
    { echo "FAIL: lenient import lost the good records"; fail=1; }

# Usage errors exit 2.
"$tf" paraver 2> /dev/null; [ $? -eq 2 ] || { echo "FAIL: no input: not exit 2"; fail=1; }
"$tf" paraver "$work/mixed.h5" -o "$work/out.txt" 2> /dev/null
[ $? -eq 2 ] || { echo "FAIL: output not .prv: not exit 2"; fail=1; }

[ -z "$(ls -A "$TMPDIR")" ] || { echo "FAIL: temporary files left: $(ls "$TMPDIR")"; fail=1; }

# A conversion interrupted by SIGTERM removes its temporary folder.
awk 'BEGIN { print "#Paraver (01/01/2025 at 10:00):99999999999_ns:1(1):1:1(1:1),0";
             for (i = 1; i <= 400000; i++)
                 printf "2:1:1:1:1:%d:30000000:%d:30000100:%d:42000050:%d\n", i * 100, i % 37 + 2, i % 91 + 2, 1000 + i % 17 }' \
    > "$work/big.prv"
"$tf" info "$work/big.prv" > /dev/null 2>&1 &
pid=$!
tries=0
while [ -z "$(ls -A "$TMPDIR")" ] && [ $tries -lt 500 ] && kill -0 $pid 2> /dev/null; do
    sleep 0.01
    tries=$((tries + 1))
done
kill -TERM $pid 2> /dev/null
wait $pid
rc=$?
if [ $rc -eq 143 ]; then
    [ -z "$(ls -A "$TMPDIR")" ] || { echo "FAIL: interrupted conversion left: $(ls "$TMPDIR")"; fail=1; }
else
    echo "note: the conversion ended (exit $rc) before it could be interrupted"
fi
exit $fail
