#!/bin/sh
# Phases follow the counters, not only the routines: in the real Extrae
# trace of 444.namd (tests/data/extrae) one routine runs most of the
# iteration while its MIPS and L1 misses per instruction alternate between
# about 3,700 MIPS / 0.013 and 4,400 MIPS / 0.009.  The transitions below
# were measured from the raw records (each record's PAPI_TOT_INS and
# PAPI_L1_DCM deltas over its interval, binned by the record's normalised
# time in the 38 instances of main, bins of 0.02), independently of the
# fold: every one has a phase boundary within 0.025, every leaf phase is
# low (under 4,000 MIPS, over 0.0115 misses per instruction) or high (over
# 4,200 MIPS, under 0.0100) or in between, with at least eight changes
# between low and high, and no phase split at a rate change is shorter than
# the minimum phase length (0.02).
set -u
tf=${TRACEFOLD:?run by make check}
data=${top_srcdir:?run by make check}/tests/data/extrae
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-namd-phases-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$tf" fold -q "$data/444.namd.prv.gz" --region "User function=main" -o "$work/fold" ||
    fail "fold exit status $?"
phases=$work/fold/phases.csv
cat "$phases"
# leaves in x order: x_begin, x_end, mips, L1 misses per instruction, sub-phase or not
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
         { print $3, $4, $5, $(col["mips"]), $(col["PAPI_L1_DCM_per_instr"]) }' "$phases" |
    awk '{ top = $1 !~ /\./; parent = $1; sub(/\..*/, "", parent)
           if (!top) has_sub[parent] = 1
           line[NR] = $0; istop[NR] = top; name[NR] = $1 }
         END { for (k = 1; k <= NR; k++) {
                   p = name[k]; sub(/\..*/, "", p)
                   if (!istop[k] || !has_sub[p]) print line[k], istop[k] } }' |
    sort -g -k2 > "$work/leaves"
[ -s "$work/leaves" ] || fail "no phases with MIPS and PAPI_L1_DCM_per_instr"
awk 'BEGIN { n = split("0.05 0.14 0.22 0.34 0.40 0.50 0.56 0.645 0.73 0.84 0.90", want, " ") }
     { b[NR] = $2; mips = $4; l1 = $5
       if (mips < 4000 && l1 <= 0.0115) { print "FAIL: phase " $1 ": low MIPS, L1 misses " l1 " per instruction"; bad = 1 }
       if (mips > 4200 && l1 >= 0.0100) { print "FAIL: phase " $1 ": high MIPS, L1 misses " l1 " per instruction"; bad = 1 }
       class = mips < 4000 ? "low" : mips > 4200 ? "high" : ""
       if (class != "" && last != "" && class != last) changes++
       if (class != "") last = class
       if (!$6 && $3 - $2 < 0.02 - 1e-6) { print "FAIL: phase " $1 " shorter than 0.02"; bad = 1 } }
     END { for (i = 1; i <= n; i++) {
               near = 0
               for (k = 1; k <= NR; k++) if (b[k] - want[i] < 0.025 && want[i] - b[k] < 0.025) near = 1
               if (!near) { print "FAIL: no phase boundary near the counters change at " want[i]; bad = 1 } }
           if (changes < 8) { print "FAIL: " changes + 0 " changes between low and high MIPS phases, expected 8 or more"; bad = 1 }
           exit bad }' "$work/leaves" || exit 1
exit 0
