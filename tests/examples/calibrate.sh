#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# tracefold calibrate against what the kernel says about the caches
# (/sys/devices/system/cpu/cpu0/cache), in quick mode up to 16 MiB:
#  - the level-1 data cache size within one grid step (x1.25) of sysfs,
#  - the line size exactly coherency_line_size,
#  both re-measured alone (up to 1 MiB) when a neighbour disturbed them;
#  - L2 and L3 are measured and compared, but not asserted: on a virtual
#    machine they are shared with other tenants, whose data takes part of
#    them, and the measured sizes come out far below sysfs (this machine:
#    about 1.3 MiB of a 2 MiB L2; memory latency from about 8 MiB of a
#    "260 MiB" L3).  docs/commands/calibrate.md, "Limits", says more.
# Then the figure is redrawn from the profile (--from), and bad input is
# refused before any measuring: one message naming the file, exit 1 (exit 2
# for a wrong command line), nothing written.
set -u
tf=${TRACEFOLD:?}
sys=/sys/devices/system/cpu/cpu0/cache
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-calibrate.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# sysfs_cache LEVEL TYPE FIELD: the field of cpu0's cache of that level and
# type ("Data", "Unified"), empty when there is none.
sysfs_cache() {
    for d in "$sys"/index*; do
        [ "$(cat "$d/level" 2>/dev/null)" = "$1" ] || continue
        [ "$(cat "$d/type" 2>/dev/null)" = "$2" ] || continue
        cat "$d/$3" 2>/dev/null
        return
    done
}

# bytes "48K" -> 49152 (sysfs sizes: a number with K or M).
to_bytes() {
    case $1 in
    *K) echo $(( ${1%K} * 1024 )) ;;
    *M) echo $(( ${1%M} * 1048576 )) ;;
    *) echo "$1" ;;
    esac
}

# within_step MEASURED EXPECTED: true when measured is within one x1.25 step.
within_step() {
    awk -v m="$1" -v e="$2" 'BEGIN { exit !(m >= e / 1.25 && m <= e * 1.25) }'
}

l1=$(sysfs_cache 1 Data size)
line=$(sysfs_cache 1 Data coherency_line_size)
if [ -z "$l1" ] || [ -z "$line" ]; then
    echo "SKIP: $sys has no level-1 data cache size or line size"
    exit 77
fi

# measured LEVEL: size in bytes of level LEVEL from the printed table.
measured() {
    awk -v lv="L$1" '$1 == lv {
        m = $3 == "MiB" ? 1048576 : $3 == "KiB" ? 1024 : 1; printf "%.0f\n", $2 * m }' "$dir/table"
}

# A neighbour on the same physical core (a host hyperthread, invisible from
# inside the VM) can take half the L1 for seconds; calibrate sweeps its
# capacity curve several times against that, and here a run whose L1 is off
# is repeated up to twice more.  Every attempt is printed.
# The other CPU of this machine may be the same physical core's second
# hyperthread: another test running there (make check -j) shares the L1.
# Each attempt waits (up to 3 minutes in all) until nothing else is
# runnable; a machine that never gets quiet is a skip, not a result.
quiet() {
    waited=0
    while [ "$(awk '/^procs_running/ { print $2 }' /proc/stat)" -gt 1 ]; do
        [ $waited -ge 180 ] && return 1
        sleep 2
        waited=$((waited + 2))
    done
}
ok=0
for attempt in 1 2 3; do
    if ! quiet; then
        echo "SKIP: other processes kept running for 3 minutes: the L1 cannot be measured alone"
        exit 77
    fi
    rm -f "$dir/m.h5" "$dir/m.pdf"
    if ! "$tf" calibrate --quick --max-size 16M -o "$dir/m.h5" >"$dir/table" 2>"$dir/err"; then
        bad "calibrate failed: $(cat "$dir/err")"
        break
    fi
    echo "attempt $attempt:"
    cat "$dir/table"
    m1=$(measured 1)
    if [ -n "$m1" ] && within_step "$m1" "$(to_bytes "$l1")"; then
        ok=1
        break
    fi
    echo "L1D measured ${m1:-none} bytes, sysfs $l1: not within one step"
done
ml=$(awk '/^line size:/ { print $3 }' "$dir/table")
cp "$dir/table" "$dir/table.full"
# A neighbour on the sibling hyperthread only takes L1 away and adds time,
# so a smaller measurement is the neighbour, not the cache: re-measure the
# first level and the line alone (--max-size 1M, a quarter of a second) up
# to ten more times, each after waiting for a quiet machine, and keep the
# best.  Seen on the AMD VM: the L1 measured 7.8 to 30 KiB of its 32 KiB
# from one run to the next.
fast=0
while { [ $ok -eq 0 ] || [ "$ml" != "$line" ]; } && [ $fast -lt 10 ]; do
    fast=$((fast + 1))
    quiet || break
    "$tf" calibrate --quick --max-size 1M -o "$dir/l1.h5" --force >"$dir/table" 2>"$dir/err" || break
    rm -f "$dir/l1.h5" "$dir/l1.pdf"
    m=$(measured 1)
    echo "L1 and line again ($fast): L1 ${m:-none} bytes, line $(awk '/^line size:/ { print $3 }' "$dir/table")"
    if [ $ok -eq 0 ] && [ -n "$m" ] && within_step "$m" "$(to_bytes "$l1")"; then ok=1 m1=$m; fi
    [ "$ml" = "$line" ] || ml=$(awk '/^line size:/ { print $3 }' "$dir/table")
