#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The small-block log's limits (docs/recorder.md, "Data objects"): a burst
# of 300 000 small allocations from one call site, faster than the writer
# takes them from the thread's ring: every block kept (the thread waits
# for the writer); the same burst with the writer stopped meanwhile (a
# starved or hung writer): the program runs on after a bounded wait and
# the blocks refused are counted; and a cap (--small-blocks) below the
# blocks allocated.  Each time: the program runs to its end, the trace is
# complete, `tracefold record` says once how many blocks were not
# attributed and why (nothing when none), the trace keeps the counts
# (tracefold info, text and JSON, says the same numbers), and the blocks
# kept plus those counted account for every block of the burst.
. "$top_srcdir/tests/record/lib.sh"
n=300000
app=$apps/small_burst_app

# json_field FILE NAME: the value of the process's field NAME.
json_field() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n1; }

# run NAME APP-MODE RECORD-ARGS...: records the burst (the app's second
# argument APP-MODE: "go", or "stop" to stop the writer during it) into
# $tmp/NAME.h5 and checks it.
run() {
    name=$1 mode=$2
    shift 2
    out=$("$tf" record -o "$tmp/$name.h5" --mem-sampler none "$@" -- "$app" $n $mode 2>"$tmp/$name.err") ||
        fail "$name: recording exited $?: $(cat "$tmp/$name.err")"
    [ "$out" = $n ] || fail "$name: the program printed '$out', expected $n"
    "$tf" info --json "$tmp/$name.h5" >"$tmp/$name.json" || fail "$name: info --json exited $?"
    grep -q '"complete": true' "$tmp/$name.json" || fail "$name: trace not complete"
    past=$(json_field "$tmp/$name.json" small_blocks_past_cap)
    ring=$(json_field "$tmp/$name.json" small_blocks_ring_full)
    lost=$((past + ring))
    said=$(grep -c "blocks below heap-threshold not attributed" "$tmp/$name.err")
    if [ $lost -eq 0 ]; then
        [ "$said" = 0 ] || fail "$name: none lost, yet said: $(cat "$tmp/$name.err")"
    else
        [ "$said" = 1 ] || fail "$name: said $said times, expected once: $(cat "$tmp/$name.err")"
        grep -q "process [0-9]*: $lost blocks below heap-threshold not attributed: $past past the small-block log's [0-9]* (option small-blocks), $ring allocated faster" "$tmp/$name.err" ||
            fail "$name: the trace keeps $past past the cap and $ring refused, record said: $(cat "$tmp/$name.err")"
    fi
    kept=$(grep -c '"kind": "small", .*"label": "small_burst_app.c:' "$tmp/$name.json")
    [ "$kept" -le $n ] || fail "$name: $kept blocks kept from the burst's $n"
    [ $((kept + lost)) -ge $n ] ||
        fail "$name: $kept blocks kept and $lost counted, fewer than the $n allocated"
    "$tf" info "$tmp/$name.h5" >"$tmp/$name.txt" || fail "$name: info exited $?"
    [ $lost -eq 0 ] ||
        grep -q "small blocks not attributed by the recorder: $lost ($past past the small-block log's" "$tmp/$name.txt" ||
        fail "$name: info (text) does not say the $lost blocks: $(grep small "$tmp/$name.txt")"
    echo "$name: $kept kept, $past past the cap, $ring refused by a full ring"
}

# A burst far faster than the writer: the thread waits for it, every
# block kept (60 % were refused before it waited).
run burst go
[ "$lost" -eq 0 ] || fail "burst: $ring blocks refused by a full ring, $past past the cap, with the writer running"
[ "$kept" -eq $n ] || fail "burst: $kept blocks kept of $n"
# The writer stopped during the burst: a bounded wait, then the ring
# refuses blocks, counted.
run stalled stop
[ "$ring" -gt 0 ] || fail "stalled: no block refused by a full ring with the writer stopped"
# A cap below the burst: blocks past it are counted.
run cap go --small-blocks 1000
[ "$past" -gt 0 ] || fail "cap: no block counted past a cap of 1000"
grep -q '"small_blocks_cap": 1000' "$tmp/cap.json" || fail "cap: the trace does not keep the cap 1000"
[ "$kept" -le 1000 ] || fail "cap: $kept blocks kept past a cap of 1000"
# Quiet means quiet (issue 34): with -q nothing is said, the counts are
# still in the trace.
"$tf" record -q -o "$tmp/quiet.h5" --small-blocks 1000 --mem-sampler none -- "$app" $n go \
    >/dev/null 2>"$tmp/quiet.err" || fail "quiet: recording exited $?"
[ -s "$tmp/quiet.err" ] && fail "quiet: record -q said: $(cat "$tmp/quiet.err")"
[ "$(json_field "$("$tf" info --json "$tmp/quiet.h5" >"$tmp/quiet.json" && echo "$tmp/quiet.json")" \
     small_blocks_past_cap)" -gt 0 ] || fail "quiet: the trace does not count the blocks past the cap"
exit 0
