#!/bin/sh
# Hostile and damaged Paraver input, built here with printf, awk, gzip,
# head, dd, ln -s and mkfifo: a .prv.gz cut short, with a bad CRC or length,
# with garbage after it; a .prv cut inside its last line; header counts of
# 2^31; a link to /dev/zero, a pipe, 17 MiB without a newline; a .pcf of
# binary or text garbage.  Each gives exit 1, one error line naming the
# user's file (and the line where there is one), nothing left behind, in
# under 10 s and under 2x the file's size plus 64 MB more than the memory
# of a small conversion.  Concatenated gzip members still read; a missing
# .pcf is one warning; messages name the .prv, not its conversion.
set -u
tf=${TRACEFOLD:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-hostile-XXXXXX") || exit 1
export TMPDIR="$work/tmp"
mkdir "$TMPDIR"
trap 'rm -rf "$work"' EXIT
fail=0
check() { echo "FAIL: $*"; fail=1; }

# GNU time gives the peak resident memory; under the sanitizers the
# allocator's quarantine holds freed memory, so only time is bounded there.
timer=
if /usr/bin/time -f '%e %M' -o "$work/usage" true 2> /dev/null; then
    timer=/usr/bin/time
else
    echo "note: no GNU time (/usr/bin/time): time and memory not measured"
fi
[ "${TF_SANITIZERS:-}" = yes ] && echo "note: sanitizer build: memory not bounded, time is"

# A small, valid trace: two threads, a user function and a counter.
hdr='#Paraver (01/01/2025 at 10:00):99999999_ns:1(2):1:2(1:1,1:1),0'
records() {
    awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) {
        t = (i + 1) % 2 + 1
        printf "2:%d:1:%d:1:%d:60000019:%d:42000050:%d\n", t, t, i * 10, int((i - 1) / 2) % 2 == 0, i * 7 % 1000 } }'
}
{ echo "$hdr"; records 40000; } > "$work/good.prv"
printf '%s\n' DEFAULT_OPTIONS '' 'LEVEL               THREAD' 'UNITS               NANOSEC' '' \
    STATES '1    Running' '' EVENT_TYPE '0    60000019    User function' VALUES '0      End' \
    '1      main' '' EVENT_TYPE '7    42000050    (PAPI_TOT_INS) Instr completed' > "$work/good.pcf"
printf '%s\n' 'LEVEL CPU SIZE 2' 1.node1 2.node1 '' 'LEVEL NODE SIZE 1' node1 '' \
    'LEVEL THREAD SIZE 2' 'THREAD 1.1.1' 'THREAD 1.2.1' > "$work/good.row"
gzip -n -c "$work/good.prv" > "$work/good.prv.gz"
# The .pcf and .row of the good trace beside another .prv (or .prv.gz).
sidecars() {
    cp "$work/good.pcf" "$work/$1.pcf"
    cp "$work/good.row" "$work/$1.row"
}
bytes() { if [ -f "$1" ]; then wc -c < "$1" | tr -d ' '; else echo 0; fi; }

# The memory of a small conversion that succeeds: the fixed cost of the
# program (libraries, HDF5) that the bounds below come on top of.
base_kb=0
if [ -n "$timer" ]; then
    { echo "$hdr"; records 10; } > "$work/base.prv"
    sidecars base
    $timer -o "$work/usage" -f '%e %M' "$tf" info "$work/base.prv" > /dev/null 2>&1 ||
        check "the small valid trace does not convert"
    base_kb=$(tail -n 1 "$work/usage" | cut -d' ' -f2)
fi

