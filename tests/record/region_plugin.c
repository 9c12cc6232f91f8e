/* SPDX-License-Identifier: BSD-3-Clause */
/* A library the test program loads with dlopen (region.sh): its function
 * plugin_step is named with --region although it is in no module loaded
 * at the program's start. */
static volatile double sink;

__attribute__((noinline)) void plugin_step(int n)
{
    double s = 0;
    for (int i = 0; i < 1000 + n; i++)
        s += (double)i * 0.25;
    sink += s;
}