done
cp "$dir/table.full" "$dir/table"
[ $ok -eq 1 ] || bad "L1D never within one x1.25 step of sysfs ($l1)"
echo "L1D: measured ${m1:-none} bytes, sysfs $l1"
[ "$ml" = "$line" ] || bad "line size measured ${ml:-none}, sysfs $line"
echo "line: measured $ml bytes, sysfs $line"
for lv in 2 3; do
    s=$(sysfs_cache $lv Unified size)
    [ -n "$s" ] || continue
    m=$(measured $lv)
    if [ -n "$m" ] && within_step "$m" "$(to_bytes "$s")"; then verdict="within one step"
    else verdict="not within one step (not asserted: shared with other tenants)"; fi
    echo "L$lv: measured ${m:-none} bytes, sysfs $s: $verdict"
done
[ -s "$dir/m.pdf" ] || bad "no figure beside the profile (m.pdf)"
head -c 4 "$dir/m.pdf" | grep -q '%PDF' || bad "m.pdf is not a PDF"

# Redrawing from the profile, in each format.
for ext in png svg pdf; do
    "$tf" calibrate --from "$dir/m.h5" --figure "$dir/again.$ext" -q ||
        bad "--from: no $ext figure"
    [ -s "$dir/again.$ext" ] || bad "--from: again.$ext empty or missing"
done
head -c 8 "$dir/again.png" | od -c | grep -q 'P   N   G' || bad "again.png is not a PNG"
grep -q '<svg' "$dir/again.svg" || bad "again.svg is not SVG"
"$tf" calibrate --from "$dir/m.h5" -q 2>"$dir/err" && bad "--from overwrote m.pdf without --force"

# expect_fail CODE NAME FILE ARGS...: calibrate exits CODE, names FILE in one
# line on stderr (when FILE is not empty), and leaves no new file in $dir.
expect_fail() {
    code=$1 name=$2 file=$3
    shift 3
    before=$(ls "$dir" | sort)
    "$tf" calibrate "$@" >"$dir/../tf-cal-out.$$" 2>"$dir/../tf-cal-err.$$"
    rc=$?
    err=$(cat "$dir/../tf-cal-err.$$")
    rm -f "$dir/../tf-cal-out.$$" "$dir/../tf-cal-err.$$"
    [ $rc -eq "$code" ] || bad "$name: exit $rc, expected $code ($err)"
    [ -z "$file" ] || echo "$err" | grep -qF "$file" || bad "$name: message does not name $file: $err"
    [ "$(ls "$dir" | sort)" = "$before" ] || bad "$name: left files behind"
    echo "$name: $err" | head -1
}

cp "$dir/m.h5" "$dir/keep.h5"
expect_fail 1 "existing profile" "$dir/m.h5" --quick --max-size 1M -o "$dir/m.h5" --figure "$dir/new.pdf"
cmp -s "$dir/m.h5" "$dir/keep.h5" || bad "existing profile: changed without --force"
rm -f "$dir/keep.h5"
expect_fail 1 "unwritable output" "$dir/none/m.h5" --quick --max-size 1M -o "$dir/none/m.h5"
expect_fail 1 "unwritable figure" "$dir/none/f.png" --quick --max-size 1M -o "$dir/n.h5" \
    --figure "$dir/none/f.png"
for size in abc 0 512K 1X -5M; do
    expect_fail 2 "--max-size $size" "" --quick --max-size "$size" -o "$dir/n.h5"
done
expect_fail 2 "figure format" "" --from "$dir/m.h5" --figure "$dir/f.jpg"
expect_fail 2 "--from and --output" "" --from "$dir/m.h5" -o "$dir/n.h5"
expect_fail 2 "--from and --quick" "" --from "$dir/m.h5" --quick --figure "$dir/f.png"
expect_fail 1 "missing profile" "$dir/missing.h5" --from "$dir/missing.h5" --figure "$dir/f.png"
printf 'not a profile\n' >"$dir/text.h5"
expect_fail 1 "text as profile" "$dir/text.h5" --from "$dir/text.h5" --figure "$dir/f.png"
size=$(wc -c <"$dir/m.h5")
head -c $((size / 2)) "$dir/m.h5" >"$dir/half.h5"
expect_fail 1 "truncated profile" "$dir/half.h5" --from "$dir/half.h5" --figure "$dir/f.png"
"$tf" synth -o "$dir/trace.h5" --iterations 5 --quiet || bad "synth"
expect_fail 1 "trace as profile" "$dir/trace.h5" --from "$dir/trace.h5" --figure "$dir/f.png"
exit $fail
