#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The time OpenMP threads wait at barriers, shown as waiting and the
# region scope kept: tests/fold/omp_app with 2 threads (its loops'
# halves unequal, so one thread waits at each loop's barrier), folded.
# fold.h5 marks libgomp's routines as waiting (analysis/routines/waiting),
# stores what each instance covered (instances/threads and scope, 2 under
# the default scope, 1 with --region-scope thread) and the scope asked
# (/parameters region_scope); the report's code panel (cairo and gnuplot)
# draws the waiting samples apart and names them in its legend; the synthetic Paraver trace declares the waiting
# type in its .pcf and gives it on the samples of the runtime's routines,
# and on no sample of the loops.  A fold.h5 written before these columns
# still loads.
. "${top_srcdir:?run by make check}/tests/examples/lib.sh"
command -v h5dump >/dev/null || { echo "SKIP: h5dump not found"; exit 77; }
app=$top_builddir/tests/fold/omp_app
OMP_NUM_THREADS=2 "$tf" record -q -o "$tmp/o.h5" --period 1ms -- "$app" 40 ${work:-10000} \
    >/dev/null || { echo "FAIL: recording exited $?"; exit 1; }
busy=$("$tf" info --json "$tmp/o.h5" | grep -c '"tid": [0-9]*, "events": [0-9]*, "samples": [1-9]')
[ "$busy" -ge 2 ] || { echo "SKIP: $busy threads with samples: no OpenMP in this build"; exit 77; }
"$tf" fold -q -o "$tmp/f" "$tmp/o.h5" || { echo "FAIL: fold exited $?"; exit 1; }
"$tf" fold -q --region-scope thread -o "$tmp/t" "$tmp/o.h5" ||
    { echo "FAIL: fold --region-scope thread exited $?"; exit 1; }
# values DATASET FILE: the values of a dataset, one a line
values() { h5dump -d "$1" -w 100000 "$2" | sed -n '/DATA {/,/}/p' | sed '1d;$d' |
           sed 's/^ *([0-9]*)://' | tr ', ' '\n\n' | grep -v '^$'; }
attr() { h5dump -a "$1" "$2" | sed -n 's/.*(0): "\(.*\)".*/\1/p'; }

# --- fold.h5: the scope and the threads each instance covered
[ "$(values /region/0/instances/threads "$tmp/f/fold.h5" | sort -u)" = 2 ] ||
    bad "instances/threads: $(values /region/0/instances/threads "$tmp/f/fold.h5" | sort -u | tr '\n' ' ')"
[ "$(values /region/0/instances/scope "$tmp/f/fold.h5" | sort -u)" = 2 ] || bad "instances/scope not process (2)"
[ "$(attr /parameters/region_scope "$tmp/f/fold.h5")" = auto ] || bad "parameters region_scope"
[ "$(values /region/0/instances/threads "$tmp/t/fold.h5" | sort -u)" = 1 ] || bad "thread scope: threads"
[ "$(values /region/0/instances/scope "$tmp/t/fold.h5" | sort -u)" = 1 ] || bad "thread scope: scope"
[ "$(attr /parameters/region_scope "$tmp/t/fold.h5")" = thread ] || bad "thread scope: region_scope"
# instances.csv says the same
[ "$(csv "$tmp/f/instances.csv" threads | tr '\n' ' ')" = "$(values /region/0/instances/threads "$tmp/f/fold.h5" | tr '\n' ' ')" ] ||
    bad "instances.csv's threads differ from fold.h5's"

# --- fold.h5: the runtime's routines wait, the loops' do not
an=/region/0/group/0/analysis/routines
values $an/waiting "$tmp/f/fold.h5" >"$tmp/w"
h5dump -d $an/function -w 100000 "$tmp/f/fold.h5" >/dev/null ||
    { echo "FAIL: no $an/function"; exit 1; }
nwait=$(grep -c '^1$' "$tmp/w")
[ "$nwait" -ge 1 ] || bad "no routine marked waiting in $an/waiting"
[ "$(wc -l <"$tmp/w")" -gt "$nwait" ] || bad "every routine marked waiting"
echo "routines waiting: $nwait of $(wc -l <"$tmp/w")"

