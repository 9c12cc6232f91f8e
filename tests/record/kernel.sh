#!/bin/sh
# Kernel capture (docs/recorder.md, "Kernel capture"): samples written by
# the perf event into its ring and turned into samples by the writer, with
# no signal handler.  ksample_app's 8 threads (no user counters) with frame
# pointers and -g, and without either (stacks from .eh_frame): every sample
# through the kernel, counters monotone, >= 95 % of each thread's samples
# inside its "work" region (same clock as the events), stacks resolving to
# its functions; frame-pointer unwinding; fork; SIGKILL of the program; a
# program with user counters (threads switch to the handler); a ring too
# small (lost samples counted); kernel capture refused (the handler takes
# over, one line says so); memory references decoded by the writer; a linked
# program's helper writer; auto at the default period.
. "$top_srcdir/tests/record/lib.sh"
# The writer's line (TRACEFOLD_STATS): "N samples captured by the kernel
# ..., M memory samples decoded": the trace's samples are N + M.
kernel_samples() {
    sed -n 's/.*stats: \([0-9]*\) samples captured by the kernel.* \([0-9]*\) memory samples.*/\1 \2/p' "$1" |
        head -n1 | awk '{ print $1 + $2 }'
}

TRACEFOLD_STATS=yes "$tf" record -q -o "$tmp/k.h5" --capture kernel --period 2ms -- \
    "$apps/ksample_app" 8 250 2>"$tmp/k.err" || fail "record exit status $?: $(cat "$tmp/k.err")"
"$check" kernel "$tmp/k.h5" 8 || fail "kernel capture, frame pointers"
n=$(kernel_samples "$tmp/k.err")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no samples captured by the kernel: $(cat "$tmp/k.err")"
[ "$(field samples "$tmp/k.h5")" = "$n" ] ||
    fail "trace has $(field samples "$tmp/k.h5") samples, the kernel captured $n"
grep -q "handler cost median" "$tmp/k.err" && fail "the handler took samples: $(cat "$tmp/k.err")"

# No frame pointers, no debug information: the CFI of .eh_frame.
objcopy --strip-debug "$apps/ksample_app_nofp" "$tmp/ksample_nofp" || fail "objcopy --strip-debug"
TRACEFOLD_STATS=yes "$tf" record -q -o "$tmp/nofp.h5" --capture kernel --period 2ms -- \
    "$tmp/ksample_nofp" 8 250 2>"$tmp/nofp.err" || fail "record (no fp) exit status $?"
"$check" kernel "$tmp/nofp.h5" 8 || fail "kernel capture, no frame pointers, no -g"
[ "$(kernel_samples "$tmp/nofp.err")" = "$(field samples "$tmp/nofp.h5")" ] ||
    fail "no fp: not every sample came from the kernel: $(cat "$tmp/nofp.err")"

# Frame-pointer walk of the stack copy.
"$tf" record -q -o "$tmp/fp.h5" --capture kernel --unwind fp --period 2ms -- \
    "$apps/ksample_app" 2 250 || fail "record --unwind fp exit status $?"
"$check" kernel "$tmp/fp.h5" 2 || fail "kernel capture, --unwind fp"

# fork: a trace per process, both captured by the kernel.
TRACEFOLD_STATS=yes "$tf" record -q -o "$tmp/f-%p.h5" --capture kernel --period 2ms -- \
    "$apps/ksample_app" 2 200 fork 2>"$tmp/f.err" || fail "record (fork) exit status $?"
[ "$(ls "$tmp"/f-*.h5 | wc -l)" -eq 2 ] || fail "fork: $(ls "$tmp"/f-*.h5 | wc -l) traces"
for f in "$tmp"/f-*.h5; do
    "$check" kernel "$f" 2 || fail "fork: $f"
done
[ "$(grep -c 'captured by the kernel' "$tmp/f.err")" -eq 2 ] || fail "fork: $(cat "$tmp/f.err")"

# SIGKILL of the program: the writer holds the rings, so the samples up to
# the kill are in the trace, which is complete.
kill_recorded 2 -q -o "$tmp/kill.h5" --capture kernel --period 2ms -- \
    "$apps/ksample_app" 2 0 forever
