#!/bin/sh
# `tracefold fold` writes the analysis tables: on a synth trace of two
# processes with shifted address layouts, the phases, objects and the ten
# true streams (directions and patterns), the levels, no advice (none of
# the patterns is strong enough evidence), summary.md, and the
# analysis group in fold.h5.
tf=${TRACEFOLD:?run by make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-fold-analysis.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$tf" synth -q -o "$tmp/s.h5" --processes 2 --aslr --iterations 150 || fail "synth"
"$tf" fold -q -o "$tmp/f" "$tmp/s.h5" || fail "fold exit status $?"
for f in phases.csv objects.csv streams.csv levels.csv advice.csv summary.md; do
    [ -s "$tmp/f/$f" ] || fail "no $f"
done
# Advice (docs/algorithms.md, "Advice"): the stencil's 256-byte stride is 4
# cache lines, under the column-walk rule's 8: no advice, and summary.md
# says why.
[ "$(awk 'END { print NR }' "$tmp/f/advice.csv")" = 1 ] || fail "advice on weak evidence: $(cat "$tmp/f/advice.csv")"
grep -q "^None: no rule's evidence is strong enough" "$tmp/f/summary.md" || fail "summary.md: no advice section saying why"
# phase,routine,line of every phase (columns 3, 8, 10)
got=$(awk -F, 'NR > 1 { printf "%s:%s:%s ", $3, $8, $10 }' "$tmp/f/phases.csv")
want="1:stream_copy:214 2:stencil_apply:57 3:spmv_gather:112 4:symgs:64 4.1:symgs:64 4.2:symgs:91 "
[ "$got" = "$want" ] || fail "phases: got '$got', want '$want'"
[ "$(awk 'END { print NR - 1 }' "$tmp/f/objects.csv")" = 4 ] || fail "objects: not the four objects of both processes"
# phase,object,direction,stride,streams,pattern (columns 3-8)
got=$(awk -F, 'NR > 1 { printf "%s:%s:%s:%s:%s:%s ", $3, $4, $5, $6, $7, $8 }' "$tmp/f/streams.csv")
want="1:main.c:41:down:8:1:linear 1:main.c:42:down:8:1:linear 2:main.c:42:up:256:1:strided \
2:grid:up:8:3:linear 3:main.c:41:none:0:1:random 3:main.c:45:up:8:1:linear \
4.1:main.c:41:up:8:1:linear 4.1:main.c:42:up:8:1:linear 4.2:main.c:41:down:8:1:linear \
4.2:main.c:42:down:8:1:linear "
[ "$got" = "$want" ] || fail "streams: got '$got', want '$want'"
grep -q '^iteration,0,3,DRAM,.*,[0-9]*;[0-9]*$' "$tmp/f/levels.csv" ||
    fail "the gather's DRAM costs are not reported with two modes"
if command -v h5ls >/dev/null 2>&1; then
    h5ls -r "$tmp/f/fold.h5" | grep -q '^/region/0/group/0/analysis/streams/bandwidth_MBps ' ||
        fail "no analysis group in fold.h5"
fi
exit 0