# fails WHAT FILE PATTERN COMMAND...: exit 1 and one line on stderr that
# names FILE (the user's) and matches PATTERN (extended regexp, after
# "FILE: "), no conversion left in TMPDIR, no out.h5, and the bounds.
fails() {
    what=$1 file=$2 pattern=$3
    shift 3
    rm -f "$work/out.h5"
    if [ -n "$timer" ]; then
        timeout 60 $timer -o "$work/usage" -f '%e %M' "$@" > /dev/null 2> "$work/err.txt"
    else
        timeout 60 "$@" > /dev/null 2> "$work/err.txt"
    fi
    rc=$?
    [ $rc -eq 1 ] || check "$what: exit $rc, expected 1"
    [ "$(wc -l < "$work/err.txt")" -eq 1 ] || { check "$what: not one line:"; cat "$work/err.txt"; }
    grep -Fq "$file: " "$work/err.txt" && grep -Eq ": error: .*$pattern" "$work/err.txt" ||
        { check "$what: the message does not name $file with '$pattern':"; cat "$work/err.txt"; }
    grep -q 'tracefold-prv-\|\.prv\.h5' "$work/err.txt" &&
        check "$what: the message names the conversion: $(cat "$work/err.txt")"
    [ -z "$(ls -A "$TMPDIR")" ] || { check "$what: left $(ls "$TMPDIR")"; rm -rf "${TMPDIR:?}"/*; }
    [ -e "$work/out.h5" ] && check "$what: left out.h5"
    [ -n "$timer" ] && [ $rc -ne 124 ] || return 0
    read -r secs kb <<EOF
$(tail -n 1 "$work/usage")
EOF
    awk -v s="$secs" 'BEGIN { exit !(s < 10) }' || check "$what: took $secs s (10 s allowed)"
    [ "${TF_SANITIZERS:-}" = yes ] && return 0
    size=$(bytes "$file")
    most=$((base_kb + 2 * size / 1024 + 65536))
    [ "$kb" -le "$most" ] || check "$what: $kb KB resident, more than $most KB"
}

# every_command WHAT FILE PATTERN [PRV]: info, paraver --check and --import
# of PRV (by default FILE) fail alike, naming FILE.
every_command() {
    fails "$1 (info)" "$2" "$3" "$tf" info "${4:-$2}"
    fails "$1 (--check)" "$2" "$3" "$tf" paraver --check "${4:-$2}"
    fails "$1 (--import)" "$2" "$3" "$tf" paraver --import "${4:-$2}" -o "$work/out.h5"
}

# The good trace passes, compressed too, and so do two gzip members one
# after the other (RFC 1952: a gzip file is a series of members).
"$tf" paraver --check "$work/good.prv" > /dev/null || check "good.prv fails --check"
sidecars good.prv   # for good.prv.gz: the same stem
"$tf" paraver --check "$work/good.prv.gz" > /dev/null || check "good.prv.gz fails --check"
{ echo "$hdr"; records 40000 | head -n 20000; } | gzip -n -c > "$work/members.prv.gz"
records 40000 | tail -n 20000 | gzip -n -c >> "$work/members.prv.gz"
sidecars members
"$tf" paraver --check "$work/members.prv.gz" > "$work/ok.txt" || check "two gzip members fail --check"
grep -q ': ok: 40000 records' "$work/ok.txt" || check "two gzip members: not 40000 records: $(cat "$work/ok.txt")"

# A .prv.gz cut short: in the middle, and by its 8-byte trailer alone (all
# records there, but not gzip's CRC-32 and length).
gz_size=$(bytes "$work/good.prv.gz")
head -c $((gz_size / 2)) "$work/good.prv.gz" > "$work/half.prv.gz"
sidecars half
every_command "gzip cut in half" "$work/half.prv.gz" "line [0-9]+: the gzip stream is cut short"
head -c $((gz_size - 8)) "$work/good.prv.gz" > "$work/trailer.prv.gz"
sidecars trailer
every_command "gzip without its trailer" "$work/trailer.prv.gz" "line [0-9]+: the gzip stream is cut short"

# Its CRC-32, then its length, overwritten with zeros (RFC 1952 2.3.1).
cp "$work/good.prv.gz" "$work/crc.prv.gz"
printf '\000\000\000\000' | dd of="$work/crc.prv.gz" bs=1 seek=$((gz_size - 8)) conv=notrunc 2> /dev/null
sidecars crc
every_command "gzip with a wrong CRC" "$work/crc.prv.gz" "line [0-9]+: damaged gzip data .*incorrect data check"
cp "$work/good.prv.gz" "$work/isize.prv.gz"
printf '\000\000\000\000' | dd of="$work/isize.prv.gz" bs=1 seek=$((gz_size - 4)) conv=notrunc 2> /dev/null
sidecars isize
every_command "gzip with a wrong length" "$work/isize.prv.gz" "line [0-9]+: damaged gzip data .*incorrect length check"

# Garbage after the gzip stream.
{ cat "$work/good.prv.gz"; printf 'trailing garbage\n'; } > "$work/garbage.prv.gz"
sidecars garbage
every_command "garbage after gzip" "$work/garbage.prv.gz" "line [0-9]+: 17 bytes of garbage after the end of the gzip stream"

# A .prv cut inside its last number; lenient import skips that line.
prv_size=$(bytes "$work/good.prv")
head -c $((prv_size - 3)) "$work/good.prv" > "$work/cut.prv"
sidecars cut
every_command "prv cut in its last line" "$work/cut.prv" "line 40001: the file ends inside this line, without its newline"
"$tf" paraver -q --import --lenient "$work/cut.prv" -o "$work/cut.h5" 2> "$work/err.txt" ||
    check "lenient import of the cut .prv: exit $?"
grep -q "cut.prv: skipped 1 bad record (first: line 40001: the file ends inside this line" "$work/err.txt" ||
    { check "lenient import does not count the cut line:"; cat "$work/err.txt"; }

# Header counts of 2^31: refused before anything is allocated for them (the
# CPUs allocate nothing: every command then finds the .row of 2 CPUs).
count_case() {
    printf '%s\n2:1:1:1:1:5:60000019:1\n' "$2" > "$work/$1.prv"
    sidecars "$1"
}
count_case cpus '#Paraver (d):1000_ns:1(2147483648):1:2(1:1,1:1),0'
every_command "2^31 CPUs" "$work/cpus.row" "line 1: level CPU has 2 names, the .prv header 2147483648" \
    "$work/cpus.prv"
# A .row of another trace: its THREAD level (line 8) names 3 threads, not 2.
{ echo "$hdr"; records 10; } > "$work/other.prv"
sidecars other
printf 'THREAD 1.3.1\n' >> "$work/other.row"
sed -i 's/LEVEL THREAD SIZE 2/LEVEL THREAD SIZE 3/' "$work/other.row"
every_command ".row of 3 threads" "$work/other.row" "line 8: level THREAD has 3 names, the .prv header 2" \
    "$work/other.prv"
count_case nodes '#Paraver (d):1000_ns:2147483648(1,1):1:2(1:1,1:1),0'
every_command "2^31 nodes" "$work/nodes.prv" "line 1: bad Paraver header: expected 2147483648 CPU counts"
count_case appls '#Paraver (d):1000_ns:1(2):2147483648:2(1:1,1:1),0'
every_command "2^31 applications" "$work/appls.prv" "line 1: bad Paraver header: expected 2147483648 applications"
count_case tasks '#Paraver (d):1000_ns:1(2):1:2147483648(1:1,1:1),0'
every_command "2^31 tasks" "$work/tasks.prv" "line 1: bad Paraver header: expected 2147483648 tasks"
count_case threads '#Paraver (d):1000_ns:1(2):1:2(2147483648:1,1:1),0'
every_command "2^31 threads" "$work/threads.prv" "line 1: the header declares 2147483649 threads, more than a file of"
count_case comms '#Paraver (d):1000_ns:1(2):1:2(1:1,1:1),2147483648'
every_command "2^31 communicators" "$work/comms.prv" "line 2: expected communicator line 1 of 2147483648"

# As many threads as the file's size allows (256 + one per 16 bytes), two
# records each on the first: the threads without records cost the
# conversion no open dataset, and the memory stays within the bound (it
# took 131 MB, 26 KB a thread, when every thread's tables were created
# and held from the start).
awk 'BEGIN { n = 4000
    printf "#Paraver (d):99999999_ns:1(%d):1:1(%d:1),0\n", n, n
    for (i = 1; i <= 2 * n; i++) printf "2:1:1:1:1:%d:60000019:%d\n", i * 10, i % 2 }' \
    > "$work/threads4000.prv"
if [ -n "$timer" ]; then
    $timer -o "$work/usage" -f '%e %M' "$tf" paraver -q --import "$work/threads4000.prv" \
        -o "$work/out.h5" 2> "$work/err.txt" || check "4000 threads: exit $?: $(cat "$work/err.txt")"
    kb=$(tail -n 1 "$work/usage" | cut -d' ' -f2)
    most=$((base_kb + 2 * $(bytes "$work/threads4000.prv") / 1024 + 65536))
    [ "${TF_SANITIZERS:-}" = yes ] || [ "$kb" -le "$most" ] ||
        check "4000 threads: $kb KB resident, more than $most KB"
    rm -f "$work/out.h5"
fi

# Records after the header's end time.
printf '%s\n2:1:1:1:1:5:60000019:1\n2:1:1:1:1:2000:60000019:0\n' \
    '#Paraver (d):1000_ns:1(2):1:2(1:1,1:1),0' > "$work/late.prv"
sidecars late
every_command "record after the end time" "$work/late.prv" "line 3: event record: time 2000 after the end time 1000"

# Not a file; no newline within the longest line read.
ln -s /dev/zero "$work/zero.prv"
sidecars zero
every_command "link to /dev/zero" "$work/zero.prv" "not a regular file \(a device\)"
if mkfifo "$work/fifo.prv" 2> /dev/null; then
    sidecars fifo
    fails "a pipe (info)" "$work/fifo.prv" "not a regular file \(a pipe\)" "$tf" info "$work/fifo.prv"
fi
head -c $((17 * 1024 * 1024)) /dev/zero > "$work/nul.prv"
sidecars nul
fails "17 MiB without a newline" "$work/nul.prv" "line 1: no end of line within 16 MiB" \
    "$tf" info "$work/nul.prv"
rm -f "$work/nul.prv"

# A .pcf of binary garbage, of text garbage, empty, a link to /dev/zero.
printf '%s\n' "$hdr" '2:1:1:1:1:5:60000019:1' '2:1:1:1:1:6:60000019:0' > "$work/labels.prv"
cp "$work/good.row" "$work/labels.row"
printf 'q\373\021\000\237garbage\n' > "$work/labels.pcf"
fails "binary .pcf" "$work/labels.pcf" "line 1: byte 0x11 at column 3: a .pcf is text" \
    "$tf" info "$work/labels.prv"
printf 'Lorem ipsum dolor\nsit amet\n' > "$work/labels.pcf"
fails "text .pcf" "$work/labels.pcf" "line 1: expected a section name" "$tf" info "$work/labels.prv"
: > "$work/labels.pcf"
fails "empty .pcf" "$work/labels.pcf" "empty: not a .pcf file" "$tf" info "$work/labels.prv"
rm -f "$work/labels.pcf"
ln -s /dev/zero "$work/labels.pcf"
fails "a .pcf linked to /dev/zero" "$work/labels.pcf" "not a regular file" "$tf" info "$work/labels.prv"
rm -f "$work/labels.pcf"

# No .pcf: one warning that names are numbers, and the trace is read.
"$tf" info "$work/labels.prv" > "$work/info.txt" 2> "$work/err.txt" || check "no .pcf: info exit $?"
[ "$(cat "$work/err.txt")" = "tracefold info: warning: $work/labels.prv: no .pcf beside it: regions and routines are named by number" ] ||
    { check "no .pcf: not the one warning:"; cat "$work/err.txt"; }
# info names the user's file, and so do fold's messages about the trace.
grep -Fxq "trace:       $work/labels.prv" "$work/info.txt" ||
    check "info does not name the .prv: $(grep '^trace:' "$work/info.txt")"
cp "$work/good.pcf" "$work/labels.pcf"
fails "fold of an unknown region" "$work/labels.prv" "no region 'nope'" \
    "$tf" fold -q "$work/labels.prv" --region nope -o "$work/fold"

exit $fail
