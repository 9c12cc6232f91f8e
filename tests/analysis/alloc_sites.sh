#!/bin/sh
# Heap objects named by the program's call site through allocator layers,
# and merged into families: in a C++ program (new[], new of a struct
# array, std::vector, a header template helper, the program's own
# wrapper with and without --alloc-wrapper, a temporary allocated in every
# iteration, small rows from new[] below the heap threshold) and a Fortran
# one (ALLOCATE once, and in every iteration), each object is named
# FILE:LINE[:COLUMN] of the user's line, with its routine, in info (JSON
# and text), objects.csv and (--alloc-wrapper) paraver's .pcf; a temporary
# is one family with its allocation count, never "#2".  The wrapper named
# in the recorder's configuration instead (kept in the trace) names its
# objects alike in info, fold and paraver without the option.
tf=${TRACEFOLD:?run by make check}
bin=${top_builddir:?run by make check}/tests/analysis
src=${top_srcdir:?run by make check}/tests/analysis
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-allocsites-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# line FILE MARKER: the line of FILE (in this folder) holding MARKER.
line() { grep -n "$2\$" "$src/$1" | cut -d: -f1; }

# labels JSON [KIND]: "label routine" of every object of KIND (heap), one a line.
labels() {
    tr '{' '\n' <"$1" |
        sed -n "s/.*\"kind\": \"${2:-heap}\".*\"label\": \"\([^\"]*\)\", \"routine\": \"\([^\"]*\)\".*/\1 \2/p"
}

# expect LABELS FILE MARKER ROUTINE COUNT: COUNT objects named FILE:LINE
# (one column, or none) in ROUTINE, and none of them "#2".
expect() {
    want=$2:$(line "$2" "$3")
    got=$(grep -Ec "^$want(:[0-9]+)? $4\$" "$1")
    [ "$got" = "$5" ] || bad "$3: $got objects named $want in $4, expected $5 ($(basename "$1"))"
    grep -q "^$want\(:[0-9]*\)\?#" "$1" && bad "$3: a second family at $want"
    echo "$3: $5 x $want in $4"
}

