# SPDX-License-Identifier: BSD-3-Clause
# Shared by bench/memsample.sh and bench/small_blocks.sh (sourced): the
# machine line, and reading alloc_bench's results.
echo "# $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
# med: the median of the numbers on stdin, one a line.
med() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# field NAME: the value of NAME=VALUE on stdin.
field() { sed -n "s/.*$1=\([-0-9.]*\).*/\1/p"; }
