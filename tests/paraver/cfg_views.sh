#!/bin/sh
# The shipped Paraver views hang together: each declares as many windows as
# it defines, composed windows and histograms refer to windows that exist,
# and every event type a view filters on is documented in docs/paraver.md.
set -u
src=${top_srcdir:?}
fail=0
views=$(ls "$src"/cfg/*.cfg 2>/dev/null)
[ -n "$views" ] || { echo "FAIL: no views in $src/cfg"; exit 1; }
for v in $views; do
    name=$(basename "$v")
    grep -qx "$name" "$src/cfg/Makefile.inc.am" 2>/dev/null ||
        grep -q "cfg/$name" "$src/cfg/Makefile.inc.am" || { echo "FAIL: $name is not installed"; fail=1; }
    [ "$(head -1 "$v")" = "#ParaverCFG" ] || { echo "FAIL: $name: no #ParaverCFG line"; fail=1; }
    declared=$(sed -n 's/^ConfigFile.NumWindows: //p' "$v")
    defined=$(grep -c '^< NEW DISPLAYING WINDOW' "$v")
    [ "$declared" = "$defined" ] || { echo "FAIL: $name: $declared windows declared, $defined defined"; fail=1; }
    ids=$(sed -n 's/^window_id //p' "$v")
    for ref in $(sed -n 's/^window_identifiers //p; s/^Analyzer2D.ControlWindow: //p; s/^Analyzer2D.DataWindow: //p' "$v"); do
        echo "$ids" | grep -qx "$ref" || { echo "FAIL: $name: window $ref is not defined"; fail=1; }
    done
    for t in $(sed -n 's/^window_filter_module evt_type [0-9]* //p' "$v"); do
        grep -q "$t" "$src/docs/paraver.md" || { echo "FAIL: $name: type $t is not documented in docs/paraver.md"; fail=1; }
    done
done
exit $fail
