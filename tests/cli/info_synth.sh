#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tracefold info on a synthetic trace reports what synth was asked to make,
# as text and as JSON that parses.
set -u
tf=${TRACEFOLD:?}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-info.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

t="$dir/t.h5"
"$tf" synth -o "$t" --processes 2 --threads 3 --iterations 7 --nested --counters 5 \
    --samples-per-iteration 20 --quiet || { echo "FAIL: synth"; exit 1; }

"$tf" info "$t" >"$dir/text" 2>"$dir/err" || bad "info exit $?"
[ -s "$dir/err" ] && bad "info wrote to stderr: $(cat "$dir/err")"
grep -q '^processes: 2$' "$dir/text" || bad "text: processes"
[ "$(grep -c '^  threads: 3$' "$dir/text")" -eq 2 ] || bad "text: threads per process"
grep -q '^complete: *yes$' "$dir/text" || bad "text: complete"
grep -Eq '^  iteration +42 +0 ' "$dir/text" || bad "text: 42 iteration instances"
grep -Eq '^  symgs_bwd +42 +0 ' "$dir/text" || bad "text: 42 nested symgs_bwd instances"
grep -q '^regions: 6$' "$dir/text" || bad "text: 6 regions"
grep -q 'counters: 5 (instructions, cycles, L1D_misses, L2_misses, LLC_misses)' "$dir/text" ||
    bad "text: counters"
grep -q '^  data objects: 4$' "$dir/text" || bad "text: data objects"

"$tf" info --json "$t" >"$dir/json" || bad "info --json exit $?"
python3 - "$dir/json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
def check(cond, what):
    if not cond:
        print("FAIL: json:", what)
        sys.exit(1)
check(d["complete"] is True, "complete")
check(len(d["processes"]) == 2, "2 processes")
for p in d["processes"]:
    check(len(p["threads"]) == 3, "3 threads")
    check(len(p["counters"]) == 5, "5 counters")
    check(len(p["objects"]) == 4, "4 objects")
    check(p["rank"] in (0, 1) and p["nranks"] == 2, "ranks")
regions = {r["name"]: r for r in d["regions"]}
check(set(regions) == {"iteration", "copy", "stencil", "gather", "symgs_fwd", "symgs_bwd"}, "region names")
it = regions["iteration"]
check(it["instances"] == 42 and it["incomplete"] == 0, "42 iterations")
check(it["min_ns"] <= it["median_ns"] <= it["max_ns"], "min <= median <= max")
check(d["regions"][0]["name"] == "iteration", "the enclosing region covers the most time")
nsamples = sum(t["samples"] for p in d["processes"] for t in p["threads"])
check(d["samples"]["total"] == nsamples, "sample kinds add up to the threads' samples")
check(d["samples"]["timer"] >= 42 * 20, "timer samples")
check(d["samples"]["load"] > 0 and d["samples"]["store"] > 0, "memory samples")
check(d["time_span"]["duration_ns"] > 0, "time span")
PY

# Without memory samples there are no objects and no loads.
"$tf" synth -o "$t" --force --iterations 3 --no-memory --quiet || bad "synth --no-memory"
"$tf" info --json "$t" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["samples"]["load"] == 0 and d["samples"]["store"] == 0, "loads without memory"
assert d["processes"][0]["objects"] == [], "objects without memory"
' || bad "json without memory"
exit $fail
