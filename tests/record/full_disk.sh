#!/bin/sh
# The output running out of room mid-run -- the file size limit, then a
# full file system (a small tmpfs) -- and an output directory on a
# read-only file system: the program runs on untraced with its own output
# and exit status; one message names the trace and the cause; a trace cut
# short opens (`tracefold info`: not complete) with the samples written
# before, and the disk space the writer kept to close it is given back.
# The file-system parts mount tmpfs: skipped (77) where that is not
# permitted, after the file-size-limit part has run.
. "$top_srcdir/tests/record/lib.sh"
mnt=$tmp/full
ro=$tmp/ro
trap 'umount "$mnt" 2>/dev/null; umount "$ro" 2>/dev/null; rm -rf "$tmp"' EXIT
# The writer keeps 1 MiB in reserve with buffers of 256 KiB (its minimum).
reserve_kib=1024

# record TRACE: plain_app for 2 s of CPU at 100 us, exit status 7, recorded
# into TRACE; its output in $tmp/out, the recorder's messages in $tmp/err.
record() {
    set +e
    "$tf" record -o "$1" --period 100us --buffer-size 256K -- "$apps/plain_app" 2000 7 \
        >"$tmp/out" 2>"$tmp/err"
    status=$?
    set -e
    [ "$status" -eq 7 ] || fail "$1: exit status $status, the program's is 7: $(cat "$tmp/err")"
    [ "$(cat "$tmp/out")" = "plain_app done" ] || fail "$1: program output changed"
}

# cut_short TRACE CAUSE: one message naming TRACE and CAUSE, and a
# readable, incomplete trace holding samples, with no reserve left on disk.
cut_short() {
    n=$(grep -c 'runs on untraced' "$tmp/err" || true)
    [ "$n" -eq 1 ] || fail "$2: $n messages instead of one: $(cat "$tmp/err")"
    grep -q "^tracefold record: $1: $2.*; process [0-9]* runs on untraced; the trace written so far is kept, marked incomplete\$" \
        "$tmp/err" || fail "$2: unexpected message: $(cat "$tmp/err")"
    "$tf" info "$1" >"$tmp/info" || fail "$2: tracefold info cannot read the trace"
    grep -q '^complete: *no' "$tmp/info" || fail "$2: the trace is not marked incomplete"
    [ "$(field samples "$1")" -ge 500 ] || fail "$2: too few samples kept"
    size_kib=$(( $(stat -c %s "$1") / 1024 ))
    used_kib=$(du -k "$1" | cut -f1)
    [ "$used_kib" -le $((size_kib + 64)) ] ||
        fail "$2: the reserve was not given back ($used_kib KiB on disk for $size_kib KiB)"
}

# 1. File size limit (prlimit takes bytes; ulimit's units differ between
#    shells): room for the reserve and about 50 KiB of trace.
if command -v prlimit >/dev/null; then
    limit=$(( (reserve_kib + 50) * 1024 ))
    set +e
    prlimit --fsize="$limit" "$tf" record -o "$tmp/limit.h5" --period 100us --buffer-size 256K \
        -- "$apps/plain_app" 2000 7 >"$tmp/out" 2>"$tmp/err"
    status=$?
    set -e
    [ "$status" -eq 7 ] || fail "file size limit: exit status $status: $(cat "$tmp/err")"
    [ "$(cat "$tmp/out")" = "plain_app done" ] || fail "file size limit: program output changed"
    cut_short "$tmp/limit.h5" "the file size limit"
else
    echo "# prlimit not installed: file size limit not tested"
fi

mkdir "$mnt" "$ro"
if ! mount -t tmpfs -o size=4m tmpfs "$mnt" 2>"$tmp/mount.err"; then
    echo "SKIP: cannot mount a tmpfs to fill ($(cat "$tmp/mount.err"))"
    exit 77
fi

# 2. A full file system: fill the tmpfs up to the reserve and about 50 KiB.
avail=$(df -k --output=avail "$mnt" | tail -n 1)
head -c $(( (avail - reserve_kib - 50) * 1024 )) /dev/zero >"$mnt/filler"
record "$mnt/t.h5"
cut_short "$mnt/t.h5" "the file system is full"

# 3. Full from the start: no room for the reserve.  The program runs on,
#    the trace holds nothing but still opens.
rm -f "$mnt/t.h5"
avail=$(df -k --output=avail "$mnt" | tail -n 1)
head -c $(( (avail - 100) * 1024 )) /dev/zero >"$mnt/filler2"
record "$mnt/t.h5"
grep -q "^tracefold record: $mnt/t.h5: the file system is full" "$tmp/err" ||
    fail "full from the start: no message: $(cat "$tmp/err")"
"$tf" info "$mnt/t.h5" >"$tmp/info" || fail "full from the start: the trace does not open"
grep -q '^complete: *no' "$tmp/info" || fail "full from the start: trace marked complete"

# 4. An output directory on a read-only file system.
mount -t tmpfs -o ro,size=64k tmpfs "$ro" || fail "cannot mount a read-only tmpfs"
record "$ro/t.h5"
[ "$(grep -c 'runs on untraced' "$tmp/err")" -eq 1 ] ||
    fail "read-only output: not one message: $(cat "$tmp/err")"
grep -q "^tracefold record: $ro/t.h5: .*[Rr]ead-only file system" "$tmp/err" ||
    fail "read-only output: the message does not name the file and the cause: $(cat "$tmp/err")"
[ ! -e "$ro/t.h5" ] || fail "read-only output: a file appeared"
exit 0
