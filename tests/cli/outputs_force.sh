#!/bin/sh
# The rule for existing outputs (docs/manual.md, "Existing outputs and
# --force") in every command that writes but record (tests/record/
# outputs.sh): an existing output is refused without --force; an output is
# never an input, however it is reached (the same name, a hard link, a
# symbolic link); --force replaces only what tracefold wrote (a trace,
# a fold folder holding its marker and nothing else) and never a folder
# holding an input.  Every refusal exits 1 with one line naming the file and
# leaves every file as it was.
set -u
tf=${TRACEFOLD:?run by make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-outputs-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# refused PATTERN CMD...: exit 1, stderr one line matching PATTERN, and no
# file of $tmp changed, appeared or vanished.
refused() {
    pattern=$1
    shift
    (cd "$tmp" && find . -type f ! -name '.state*' -exec md5sum {} + | sort) >"$tmp/.state.before"
    "$@" >/dev/null 2>"$tmp/.state.err"
    rc=$?
    (cd "$tmp" && find . -type f ! -name '.state*' -exec md5sum {} + | sort) >"$tmp/.state.after"
    [ $rc -eq 1 ] || bad "$*: exit $rc, expected 1: $(cat "$tmp/.state.err")"
    [ "$(wc -l <"$tmp/.state.err")" -eq 1 ] || bad "$*: not one line: $(cat "$tmp/.state.err")"
    grep -Eq -- "$pattern" "$tmp/.state.err" ||
        bad "$*: message '$(cat "$tmp/.state.err")' lacks /$pattern/"
    cmp -s "$tmp/.state.before" "$tmp/.state.after" ||
        bad "$*: files changed: $(diff "$tmp/.state.before" "$tmp/.state.after" | head -4)"
}

"$tf" synth -q -o "$tmp/t.h5" --seed 3 --iterations 40 --no-memory || exit 1
"$tf" paraver -q "$tmp/t.h5" -o "$tmp/x.prv" || exit 1
echo "the user's notes" >"$tmp/notes.txt"

# synth: an existing file is kept without --force; --force replaces a
# tracefold trace, never another file.
refused "t.h5: exists \(use --force" "$tf" synth -q -o "$tmp/t.h5" --iterations 5
refused "notes.txt: exists and is not a tracefold trace" \
    "$tf" synth -q -o "$tmp/notes.txt" --iterations 5 --force
cp "$tmp/t.h5" "$tmp/t2.h5"
"$tf" synth -q -o "$tmp/t2.h5" --iterations 5 --force || bad "synth --force over a trace"
cmp -s "$tmp/t.h5" "$tmp/t2.h5" && bad "synth --force did not replace the trace"

# paraver --import: never onto its input, nor the input's .pcf or .row,
# even with --force; an existing trace only with --force; never a file
# that is not a trace.
refused "x.prv: the output is the input" "$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/x.prv"
refused "the output is the input" "$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/x.prv" --force
refused "x.pcf: the output is the input" "$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/x.pcf" --force
ln "$tmp/x.prv" "$tmp/hard.h5"
refused "hard.h5: the output is the input .*x.prv" \
    "$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/hard.h5" --force
rm "$tmp/hard.h5"
"$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/back.h5" || bad "--import into a new file"
refused "back.h5: exists \(use --force" "$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/back.h5"
"$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/back.h5" --force || bad "--import --force over a trace"
refused "notes.txt: exists and is not a tracefold trace" \
    "$tf" paraver -q --import "$tmp/x.prv" -o "$tmp/notes.txt" --force

# paraver export: .prv, .pcf and .row, each checked; an input reached by a
# hard or a symbolic link is refused even with --force.
refused "x.prv: exists \(use --force" "$tf" paraver -q "$tmp/t.h5" -o "$tmp/x.prv"
mv "$tmp/x.prv" "$tmp/y.prv"
refused "x.pcf: exists \(use --force" "$tf" paraver -q "$tmp/t.h5" -o "$tmp/x.prv"
mv "$tmp/y.prv" "$tmp/x.prv"
"$tf" paraver -q "$tmp/t.h5" -o "$tmp/x.prv" --force || bad "paraver --force"
ln "$tmp/t.h5" "$tmp/link.prv"
refused "link.prv: the output is the input .*t.h5" "$tf" paraver -q "$tmp/t.h5" -o "$tmp/link.prv" --force
rm "$tmp/link.prv"
ln -s t.h5 "$tmp/sym.prv"
refused "sym.prv: the output is the input .*t.h5" "$tf" paraver -q "$tmp/t.h5" -o "$tmp/sym.prv" --force
rm "$tmp/sym.prv"
ln -s "$tmp/t.h5" "$tmp/sym.pcf"
refused "sym.pcf: the output is the input" "$tf" paraver -q "$tmp/t.h5" -o "$tmp/sym.prv" --force
rm "$tmp/sym.pcf"

# fold: a folder fold wrote (its marker) is replaced with --force; not
# one holding a file fold did not write, nor the trace folded, nor a
# folder without the marker.
"$tf" fold -q "$tmp/t.h5" -o "$tmp/d" || bad "fold into a new folder"
[ -f "$tmp/d/.tracefold-fold" ] || bad "fold wrote no marker"
grep -qx "fold.h5" "$tmp/d/.tracefold-fold" || bad "the marker does not list fold.h5"
refused "d: exists \(use --force" "$tf" fold -q "$tmp/t.h5" -o "$tmp/d"
"$tf" fold -q "$tmp/t.h5" -o "$tmp/d" --force || bad "fold --force over an earlier fold"
cp "$tmp/t.h5" "$tmp/d/in.h5"
refused "d: the output folder holds the input .*d/in.h5" "$tf" fold -q "$tmp/d/in.h5" -o "$tmp/d" --force
ln -s d/in.h5 "$tmp/via-link.h5"
refused "d: the output folder holds the input .*via-link.h5" \
    "$tf" fold -q "$tmp/via-link.h5" -o "$tmp/d" --force
rm "$tmp/via-link.h5"
mkdir "$tmp/d/debug"
refused "d: the output folder holds the input .*d/debug" \
    "$tf" fold -q "$tmp/t.h5" -o "$tmp/d" --force --debug-dir "$tmp/d/debug"
rmdir "$tmp/d/debug"
refused "d: holds in.h5, which tracefold did not write" "$tf" fold -q "$tmp/t.h5" -o "$tmp/d" --force
rm "$tmp/d/in.h5"
mkdir "$tmp/mine" && cp "$tmp/notes.txt" "$tmp/mine/"
refused "mine: a folder tracefold did not write \(no .tracefold-fold" \
    "$tf" fold -q "$tmp/t.h5" -o "$tmp/mine" --force
cp "$tmp/d/.tracefold-fold" "$tmp/mine/"
refused "mine: holds notes.txt, which tracefold did not write" \
    "$tf" fold -q "$tmp/t.h5" -o "$tmp/mine" --force
mkdir "$tmp/empty"
"$tf" fold -q "$tmp/t.h5" -o "$tmp/empty" --force || bad "fold --force into an empty folder"

# render: the report fold drew is redrawn only with --force; the fold file
# itself is never an output.
refused "d/report.pdf: exists \(use --force" "$tf" render -q "$tmp/d/fold.h5"
"$tf" render -q "$tmp/d/fold.h5" --force || bad "render --force"
refused "fold.h5: the output is the input" "$tf" render -q "$tmp/d/fold.h5" -o "$tmp/d/fold.h5" --force

exit $fail
