#!/bin/sh
# The recorder's own code never shows as the program's: a program whose
# iteration is mostly calls of tracefold_counter_add (its timer samples in
# libtracefold) has them in the caller, count_items, at the line of the
# call; no phase or code line is in the recorder's sources (record/tf_*.c)
# or its tracefold_* functions.
tf=${TRACEFOLD:?run by make check}
app=${top_builddir:?run by make check}/tests/analysis/recorder_calls_app
src=${top_srcdir:?run by make check}/tests/analysis/recorder_calls_app.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-recframes-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
line=$(grep -n 'the-call' "$src" | cut -d: -f1)
"$tf" record -q -o "$tmp/t.h5" --counters task-clock --period 1ms -- "$app" 20 4000000 ||
    fail "recording exit status $?"
"$tf" fold -q -o "$tmp/fold" --region iteration "$tmp/t.h5" || fail "fold exit status $?"
phases=$tmp/fold/phases.csv
cat "$phases"
# columns: region,group,phase,x_begin,x_end,begin_ns,end_ns,routine,file,line,...
awk -F, 'NR > 1 && ($9 ~ /(^|\/)tf_[a-z_]*\.c$/ || $8 ~ /^tracefold_/ || $8 == "self") { bad = 1 }
         END { exit bad }' "$phases" || fail "a phase in the recorder's code"
grep -E 'tf_[a-z_]+\.c|tracefold_counter_add' "$tmp/fold/summary.md" &&
    fail "summary.md names the recorder's code"
awk -F, -v line="$line" 'NR > 1 && $8 == "count_items" && $10 == line { found = 1 }
         END { exit !found }' "$phases" ||
    fail "the calls are not given to count_items at line $line"
exit 0
