# SPDX-License-Identifier: BSD-3-Clause
# Shared by the example tests: record an example, read the fold's CSV
# files by column name, and the two reasons to skip the memory checks.
tf=${TRACEFOLD:?run by make check}
examples=${top_builddir:?run by make check}/examples
src=${top_srcdir:?run by make check}/examples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-example.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# record_example SAMPLER OUT.h5 EXAMPLE ARGS...: records an example with the
# memory sampler SAMPLER (none, software, auto), a sample every $period of
# CPU time (1ms unless set), its stdout in OUT.txt.
record_example() {
    sampler=$1 out=$2
    shift 2
    "$tf" record -q -o "$out" --period "${period:-1ms}" --mem-sampler "$sampler" -- "$examples/$@" \
        >"${out%.h5}.txt" || { echo "FAIL: recording $1 exited $?"; exit 1; }
}

# call_site FILE PATTERN: FILE:LINE:COLUMN of the allocation call on the
# line of FILE (in the examples' sources) matching PATTERN, the column of
# "alloc" (malloc, calloc) 1-based, as DWARF gives it and objects are named.
call_site() {
    grep -n "$2" "$src/$1" | head -n1 |
        awk -F: -v f="$1" '{ line = $1; sub(/^[0-9]+:/, "")
                             i = index($0, "malloc"); if (!i) i = index($0, "calloc")
                             print f ":" line ":" i }'
}

# memory_samples TRACE: loads and stores recorded ("tracefold info").
memory_samples() {
    "$tf" info "$1" | awk '$1 == "load" || $1 == "store" { n += $2 } END { print n + 0 }'
}

# csv FILE COLUMN...: the named columns of FILE, comma-separated, no header.
csv() {
    file=$1
    shift
    awk -F, -v want="$*" 'NR == 1 { n = split(want, w, " ")
                                    for (i = 1; i <= NF; i++) col[$i] = i
                                    for (k = 1; k <= n; k++) if (!(w[k] in col)) exit 1
                                    next }
                          { s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? "," : "") $col[w[k]]
                            print s }' "$file"
}

# cpu_share FOLD_DIR: the share of a CPU the program had over the folded
# iteration (task-clock per second of the phases, weighted by their share).
cpu_share() {
    csv "$1/phases.csv" phase share task-clock_per_s |
        awk -F, '$1 !~ /\./ { s += $2 * $3; w += $2 } END { printf "%.2f\n", w ? s / w / 1e9 : 0 }'
}

# memory_checks_possible TRACE [FOLD_DIR]: exits 77 with the reason when the
# trace has no memory samples, or, given FOLD_DIR, when the program got less
# than 90 % of a CPU: preempted mid-sweep, each instance progresses at its
# own pace and the folded sweeps blur (on this 2-core VM with builds
# alongside, the program gets about 2/3 of a CPU and linear sweeps fold
# into "random" ones).  Checks of strides read from the code need no
# FOLD_DIR: the code does not blur.
memory_checks_possible() {
    [ $fails -eq 0 ] || exit 1   # what was checked before must not hide behind a skip
    if [ "${TF_SANITIZERS:-no}" = yes ]; then
        echo "SKIP: sanitizer build: the instrumented example's own timings and access lines differ from the program the checks are about (normal build checks this)"
        exit 77
    fi
    nmem=$(memory_samples "$1")
    if [ "$nmem" -eq 0 ]; then
        echo "SKIP: $1 has no memory samples (the recorder found no memory sampler)"
        exit 77
    fi
    if [ -z "${2:-}" ]; then
        echo "$nmem memory samples"
        return 0
    fi
    share=$(cpu_share "$2")
    if awk -v s="$share" 'BEGIN { exit !(s < 0.9) }'; then
        echo "SKIP: the example got $share of a CPU: too busy a machine to fold its sweeps"
        exit 77
    fi
    echo "$nmem memory samples; the example got $share of a CPU"
}

# h5py_python: a python3 that has h5py (Debian's python3-h5py, which
# scripts/install-deps installs; another python3 may come first in PATH),
# or empty.
h5py_python() {
    for p in python3 /usr/bin/python3; do
        if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import h5py' 2>/dev/null; then
            echo "$p"
            return
        fi
    done
}

# main_routine FOLD_DIR: the routine of the phase (top level) with the
# largest share of the iteration.
main_routine() {
    csv "$1/phases.csv" phase routine share |
        awk -F, '$1 !~ /\./ && $3 > best { best = $3; r = $2 } END { print r }'
}

# kernel_regions TRACE KERNEL...: folds each kernel's own region of TRACE
# and checks that its main routine is the kernel's (is_kernel ROUTINE
# KERNEL, which the test defines).  With the default outlier filter: a
# kernel region shorter than the sampling period holds a sample in few
# instances, which the samples' cost makes longer (jacobi's copy, 0.17 ms:
# 223 us with a sample against 168 us without, measured); the fold takes
# that cost out, or the duration rule would drop every sampled instance
# (docs/algorithms.md, "The recording's cost per sample").
# check_layout FOLD_DIR: the fold's report drawn with its layout record and
# checked as every report of the suite is (tests/render/layout.sh): no text
# overlapping another, leaving its page or panel, or cut without a key.
check_layout() {
    command -v python3 >/dev/null || return 0
    "$tf" render -q "$1/fold.h5" -o "$1/layout.pdf" --layout-json "$1/layout.json" ||
        { bad "render --layout-json $1 exited $?"; return; }
    python3 "$top_srcdir/tests/render/layout_check.py" "${1##*/}" "$1/layout.json" ||
        bad "the report of $1 fails the layout check"
}

