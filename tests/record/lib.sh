# Shared by the recorder's scenario tests (sourced).
tf=${TRACEFOLD:?run by make check}
bd=${top_builddir:?run by make check}
apps=$bd/tests/record
check=$apps/check_trace
# A linked program started without `tracefold record` runs this writer.
TRACEFOLD_PROGRAM=$tf
export TRACEFOLD_PROGRAM
# In a sanitizer build (--enable-sanitizers) the preloaded recorder comes
# before the AddressSanitizer runtime in the library list; that is fine
# for these programs, which are all built with it.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-record-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# kill_recorded SECONDS RECORD-ARGS...: runs `tracefold record RECORD-ARGS`
# in the background, SIGKILLs the recorded program after SECONDS, and
# checks that record reports the kill (status 137).
kill_recorded() {
    secs=$1
    shift
    "$tf" record "$@" &
    rec=$!
    sleep "$secs"
    app=$(ps -o pid= --ppid $rec | tr -d ' ')
    [ -n "$app" ] || fail "recorded program not found"
    kill -KILL "$app"
    wait $rec
    rc=$?
    [ $rc -eq 137 ] || fail "record should report the kill (137), got $rc"
}
# helper_trace PREFIX: the trace PREFIX*.h5 that the helper writer of a
# linked program closes shortly after the program's end (waits up to 10 s).
helper_trace() {
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        f=$(ls "$1"*.h5 2>/dev/null | head -n1)
        [ -n "$f" ] && [ "$(field complete "$f" 2>/dev/null)" = 1 ] && break
        sleep 0.5
    done
    # Run inside $(...): the message goes to stderr, the caller exits.
    [ -n "$f" ] || { echo "FAIL: no trace written by the helper" >&2; return 1; }
    echo "$f"
}
# field NAME FILE: a key=value of check_trace's summary line.
field() { "$check" summary "$2" | sed -n "1s/.* $1=\([^ ]*\).*/\1/p;1s/^$1=\([^ ]*\).*/\1/p"; }
