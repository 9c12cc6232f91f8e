#!/bin/sh
# Bounded memory: a program that emits region events far faster than the
# writer drains its smallest buffer (64 KiB) runs on at full speed; the
# records that did not fit are dropped and counted, and the trace says how
# many (the thread's dropped_events, in `tracefold info`): what was stored
# plus what was lost is exactly what the program emitted.
. "$top_srcdir/tests/record/lib.sh"
pairs=2000000
"$tf" record -q -o "$tmp/b.h5" --buffer-size 64K --sampler none -- "$apps/burst_app" $pairs \
    >"$tmp/out.txt" 2>"$tmp/err.txt" || fail "recording exited $?: $(cat "$tmp/err.txt")"
[ "$(cat "$tmp/out.txt")" = $pairs ] || fail "the program did not run to its end"
grep -q "records dropped" "$tmp/err.txt" || fail "no warning of dropped records: $(cat "$tmp/err.txt")"
"$tf" info "$tmp/b.h5" >"$tmp/info.txt" || fail "tracefold info exited $?"
grep -q "lost by the recorder, its buffer full" "$tmp/info.txt" ||
    fail "tracefold info does not say records were lost: $(grep 'thread 0' "$tmp/info.txt")"
"$tf" info --json "$tmp/b.h5" >"$tmp/info.json" || fail "tracefold info --json exited $?"
python3 - "$tmp/info.json" $pairs <<'PY' || fail "stored and lost records do not add up"
import json, sys
info = json.load(open(sys.argv[1]))
pairs = int(sys.argv[2])
t = info["processes"][0]["threads"][0]
stored, lost = t["events"], t["dropped_events"]
print(f"stored {stored}, lost {lost}, emitted {2 * pairs}")
sys.exit(0 if lost > 0 and stored > 0 and stored + lost == 2 * pairs else 1)
PY
exit 0
