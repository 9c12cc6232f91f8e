/* SPDX-License-Identifier: BSD-3-Clause */
/* The examples' API marks turned into calls that do nothing, for their
 * unmarked twins in bench/region_examples.sh (built with
 * -Dtracefold_region_begin=bench_no_mark -Dtracefold_region_end=bench_no_mark):
 * the same program, its iteration found by `record --region FUNC` alone. */
void bench_no_mark(const char *name);

void bench_no_mark(const char *name)
{
    (void)name;
}
