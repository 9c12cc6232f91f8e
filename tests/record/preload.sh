#!/bin/sh
# An uninstrumented program, recorded by preloading only: samples with call
# stacks; the POSIX-timer back end; counter-overflow sampling and its
# fallback; the rank a launcher gives; an unwritable output directory is
# refused before the start; a file-size limit leaves the program running
# untraced with a clear message.
. "$top_srcdir/tests/record/lib.sh"
out=$("$tf" record -q -o "$tmp/p.h5" -- "$apps/plain_app" 300) || fail "record exit status $?"
[ "$out" = "plain_app done" ] || fail "program output changed: $out"
"$check" stack "$tmp/p.h5" plain_hot_loop || fail "samples do not reach plain_hot_loop"
[ "$(field samples "$tmp/p.h5")" -ge 20 ] || fail "too few samples at 5 ms over 300 ms"

"$tf" record -q -o "$tmp/posix.h5" --sampler posix --period 4ms -- "$apps/plain_app" 300 \
    >/dev/null || fail "record --sampler posix"
[ "$(field samples "$tmp/posix.h5")" -ge 10 ] || fail "posix sampler: too few samples"

# Counter-overflow sampling: on a counter this machine has (the task clock
# every 1e6 ns), and on cycles, which falls back to time-based sampling with
# one message where there is no PMU.
"$tf" record -q -o "$tmp/ovf.h5" --overflow task-clock --overflow-period 1000000 -- \
    "$apps/plain_app" 200 >/dev/null || fail "record --overflow task-clock"
[ "$(field samples "$tmp/ovf.h5")" -ge 20 ] || fail "overflow sampling: too few samples"
"$tf" record -q -o "$tmp/ovf2.h5" --overflow cycles -- "$apps/plain_app" 100 >/dev/null \
    2>"$tmp/err" || fail "record --overflow cycles"
if grep -q 'overflow sampling on cycles unavailable' "$tmp/err"; then
    [ "$(field samples "$tmp/ovf2.h5")" -ge 5 ] || fail "overflow fallback: too few samples"
fi

# An output folder that cannot be made (a file in its way): refused before
# the program starts (tests/record/output_folders.sh has the rest).
echo file >"$tmp/afile"
out=$("$tf" record -o "$tmp/afile/t.h5" -- "$apps/plain_app" 50 2>"$tmp/err")
[ $? -eq 1 ] || fail "unwritable output: exit status not 1"
[ -z "$out" ] || fail "unwritable output: the program ran"
grep -q "$tmp/afile/t.h5" "$tmp/err" || fail "unwritable output: no message naming the file"

# The rank from the launcher's variables (common/tf_launcher.c): an srun
# step's task, named by %r; a program a Slurm batch script runs is none.
SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=2 "$tf" record -q -o "$tmp/srun.%r.h5" -- \
    "$apps/plain_app" 50 >/dev/null 2>&1 || fail "record in an srun step"
"$tf" info "$tmp/srun.2.h5" | grep -q '^process 0: .*, rank 2 of 4,' ||
    fail "srun step: want rank 2 of 4: $("$tf" info "$tmp/srun.2.h5" | grep '^process')"
SLURM_PROCID=0 SLURM_NTASKS=64 "$tf" record -q -o "$tmp/batch.h5" -- "$apps/plain_app" 50 \
    >/dev/null 2>&1 || fail "record in a batch script"
! "$tf" info "$tmp/batch.h5" | grep -q '^process 0: .*rank' ||
    fail "batch script: want no rank: $("$tf" info "$tmp/batch.h5" | grep '^process')"

# A file-size limit below the recorder's buffers: growing them would raise
# SIGXFSZ in the program, so the recorder stands aside and says so.
out=$( (ulimit -f 64; "$tf" record -o "$tmp/small.h5" -- "$apps/plain_app" 50) 2>"$tmp/err") ||
    fail "ulimit -f: the program should still succeed"
[ "$out" = "plain_app done" ] || fail "ulimit -f: program output changed"
grep -q 'file size limit' "$tmp/err" || fail "ulimit -f: no message"
exit 0
