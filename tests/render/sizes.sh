#!/bin/sh
# tracefold render --size and --grayscale: the reports of the suite's
# folds (one process, several with ASLR, nested phases, two kinds of
# instances, no memory, the namd Extrae trace) at every named size and at
# a WxH in inches, each page checked as layout.sh does (no overlap, nothing
# off its page or panel, nothing cut without its key); the page size in
# the PDF and in the gnuplot terminal; the grey palette; bad sizes.
set -u
tf=${TRACEFOLD:?}
check_py=${top_srcdir:?}/tests/render/layout_check.py
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-sizes-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

folds=
synth_fold() {
    name=$1
    shift
    "$tf" synth -q -o "$dir/$name.h5" --iterations 40 "$@" &&
        "$tf" fold -q --bootstrap 20 "$dir/$name.h5" -o "$dir/$name.fold" $fold_args &&
        folds="$folds $name" || bad "$name: synth or fold failed"
}
fold_args=
synth_fold phases
synth_fold processes --processes 3 --aslr
synth_fold nested --nested
synth_fold bare --no-memory --counters 1
fold_args="--groups auto"
synth_fold twokinds --scenario twokinds
namd=$dir/namd
mkdir "$namd" && gzip -dc "$top_srcdir/tests/data/extrae/444.namd.prv.gz" > "$namd/444.namd.prv" &&
    cp "$top_srcdir/tests/data/extrae/444.namd.pcf" "$top_srcdir/tests/data/extrae/444.namd.row" "$namd/" &&
    "$tf" fold -q --bootstrap 20 "$namd/444.namd.prv" --region "User function=main" -o "$dir/namd.fold" &&
    folds="$folds namd" || bad "namd: fold failed"

checks=
for size in single-column double-column slide 7x6in; do
    for f in $folds; do
        "$tf" render -q "$dir/$f.fold/fold.h5" -o "$dir/$f-$size.pdf" --size "$size" \
            --layout-json "$dir/$f-$size.json" || { bad "$f --size $size: exit $?"; continue; }
        checks="$checks $f@$size $dir/$f-$size.json"
    done
done
# shellcheck disable=SC2086
python3 "$check_py" $checks || fail=1

# A key that does not fit below the plots gets a page of its own: on the
# single column, namd's long C++ names make three pages (timeline, its key,
# tables), each checked above; PNG writes them as three files; a report
# whose key fits keeps two pages.
python3 - "$dir/namd-single-column.json" "$dir/phases-single-column.json" <<'PY' || bad "the pages of the key"
import json, sys
for path, want in zip(sys.argv[1:], (3, 2)):
    d = json.load(open(path))
    pages = max(t["page"] for t in d["texts"])
    key_only = {p["panel"] for p in d["panels"] if p["page"] == 2} <= {"title", "key"}
    print("%s: %d pages, page 2 key only: %s" % (path, pages, key_only))
    if pages != want or key_only != (want == 3):
        sys.exit(1)
PY
"$tf" render -q "$dir/namd.fold/fold.h5" -f png --dpi 30 -o "$dir/narrow.png" --size single-column ||
    bad "namd png --size single-column: exit $?"
[ -s "$dir/narrow-3.png" ] && [ ! -e "$dir/narrow-4.png" ] || bad "namd png single-column: not 3 files"

# The page sizes asked for, in points (1 mm = 72/25.4 pt), in the layout
# record and in the PDF.
python3 - "$dir" <<'PY' || bad "a page is not of the size asked for"
import json, sys
want = {"single-column": (88, 150), "double-column": (180, 160), "slide": (254, 142.875),
        "7x6in": (177.8, 152.4)}
ok = True
for size, (w, h) in want.items():
    d = json.load(open("%s/phases-%s.json" % (sys.argv[1], size)))
    got = (d["page_width"] * 25.4 / 72, d["page_height"] * 25.4 / 72)
    if abs(got[0] - w) > 0.1 or abs(got[1] - h) > 0.1:
        print("%s: %.1f x %.1f mm, not %g x %g" % (size, got[0], got[1], w, h))
        ok = False
sys.exit(0 if ok else 1)
PY
if command -v pdfinfo >/dev/null; then
    pdfinfo "$dir/phases-slide.pdf" | grep -q 'Page size: *720 x 405' ||
        bad "slide: the PDF page is not 720 x 405 pt"
fi
# Without --size, the page is the one it always was: 510 x 720 points.
"$tf" render -q "$dir/phases.fold/fold.h5" -o "$dir/default.pdf" --layout-json "$dir/default.json" ||
    bad "default size: exit $?"
grep -q '"page_width": *510' "$dir/default.json" && grep -q '"page_height": *720' "$dir/default.json" ||
    bad "the default page is no longer 510 x 720 points"

# --grayscale: no colour in the page (every pixel grey), colours without it.
"$tf" render -q "$dir/phases.fold/fold.h5" -f png --dpi 60 -o "$dir/grey.png" --grayscale ||
    bad "--grayscale: exit $?"
"$tf" render -q "$dir/phases.fold/fold.h5" -f png --dpi 60 -o "$dir/colour.png" ||
    bad "colour png: exit $?"
