#!/bin/sh
# `make install` gives a user what the README promises: the tracefold
# command, the public header, the recorder library with its pkg-config file
# (`cc app.c $(pkg-config --cflags --libs tracefold)` builds an
# instrumented program that starts without LD_LIBRARY_PATH), the compiled
# Fortran module and the man pages.
set -u
bd=${top_builddir:?run by make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Staged with DESTDIR under the configured prefix (libtool libraries are
# linked for it).
prefix=$(sed -n 's/^prefix = //p' "$bd/Makefile")
make -s -C "$bd" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "make install"; }
root=$tmp/root$prefix
[ -x "$root/bin/tracefold" ] || fail "no bin/tracefold"
[ -f "$root/include/tracefold.h" ] || fail "no include/tracefold.h"
[ -f "$root/lib/pkgconfig/tracefold.pc" ] || fail "no lib/pkgconfig/tracefold.pc"
for page in tracefold tracefold-record tracefold-info tracefold-fold tracefold-render \
            tracefold-paraver tracefold-synth tracefold-calibrate; do
    [ -f "$root/share/man/man1/$page.1" ] || fail "no man page $page.1"
done
# The programs of docs/recorder.md ("Building an instrumented program"),
# built with the commands written there, against the staged prefix: the
# prefix pkg-config reports is where the .pc file lies (--define-prefix),
# as it is for a real install there.
doc=${top_srcdir:?}/docs/recorder.md
block() {   # the fenced block whose first line starts with $1
    awk -v first="$1" '/^```/ { if (inblock) { if (take) exit; inblock = 0; next }
                                inblock = 1; start = 1; next }
                       inblock && start { start = 0; take = index($0, first) == 1 }
                       inblock && take' "$doc"
}
command_of() {   # the documented command line that starts with $1, its comment cut
    grep "^$1 " "$doc" | sed 's/ *#.*//' | sed -n 1p
}
mkdir "$tmp/bin"
printf '#!/bin/sh\nexec %s --define-prefix "$@"\n' "$(command -v pkg-config)" > "$tmp/bin/pkg-config"
chmod +x "$tmp/bin/pkg-config"
PKG_CONFIG_PATH=$root/lib/pkgconfig
PATH=$tmp/bin:$root/bin:$PATH
# The writer a linked program starts is $(bindir)/tracefold, not staged yet.
TRACEFOLD_PROGRAM=$root/bin/tracefold
unset LD_LIBRARY_PATH
export PKG_CONFIG_PATH PATH TRACEFOLD_PROGRAM
mkdir "$tmp/c" "$tmp/f"
block '/* app.c:' > "$tmp/c/app.c"
[ -s "$tmp/c/app.c" ] || fail "no C program in docs/recorder.md"
cc_line=$(command_of cc)
[ -n "$cc_line" ] || fail "no cc command in docs/recorder.md"
# Recording and folding, as documented: the program starts without
# LD_LIBRARY_PATH (the rpath), and fold's report is where the docs say.
run_documented() {   # DIR BUILD-COMMAND PROGRAM
    app=$3
    (cd "$1" && eval "$2") || fail "$2"
    (cd "$1" && "./$app" 3 >/dev/null) || fail "$1/$app (linked, no LD_LIBRARY_PATH) exit status $?"
    ls "$1/tracefold-$app-"*.h5 >/dev/null 2>&1 || fail "$1/$app wrote no trace"
    rec=$(command_of "tracefold record -o $app.h5")
    (cd "$1" && eval "$rec" >/dev/null) || fail "$rec"
    (cd "$1" && tracefold fold "$app.h5" 2>"$1/fold.err") || { cat "$1/fold.err"; fail "tracefold fold $app.h5"; }
    tail -1 "$1/fold.err" | grep -q "wrote $app.fold/: .*folded.prv" ||
        fail "fold's last line does not name folded.prv: $(tail -1 "$1/fold.err")"
    if grep -q '^#define TF_GNUPLOT' "$bd/config.h" && command -v gnuplot >/dev/null; then
        [ -s "$1/$app.fold/report.pdf" ] || fail "no $1/$app.fold/report.pdf"
        tail -1 "$1/fold.err" | grep -q "report.pdf" || fail "fold's last line does not name report.pdf"
    fi
}
run_documented "$tmp/c" "$cc_line" app
if grep -q '^FC = .' "$bd/Makefile"; then
    block '! app.f90:' > "$tmp/f/app.f90"
    [ -s "$tmp/f/app.f90" ] || fail "no Fortran program in docs/recorder.md"
    fc_line=$(command_of gfortran)
    [ -n "$fc_line" ] || fail "no gfortran command in docs/recorder.md"
    [ -f "$root/lib/libtracefold_fortran.a" ] || fail "no lib/libtracefold_fortran.a"
    [ -f "$root/lib/tracefold/finclude/tracefold.mod" ] || fail "no lib/tracefold/finclude/tracefold.mod"
    run_documented "$tmp/f" "$fc_line" app_f90
else
    echo "no gfortran: the Fortran program not checked"
fi
"$root/bin/tracefold" --version | grep -q '^tracefold ' || fail "installed tracefold --version"
exit 0
