#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A trace whose strings hold terminal escape sequences, line breaks, DEL,
# C1 controls and bytes that are not UTF-8 (write_fixture_trace --hostile):
# info's text and JSON, fold's messages, its CSV tables, summary.md,
# report, folded.pcf and folded.row, the gnuplot scripts of render and the
# Paraver export carry no raw control byte; the strings are there escaped as \xNN (docs/manual.md,
# "Text from a trace"); CSV rows stay one line each with their quoting.
set -u
tf=${TRACEFOLD:?}
mk=${top_builddir:?}/tests/formats/write_fixture_trace
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-ctrl.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$mk" --hostile "$dir/t.h5" || { echo "FAIL: cannot write the trace"; exit 1; }
"$tf" info "$dir/t.h5" > "$dir/info.txt" 2> "$dir/info.err" || bad "info exit $?"
"$tf" info --json "$dir/t.h5" > "$dir/info.json" || bad "info --json exit $?"
"$tf" fold "$dir/t.h5" -o "$dir/fold" 2> "$dir/fold.err" || bad "fold exit $?: $(cat "$dir/fold.err")"
# pdftotext ends each page with a form feed of its own.
pdftotext "$dir/fold/report.pdf" - > "$dir/report.ff" || bad "report.pdf unreadable"
tr -d '\f' < "$dir/report.ff" > "$dir/report.txt"
"$tf" render -q -b gnuplot -o "$dir/gp" "$dir/fold/fold.h5" || bad "render -b gnuplot exit $?"
cat "$dir"/gp/*.gp > "$dir/gnuplot.txt" || bad "no gnuplot scripts"
"$tf" paraver -q -o "$dir/p.prv" "$dir/t.h5" || bad "paraver exit $?"

# Every output: no C0 control but the line feed, no DEL, no C1 control (in
# UTF-8 or as a lone byte), nothing that is not UTF-8.
python3 - "$dir" info.txt info.err info.json fold.err fold/instances.csv fold/phases.csv \
    fold/objects.csv fold/streams.csv fold/levels.csv fold/advice.csv fold/curves.csv fold/summary.md \
    report.txt fold/folded.pcf fold/folded.row gnuplot.txt p.pcf p.row <<'PY' || fail=1
import re, sys
d = sys.argv[1]
ok = True
for name in sys.argv[2:]:
    data = open(d + "/" + name, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"FAIL: {name}: not UTF-8 at byte {e.start}: {data[max(0, e.start - 20):e.start + 5]!r}")
        ok = False
        continue
    m = re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", text)
    if m:
        print(f"FAIL: {name}: raw control {m.group()!r} in {text[max(0, m.start() - 30):m.end() + 10]!r}")
        ok = False
sys.exit(0 if ok else 1)
PY

# The strings are there, escaped.
has() { grep -qF -- "$2" "$dir/$1" || bad "$1 lacks '$2'"; }
has info.txt 'host:        evil\x1b]0;pwned\x07host'
has info.txt 'command:     ./app\x1b[2J\x0d\x0a1 2'
has info.txt 'executable /bin/\x9b31mapp'
has info.txt 'instr\x09uctions, cy\x1b[5mcles, L1D, "misses"\x0d'
has info.txt 'matrix\x7f\xc2\x9b2J|x\xe2\x82'
grep -Eq '^  main\\x1b\[31m\\x0aloop +6 +0 ' "$dir/info.txt" || bad "info: region row not aligned"
has fold.err "region 'main\\x1b[31m\\x0aloop'"
has fold/summary.md '## Region `main\x1b[31m\x0aloop`'
has fold/summary.md '| matrix\x7f\xc2\x9b2J\|x\xe2\x82 | heap |'

# The report is drawn (pango refuses text that is not UTF-8), with the
# names escaped.
grep -q 'drawing failed' "$dir/fold.err" && bad "fold: $(grep 'drawing failed' "$dir/fold.err")"
has report.txt 'main\x1b[31m\x0aloop'
has report.txt 'matrix\x7f\xc2\x9b2J|x\xe2\x82'

# folded.pcf and the export's .pcf name the region escaped, one line each,
# and read back (the .pcf reader refuses control characters); the .row
# names the host escaped.  gnuplot reads backslash escapes in double
# quotes: the escape's backslash comes doubled.
has fold/folded.pcf 'main\x1b[31m\x0aloop'
has p.pcf 'main\x1b[31m\x0aloop'
has p.row 'evil\x1b]0;pwned\x07host'
"$tf" paraver -q --check "$dir/fold/folded.prv" > /dev/null 2> "$dir/check.err" ||
    bad "folded.prv fails --check: $(cat "$dir/check.err")"
grep -qF 'main\\x1b[31m\\x0aloop' "$dir/gnuplot.txt" || bad "gnuplot scripts lack the region, escaped"

# JSON keeps the exact strings, in \u escapes.
python3 - "$dir/info.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
want = {"host": "evil\x1b]0;pwned\x07host", "command_line": "./app\x1b[2J\r\n1 2"}
for k, v in want.items():
    if d[k] != v:
        print(f"FAIL: info --json {k}: {d[k]!r}, expected {v!r}")
        sys.exit(1)
if d["regions"][0]["name"] != "main\x1b[31m\nloop":
    print(f"FAIL: info --json region: {d['regions'][0]['name']!r}")
    sys.exit(1)
PY

# CSV: one line per row, every row as wide as its header; the fields read
# back as the escaped strings (quoting kept for ',' and '"').
python3 - "$dir/fold" <<'PY' || fail=1
import csv, sys
d = sys.argv[1]
ok = True
for name in ("instances.csv", "phases.csv", "objects.csv", "streams.csv"):
    lines = open(f"{d}/{name}", encoding="utf-8", newline="").read().split("\n")
    rows = list(csv.reader(l for l in lines if l))
    if len(rows) != len([l for l in lines if l]):
        print(f"FAIL: {name}: a row spans lines"); ok = False
    if any(len(r) != len(rows[0]) for r in rows):
        print(f"FAIL: {name}: rows of different widths"); ok = False
inst = list(csv.DictReader(open(f"{d}/instances.csv", encoding="utf-8", newline="")))
if len(inst) != 6 or any(r["region"] != "main\\x1b[31m\\x0aloop" for r in inst):
    print(f"FAIL: instances.csv regions: {[r['region'] for r in inst]}"); ok = False
head = next(csv.reader(open(f"{d}/phases.csv", encoding="utf-8", newline="")))
if not any('L1D, "misses"\\x0d' in h for h in head):
    print(f"FAIL: phases.csv header lacks the escaped counter name: {head}"); ok = False
objs = list(csv.DictReader(open(f"{d}/objects.csv", encoding="utf-8", newline="")))
names = [v for r in objs for v in r.values()]
if "matrix\\x7f\\xc2\\x9b2J|x\\xe2\\x82" not in names:
    print(f"FAIL: objects.csv lacks the escaped object name: {objs}"); ok = False
sys.exit(0 if ok else 1)
PY
exit $fail