ran=0
if [ -x "$bin/alloc_sites_app" ]; then
    ran=1
    iterations=300
    "$tf" record -q -o "$tmp/cc.h5" --period 1ms -- "$bin/alloc_sites_app" $iterations 200000 \
        >/dev/null || { echo "FAIL: recording the C++ program exited $?"; exit 1; }
    "$tf" info --json "$tmp/cc.h5" >"$tmp/cc.json" || bad "info --json exit status $?"
    labels "$tmp/cc.json" >"$tmp/cc.labels"
    sort "$tmp/cc.labels" | uniq -c
    f=alloc_sites_app.cc
    expect "$tmp/cc.labels" $f site-new-array main 1
    expect "$tmp/cc.labels" $f site-new-struct main 1
    expect "$tmp/cc.labels" $f site-vector main 1
    expect "$tmp/cc.labels" $f site-helper main 1
    expect "$tmp/cc.labels" $f site-in-wrapper grid_alloc 1
    expect "$tmp/cc.labels" $f site-temporary main $iterations
    # Below the heap threshold: logged with new's caller as the site.
    labels "$tmp/cc.json" small >"$tmp/cc.small"
    expect "$tmp/cc.small" $f site-small-rows main 64
    grep -q "_Zn\|operator new\|alloc_helper.h\|stl_\|new_allocator" "$tmp/cc.labels" &&
        bad "an object named by an allocator's frame"
    "$tf" info --json --alloc-wrapper grid_alloc "$tmp/cc.h5" >"$tmp/w.json" ||
        bad "info --alloc-wrapper exit status $?"
    labels "$tmp/w.json" >"$tmp/w.labels"
    expect "$tmp/w.labels" $f site-wrapper main 1
    # paraver names the objects of its raw trace alike (the .pcf's labels)
    "$tf" paraver -q --alloc-wrapper grid_alloc "$tmp/cc.h5" -o "$tmp/w.prv" ||
        bad "paraver --alloc-wrapper exit status $?"
    grep -Eq "^[0-9]+ +$f:$(line $f site-wrapper)(:[0-9]+)?\$" "$tmp/w.pcf" ||
        bad "paraver --alloc-wrapper: no object named $f:$(line $f site-wrapper) in the .pcf"
    # the temporary allocated every iteration is one value of the .pcf's
    # data objects (32000007), as it is one row of objects.csv
    n=$(grep -Ec "^[0-9]+ +$f:$(line $f site-temporary)(:[0-9]+)?\$" "$tmp/w.pcf")
    [ "$n" = 1 ] || bad "paraver: the temporary is $n values of the .pcf, not 1"
    # the text lists the first 20 objects: the temporaries, freed first
    "$tf" info "$tmp/cc.h5" >"$tmp/cc.txt" || bad "info exit status $?"
    grep -Eq "^ +#[0-9]+ heap +$f:$(line $f site-temporary)(:[0-9]+)? .* in main\$" "$tmp/cc.txt" ||
        bad "info (text): no temporary's call site in main"
    "$tf" info --alloc-wrapper '' "$tmp/cc.h5" >/dev/null 2>&1
    [ $? = 2 ] || bad "info --alloc-wrapper '': not a usage error"

    "$tf" fold -q --alloc-wrapper grid_alloc -o "$tmp/fold" "$tmp/cc.h5" || bad "fold exit status $?"
    cat "$tmp/fold/objects.csv"
    temporary=$f:$(line $f site-temporary)
    # the referenced heap objects, one row each; the temporary's row, when
    # sampled, stands for every iteration's allocation
    awk -F, -v t="$temporary" 'NR > 1 && $4 == "heap" {
            n++
            if ($3 ~ /#/) { print "FAIL: a second family " $3; bad = 1 }
            if (index($3, t) == 1 && $9 != '"$iterations"') { print "FAIL: temporary " $9 " allocations"; bad = 1 }
            if (index($3, t) != 1 && $9 != 1) { print "FAIL: " $3 " has " $9 " allocations"; bad = 1 }
            if ($10 != "main") { print "FAIL: " $3 " in routine " $10; bad = 1 } }
        END { exit bad }' "$tmp/fold/objects.csv" || bad "objects.csv"
    n=$(grep -Ec "^[0-9]+ +$temporary(:[0-9]+)?\$" "$tmp/fold/folded.pcf")
    [ "$n" = 1 ] || bad "fold: the temporary is $n values of folded.pcf, not 1"

    # The wrapper named in the recorder's configuration: kept in the trace,
    # so info, fold and paraver name its objects by its caller without the
    # option (and with another one given, both count).
    printf '<tracefold>\n  <alloc-wrapper>grid_alloc</alloc-wrapper>\n  <alloc-wrapper>pool_get</alloc-wrapper>\n</tracefold>\n' \
        >"$tmp/wrap.xml"
    "$tf" record -q -c "$tmp/wrap.xml" -o "$tmp/cw.h5" --period 1ms -- \
        "$bin/alloc_sites_app" $iterations 200000 >/dev/null || bad "recording with the configuration exited $?"
    "$tf" info --json "$tmp/cw.h5" >"$tmp/cw.json" || bad "info --json (recorded wrapper) exit status $?"
    grep -q '"alloc_wrappers": "grid_alloc,pool_get"' "$tmp/cw.json" ||
        bad "info --json: the recorded wrappers are not 'grid_alloc,pool_get'"
    labels "$tmp/cw.json" >"$tmp/cw.labels"
    expect "$tmp/cw.labels" $f site-wrapper main 1
    expect "$tmp/cw.labels" $f site-in-wrapper grid_alloc 0
    "$tf" info --json --alloc-wrapper other "$tmp/cw.h5" >"$tmp/cw2.json" || bad "info exit status $?"
    labels "$tmp/cw2.json" >"$tmp/cw2.labels"
    expect "$tmp/cw2.labels" $f site-wrapper main 1
    "$tf" fold -q -o "$tmp/cwfold" "$tmp/cw.h5" || bad "fold (recorded wrapper) exit status $?"
    # objects.csv lists only the objects samples fell in (the wrapper's
    # block may get none at a sample a ms): none of them is named by the
    # wrapper's own line; the .pcf below lists every object by its name.
    grep -q ",$f:$(line $f site-in-wrapper)" "$tmp/cwfold/objects.csv" &&
        bad "fold: an object named by the recorded wrapper's line"
    "$tf" paraver -q "$tmp/cw.h5" -o "$tmp/cw.prv" || bad "paraver (recorded wrapper) exit status $?"
    grep -Eq "^[0-9]+ +$f:$(line $f site-wrapper)(:[0-9]+)?\$" "$tmp/cw.pcf" ||
        bad "paraver: no object named $f:$(line $f site-wrapper) in the .pcf (recorded wrapper)"
fi

if [ -x "$bin/alloc_sites_f" ]; then
    ran=1
    "$tf" record -q -o "$tmp/f.h5" --period 1ms -- "$bin/alloc_sites_f" >/dev/null ||
        { echo "FAIL: recording the Fortran program exited $?"; exit 1; }
    "$tf" info --json "$tmp/f.h5" >"$tmp/f.json" || bad "info --json exit status $?"
    labels "$tmp/f.json" >"$tmp/f.labels"
    sort "$tmp/f.labels" | uniq -c
    expect "$tmp/f.labels" alloc_sites_f.f90 site-grid alloc_sites_f 1
    expect "$tmp/f.labels" alloc_sites_f.f90 site-tmp alloc_sites_f 200
fi

[ $fails -eq 0 ] || exit 1
if [ $ran = 0 ]; then
    echo "SKIP: no C++ nor Fortran compiler: the programs were not built"
    exit 77
fi
exit 0
