#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# examples/jacobi (the Fortran example, built with the tracefold module)
# recorded and folded end to end.  Always: the user counter "cells" adds
# exactly (N-2)^2 in every instance.  On a machine that gives the program
# most of a CPU (folding is in wall time): the iteration's two phases are
# the sweep and then the copy, each in its routine (gfortran turns the copy
# into memmove calls: accepted, as for STREAM's Copy); each kernel's own
# region has that routine; the folded counter puts those cells in the
# sweep; the folded update rate of the sweep within 25 % of the MLUPS
# jacobi prints itself.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
if [ ! -x "$examples/jacobi" ]; then
    echo "SKIP: examples/jacobi not built (configure found no Fortran compiler)"
    exit 77
fi
# Wrong arguments: one message naming the option, exit status 2.
for args in "-n 2" "-i 0" "-n abc" "-x" "-n"; do
    TRACEFOLD_OUTPUT="$tmp/bad-%p.h5" "$examples/jacobi" $args >"$tmp/bad.out" 2>"$tmp/bad.err"
    rc=$?
    [ $rc -eq 2 ] || bad "jacobi $args: exit $rc, expected 2"
    opt=${args%% *}
    grep -q -- "$opt" "$tmp/bad.err" || bad "jacobi $args: message does not name $opt: $(cat "$tmp/bad.err")"
done
n=1024
record_example none "$tmp/j.h5" jacobi -n $n -i 200
"$tf" fold -q "$tmp/j.h5" --region iteration -o "$tmp/j" || bad "fold exited $?"
check_layout "$tmp/j"

# The user counter: exact per instance (fold.h5 keeps each instance's
# counter deltas).
py=$(h5py_python)
[ -n "$py" ] || bad "no python3 with h5py (Debian package python3-h5py) to read fold.h5"
${py:-false} - "$tmp/j/fold.h5" $(( (n - 2) * (n - 2) )) <<'PY' || bad "cells counter per instance"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
want = int(sys.argv[2])
# a string table: UTF-8 bytes, each string ended by a zero byte (docs/fold-format.md)
names = [s.decode() for s in f["region/0/counter_names"][()].tobytes().split(b"\0")[:-1]]
c = names.index("cells")
deltas = f["region/0/instances/counter_delta"][:, c]
wrong = [d for d in deltas if d != want]
print(f"cells: {len(deltas)} instances, {len(wrong)} not {want}")
sys.exit(1 if wrong or len(deltas) != 200 else 0)
PY
[ $fails -eq 0 ] || exit 1
# Folding is in wall time: on a busy machine, instances preempted part way
# progress at their own pace and the folded phases blur.
share=$(cpu_share "$tmp/j")
if awk -v s="$share" 'BEGIN { exit !(s < 0.9) }'; then
    echo "SKIP: the example got $share of a CPU: too busy a machine for its folded phases and timing"
    exit 77
fi

# is_kernel ROUTINE KERNEL
is_kernel() {
    case $2:$1 in
    sweep:*jacobi_sweep*) return 0 ;;
    copy:*jacobi_copy* | copy:__memmove_* | copy:memmove | copy:__memcpy_* | copy:memcpy) return 0 ;;
    esac
    return 1
}
set -- $(csv "$tmp/j/phases.csv" phase routine share | awk -F, '$1 !~ /\./ && $3 >= 0.02 { print $2 }')
[ $# -eq 2 ] || bad "expected two phases, got: $*"
is_kernel "${1:-none}" sweep || bad "phase 1 is ${1:-none}, expected the sweep"
is_kernel "${2:-none}" copy || bad "phase 2 is ${2:-none}, expected the copy"
echo "phases: $*"
kernel_regions "$tmp/j.h5" sweep copy

cells=$(csv "$tmp/j/phases.csv" phase begin_ns end_ns cells_per_s |
        awk -F, '$1 !~ /\./ { c = $4 * ($3 - $2) / 1e9; t += c; if ($1 == 1) s = c }
                 END { printf "%.0f %.0f\n", t, s }')
set -- $cells
echo "folded cells: $1 per iteration, $2 in the sweep; the program adds $(( (n - 2) * (n - 2) ))"
awk -v t="$1" -v s="$2" -v w=$(( (n - 2) * (n - 2) )) \
    'BEGIN { exit !(t >= 0.97 * w && t <= 1.03 * w && s >= 0.85 * w) }' ||
    bad "folded cells: $1 per iteration ($2 in the sweep), expected $(( (n - 2) * (n - 2) )), most in the sweep"

rate=$(csv "$tmp/j/phases.csv" phase cells_per_s | awk -F, '$1 == 1 { printf "%.1f\n", $2 / 1e6 }')
own=$(awk '$1 == "sweep" { print $3 }' "$tmp/j.txt")
echo "sweep: folded $rate M cells/s, jacobi printed $own MLUPS"
awk -v f="$rate" -v o="$own" 'BEGIN { exit !(o > 0 && f >= 0.75 * o && f <= 1.25 * o) }' ||
    bad "sweep: folded $rate M cells/s, jacobi printed $own MLUPS (25 % allowed)"
[ $fails -eq 0 ]
