/* SPDX-License-Identifier: BSD-3-Clause */
/* libpfm4 loaded on first use (pfm_load.h). */
#include "config.h"

#include "pfm_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pfm_err_t (*encode)(const char *name, int plm, pfm_os_t os, void *arg);

static void load(void)
{
    /* RTLD_LOCAL: libpfm4's names stay out of the program's namespace. */
    void *lib = dlopen(TF_PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    void *init = dlsym(lib, "pfm_initialize"), *enc = dlsym(lib, "pfm_get_os_event_encoding");
    pfm_err_t (*initialize)(void);
    /* POSIX dlsym: object pointers that convert to the functions'. */
    memcpy(&initialize, &init, sizeof init);
    if (init && enc && initialize() == PFM_SUCCESS)
        memcpy(&encode, &enc, sizeof enc);
    else
        dlclose(lib);
}

int tf_pfm_encode(const char *name, int plm, pfm_os_t os, void *arg)
{
    pthread_once(&load_once, load);
    return encode ? encode(name, plm, os, arg) : PFM_ERR_NOINIT;
}