kernel_regions() {
    trace=$1
    shift
    for kernel in "$@"; do
        "$tf" fold -q "$trace" --region "$kernel" -o "${trace%.h5}-$kernel" ||
            bad "fold $kernel"
        check_layout "${trace%.h5}-$kernel"
        r=$(main_routine "${trace%.h5}-$kernel")
        is_kernel "$r" "$kernel" || bad "region $kernel: main routine $r"
        echo "region $kernel: $r"
    done
}

# within PCT MEASURED EXPECTED: MEASURED within PCT % of EXPECTED.
within() { awk -v m="$2" -v e="$3" -v p="$1" 'BEGIN { d = m / e - 1; exit !(d <= p / 100 && d >= -p / 100) }'; }

# diff_itself FOLD_DIR...: each fold compared with itself reports no
# significant change (docs/commands/diff.md).
diff_itself() {
    for d in "$@"; do
        "$tf" diff -q "$d/fold.h5" "$d/fold.h5" -o "$d-self" || bad "self diff ${d##*/}: exit $?"
        grep -q ',yes' "$d-self/diff.csv" && bad "self diff ${d##*/}: a significant change"
    done
}

# too_busy FOLD_DIR...: why the runs folded there were too busy to time
# (nothing when they were not): a run got less than 90 % of a CPU over the
# folded iteration (cpu_share), or the fold excluded more than 5 % of its
# instances as preempted (instances.csv): the fold leaves those out, the
# program's own mean keeps them, and the two part.
too_busy() {
    for d in "$@"; do
        share=$(cpu_share "$d")
        preempted=$(csv "$d/instances.csv" reason |
            awk '{ n++ } $1 == "preempted" { p++ } END { printf "%.2f\n", n ? p / n : 0 }')
        if awk -v s="$share" -v p="$preempted" 'BEGIN { exit !(s < 0.9 || p > 0.05) }'; then
            echo "${d##*/}: $share of a CPU, $preempted of the iterations preempted"
            return
        fi
    done
}

# timing_off WHY: a check that rests on the runs' timings missed (diff's
# ratio off the program's, a change not significant); every miss is kept
# in $off (0: none yet, set by the test before its first timing check)
# for timing_verdict.
timing_off() {
    if [ "$off" = 0 ]; then off=$1; else off="$off; $1"; fi
}

# retry_once WHY: a verdict that rests on the machine's pace missed on a
# run too_busy could not tell from a quiet one, nothing else having
# failed: on the project's VM a vCPU's speed changes under a run with a
# whole CPU and no preemption (2026-12-07, one run in four: a sweep's
# line split folded at 0.96 of the iteration instead of 0.7, an
# iteration's folded time 45 % off the program's own).  The whole test
# runs once more, its files made afresh, and the second run's verdict
# stands: a miss that repeats fails.
retry_once() {
    [ -z "${TF_EXAMPLE_RETRIED:-}" ] && [ $fails -eq 0 ] || return 0
    echo "RETRY (the test runs once more): $1"
    rm -rf "$tmp"
    TF_EXAMPLE_RETRIED=1 exec sh "$0"
}

# timing_verdict OFF FOLD_DIR...: OFF (0, or why diff's ratio is off the
# program's) fails the test, unless the runs were too busy to time
# (too_busy) and nothing else failed: then the test skips (exit 77); a
# miss on a run that was not busy is retried once (retry_once).
timing_verdict() {
    off=$1
    shift
    [ "$off" = 0 ] && return 0
    busy=$(too_busy "$@")
    if [ $fails -eq 0 ] && [ -n "$busy" ]; then
        echo "SKIP: $off; too busy a machine to time the runs ($busy)"
        exit 77
    fi
    [ -n "$busy" ] || retry_once "$off"
    bad "$off (${busy:-the runs had a whole CPU and few preemptions})"
}

# advice_off FOLD_DIR WHAT: the advice in FOLD_DIR is not what the test
# expects (WHAT says how).  On a run too busy to judge (too_busy) that is
# no verdict: most instances preempted are left out of the fold, and with
# them the memory samples a rule needs (a run of prefetch with 12 of 16
# instances preempted had no stream at all), and the sweeps of those left
# blur; advice_verdict then skips.  Otherwise the test is retried once
# (retry_once), then a failure.
advice_off() {
    busy=$(too_busy "$1")
    if [ -n "$busy" ]; then
        echo "${1##*/}: $2, on a busy machine ($busy)"
        advice_busy=$busy
    else
        retry_once "${1##*/}: $2"
        bad "${1##*/}: $2: $(cat "$1/advice.csv")"
    fi
}

# advice_verdict: after every other check, skips (exit 77) when advice_off
# met a busy run, unless something failed.
advice_verdict() {
    [ -n "${advice_busy:-}" ] || return 0
    [ $fails -eq 0 ] || exit 1
    echo "SKIP: too busy a machine to judge the advice ($advice_busy)"
    exit 77
}

# cache_levels PROFILE: the cache levels of a calibrate profile, empty
# without h5dump.  A quick profile timed on a busy machine may lack L2
# (calibrate.sh checks the levels against sysfs), and the rules on the
# caches then have nothing to compare with.
cache_levels() {
    command -v h5dump >/dev/null || return 0
    h5dump -d /levels "$1" | grep -c '^ *([0-9]*,0):'
}
