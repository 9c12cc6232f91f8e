#!/bin/sh
# Memory samples and data objects: stream_app under `tracefold record` with
# the software back end (this machine has neither PEBS nor IBS): samples of
# each loop in the right object, direction and order; static, heap (call
# sites), realloc, reused, mmap, user and stack objects (check_trace
# memory); `tracefold info` lists them.  The options: no memory sampling and
# no heap objects; the hardware back end's path on a fixture PMU; a hardware
# back end asked for where there is none.
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: AddressSanitizer's allocator quarantines freed blocks, so the reuse scenario cannot happen (normal build checks this)"
    exit 77
fi
. "$top_srcdir/tests/record/lib.sh"
# Every 250 us, so that passes hold two samples (check_trace wants 10 such
# pairs a loop): at 500 us the write loop, whose pass takes about as long,
# got 0 to 161 over 12 runs; at 250 us 162 to 256 over 6.
"$tf" record -q -o "$tmp/m.h5" --period 250us --mem-sampler software -- "$apps/stream_app" ||
    fail "record exit status $?"
"$check" memory "$tmp/m.h5" || fail "stream_app trace"
"$tf" info "$tmp/m.h5" > "$tmp/info.txt" || fail "tracefold info exit status $?"
grep -q "static_array" "$tmp/info.txt" || "$tf" info --json "$tmp/m.h5" | grep -q static_array ||
    fail "tracefold info lists no static_array"
grep -Eq "^  load +[1-9]" "$tmp/info.txt" || fail "tracefold info shows no load samples"
grep -Eq "^  store +[1-9]" "$tmp/info.txt" || fail "tracefold info shows no store samples"

TRACEFOLD_MEM_SAMPLER=none TRACEFOLD_HEAP_THRESHOLD=0 "$tf" record -q -o "$tmp/off.h5" \
    --period 1ms -- "$apps/stream_app" || fail "record (off) exit status $?"
"$tf" info --json "$tmp/off.h5" > "$tmp/off.json" || fail "tracefold info (off)"
grep -q '"load": 0, "store": 0, "rmw": 0' "$tmp/off.json" ||
    fail "memory samples with --mem-sampler none"
grep -Eq '"kind": "(heap|mmap)"' "$tmp/off.json" && fail "heap objects with heap-threshold 0"

# The hardware path (per-thread events, one shared ring drained by the
# handler, kinds by event id, call chains, times) on events the kernel can
# open anywhere: a fixture PMU description whose "cpu" is the software PMU
# (type 1), mem-loads and mem-stores both its CPU clock (config 0).
fx=$tmp/sysfs/cpu
mkdir -p "$fx/events" "$fx/format"
echo 1 > "$fx/type"
echo "config:0-7" > "$fx/format/event"
echo "config1:0-15" > "$fx/format/ldlat"
echo "event=0x00,ldlat=3" > "$fx/events/mem-loads"
echo "event=0x00" > "$fx/events/mem-stores"
"$tf" record -q -o "$tmp/hw.h5" --period 1ms --mem-sampler pebs --pmu-sysfs "$tmp/sysfs" \
    --mem-period 200000 -- "$apps/stream_app" 2> "$tmp/hw.err" || fail "record (fixture PMU)"
grep -q "memory sampling with pebs unavailable" "$tmp/hw.err" && fail "fixture PMU refused: $(cat "$tmp/hw.err")"
"$check" hwmem "$tmp/hw.h5" || fail "samples through the hardware path"

if ! [ -e /sys/bus/event_source/devices/cpu/events/mem-loads ]; then
    "$tf" record -q -o "$tmp/pebs.h5" --period 1ms --mem-sampler pebs -- "$apps/stream_app" \
        2> "$tmp/pebs.err" || fail "record (pebs) exit status $?"
    grep -q "memory sampling with pebs unavailable" "$tmp/pebs.err" ||
        fail "no message for an unavailable PEBS: $(cat "$tmp/pebs.err")"
fi
exit 0
