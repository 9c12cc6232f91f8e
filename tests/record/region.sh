#!/bin/sh
# test-lock: alone (timings of a recorded program: tests/harness/test_lock.sh)
# record --region on unmodified programs (docs/recorder.md, "Regions
# without source changes"): exact instances per thread for a C program
# (threads, nested regions, recursion counted once, a longjmp out), a C++
# program (member function, every overload, a function that throws) and a
# Fortran module procedure; the same C and C++ programs built with
# -finstrument-functions, whose hooks then serve the regions; a function
# of a library loaded with dlopen; then the bad input: an unknown name
# (close names listed; in a program that loads libraries, said at the
# end), a stripped program, too many names, code writes refused by the
# kernel (a Landlock sandbox).
. "$top_srcdir/tests/record/lib.sh"

# counts FILE: "region begins ends unseen" per thread line, sorted.
counts() { "$check" regions "$1" | sed 's/^thread [0-9]* //' | sort; }

n=40
"$tf" record -q -o "$tmp/c.h5" --region work --region step,fib -- \
    "$apps/region_app" 3 $n > "$tmp/c.out" || fail "record region_app: status $?"
grep -q '^region_app: ' "$tmp/c.out" || fail "region_app did not run to its end"
# TRACEFOLD_REGIONS is the option's variable (leap here).
TRACEFOLD_REGIONS=leap "$tf" record -q -o "$tmp/c2.h5" --region work -- \
    "$apps/region_app" 0 $n > /dev/null || fail "record region_app (environment): status $?"
counts "$tmp/c.h5" > "$tmp/c.txt" || fail "region_app trace does not open"
cat > "$tmp/c.want" <<EOW
fib begins=$n ends=$n unseen=0
step begins=$n ends=$n unseen=0
work begins=$n ends=$n unseen=0
work begins=$((2 * n)) ends=$((2 * n)) unseen=0
work begins=$((3 * n)) ends=$((3 * n)) unseen=0
work begins=$((3 * n)) ends=$((3 * n)) unseen=0
EOW
sort "$tmp/c.want" | diff - "$tmp/c.txt" >&2 ||
    fail "region_app: instances per thread differ from the calls (expected first)"
# A --region flag replaces TRACEFOLD_REGIONS, as every flag its variable.
counts "$tmp/c2.h5" > "$tmp/c2.txt"
printf 'work begins=%d ends=%d unseen=0\n' $((3 * n)) $((3 * n)) > "$tmp/c2.want"
diff "$tmp/c2.want" "$tmp/c2.txt" >&2 || fail "flag --region should replace TRACEFOLD_REGIONS"
# The configuration file's <region> element, a list.
printf '<?xml version="1.0"?>\n<tracefold><region>step, fib</region></tracefold>\n' \
    > "$tmp/regions.xml"
"$tf" record -q -c "$tmp/regions.xml" -o "$tmp/x.h5" -- "$apps/region_app" 0 $n > /dev/null ||
    fail "record region_app (configuration file): status $?"
printf 'fib begins=%d ends=%d unseen=0\nstep begins=%d ends=%d unseen=0\n' $n $n $n $n \
    > "$tmp/x.want"
counts "$tmp/x.h5" | diff "$tmp/x.want" - >&2 || fail "<region> of the configuration file"
# The longjmp leaves leap: each of its instances ends, not seen, at the
# next work().
TRACEFOLD_REGIONS=leap,work "$tf" record -q -o "$tmp/c3.h5" -- "$apps/region_app" 0 $n \
    > /dev/null || fail "record region_app (leap): status $?"
counts "$tmp/c3.h5" > "$tmp/c3.txt"
printf 'leap begins=%d ends=%d unseen=%d\nwork begins=%d ends=%d unseen=0\n' \
    $n $n $n $((3 * n)) $((3 * n)) > "$tmp/c3.want"
diff "$tmp/c3.want" "$tmp/c3.txt" >&2 || fail "longjmp: leap's ends should all be not seen"
# fold takes the instances, with the ends not seen left out as incomplete.
# Every stop a breakpoint: the same instances.
TRACEFOLD_REGION_TRAPS=1 "$tf" record -q -o "$tmp/t.h5" --region work --region step,fib -- \
    "$apps/region_app" 3 $n > /dev/null || fail "record region_app with traps: status $?"
counts "$tmp/t.h5" | diff "$tmp/c.txt" - >&2 || fail "region_app with traps: instances differ"
# Jumps take no trap where the code allows them (docs/recorder.md): the
# entries of work, step and fib and most return addresses.  (Not under
# the sanitizers: LeakSanitizer refuses to run under ptrace.)
if command -v strace > /dev/null && [ "${TF_SANITIZERS:-no}" != yes ]; then
    for traps in 0 1; do
        TRACEFOLD_REGION_TRAPS=$traps strace -f -qq -e trace=none -o "$tmp/strace$traps" \
            "$tf" record -q --sampler none -o "$tmp/s$traps.h5" --region work --region step,fib \
            -- "$apps/region_app" 3 $n > /dev/null || fail "record under strace: status $?"
    done
    with=$(grep -c SIGTRAP "$tmp/strace0") without=$(grep -c SIGTRAP "$tmp/strace1")
    echo "SIGTRAPs: $with with jumps, $without with breakpoints only"
    [ $((with * 10)) -lt "$without" ] || fail "jumps: $with traps, breakpoints $without"
