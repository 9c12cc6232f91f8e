/* SPDX-License-Identifier: BSD-3-Clause */
/* Capstone loaded on first use (capstone_load.h). */
#include "config.h"

#include "capstone_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static tf_capstone api;
static const tf_capstone *loaded;
static char failure[256];

/* One symbol into *slot; false (and failure said) when it is missing. */
static bool resolve(void *lib, const char *name, void *slot)
{
    void *sym = dlsym(lib, name);
    if (!sym) {
        snprintf(failure, sizeof failure, "%s: no symbol %s", TF_CAPSTONE_SONAME, name);
        return false;
    }
    /* POSIX dlsym: an object pointer that converts to the function's. */
    memcpy(slot, &sym, sizeof sym);
    return true;
}

static void load(void)
{
    /* RTLD_LOCAL: capstone's names stay out of the program's namespace,
     * which may bring a capstone of its own. */
    void *lib = dlopen(TF_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "%s", why ? why : TF_CAPSTONE_SONAME);
        return;
    }
    if (resolve(lib, "cs_open", &api.open) && resolve(lib, "cs_close", &api.close) &&
        resolve(lib, "cs_option", &api.option) && resolve(lib, "cs_errno", &api.errno_of) &&
        resolve(lib, "cs_strerror", &api.strerror) && resolve(lib, "cs_malloc", &api.malloc) &&
        resolve(lib, "cs_free", &api.free) && resolve(lib, "cs_disasm_iter", &api.disasm_iter) &&
        resolve(lib, "cs_regs_access", &api.regs_access))
        loaded = &api;
    else
        dlclose(lib);
}

const tf_capstone *tf_capstone_load(tf_error *err)
{
    pthread_once(&load_once, load);
    if (!loaded)
        tf_fail(err, TF_ERR_UNSUPPORTED, "capstone: cannot load the x86-64 decoder: %s", failure);
    return loaded;
}
