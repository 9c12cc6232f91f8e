#!/bin/sh
# The folders of an output pattern are created as `mkdir -p` would: the
# documented MPI command's -o run/%r.h5 (here in an srun step, rank 2 of
# 4) and the configuration example's traces/%e-%r.h5.  A trace that cannot
# be written is said at once and makes record exit 1 at the end (the
# program still runs when the name is known only then); a name, or the
# folders of one, known before the start are refused before the program
# runs.
. "$top_srcdir/tests/record/lib.sh"
cd "$tmp" || fail "cd $tmp"

SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=2 "$tf" record -q -o run/%r.h5 -- "$apps/plain_app" 30 \
    >/dev/null 2>"$tmp/err" || fail "-o run/%r.h5: exit status $?: $(cat "$tmp/err")"
"$tf" info run/2.h5 | grep -q '^process 0: .*, rank 2 of 4,' || fail "run/2.h5: not rank 2 of 4"

printf '<tracefold>\n  <output>traces/%%e-%%r.h5</output>\n</tracefold>\n' >"$tmp/c.xml"
"$tf" record -q -c "$tmp/c.xml" -- "$apps/plain_app" 30 >/dev/null 2>"$tmp/err" ||
    fail "traces/%e-%r.h5: exit status $?: $(cat "$tmp/err")"
"$check" summary traces/plain_app-0.h5 >/dev/null || fail "no trace traces/plain_app-0.h5"
"$tf" record -q -o "$tmp/deeper/still/t.h5" -- "$apps/plain_app" 30 >/dev/null 2>&1 ||
    fail "an absolute path's folders"
"$check" summary "$tmp/deeper/still/t.h5" >/dev/null || fail "no trace deeper/still/t.h5"

# A folder that cannot be made (a file stands in its way).
echo "a file" >"$tmp/file"
out=$("$tf" record -o "$tmp/file/sub/t.h5" -- "$apps/plain_app" 30 2>"$tmp/err")
rc=$?
[ $rc -eq 1 ] || fail "folder blocked, name known: exit status $rc, expected 1"
[ -z "$out" ] || fail "folder blocked, name known: the program ran"
grep -q "file/sub/t.h5: cannot create the folder $tmp/file: Not a directory" "$tmp/err" ||
    fail "folder blocked, name known: message: $(cat "$tmp/err")"
grep -q "not starting" "$tmp/err" || fail "folder blocked, name known: does not say it"

# The folders known, the file name not (%e): the same, before the start.
"$tf" record -o "$tmp/file/%e.h5" -- "$apps/plain_app" 30 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "folder blocked, folders known: exit status not 1"
[ -s "$tmp/out" ] && fail "folder blocked, folders known: the program ran"
grep -q "cannot create the folder $tmp/file: Not a directory" "$tmp/err" ||
    fail "folder blocked, folders known: message: $(cat "$tmp/err")"

# A folder named after the program (%e): known only when the trace is
# created; the program runs, one message, exit status 1.
out=$("$tf" record -o "$tmp/file/%e/t.h5" -- "$apps/plain_app" 30 2>"$tmp/err")
rc=$?
[ $rc -eq 1 ] || fail "folder blocked, %e: exit status $rc, expected 1: $(cat "$tmp/err")"
[ "$out" = "plain_app done" ] || fail "folder blocked, %e: the program did not run"
[ "$(grep -c 'runs on untraced' "$tmp/err")" -eq 1 ] ||
    fail "folder blocked, %e: not one message: $(cat "$tmp/err")"
grep -q "plain_app/t.h5: cannot create the folder" "$tmp/err" ||
    fail "folder blocked, %e: the message does not name the trace: $(cat "$tmp/err")"
grep -q "error: 1 trace could not be written" "$tmp/err" ||
    fail "folder blocked, %e: no closing error: $(cat "$tmp/err")"
exit 0
