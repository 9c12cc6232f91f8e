#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The writer creates a process's trace as soon as it finds the process
# (record/writer/tf_writer.c, create_trace), before the MPI layer may give
# the rank that names it (a launcher whose variables the recorder does
# not know): the trace is then renamed by the rank when the writer opens
# it (docs/recorder.md, "MPI"): out.0003.h5 for rank 3 of 4, no out.h5
# left; with %r in the pattern, out-r3.h5.
. "$top_srcdir/tests/record/lib.sh"
app=$apps/late_rank_app
# no launcher variables: the rank comes from the program alone
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE PMIX_RANK SLURM_PROCID \
    SLURM_STEP_NUM_TASKS 2>/dev/null
"$tf" record -q -o "$tmp/out.h5" -- "$app" 3 4 2>"$tmp/err" || fail "record exited $?: $(cat "$tmp/err")"
[ -f "$tmp/out.0003.h5" ] || fail "no out.0003.h5: $(ls "$tmp")"
[ -e "$tmp/out.h5" ] && fail "out.h5 left beside out.0003.h5"
"$tf" info "$tmp/out.0003.h5" | grep -q "complete: *yes" || fail "out.0003.h5 not complete"
"$tf" record -q -o "$tmp/out-r%r.h5" -- "$app" 3 4 2>"$tmp/err" || fail "record %r exited $?: $(cat "$tmp/err")"
[ -f "$tmp/out-r3.h5" ] || fail "no out-r3.h5: $(ls "$tmp")"
[ -e "$tmp/out-r0.h5" ] && fail "out-r0.h5 left beside out-r3.h5"
# The name the rank gives taken by a file of the user's: refused with
# its name, record exits 1, the file untouched; the trace created under
# the first name is kept, empty and marked incomplete, as a trace that
# could not be written is (full_disk.sh).
rm -f "$tmp"/out*.h5
echo "user data" >"$tmp/out.0003.h5"
"$tf" record -q -o "$tmp/out.h5" -- "$app" 3 4 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "taken name: exit status $rc, expected 1: $(cat "$tmp/err")"
grep -q "out.0003.h5: exists (use --force" "$tmp/err" || fail "taken name: message: $(cat "$tmp/err")"
[ "$(cat "$tmp/out.0003.h5")" = "user data" ] || fail "taken name: the user's file changed"
grep -q "the trace written so far is kept, marked incomplete" "$tmp/err" ||
    fail "taken name: does not say what became of the trace: $(cat "$tmp/err")"
"$tf" info "$tmp/out.h5" | grep -q "complete: *no" || fail "taken name: out.h5 not marked incomplete"
exit 0
