#!/bin/sh
# The layout of every report kind the suite draws, checked as a reviewer
# would (layout_check.py): synthetic folds (one process, several with
# ASLR, nested phases, two kinds of instances in groups, no memory and one
# counter, sixty phases) and the namd Extrae trace, each drawn with --layout-json; the
# bands of the source-line axis; then the options' own errors and
# --max-phase-labels.
set -u
tf=${TRACEFOLD:?}
check_py=${top_srcdir:?}/tests/render/layout_check.py
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-layout-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

# layout NAME FOLD_DIR: draws FOLD_DIR's report with its layout record.
layout() {
    "$tf" render -q "$2/fold.h5" -o "$dir/$1.pdf" --layout-json "$dir/$1.json" ||
        { bad "$1: render exit $?"; return; }
    checks="$checks $1 $dir/$1.json"
}
checks=
fold_args=
synth_fold() {
    name=$1
    shift
    "$tf" synth -q -o "$dir/$name.h5" --iterations 40 "$@" &&
        "$tf" fold -q --bootstrap 20 "$dir/$name.h5" -o "$dir/$name.fold" $fold_args ||
        { bad "$name: synth or fold failed"; return; }
    layout "$name" "$dir/$name.fold"
}
synth_fold phases
synth_fold processes --processes 3 --aslr
synth_fold nested --nested
fold_args="--groups auto"
synth_fold twokinds --scenario twokinds
fold_args=
synth_fold bare --no-memory --counters 1
# Sixty short phases (a proxy application's many small kernels): every
# phase found, and the report still within its page, its labels numbered.
synth_fold many --scenario many --boundary-shift 0.002 --samples-per-iteration 200
n=$(awk -F, 'NR > 1 && $3 !~ /\./' "$dir/many.fold/phases.csv" | wc -l)
[ "$n" -ge 50 ] || bad "many: $n phases in phases.csv, expected 50 or more"

namd=$dir/namd
mkdir "$namd" && gzip -dc "$top_srcdir/tests/data/extrae/444.namd.prv.gz" > "$namd/444.namd.prv" &&
    cp "$top_srcdir/tests/data/extrae/444.namd.pcf" "$top_srcdir/tests/data/extrae/444.namd.row" "$namd/" &&
    "$tf" fold -q --bootstrap 20 "$namd/444.namd.prv" --region "User function=main" -o "$namd/fold" &&
    layout namd "$namd/fold" || bad "namd: fold failed"

# Many phases, few labels: --max-phase-labels 2 on the nested fold.
"$tf" render -q "$dir/nested.fold/fold.h5" -o "$dir/few.pdf" --max-phase-labels 2 \
    --layout-json "$dir/few.json" || bad "--max-phase-labels 2: exit $?"
checks="$checks few $dir/few.json"
python3 - "$dir/few.json" <<'PY' || bad "--max-phase-labels 2 drew another number of phase labels"
import json, re, sys
d = json.load(open(sys.argv[1]))
n = sum(1 for t in d["texts"] if t["page"] == 1 and t["panel"] == "code"
        and re.search(r"\[\d+\]$", t["text"]))
print("phase labels with --max-phase-labels 2:", n)
sys.exit(0 if n == 2 else 1)
PY
# The source-line axis: one band per file, titled with the file and ticked
# within that file's lines (the synthetic scenario's lines, padded); the
# namd trace's two headers as bands, its stray library lines listed as not
# drawn instead of stretching the axis (issue 31).
python3 - "$dir/phases.json" "$dir/namd.json" <<'PY' || bad "the line axis bands are not one per file with its own lines"
import json, re, sys
def bands(path):
    d = json.load(open(path))
    code = [t for t in d["texts"] if t["page"] == 1 and t["panel"] == "code"]
    titles = sorted((t for t in code if t["role"] == "band title"), key=lambda t: t["y"])
    ticks = {}
    for t in code:
        if t["role"] == "tick" and re.fullmatch(r"\d+", t["text"]):
            mid = t["y"] + t["height"] / 2
            above = [b["text"] for b in titles if b["y"] - 2 <= mid]
            ticks.setdefault(above[-1] if above else None, []).append(int(t["text"]))
    notes = [t["text"] for t in code if t["role"] == "not drawn"]
    return [b["text"] for b in titles], ticks, notes
ok = True
# synth --scenario phases: lines of each file (synth/scenario.c), 3 lines each.
lines = {"stream.c": (214, 216), "stencil.c": (57, 59), "spmv.c": (112, 114),
         "symgs.c": (64, 93)}
names, ticks, notes = bands(sys.argv[1])
print("phases: bands", names, "ticks", ticks, "notes", notes)
if sorted(names) != sorted(lines) or None in ticks or notes:
    ok = False
for f, (lo, hi) in lines.items():
    if not ticks.get(f) or not all(lo - 3 <= v <= hi + 3 for v in ticks[f]):
        print("FAIL: %s ticked %s, its lines are %d-%d" % (f, ticks.get(f), lo, hi))
        ok = False
names, ticks, notes = bands(sys.argv[2])
print("namd: bands", names, "ticks", ticks, "notes", notes)
if sorted(names) != ["ComputeNonbondedBase.h", "ComputeNonbondedBase2.h"]:
    ok = False
if max(v for vs in ticks.values() for v in vs) > 1000 or len(notes) != 1 \
        or not notes[0].startswith("not drawn (samples): "):
    ok = False
sys.exit(0 if ok else 1)
PY
"$tf" render -q "$dir/nested.fold/fold.h5" --max-phase-labels 0 2>/dev/null
[ $? -eq 2 ] || bad "--max-phase-labels 0: exit not 2"

# shellcheck disable=SC2086
python3 "$check_py" $checks || fail=1

# Every text of the namd report is recorded: its routine names are there.
grep -q 'calc_self_energy' "$dir/namd.json" || bad "namd: no routine name in the layout record"
# namd compiles calc_self_energy from two headers: two entries, told apart
# by their file, not by a number.
grep -q 'calc_self_energy (ComputeNonbondedBase2\.h)' "$dir/namd.json" &&
    grep -q 'calc_self_energy (ComputeNonbondedBase\.h)' "$dir/namd.json" ||
    bad "namd: the routines named alike are not told apart by their file"
grep -q 'calc_self_energy ([0-9]' "$dir/namd.json" && bad "namd: a routine told apart by a number"

"$tf" render -q "$dir/phases.fold/fold.h5" -o "$dir/x.pdf" --layout-json "$dir/phases.json" 2>/dev/null &&
    bad "an existing layout record replaced without --force"
"$tf" render -q "$dir/phases.fold/fold.h5" --backend gnuplot -o "$dir/gp" --layout-json "$dir/l.json" 2>/dev/null
[ $? -eq 2 ] || bad "--layout-json with gnuplot: exit not 2"
"$tf" render -q "$dir/phases.fold/fold.h5" -o "$dir/y.pdf" --layout-json "$dir/no/such/l.json" 2>"$dir/err"
[ $? -eq 1 ] || bad "unwritable layout record: exit not 1"
grep -q "no/such/l.json" "$dir/err" || bad "unwritable layout record: message does not name it"
exit $fail
