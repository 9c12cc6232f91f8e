#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A user counter added once per iteration (C and Fortran, as
# docs/recorder.md shows them), recorded, folded and drawn: the report
# gives the counter as its exact total per iteration, not as a rate, and
# the bottom panel still shows the memory bandwidth (the machine has no
# hardware counter rate to draw); the CSV files give the same total
# (totals.csv) and no rate for it.
set -u
tf=${TRACEFOLD:?run by make check}
apps=${top_builddir:?run by make check}/tests/render
TRACEFOLD_PROGRAM=$tf
export TRACEFOLD_PROGRAM
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-user-counter.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail=0
check() { echo "FAIL: $*"; fail=1; }

for app in user_counter_app user_counter_app_f; do
    if [ ! -x "$apps/$app" ]; then
        echo "note: $app not built (no Fortran compiler)"
        continue
    fi
    "$tf" record -q --period 1ms -o "$dir/$app.h5" -- "$apps/$app" 600 >/dev/null ||
        { check "$app: record exit $?"; continue; }
    "$tf" fold -q "$dir/$app.h5" -o "$dir/$app.fold" || { check "$app: fold exit $?"; continue; }
    # The CSV files give the same total, and no rate for it.
    fold=$dir/$app.fold
    grep -qx 'step,0,cells,199999,[0-9]*,1' "$fold/totals.csv" ||
        check "$app: totals.csv lacks cells' 199999 per iteration as a step: $(grep cells "$fold/totals.csv")"
    awk -F, '$3 == "cells" && ($8 != "" || $9 != "" || $10 != "") { bad = 1 } END { exit !bad }' \
        "$fold/curves.csv" && check "$app: curves.csv gives cells a rate"
    head -1 "$fold/phases.csv" | grep -q 'cells_per' && check "$app: phases.csv gives cells a rate"
    "$tf" render -q "$dir/$app.fold/fold.h5" -b gnuplot -o "$dir/$app.gp" ||
        { check "$app: render exit $?"; continue; }
    rates=$dir/$app.gp/rates.gp
    # 199999 cells per step, exactly, as the legend of the bottom panel.
    grep -qF '"cells: 199999 per iteration"' "$rates" || check "$app: no per-iteration total of cells"
    # Not a curve: no data block and no axis for it.
    grep -q '^# cells$' "$dir/$app.gp/rates.dat" 2>/dev/null && check "$app: cells drawn as a rate"
    grep -qF 'memory bandwidth (linear streams)' "$rates" || check "$app: no bandwidth curve"
    grep -q 'bandwidth \[[kMGT]\{0,1\}B/s\]' "$rates" || check "$app: the axis is not the bandwidth's"
    if command -v pdftotext >/dev/null; then
        pdftotext "$dir/$app.fold/report.pdf" - 2>/dev/null | grep -qF 'cells: 199999 per iteration' ||
            check "$app: no per-iteration total in report.pdf"
    fi
done
exit $fail