# --- the report: the code panel's legend names the waiting samples
"$tf" render -q "$tmp/f/fold.h5" -o "$tmp/f/r.pdf" --layout-json "$tmp/f/layout.json" ||
    bad "render exited $?"
grep -o '"waiting (barriers, MPI): [0-9]* % of the samples"' "$tmp/f/layout.json" >"$tmp/legend" ||
    bad "no waiting entry in the report's legend"
share=$(sed 's/.*: \([0-9]*\) %.*/\1/' "$tmp/legend")
echo "report: $(cat "$tmp/legend")"
[ "${share:-0}" -gt 0 ] && [ "${share:-100}" -lt 100 ] || bad "waiting share $share %"
# the gnuplot back end: the same lane, its points in waiting.dat
"$tf" render -q "$tmp/f/fold.h5" --backend gnuplot -o "$tmp/gp" || bad "render --backend gnuplot exited $?"
grep -qF "title $(cat "$tmp/legend")" "$tmp/gp/code.gp" || bad "code.gp: no waiting entry"
[ "$(grep -vc '^#' "$tmp/gp/waiting.dat" 2>/dev/null)" -gt 0 ] || bad "no points in waiting.dat"

# --- the synthetic Paraver trace: the type declared, on the runtime's samples
pcf=$tmp/f/folded.pcf prv=$tmp/f/folded.prv
awk '/^EVENT_TYPE/ { t = 1; next } t && /780005001/ { f = 1 } END { exit !f }' "$pcf" ||
    bad "780005001 not declared in the .pcf"
grep -q '^1 *Waiting' "$pcf" || bad "no label for waiting (1) in the .pcf"
grep -q '^0 *No: the iteration' "$pcf" || bad "no label for not waiting (0) in the .pcf"
# the sampled function's name of each value of type 30000000
awk '/^EVENT_TYPE/ { cur = 0 } /^0 *30000000 / { cur = 1 } cur && /^[0-9]+ / && !/30000000/ {
         v = $1; $1 = ""; sub(/^ +/, ""); print v "\t" $0 }' "$pcf" >"$tmp/fn"
# each sample's function and the waiting value in force there
tr ':' ' ' <"$prv" | awk -v fnfile="$tmp/fn" '
    BEGIN { FS = " "; while ((getline l < fnfile) > 0) { split(l, a, "\t"); name[a[1]] = a[2] } }
    $1 == 2 { fn = ""; for (i = 7; i < NF; i += 2) { if ($i == 30000000) fn = $(i + 1)
                                                     if ($i == 780005001) w[$4] = $(i + 1) }
              if (fn != "" && fn > 1) print w[$4] "\t" name[fn] }' >"$tmp/samples"
waiting_fns=$(awk -F'\t' '$1 == 1 { print $2 }' "$tmp/samples" | sort -u | tr '\n' ' ')
computing_fns=$(awk -F'\t' '$1 == 0 { print $2 }' "$tmp/samples" | sort -u | tr '\n' ' ')
echo "synthetic trace: waiting in: $waiting_fns"
echo "synthetic trace: not waiting in: $computing_fns"
[ -n "$waiting_fns" ] || bad "no sample waits in the synthetic trace"
case "$waiting_fns" in *main*) bad "a sample of the loops waits: $waiting_fns";; esac
case "$computing_fns" in *gomp*|*barrier*) bad "the runtime's samples do not wait: $computing_fns";; esac
case "$computing_fns" in *main._omp_fn*) ;; *) bad "the loops' samples are not there: $computing_fns";; esac

# --- a fold.h5 written before these columns still loads and draws
old=$top_srcdir/tests/fuzz/corpus/fold/synth.h5
h5dump -d /region/0/instances/threads "$old" >/dev/null 2>&1 && bad "$old has the new column already"
"$tf" render -q "$old" -o "$tmp/old.pdf" --layout-json "$tmp/old.json" ||
    bad "render of an earlier fold.h5 exited $?"
grep -q 'waiting (barriers' "$tmp/old.json" && bad "a waiting lane in a fold without waiting samples"
"$tf" paraver -q "$old" -o "$tmp/old.prv" || bad "paraver of an earlier fold.h5 exited $?"
[ $fails -eq 0 ]
