#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every fitted counter is drawable (issue 31, item 5): a recorded run
# without memory samples has no linear stream to give a bandwidth, so the
# performance panel shows the CPU utilisation of its task-clock counter
# (on a machine without a PMU, where that is all there is); --counters
# chooses the panel's curves, on a synthetic fold and on the recorded one,
# in both back ends; a name the fold lacks is refused with the list of
# its counters.
set -u
tf=${TRACEFOLD:?run by make check}
apps=${top_builddir:?run by make check}/tests/render
TRACEFOLD_PROGRAM=$tf
export TRACEFOLD_PROGRAM
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-counters.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The panel's legend in the gnuplot script: its series' titles.
titles() { grep -o 'title "[^"]*"' "$1/rates.gp"; }

# Synthetic fold: instructions and miss counters.
"$tf" synth -q -o "$dir/s.h5" --iterations 30 &&
    "$tf" fold -q --bootstrap 10 "$dir/s.h5" -o "$dir/s.fold" || { echo "FAIL: synth/fold"; exit 1; }
"$tf" render -q "$dir/s.fold/fold.h5" -b gnuplot -o "$dir/s.gp" --counters L2_misses ||
    bad "--counters L2_misses: exit $?"
titles "$dir/s.gp" | grep -q '"L2_misses"' || bad "--counters L2_misses: no L2_misses curve"
titles "$dir/s.gp" | grep -q 'L1D_misses\|MIPS' && bad "--counters L2_misses: other curves drawn"
grep -q 'misses per instruction\|events per instruction' "$dir/s.gp/rates.gp" ||
    bad "--counters L2_misses: not per instruction although the fold has instructions"
"$tf" render -q "$dir/s.fold/fold.h5" -o "$dir/s.pdf" --counters instructions,L1D_misses \
    --layout-json "$dir/s.json" || bad "--counters instructions,L1D_misses: exit $?"
python3 - "$dir/s.json" <<'PY' || bad "--counters instructions,L1D_misses: another legend"
import json, sys
d = json.load(open(sys.argv[1]))
legend = {t["text"] for t in d["texts"] if t["page"] == 1 and t["panel"] == "rates"}
print("rates panel:", sorted(legend))
sys.exit(0 if {"MIPS (right axis)", "L1D_misses"} <= legend and "L2_misses" not in legend else 1)
PY
"$tf" render -q "$dir/s.fold/fold.h5" -o "$dir/n.pdf" --counters L1D_misses,nosuch 2>"$dir/err"
[ $? -eq 1 ] || bad "--counters nosuch: exit not 1"
grep -q "'nosuch'" "$dir/err" && grep -q 'L2_misses' "$dir/err" ||
    bad "--counters nosuch: message does not name it and the fold's counters: $(cat "$dir/err")"
[ -e "$dir/n.pdf" ] && bad "--counters nosuch: output left behind"
for list in "" "a,,b" ",a" "a,"; do
    "$tf" render -q "$dir/s.fold/fold.h5" -o "$dir/e.pdf" --counters "$list" 2>/dev/null
    [ $? -eq 2 ] || bad "--counters '$list': exit not 2"
done

# Recorded, no memory samples: no bandwidth to fall back on.
"$tf" record -q --period 1ms --mem-sampler none -o "$dir/r.h5" -- "$apps/user_counter_app" 400 \
    >/dev/null || { echo "FAIL: record exit $?"; exit 1; }
"$tf" fold -q "$dir/r.h5" -o "$dir/r.fold" || { echo "FAIL: fold exit $?"; exit 1; }
"$tf" render -q "$dir/r.fold/fold.h5" -b gnuplot -o "$dir/r.gp" || bad "recorded: render exit $?"
if titles "$dir/r.gp" | grep -q MIPS; then
    echo "note: this machine counts instructions: the CPU utilisation is not the default here"
else
    titles "$dir/r.gp" | grep -q 'task-clock (CPU utilisation)' ||
        bad "recorded without a PMU: no CPU utilisation drawn: $(titles "$dir/r.gp")"
    grep -q 'no counter has a fitted rate' "$dir/r.gp/rates.gp" &&
        bad "recorded without a PMU: the panel says it has nothing"
fi
"$tf" render -q "$dir/r.fold/fold.h5" -b gnuplot -o "$dir/c.gp" --counters task-clock ||
    bad "--counters task-clock: exit $?"
grep -qF 'CPU utilisation [%]' "$dir/c.gp/rates.gp" || bad "--counters task-clock: axis not in %"
# One busy thread: its CPU time per second of the iteration is about one
# processor (less where the machine is shared), in percent.
awk '/^# task-clock/ { on = 1; next } /^$/ { on = 0 } on && $2 ~ /^[0-9.e+-]+$/ { s += $2; n++ }
     END { m = n ? s / n : 0; print "mean CPU utilisation:", m, "%"; exit !(m > 5 && m < 150) }' \
    "$dir/c.gp/rates.dat" || bad "--counters task-clock: utilisation not about 100 %"
"$tf" render -q "$dir/r.fold/fold.h5" -o "$dir/r.pdf" --counters task-clock \
    --layout-json "$dir/r.json" || bad "--counters task-clock (cairo): exit $?"
grep -q 'CPU utilisation' "$dir/r.json" || bad "--counters task-clock (cairo): no CPU utilisation"
exit $fail
