#!/bin/sh
# `make install` gives a user what the README promises: the tracefold
# command, the public header, the recorder library with its pkg-config file
# (`cc app.c $(pkg-config --cflags --libs tracefold)` builds and runs an
# instrumented program) and the man pages.
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
cat > "$tmp/app.c" <<'APP'
#include <tracefold.h>
int main(void)
{
    int c = tracefold_counter_define("items");
    for (int i = 0; i < 3; i++) {
        tracefold_region_begin("step");
        tracefold_counter_add(c, 1);
        tracefold_region_end("step");
    }
    return 0;
}
APP
flags=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --define-prefix --cflags --libs tracefold) ||
    fail "pkg-config tracefold"
cc -o "$tmp/app" "$tmp/app.c" $flags || fail "cc app.c \$(pkg-config --cflags --libs tracefold)"
# Run without a writer (none installed at the prefix yet): the library says
# so and the program runs on untraced.
LD_LIBRARY_PATH="$root/lib" TRACEFOLD_PROGRAM=/nonexistent "$tmp/app" 2>/dev/null ||
    fail "the installed program did not run"
"$root/bin/tracefold" --version | grep -q '^tracefold ' || fail "installed tracefold --version"
exit 0
