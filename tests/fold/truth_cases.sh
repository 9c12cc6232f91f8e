# SPDX-License-Identifier: BSD-3-Clause
# Shared by the accuracy tests (sourced): fold a `tracefold synth` trace,
# compare it with the truth stored in it (fold_check_truth) and assert the
# metrics.  Sets tmp (removed on exit) and fail (0 until an assertion
# fails).
tf=${TRACEFOLD:?}
check=${top_builddir:?}/tests/fold/fold_check_truth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# fold_case NAME SYNTH-OPTIONS -- FOLD-OPTIONS: folds a synth trace and keeps
# the metrics in $tmp/NAME.metrics.
fold_case() {
    name=$1
    shift
    synth_opts=
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        synth_opts="$synth_opts $1"
        shift
    done
    [ $# -gt 0 ] && shift
    # shellcheck disable=SC2086
    "$tf" synth -q -o "$tmp/$name.h5" $synth_opts || { echo "FAIL: $name: synth"; fail=1; return 1; }
    "$tf" fold -q -o "$tmp/$name.fold" "$@" "$tmp/$name.h5" || { echo "FAIL: $name: fold"; fail=1; return 1; }
    "$check" "$tmp/$name.h5" "$tmp/$name.fold/fold.h5" > "$tmp/$name.metrics" ||
        { echo "FAIL: $name: check"; fail=1; return 1; }
}

# fold_case_paraver NAME SYNTH-OPTIONS: the same through the Paraver
# format: the synth trace written as a Paraver trace (tracefold paraver),
# the .prv folded, compared with the truth of the synth trace.
fold_case_paraver() {
    name=$1
    shift
    "$tf" synth -q -o "$tmp/$name.h5" "$@" || { echo "FAIL: $name: synth"; fail=1; return 1; }
    "$tf" paraver -q -o "$tmp/$name.prv" "$tmp/$name.h5" ||
        { echo "FAIL: $name: paraver"; fail=1; return 1; }
    "$tf" fold -q -o "$tmp/$name.fold" "$tmp/$name.prv" || { echo "FAIL: $name: fold"; fail=1; return 1; }
    "$check" "$tmp/$name.h5" "$tmp/$name.fold/fold.h5" > "$tmp/$name.metrics" ||
        { echo "FAIL: $name: check"; fail=1; return 1; }
}

metric() {
    awk -v m="$2" '$1 == m { print $2 }' "$tmp/$1.metrics"
}

# expect NAME METRIC le|ge|lt|gt BOUND
expect() {
    v=$(metric "$1" "$2")
    if awk -v v="$v" -v b="$4" -v op="$3" 'BEGIN {
            if (v == "") exit 1
            ok = (op == "le") ? v <= b : (op == "ge") ? v >= b : (op == "lt") ? v < b : v > b
            exit !ok }'; then
        echo "ok: $1: $2 = $v ($3 $4)"
    else
        echo "FAIL: $1: $2 = $v, expected $3 $4"
        fail=1
    fi
}

