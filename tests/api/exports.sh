#!/bin/sh
# The installed libraries export their public API and nothing else (issue
# 32): libtracefold, which runs inside the recorded program, exports the
# functions of tracefold.h and tracefold_mpi.h and the C library functions
# it interposes (record/lib/libtracefold.map says why those must stay); the
# MPI layer exports the MPI functions it wraps; libtracefold-read exports
# the functions of <tracefold/read.h>.  An internal tf_* name in a
# program's namespace could clash with the program's own or another tool's.
set -u
bd=${top_builddir:?run by make check}
src=${top_srcdir:?}
command -v nm >/dev/null || { echo "no nm"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-exports-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

exported() {   # LIB: its defined dynamic symbols, one a line, sorted
    nm -D --defined-only "$1" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u
}
declared() {   # HEADER...: the tracefold_* functions they declare, sorted
    cat "$@" | grep -o 'tracefold_[a-z_0-9]*(' | tr -d '(' | sort -u
}
# LIB ALLOWED-FILE: every export is allowed, every allowed name exported.
check_exact() {
    exported "$1" > "$tmp/got"
    [ -s "$tmp/got" ] || { fail "$1 exports nothing"; return; }
    extra=$(comm -23 "$tmp/got" "$2")
    missing=$(comm -13 "$tmp/got" "$2")
    [ -z "$extra" ] || fail "$(basename "$1") exports more than its API: $(echo $extra)"
    [ -z "$missing" ] || fail "$(basename "$1") does not export: $(echo $missing)"
}

# The interposed functions: the same list as record/lib/libtracefold.map.
interposed="malloc calloc realloc free posix_memalign aligned_alloc memalign valloc mmap munmap
_Znwm _Znam _ZnwmRKSt9nothrow_t _ZnamRKSt9nothrow_t
pthread_create sigaction signal execve execvpe execv execvp execl execlp execle
__cyg_profile_func_enter __cyg_profile_func_exit dlopen"
{ declared "$src/include/tracefold.h" "$src/include/tracefold_mpi.h"
  for f in $interposed; do echo "$f"; done; } | sort -u > "$tmp/recorder"
check_exact "$bd/record/.libs/libtracefold.so" "$tmp/recorder"
# The interposed names carry no version of ours: versioned, they would
# not match the program's malloc@GLIBC_... references.
if nm -D --defined-only "$bd/record/.libs/libtracefold.so" | grep -q '@'; then
    fail "libtracefold.so has versioned symbols: $(nm -D --defined-only "$bd/record/.libs/libtracefold.so" | grep '@' | head -3)"
fi

mpi=$bd/record/.libs/libtracefold-mpi.so
if [ -f "$mpi" ]; then
    exported "$mpi" > "$tmp/mpi"
    others=$(grep -v -e '^MPI_' -e '^mpi_' "$tmp/mpi")
    [ -z "$others" ] || fail "libtracefold-mpi.so exports more than MPI wrappers: $(echo $others)"
    for f in MPI_Init MPI_Init_thread MPI_Finalize; do
        grep -qx "$f" "$tmp/mpi" || fail "libtracefold-mpi.so does not wrap $f"
    done
else
    echo "no MPI: libtracefold-mpi not checked"
fi

declared "$src/include/tracefold/read.h" > "$tmp/reader"
check_exact "$bd/read/.libs/libtracefold-read.so" "$tmp/reader"
exit $status
