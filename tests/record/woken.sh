#!/bin/sh
# The writer drains a ring when its producer wakes it (at every quarter of
# the ring written), not only at its tick: with a flush interval of 8 s its
# tick is 2 s, in which a program marking 1000 regions a second fills the
# events ring of a 1 MiB buffer (about 1400 slots) almost three times.
# Every record reaches the trace, none is dropped.
. "$top_srcdir/tests/record/lib.sh"
pairs=3000
"$tf" record -q -o "$tmp/w.h5" --buffer-size 1M --flush-interval 8s --sampler none -- \
    "$apps/burst_app" $pairs 1000 >"$tmp/out.txt" 2>"$tmp/err.txt" ||
    fail "recording exited $?: $(cat "$tmp/err.txt")"
[ "$(cat "$tmp/out.txt")" = $pairs ] || fail "the program did not run to its end"
! grep -q "records dropped" "$tmp/err.txt" || fail "records were dropped: $(cat "$tmp/err.txt")"
"$tf" info --json "$tmp/w.h5" >"$tmp/info.json" || fail "tracefold info --json exited $?"
python3 - "$tmp/info.json" $pairs <<'PY' || fail "the trace does not hold every record"
import json, sys
info = json.load(open(sys.argv[1]))
pairs = int(sys.argv[2])
t = info["processes"][0]["threads"][0]
print(f"stored {t['events']}, lost {t['dropped_events']}, emitted {2 * pairs}")
sys.exit(0 if t["events"] == 2 * pairs and t["dropped_events"] == 0 else 1)
PY
exit 0