[ "$(field complete "$tmp/kill.h5")" = 1 ] || fail "killed program: trace not complete"
[ "$(field samples "$tmp/kill.h5")" -gt 100 ] ||
    fail "killed program: $(field samples "$tmp/kill.h5") samples"
"$check" stack "$tmp/kill.h5" ksample_kernel_a >/dev/null || fail "killed program: stacks"

# User counters: each worker switches itself to the handler at its first
# tracefold_counter_add; the trace is as with the handler alone.
"$tf" record -q -o "$tmp/u.h5" --capture kernel --period 1ms -- "$apps/threads_app" 8 20 ||
    fail "record (user counters) exit status $?"
"$check" threads "$tmp/u.h5" 8 20 || fail "threads_app under kernel capture"

# A ring far too small for the rate: lost samples are counted as dropped.
"$tf" record -o "$tmp/lost.h5" --capture kernel --period 50us --kernel-stack 4K \
    --kernel-ring 16K -- "$apps/ksample_app" 1 300 2>"$tmp/lost.err" ||
    fail "record (small ring) exit status $?"
grep -q "records dropped" "$tmp/lost.err" || fail "small ring: no drops reported: $(cat "$tmp/lost.err")"
"$tf" info "$tmp/lost.h5" | grep -q "lost by the recorder" || fail "small ring: info shows no loss"

# Refused (simulated): one line, and the handler takes the samples.
TRACEFOLD_TEST_REFUSE_KERNEL=1 TRACEFOLD_STATS=yes "$tf" record -q -o "$tmp/r.h5" \
    --capture kernel --period 2ms -- "$apps/ksample_app" 2 250 2>"$tmp/r.err" ||
    fail "record (refused) exit status $?"
[ "$(grep -c 'kernel capture refused' "$tmp/r.err")" -eq 1 ] ||
    fail "refused: not one line saying so: $(cat "$tmp/r.err")"
grep -q "handler cost median" "$tmp/r.err" || fail "refused: the handler took no samples"
[ -z "$(kernel_samples "$tmp/r.err")" ] || fail "refused: samples from the kernel anyway"
"$check" kernel "$tmp/r.h5" 2 || fail "refused: the handler's trace"

# Memory references decoded by the writer from the sampled registers and
# the code (as memory.sh checks the handler's; the same sanitizer skip).
# Every 250 us: a pass over an array takes about 0.5 ms, and at 500 us
# as few as 8 passes of a loop held two samples (check_trace wants 10
# pairs); at 250 us, 350 to 685 pairs over 9 runs, every one increasing
# but those at one address (the thread stood still in between: check_trace).
if [ "${TF_SANITIZERS:-no}" != yes ]; then
    "$tf" record -q -o "$tmp/m.h5" --capture kernel --kernel-ring 2M --period 250us \
        --mem-sampler software -- "$apps/stream_app" || fail "record (memory) exit status $?"
    "$check" memory "$tmp/m.h5" >/dev/null || fail "memory samples decoded by the writer"
fi

# A linked program run without `tracefold record`: its helper writer (a
# child of the program) takes the rings.
TRACEFOLD_OUTPUT="$tmp/l-%p.h5" TRACEFOLD_CAPTURE=kernel TRACEFOLD_STATS=yes \
    "$apps/ksample_app" 2 250 2>"$tmp/l.err" || fail "linked program exit status $?"
f=$(helper_trace "$tmp/l-") || exit 1
"$check" kernel "$f" 2 || fail "linked program under kernel capture"
grep -q "captured by the kernel" "$tmp/l.err" || fail "linked: the helper took no kernel samples"

# auto at the default period, nothing needing the handler: kernel capture.
TRACEFOLD_STATS=yes "$tf" record -q -o "$tmp/a.h5" -- "$apps/ksample_app" 1 400 2>"$tmp/a.err" ||
    fail "record (auto) exit status $?"
[ -n "$(kernel_samples "$tmp/a.err")" ] || fail "auto did not capture in the kernel: $(cat "$tmp/a.err")"
exit 0