fi
# Threads released together at one call site while its jumps are written,
# kernel()'s result (xmm0) used after its return address: the same sums
# as a plain run, every call an instance.
"$apps/region_race_app" 8 2000 > "$tmp/race.plain" || fail "region_race_app: status $?"
for i in 1 2 3; do
    "$tf" record -q --period 1ms --buffer-size 8M -o "$tmp/race$i.h5" --region kernel -- \
        "$apps/region_race_app" 8 2000 > "$tmp/race.out" || fail "record region_race_app: status $?"
    diff "$tmp/race.plain" "$tmp/race.out" >&2 || fail "region_race_app: sums differ recorded"
    counts "$tmp/race$i.h5" | uniq -c | grep -q '^ *8 kernel begins=2000 ends=2000 unseen=0$' ||
        fail "region_race_app: $(counts "$tmp/race$i.h5" | uniq -c)"
done
"$tf" fold -q -r leap -o "$tmp/leap.fold" "$tmp/c3.h5" 2> "$tmp/leap.err"
grep -q "incomplete\|no complete\|at least 2" "$tmp/leap.err" ||
    fail "fold of leap: instances not seen to end were folded: $(cat "$tmp/leap.err")"

# C++: a member function on 3 std::threads, both overloads of smooth, and
# risky(), which throws: the program's own exception handling still works.
cxx=${CXX:-c++}
if command -v "$cxx" >/dev/null 2>&1; then
    "$cxx" -O2 -pthread -o "$tmp/region_cxx" "$top_srcdir/tests/record/region_cxx.cc" ||
        fail "compiling region_cxx.cc"
    "$tf" record -q -o "$tmp/cxx.h5" --region ns::Grid::relax --region smooth \
        --region risky -- "$tmp/region_cxx" 3 $n > "$tmp/cxx.out" || fail "record region_cxx: status $?"
    grep -q "^region_cxx: $n\$" "$tmp/cxx.out" || fail "region_cxx: exceptions not caught"
    counts "$tmp/cxx.h5" > "$tmp/cxx.txt"
    cat > "$tmp/cxx.want" <<EOW
ns::Grid::relax begins=$n ends=$n unseen=0
ns::Grid::relax begins=$n ends=$n unseen=0
ns::Grid::relax begins=$n ends=$n unseen=0
risky begins=$n ends=$((n - 1)) unseen=$((n - 1))
smooth begins=$((3 * n)) ends=$((3 * n)) unseen=0
EOW
    sort "$tmp/cxx.want" | diff - "$tmp/cxx.txt" >&2 || fail "region_cxx: instances per thread"
    # One overload by its signature.
    "$tf" record -q -o "$tmp/cxx1.h5" --region 'smooth(double)' -- "$tmp/region_cxx" 0 $n \
        > /dev/null || fail "record region_cxx smooth(double): status $?"
    [ "$(counts "$tmp/cxx1.h5")" = "smooth(double) begins=$((2 * n)) ends=$((2 * n)) unseen=0" ] ||
        fail "smooth(double) alone: $(counts "$tmp/cxx1.h5")"
else
    echo "no C++ compiler: the C++ case is not run"
fi

# Built with -finstrument-functions: the recorder's hooks open and close
# the instances after the first call (tf_regions.c), with the same counts;
# an exception leaving risky() runs its exit hook, so those instances end,
# seen, where the breakpoints could not see them end.
cc=${CC:-cc}
"$cc" -O2 -pthread -finstrument-functions -o "$tmp/region_hooked" \
    "$top_srcdir/tests/record/region_app.c" || fail "compiling region_app.c with hooks"
"$tf" record -q -o "$tmp/h.h5" --region work --region step,fib -- \
    "$tmp/region_hooked" 3 $n > /dev/null || fail "record region_app with hooks: status $?"
counts "$tmp/h.h5" | diff - "$tmp/c.txt" >&2 ||
    fail "region_app with hooks: instances per thread differ from the breakpoints' (second)"
TRACEFOLD_REGIONS=leap,work "$tf" record -q -o "$tmp/h3.h5" -- "$tmp/region_hooked" 0 $n \
    > /dev/null || fail "record region_app with hooks (leap): status $?"
