#!/bin/sh
# A sampling period too coarse for the iterations is said, with the period
# to use: at the end of `record` and in `fold`'s notes and summary.md.
# Iterations of about 0.2 ms at the default 5 ms leave nearly every
# instance without a sample; iterations of several ms at 500 us do not,
# and get no such line.
tf=${TRACEFOLD:?run by make check}
app=${top_builddir:?run by make check}/tests/analysis/two_allocs_app
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-period-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# check_period LINE: the advised --period is at most half the printed
# length of an instance (CPU time, as the period counts, where the trace
# has task-clock) and more than a twentieth of it (1, 2 or 5 times a
# power of ten below half).
check_period() {
    echo "$1" | awk '{
        if (!match($0, /\(([0-9.]+) (us|ms)( of CPU)? each\)/)) exit 1
        split(substr($0, RSTART + 1, RLENGTH - 2), d, " ")
        len = d[1] * (d[2] == "ms" ? 1000 : 1)
        if (!match($0, /--period [0-9]+(us|ms|s) /)) exit 1
        p = substr($0, RSTART + 9, RLENGTH - 10)
        v = p + 0; u = p; sub(/^[0-9]+/, "", u)
        v *= u == "s" ? 1e6 : u == "ms" ? 1000 : 1
        m = v; while (m >= 10) m /= 10
        exit !(v <= len / 2 * 1.06 && v > len / 20 && (m == 1 || m == 2 || m == 5))
    }' || fail "advised period not about half an instance: $1"
}

"$tf" record -o "$tmp/short.h5" -- "$app" 300 100000 >/dev/null 2>"$tmp/record.err" ||
    fail "recording exit status $?"
cat "$tmp/record.err"
line=$(grep "instances of region 'iteration'" "$tmp/record.err") ||
    fail "record: no line about the coarse period"
echo "$line" | grep -q "hold no sample: the sampling period is too coarse" ||
    fail "record: the line does not say the period is too coarse"
check_period "$line"
# task-clock is counted everywhere: the length is the instances' CPU time
echo "$line" | grep -q " of CPU each)" || fail "record: the length is not CPU time"
"$tf" record -q -o "$tmp/quiet.h5" -- "$app" 300 100000 >/dev/null 2>"$tmp/quiet.err" ||
    fail "quiet recording exit status $?"
[ -s "$tmp/quiet.err" ] && fail "record -q said: $(cat "$tmp/quiet.err")"

"$tf" fold -o "$tmp/short" "$tmp/short.h5" 2>"$tmp/fold.err" || fail "fold exit status $?"
grep -q "group 0: [0-9]* of its [0-9]* instances hold no sample" "$tmp/fold.err" ||
    fail "fold: no count of the instances without samples: $(cat "$tmp/fold.err")"
line=$(grep "group 0: the sampling period is too coarse" "$tmp/fold.err") ||
    fail "fold: no note about the coarse period: $(cat "$tmp/fold.err")"
check_period "$line"
grep -q "^\*\*Sampling too coarse.\*\* [0-9]* of the [0-9]* instances hold no sample: .*record with --period" "$tmp/short/summary.md" ||
    fail "summary.md: no line about the coarse period"

# Long iterations at a fine period: every instance sampled, nothing said.
"$tf" record -o "$tmp/long.h5" --period 500us -- "$app" 20 2000000 >/dev/null \
    2>"$tmp/long.err" || fail "long recording exit status $?"
grep -q "too coarse" "$tmp/long.err" && fail "record: a fine period called coarse"
"$tf" fold -o "$tmp/long" "$tmp/long.h5" 2>"$tmp/long-fold.err" || fail "fold exit status $?"
grep -q "too coarse" "$tmp/long-fold.err" "$tmp/long/summary.md" &&
    fail "fold: a fine period called coarse"
exit 0
