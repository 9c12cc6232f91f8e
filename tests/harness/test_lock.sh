#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs one test (the command given as arguments) under the suite's lock
# (Makefile.am: every LOG_COMPILER goes through here).  A test script with
# a line starting "# test-lock: alone" takes the lock exclusively: it checks
# timings, rates or sampled sweeps of a recorded program, which `make -j
# check` would otherwise run beside another test on this 2-CPU machine,
# preempting the program unevenly.  Every other test takes the lock
# shared, so it runs beside any test but those.  flock -o: processes the
# test leaves behind (a daemon, a stray rank) do not keep the lock.
for last; do :; done
mode=-s
if [ -f "$last" ] && grep -q '^# test-lock: alone' "$last"; then
    mode=-x
fi
exec flock -o $mode "${top_builddir:?run by make check}/test-suite.lock" "$@"
