#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# Phases named at a call-stack level (fold --phase-level; docs/algorithms.md,
# "Phases named at a call-stack level").  A recorded C program whose two
# routines of a time step, integrate_stress then calc_kinematics, spend
# their time in one shared callee, sum_face_normal (LULESH's
# IntegrateStressForElems and CalcKinematicsForElems around
# SumElemFaceNormal): by default the iteration is sum_face_normal all
# along; at the caller level it is the function inlined into each routine
# that calls the helper (a level only the inlined frames show), on the line
# of its call; at depth 2 (main, lagrange_step, then the two) and under
# lagrange_step it is integrate_stress, on the line of the inlined call,
# for the first half and calc_kinematics for the second, with a boundary
# between them near the middle.
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: sanitizer build: the instrumented program's timings are not the ones checked (normal build checks this)"
    exit 77
fi
tf=${TRACEFOLD:?run by make check}
app=${top_builddir:?run by make check}/tests/analysis/phase_level_app
src=${top_srcdir:?run by make check}/tests/analysis/phase_level_app.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-phase-level.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
line_of() { grep -n "$1" "$src" | cut -d: -f1; }
TRACEFOLD_PROGRAM=$tf
export TRACEFOLD_PROGRAM
# 800 steps of about 1 ms (measured 0.45 ms with 2048 elements), 1 ms samples
"$tf" record -q -o "$tmp/t.h5" --counters task-clock --period 1ms -- "$app" 800 4096 \
    >"$tmp/out" || fail "recording exit status $?"

# The top-level phase at x: its routine and line.
at() {
    awk -F, -v x="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $(col["phase"]) !~ /\./ && $(col["x_begin"]) <= x && x < $(col["x_end"]) {
            print $(col["routine"]) ":" $(col["line"]) }' "$1/phases.csv"
}
# The top-level boundaries strictly inside the iteration.
boundaries() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $(col["phase"]) !~ /\./ && $(col["x_begin"]) > 0 { print $(col["x_begin"]) }' "$1/phases.csv"
}

"$tf" fold -q -o "$tmp/innermost" --region step "$tmp/t.h5" || fail "fold exit status $?"
cat "$tmp/innermost/phases.csv"
for x in 0.25 0.75; do
    case $(at "$tmp/innermost" $x) in
    sum_face_normal:*) ;;
    *) fail "by default the phase at $x is $(at "$tmp/innermost" $x), not sum_face_normal" ;;
    esac
done

# LEVEL, then the routine and the marker of its line in each half
check() {
    level=$1 first=$2:$(line_of "$3") second=$4:$(line_of "$5")
    out=$tmp/$(echo "$level" | tr ' ' _)
    "$tf" fold -q -o "$out" --region step --phase-level "$level" "$tmp/t.h5" ||
        fail "fold --phase-level '$level' exit status $?"
    echo "--phase-level $level:"
    cat "$out/phases.csv"
    [ "$(at "$out" 0.25)" = "$first" ] ||
        fail "--phase-level $level: the phase at 0.25 is $(at "$out" 0.25), not $first"
    [ "$(at "$out" 0.75)" = "$second" ] ||
        fail "--phase-level $level: the phase at 0.75 is $(at "$out" 0.75), not $second"
    boundaries "$out" | awk '$1 >= 0.45 && $1 <= 0.55 { near = 1 } END { exit !near }' ||
        fail "--phase-level $level: no boundary between 0.45 and 0.55: $(boundaries "$out" | tr '\n' ' ')"
}
# the caller of sum_face_normal is the function inlined into each routine,
# on the line of its call
check caller integrate_element call-in-integrate kinematics_element call-in-kinematics
# main is depth 0, lagrange_step depth 1; the routines' line is the inlined
# function's call site
check "depth 2" integrate_stress inline-in-integrate calc_kinematics inline-in-kinematics
check "under lagrange_step" integrate_stress inline-in-integrate calc_kinematics inline-in-kinematics

"$tf" fold -q -o "$tmp/bad" --phase-level "depth x" "$tmp/t.h5" 2>"$tmp/err"
[ $? -eq 2 ] || fail "--phase-level 'depth x' accepted"
grep -q "phase-level" "$tmp/err" || fail "no message naming --phase-level: $(cat "$tmp/err")"
exit 0
