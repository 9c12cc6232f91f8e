# SPDX-License-Identifier: BSD-3-Clause
# Shared by the fuzz tests: the readers with a harness, where their inputs are.
readers="trace fold prv config"
fuzz_src="$top_srcdir/tests/fuzz"
fuzz_bin="$top_builddir/tests/fuzz"
# Files of a folder, none when it is absent or empty.
has_files() { [ -d "$1" ] && [ -n "$(ls -A "$1")" ]; }
