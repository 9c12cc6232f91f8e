#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tracefold info on a trace whose recording was cut short: it says so, and
# counts the region left open as incomplete.
set -u
tf=${TRACEFOLD:?}
mk=${top_builddir:?}/tests/synth/make_interrupted
dir=$(mktemp -d "${TMPDIR:-/tmp}/tf-info-int.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$mk" "$dir/cut.h5" || { echo "FAIL: make_interrupted"; exit 1; }
"$tf" info "$dir/cut.h5" >"$dir/text" || bad "info exit $?"
grep -q '^complete: *no (the recording was interrupted' "$dir/text" || bad "text: not marked interrupted"
grep -Eq '^  loop +2 +1 +300 ns +200 ns +400 ns +600 ns$' "$dir/text" ||
    bad "text: loop instances: $(grep loop "$dir/text")"
"$tf" info --json "$dir/cut.h5" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["complete"] is False
r = d["regions"][0]
assert (r["name"], r["instances"], r["incomplete"], r["median_ns"]) == ("loop", 2, 1, 300), r
' || bad "json"
exit $fail
