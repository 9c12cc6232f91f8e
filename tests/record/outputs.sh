#!/bin/sh
# The rule for existing outputs in `tracefold record` (docs/manual.md,
# "Existing outputs and --force"): an existing file is never replaced
# without --force (flag, TRACEFOLD_FORCE or <force> in a configuration
# file), and never, even with it, when it is not a tracefold trace: the
# program's own input stays whole.  A name known before the program starts
# is refused before it starts (exit 1, the program not run); a name known
# only later (%e, %p) is refused by the writer: the program runs untraced
# and record exits 1.  A link to nothing is refused, never followed.
. "$top_srcdir/tests/record/lib.sh"
echo "the program's input" >"$tmp/input.txt"
cp "$tmp/input.txt" "$tmp/keep.txt"

# not_started NAME PATTERN ARGS...: record exits 1 without running the
# program, one message matching PATTERN; input.txt unchanged.
not_started() {
    name=$1 pattern=$2
    shift 2
    "$tf" record "$@" -- "$apps/plain_app" 10 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "$name: exit status $rc, expected 1: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "$name: the program was started"
    grep -Eq -- "$pattern" "$tmp/err" || fail "$name: message lacks /$pattern/: $(cat "$tmp/err")"
    grep -q "not starting" "$tmp/err" || fail "$name: does not say it is not starting"
    cmp -s "$tmp/input.txt" "$tmp/keep.txt" || fail "$name: input.txt changed"
}

not_started "onto a file" "input.txt: exists \(use --force" -q -o "$tmp/input.txt"
not_started "onto a file, --force" "input.txt: exists and is not a tracefold trace" \
    -q --force -o "$tmp/input.txt"
ln "$tmp/input.txt" "$tmp/hard.h5"
not_started "onto a hard link, --force" "hard.h5: exists and is not a tracefold trace" \
    -q --force -o "$tmp/hard.h5"
ln -s input.txt "$tmp/sym.h5"
not_started "onto a symbolic link, --force" "sym.h5: exists and is not a tracefold trace" \
    -q --force -o "$tmp/sym.h5"
ln -s "$tmp/elsewhere/x.h5" "$tmp/dangling.h5"
mkdir "$tmp/elsewhere"
not_started "onto a link to nothing, --force" "dangling.h5: a link to .*x.h5, which does not exist; not followed" \
    -q --force -o "$tmp/dangling.h5"
[ -e "$tmp/elsewhere/x.h5" ] && fail "a trace was written where the dangling link points"
printf '<tracefold>\n  <output>%s</output>\n  <force>yes</force>\n</tracefold>\n' \
    "$tmp/input.txt" >"$tmp/c.xml"
not_started "a configuration's <output>" "input.txt: exists and is not a tracefold trace" \
    -q -c "$tmp/c.xml"

# A trace: refused without --force, replaced with it (flag, variable or
# configuration file).
out=$("$tf" record -q -o "$tmp/t.h5" -- "$apps/plain_app" 30) || fail "first record: $?"
cp "$tmp/t.h5" "$tmp/first.h5"
not_started "onto a trace" "t.h5: exists \(use --force" -q -o "$tmp/t.h5"
cmp -s "$tmp/t.h5" "$tmp/first.h5" || fail "the trace changed without --force"
"$tf" record -q --force -o "$tmp/t.h5" -- "$apps/plain_app" 30 >/dev/null || fail "--force: $?"
cmp -s "$tmp/t.h5" "$tmp/first.h5" && fail "--force did not replace the trace"
"$check" summary "$tmp/t.h5" >/dev/null || fail "the replaced trace does not open"
TRACEFOLD_FORCE=yes "$tf" record -q -o "$tmp/t.h5" -- "$apps/plain_app" 30 >/dev/null ||
    fail "TRACEFOLD_FORCE=yes: $?"
printf '<tracefold>\n  <output>%s</output>\n  <force>yes</force>\n</tracefold>\n' \
    "$tmp/t.h5" >"$tmp/f.xml"
"$tf" record -q -c "$tmp/f.xml" -- "$apps/plain_app" 30 >/dev/null || fail "<force>yes</force>: $?"
not_started "--force=no" "t.h5: exists \(use --force" -q -c "$tmp/f.xml" --force=no -o "$tmp/t.h5"

# A name known only when the trace is created (%e): the program runs
# untraced, the writer says why, record exits 1; the program's own
# failure is its status.
cp "$tmp/input.txt" "$tmp/plain_app.h5"
out=$("$tf" record -q --force -o "$tmp/%e.h5" -- "$apps/plain_app" 30 2>"$tmp/err")
rc=$?
[ $rc -eq 1 ] || fail "%e onto a file: exit status $rc, expected 1: $(cat "$tmp/err")"
[ "$out" = "plain_app done" ] || fail "%e onto a file: the program did not run"
grep -q "plain_app.h5: exists and is not a tracefold trace.*; process [0-9]* runs on untraced" \
    "$tmp/err" || fail "%e onto a file: message: $(cat "$tmp/err")"
grep -q "1 trace could not be written" "$tmp/err" || fail "%e onto a file: no closing error"
cmp -s "$tmp/input.txt" "$tmp/plain_app.h5" || fail "%e onto a file: the file changed"
"$tf" record -q --force -o "$tmp/%e.h5" -- "$apps/plain_app" 30 7 >/dev/null 2>&1
[ $? -eq 7 ] || fail "%e onto a file, program failing: not its status 7"
exit 0
