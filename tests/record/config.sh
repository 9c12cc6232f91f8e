#!/bin/sh
# Configuration: file, environment and flags with their precedence; errors
# name the file and line (or the variable); `tracefold record` refuses to
# start on a bad file; a linked program given a bad file runs unrecorded.
. "$top_srcdir/tests/record/lib.sh"
printf '<?xml version="1.0"?>\n<tracefold>\n  <period>2ms</period>\n</tracefold>\n' > "$tmp/ok.xml"
p() { "$tf" record "$@" --print-env | sed -n 's/^TRACEFOLD_PERIOD=//p'; }
[ "$(p -c "$tmp/ok.xml")" = 2000000ns ] || fail "file value not applied"
[ "$(TRACEFOLD_PERIOD=3ms p -c "$tmp/ok.xml")" = 3000000ns ] || fail "env should beat the file"
[ "$(TRACEFOLD_PERIOD=3ms p -c "$tmp/ok.xml" --period 4ms)" = 4000000ns ] ||
    fail "flag should beat env"
[ "$(TRACEFOLD_CONFIG="$tmp/ok.xml" p)" = 2000000ns ] || fail "TRACEFOLD_CONFIG not read"

# A list option (alloc-wrapper, region) in several elements, or flags, adds up.
printf '<tracefold>\n<alloc-wrapper>xmalloc</alloc-wrapper>\n<alloc-wrapper> pool::get </alloc-wrapper>\n</tracefold>\n' > "$tmp/wrap.xml"
w() { "$tf" record "$@" --print-env | sed -n 's/^TRACEFOLD_ALLOC_WRAPPER=//p'; }
[ "$(w -c "$tmp/wrap.xml")" = "xmalloc,pool::get" ] ||
    fail "alloc-wrapper elements: got '$(w -c "$tmp/wrap.xml")', expected 'xmalloc,pool::get'"
[ "$(w --alloc-wrapper a --alloc-wrapper b)" = "a,b" ] || fail "--alloc-wrapper not repeatable"
[ "$(w)" = none ] || fail "alloc-wrapper's default is not none"

printf '<tracefold>\n<period>1ms</period>\n<period>2ms</perio>\n</tracefold>\n' > "$tmp/bad.xml"
printf '<tracefold>\n\n<speed>1</speed>\n</tracefold>\n' > "$tmp/unknown.xml"
printf '<tracefold>\n<stack-depth>deep</stack-depth>\n</tracefold>\n' > "$tmp/value.xml"
for c in "bad.xml:3:" "unknown.xml:3: unknown option <speed>" "value.xml:2: stack-depth"; do
    f=${c%%:*}
    "$tf" record -c "$tmp/$f" -- "$apps/plain_app" 10 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "$f: exit status $rc, expected 1"
    grep -qF "$tmp/$c" "$tmp/err" || fail "$f: message lacks '$c': $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "$f: the program was started"
done
TRACEFOLD_PERIOD=fast "$tf" record -- "$apps/plain_app" 10 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "bad environment value accepted"
grep -q TRACEFOLD_PERIOD "$tmp/err" || fail "bad environment value: variable not named"
"$tf" record --speed 3 -- "$apps/plain_app" 10 >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown flag should be a usage error"

# A linked program started directly with a bad file: it runs, unrecorded.
out=$(TRACEFOLD_CONFIG="$tmp/bad.xml" TRACEFOLD_OUTPUT="$tmp/never.h5" \
      "$apps/threads_app" 2 2 2>"$tmp/err") || fail "linked program failed with a bad file"
grep -qF "$tmp/bad.xml:3:" "$tmp/err" || fail "linked program: no line number: $(cat "$tmp/err")"
grep -q "without recording" "$tmp/err" || fail "linked program: no 'without recording' note"
grep -q "not starting" "$tmp/err" && fail "linked program: told both 'not starting' and 'runs on'"
sleep 0.3
[ -e "$tmp/never.h5" ] && fail "linked program with a bad file wrote a trace"
exit 0