counts "$tmp/h3.h5" | diff "$tmp/c3.want" - >&2 || fail "longjmp with hooks"
if command -v "$cxx" >/dev/null 2>&1; then
    "$cxx" -O2 -pthread -finstrument-functions -o "$tmp/region_cxx_hooked" \
        "$top_srcdir/tests/record/region_cxx.cc" || fail "compiling region_cxx.cc with hooks"
    "$tf" record -q -o "$tmp/cxxh.h5" --region ns::Grid::relax --region smooth \
        --region risky -- "$tmp/region_cxx_hooked" 3 $n > "$tmp/cxxh.out" ||
        fail "record region_cxx with hooks: status $?"
    grep -q "^region_cxx: $n\$" "$tmp/cxxh.out" || fail "region_cxx with hooks: exceptions not caught"
    sed "s/^risky .*/risky begins=$n ends=$n unseen=0/" "$tmp/cxx.want" | sort > "$tmp/cxxh.want"
    counts "$tmp/cxxh.h5" | diff "$tmp/cxxh.want" - >&2 ||
        fail "region_cxx with hooks: instances per thread (risky's ends seen)"
fi

# Fortran: the module procedure as written, with and without its module.
if [ -x "$apps/region_fortran" ]; then
    for name in heat::relax relax; do
        "$tf" record -q -o "$tmp/f.h5" --force --region $name -- "$apps/region_fortran" \
            > /dev/null || fail "record region_fortran --region $name: status $?"
        [ "$(counts "$tmp/f.h5")" = "$name begins=25 ends=25 unseen=0" ] ||
            fail "Fortran --region $name: $(counts "$tmp/f.h5")"
    done
fi

# A library loaded with dlopen after the start: its function is found
# when it is loaded; a name found nowhere is said at the end, with the
# close names of the loaded library, and the program runs.
"$cc" -O2 -shared -fPIC -o "$tmp/libplugin.so" "$top_srcdir/tests/record/region_plugin.c" &&
    "$cc" -O2 -o "$tmp/region_dlopen_app" "$top_srcdir/tests/record/region_dlopen_app.c" ||
    fail "compiling the dlopen program"
"$tf" record -q -o "$tmp/dl.h5" --region plugin_step -- "$tmp/region_dlopen_app" \
    "$tmp/libplugin.so" $n > "$tmp/dl.out" || fail "record region_dlopen_app: status $?"
[ "$(counts "$tmp/dl.h5")" = "plugin_step begins=$n ends=$n unseen=0" ] ||
    fail "function of a dlopen'ed library: $(counts "$tmp/dl.h5")"
"$tf" record -q -o "$tmp/dl2.h5" --region plugin_stpe -- "$tmp/region_dlopen_app" \
    "$tmp/libplugin.so" $n > "$tmp/dl2.out" 2> "$tmp/dl2.err" ||
    fail "record region_dlopen_app with an unknown name: status $?"
grep -q "^region_dlopen_app: $n\$" "$tmp/dl2.out" || fail "unknown name in a dlopen program: it did not run"
grep -q "plugin_stpe: no function of that name.*close names: .*plugin_step.*no instance recorded" \
    "$tmp/dl2.err" || fail "unknown name in a dlopen program: message: $(cat "$tmp/dl2.err")"

# Bad input: the program does not run, no trace, the message says why.
expect_refusal() {
    what=$1
    pattern=$2
    shift 2
    "$tf" record -q -o "$tmp/bad.h5" "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"
    rc=$?
    [ $rc -ne 0 ] || fail "$what: exit status 0"
    grep -q "$pattern" "$tmp/bad.err" || fail "$what: message: $(cat "$tmp/bad.err")"
    ! grep -q '^region_app' "$tmp/bad.out" || fail "$what: the program ran"
    [ ! -e "$tmp/bad.h5" ] || fail "$what: a trace was left"
}
expect_refusal "unknown function" "no function of that name.*close names: .*work" \
    --region wrok -- "$apps/region_app" 1 2
cp "$apps/region_app" "$tmp/stripped_app" && strip "$tmp/stripped_app" ||
    fail "strip region_app"
expect_refusal "stripped program" "stripped" --region work -- "$tmp/stripped_app" 1 2
expect_refusal "too many names" "at most 16 functions" \
    --region a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q -- "$apps/region_app" 1 2
# Files may be written beneath the test's folders and /dev alone, so not
# /proc/self/mem: the kernel refuses the breakpoints.
"$apps/no_code_writes" / -- true 2>/dev/null
if [ $? -eq 77 ]; then
    echo "no Landlock in this kernel: the refusal of code writes is not run"
else
    "$apps/no_code_writes" "$tmp" /dev "${TMPDIR:-/tmp}" -- "$tf" record -q -o "$tmp/bad.h5" \
        --region work -- "$apps/region_app" 1 2 > "$tmp/bad.out" 2> "$tmp/bad.err"
    rc=$?
    [ $rc -eq 1 ] || fail "code writes refused: exit status $rc, not 1"
    grep -q "/proc/self/mem cannot be written (Permission denied)" "$tmp/bad.err" ||
        fail "code writes refused: message: $(cat "$tmp/bad.err")"
    ! grep -q '^region_app' "$tmp/bad.out" || fail "code writes refused: the program ran"
    [ ! -e "$tmp/bad.h5" ] || fail "code writes refused: a trace was left"
fi
exit 0
