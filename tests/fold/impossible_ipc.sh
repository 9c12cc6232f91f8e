#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rate that no thread can reach is never reported, end to end, for the
# instructions-per-cycle limit (docs/algorithms.md, "Impossible rates"):
# the real Extrae trace of 444.namd (tests/data/extrae) is folded as
# recorded, where its instructions per cycle are ordinary and nothing is
# dropped, and with every PAPI_TOT_INS value multiplied by 10, which puts
# them far beyond the 8 instructions per cycle any core retires.  The
# second fold must warn, count the dropped points, and leave no grid point
# in curves.csv whose instructions' rate is over 8 times the cycles' rate.
set -u
tf=${TRACEFOLD:?run by make check}
data=${top_srcdir:?run by make check}/tests/data/extrae
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-impossible-ipc-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# instructions and cycles rates at each grid point (GROUP@X), side by side
rates() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
             { c = $(col["counter"]); x = $(col["group"]) "@" $(col["x"]); r = $(col["rate"])
               if (c == "PAPI_TOT_INS") ins[x] = r
               if (c == "PAPI_TOT_CYC") cyc[x] = r }
             END { OFS = "\t"; for (x in ins) if (x in cyc) print x, ins[x], cyc[x] }' "$1/curves.csv"
}

"$tf" fold -q "$data/444.namd.prv.gz" --region "User function=main" -o "$work/as_recorded" ||
    fail "fold of the recorded trace exited $?"
rates "$work/as_recorded" >"$work/r1"
awk -F'\t' '$2 != "" && $3 != "" { n++ } END { exit !(n > 100) }' "$work/r1" ||
    fail "the recorded trace gave no instructions and cycles rates to compare"
awk -F'\t' '$2 != "" && $3 != "" && $2 > 8 * $3 { print "FAIL: recorded trace: IPC " $2 / $3 " at x = " $1; bad = 1 }
     $2 == "" && $3 != "" { print "FAIL: recorded trace: instructions rate dropped at x = " $1; bad = 1 }
     END { exit bad }' "$work/r1" || exit 1

# the same records, every instructions count (an interval's delta) times 10
cp "$data/444.namd.pcf" "$work/ten.pcf"
cp "$data/444.namd.row" "$work/ten.row"
gzip -dc "$data/444.namd.prv.gz" |
    awk -F: 'BEGIN { OFS = ":" }
             $1 == 2 { for (i = 7; i < NF; i += 2) if ($i == 42000050) $(i + 1) = sprintf("%.0f", $(i + 1) * 10) }
             { print }' >"$work/ten.prv"
"$tf" fold "$work/ten.prv" --region "User function=main" -o "$work/ten" 2>"$work/notes" ||
    { cat "$work/notes"; fail "fold of the scaled trace exited $?"; }
grep "rate dropped" "$work/notes"
grep -q "counter 'PAPI_TOT_INS': rate dropped at [1-9][0-9]* of the" "$work/notes" ||
    fail "no warning that the instructions' rate was dropped"
rates "$work/ten" >"$work/r10"
awk -F'\t' '$2 != "" && $3 != "" && $2 > 8 * $3 { print "FAIL: IPC " $2 / $3 " reported at x = " $1; bad = 1 }
     $2 == "" { dropped++ }
     END { if (dropped < 100) { print "FAIL: only " dropped + 0 " grid points dropped"; bad = 1 }
           exit bad }' "$work/r10" || exit 1
exit 0
