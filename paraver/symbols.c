/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "symbols.h"

#include <stdlib.h>
#include <string.h>

int tf_prv_symbols_object_names(tf_trace_names *tn, char ****names, tf_error *err)
{
    *names = NULL;
    const tf_trace *tr = tf_trace_names_trace(tn);
    if (!tr)
        return 0;
    uint32_t np = tf_trace_nprocesses(tr);
    char ***all = calloc(np + 1, sizeof *all);
    int rc = all ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
    for (uint32_t p = 0; rc == 0 && p < np; p++) {
        const tf_object_naming *naming;
        if ((rc = tf_trace_names_objects(tn, p, &naming, err)) == 0)
            all[p] = naming->names;
    }
    if (rc < 0) {
        free(all);
        return rc;
    }
    *names = all;
    return 0;
}

int tf_prv_symbols_resolve(void *arg, uint32_t proc, uint64_t ip, bool return_address,
                           tf_prv_source *src, tf_error *err)
{
    tf_trace_names *tn = arg;
    *src = (tf_prv_source){"", "", 0};
    tf_symbolizer *sym;
    int rc = ip ? tf_trace_names_symbolizer(tn, proc, &sym, err) : 0;
    if (rc < 0 || !ip || !sym)
        return rc;
    const tf_sym_location *loc;
    if ((rc = tf_symbolize(sym, ip, return_address, &loc, err)) < 0)
        return rc;
    src->function = loc->frames[0].function;
    src->file = loc->frames[0].file;
    src->line = loc->frames[0].line;
    if (!*src->function && loc->source == TF_SYM_MODULE) {
        const char *base = strrchr(loc->module, '/');
        src->function = base ? base + 1 : loc->module;
    }
    return 0;
}
