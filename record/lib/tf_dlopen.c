/* SPDX-License-Identifier: BSD-3-Clause */
/* dlopen is interposed for --region: a named function that is in none of
 * the modules loaded at start is looked for in each library the program
 * loads later (tf_regions_loaded), and gets its breakpoints there. */
#include "config.h"

#include <dlfcn.h>

#include "tf_rec.h"

typedef void *(*dlopen_fn)(const char *, int);

void *dlopen(const char *file, int flags)
{
    static dlopen_fn real;
    if (!real)
        real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
    void *handle = real ? real(file, flags) : NULL;
    if (handle)
        tf_regions_loaded();
    return handle;
}
