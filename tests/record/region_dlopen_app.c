/* SPDX-License-Identifier: BSD-3-Clause */
/* Loads the library LIB with dlopen and calls its plugin_step N times
 * (region.sh: --region plugin_step, a function of a library loaded after
 * the start).  Usage: region_dlopen_app LIB N; prints "region_dlopen_app: N". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int n = (int)strtol(argv[2], NULL, 10);
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "region_dlopen_app: %s\n", dlerror());
        return 1;
    }
    void (*step)(int) = (void (*)(int))dlsym(lib, "plugin_step");
    if (!step)
        return 1;
    for (int i = 0; i < n; i++)
        step(i);
    printf("region_dlopen_app: %d\n", n);
    return 0;
}