pages="$dir/grey.png $dir/colour.png $dir/grey-2.png $dir/colour-2.png"
# shellcheck disable=SC2086
python3 - $pages <<'PY' || bad "a --grayscale page has colour, or a default page none"
import struct, sys, zlib
def pixels(path):
    data = open(path, "rb").read()
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            bpp = {2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
            line[i] = (line[i] + pred) & 255
        out.append(line)
        prev = line
    return out, bpp
def coloured(path):
    rows, bpp = pixels(path)
    return sum(1 for r in rows for i in range(0, len(r), bpp)
               if max(r[i:i + 3]) - min(r[i:i + 3]) > 12)
ok = True
for grey, colour in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    g, c = coloured(grey), coloured(colour)
    print("%s: coloured pixels: --grayscale %d, default %d" % (grey, g, c))
    ok = ok and g == 0 and c > 100
sys.exit(0 if ok else 1)
PY

# The gnuplot back end follows: its terminal at the page size, grey
# colours and dashed curves in style.gp.
"$tf" render -q "$dir/phases.fold/fold.h5" --backend gnuplot -o "$dir/gp" --size slide --grayscale ||
    bad "gnuplot --size slide --grayscale: exit $?"
grep -q 'pdfcairo size 10.000in,5.625in' "$dir/gp/timeline.gp" ||
    bad "gnuplot: the terminal is not the slide's 10 x 5.625 in"
grep -q 'colour_series = "#000000 #595959 ' "$dir/gp/style.gp" || bad "gnuplot --grayscale: series not grey"
grep -q '^set dashtype 11 (4,1.5)' "$dir/gp/style.gp" || bad "gnuplot --grayscale: no dash patterns"
"$tf" render -q "$dir/phases.fold/fold.h5" --backend gnuplot -o "$dir/gp2" ||
    bad "gnuplot default: exit $?"
grep -q 'pdfcairo size 7.083in,10.000in' "$dir/gp2/timeline.gp" ||
    bad "gnuplot: the default terminal is not 510 x 720 pt"

# Time in the unit the cairo pages use: the namd iteration lasts 14.65 s.
if [ -d "$dir/namd.fold" ]; then
    "$tf" render -q "$dir/namd.fold/fold.h5" --backend gnuplot -o "$dir/gp3" || bad "gnuplot namd: exit $?"
    grep -q '^duration = 14\.6[0-9]* *# mean duration of the folded instances \[s\]' "$dir/gp3/timeline.gp" &&
        grep -q 'time in the synthetic iteration \[s\]' "$dir/gp3/rates.gp" ||
        bad "gnuplot: the namd time axis is not in seconds"
fi
grep -q 'time in the synthetic iteration \[ms\]' "$dir/gp2/rates.gp" ||
    bad "gnuplot: the 10 ms iteration's time axis is not in ms"

# Phase labels in gnuplot as on the cairo pages: on a narrow page the
# nested fold's labels that find no room are numbered marks, each with its
# entry in the page's key.
"$tf" render -q "$dir/nested.fold/fold.h5" --backend gnuplot -o "$dir/gp4" --size single-column ||
    bad "gnuplot nested single-column: exit $?"
python3 - "$dir/gp4" <<'PY' || bad "gnuplot: phase marks and key entries do not match"
import re, sys
code = open(sys.argv[1] + "/code.gp", encoding="utf-8").read()
page = open(sys.argv[1] + "/timeline.gp", encoding="utf-8").read()
marks = re.findall(r'^set label 2\d\d "([⁰¹²³⁴⁵⁶⁷⁸⁹]+)"', code, re.M)
keys = re.findall(r'^set label \d+ "([⁰¹²³⁴⁵⁶⁷⁸⁹]+) [^"]+\]" at screen', page, re.M)
print("phase marks:", marks, "key entries:", keys)
sys.exit(0 if marks and marks == keys else 1)
PY

# The source-line bands in gnuplot as on the cairo pages: the synthetic
# scenario's four files, each titled in its strip (line_axis.h).
"$tf" render -q "$dir/phases.fold/fold.h5" --backend gnuplot -o "$dir/gp5" || bad "gnuplot phases: exit $?"
for file in stream.c stencil.c spmv.c symgs.c; do
    grep -q "^set label 11[0-3] \"$file\" at graph" "$dir/gp5/code.gp" ||
        bad "gnuplot: no band titled $file in code.gp"
done

# Bad sizes: one message naming the option and the value (then the usual
# pointer to --help), exit 2, no output.
for v in a4 0x0 88x 88x150cm 10x150 88x1000 -88x150 88x150inx; do
    "$tf" render -q "$dir/phases.fold/fold.h5" -o "$dir/bad.pdf" --size "$v" 2>"$dir/err"
    rc=$?
    [ $rc -eq 2 ] || bad "--size $v: exit $rc, not 2"
    head -n 1 "$dir/err" | grep -q -- "--size: '$v' is not single-column, double-column, slide or WxH" ||
        bad "--size $v: not one message naming it: $(cat "$dir/err")"
    [ -e "$dir/bad.pdf" ] && bad "--size $v: wrote an output"
done
exit $fail
