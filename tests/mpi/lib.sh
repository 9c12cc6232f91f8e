# SPDX-License-Identifier: BSD-3-Clause
# Shared by the tests that run mpirun: skip (77, with the reason) without
# MPI, let Open MPI run as root, a scratch directory, fail.
tf=${TRACEFOLD:?run by make check}
bd=${top_builddir:?run by make check}
[ -x "$bd/examples/stencil_mpi" ] ||
    { echo "SKIP: built without MPI (configure found no usable mpicc and mpi.h)"; exit 77; }
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun on PATH (Debian package openmpi-bin)"; exit 77; }
# CI runs as root; Open MPI refuses that unless told.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Sanitizer build: Open MPI's plugins keep their allocations until exit by
# design, and are unloaded before LeakSanitizer looks, so their leaks cannot
# be suppressed by name; leak checking is left to the other tests.
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    export ASAN_OPTIONS
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-mpi-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
