#!/bin/sh
# tracefold render from the command line: a synthetic trace folded, then
# rendered in every format and with the gnuplot back end; wrong options,
# a missing fold file and an unwritable output fail cleanly.
set -u
tf=${TRACEFOLD:?}
dir=$(mktemp -d /tmp/tf-render-cmd-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail=0
check() { echo "FAIL: $*"; fail=1; }

"$tf" synth -q -o "$dir/s.h5" --iterations 60 || { echo "synth failed"; exit 1; }
"$tf" fold -q "$dir/s.h5" -o "$dir/s.fold" || { echo "fold failed"; exit 1; }
fold=$dir/s.fold/fold.h5
# tracefold fold draws the report by default.
[ -s "$dir/s.fold/report.pdf" ] || check "tracefold fold wrote no report.pdf"
rm -f "$dir/s.fold/report.pdf"

# PDF beside the fold file by default, with its text.
"$tf" render -q "$fold" || check "render pdf exit $?"
[ -s "$dir/s.fold/report.pdf" ] || check "no report.pdf"
if command -v pdftotext >/dev/null; then
    text=$(pdftotext "$dir/s.fold/report.pdf" - 2>/dev/null)
    for want in "region iteration" "Source code" "Address space" "Performance" "source line" \
                "MIPS" "time in the synthetic iteration [ms]" "Phases" "Instance durations"; do
        echo "$text" | grep -qF "$want" || check "'$want' not in the PDF"
    done
    # Every phase label routine[line] of the phase table is in the figure.
    echo "$text" | grep -qE '[a-z_]+\[[0-9]+\]' || check "no routine[line] label in the PDF"
fi

# SVG: one well-formed file per page.
"$tf" render -q "$fold" --format svg -o "$dir/r.svg" || check "render svg exit $?"
for f in "$dir/r.svg" "$dir/r-2.svg"; do
    [ -s "$f" ] || { check "no $f"; continue; }
    if command -v xmllint >/dev/null; then
        xmllint --noout --huge "$f" || check "$f is not well-formed"
    fi
done

# PNG at 300 dpi: 510 x 720 points -> 2125 x 3000 pixels.
"$tf" render -q "$fold" -f png --dpi 300 -o "$dir/r.png" || check "render png exit $?"
size=$(od -An -tu1 -j16 -N8 "$dir/r.png" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}')
[ "$size" = "2125x3000" ] || check "PNG at 300 dpi is $size"

# gnuplot back end, run.
"$tf" render -q "$fold" --backend gnuplot -o "$dir/gp" || check "gnuplot scripts exit $?"
[ -s "$dir/gp/timeline.gp" ] && [ -s "$dir/gp/code.dat" ] || check "no gnuplot scripts"
"$tf" render -q "$fold" --backend gnuplot -o "$dir/gp" 2>/dev/null &&
    check "an existing gnuplot folder replaced without --force"
if "${GNUPLOT:-gnuplot}" --version >/dev/null 2>&1; then
    "$tf" render -q "$fold" --backend gnuplot --run -f png -o "$dir/gp" --force ||
        check "gnuplot --run exit $?"
    [ -s "$dir/gp/timeline.png" ] && [ -s "$dir/gp/tables.png" ] || check "gnuplot made no PNG"
fi

# Errors: exit 1 and no file for bad input or output, exit 2 for the command line.
"$tf" render -q "$dir/none.h5" 2>/dev/null; [ $? -eq 1 ] || check "missing fold file: exit not 1"
"$tf" render -q "$dir/s.h5" 2>"$dir/err"; [ $? -eq 1 ] || check "a trace given as fold file: exit not 1"
grep -q "s.h5" "$dir/err" || check "the error does not name the file"
"$tf" render -q "$fold" -o "$dir/no/such/dir/r.pdf" 2>"$dir/err"; [ $? -eq 1 ] || check "unwritable output: exit not 1"
grep -q "no/such/dir/r.pdf" "$dir/err" || check "unwritable output: message does not name it"
[ -e "$dir/no" ] && check "unwritable output left something"
"$tf" render "$fold" --format gif 2>/dev/null; [ $? -eq 2 ] || check "--format gif: exit not 2"
"$tf" render "$fold" --dpi 0 2>/dev/null; [ $? -eq 2 ] || check "--dpi 0: exit not 2"
"$tf" render "$fold" --run 2>/dev/null; [ $? -eq 2 ] || check "--run without gnuplot: exit not 2"
ls "$dir"/s.fold | grep -q 'tmp' && check "temporary files left in the fold directory"
exit $fail
