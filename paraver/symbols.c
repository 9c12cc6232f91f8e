/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "symbols.h"

#include <stdlib.h>
#include <string.h>

#include "extract/object_names.h"

int tf_prv_symbols_init(tf_prv_symbols *sb, const tf_trace *tr, tf_error *err)
{
    sb->tr = tr;
    sb->alloc_rules = NULL;
    sb->namings = NULL;
    sb->per_proc = calloc(tr ? tf_trace_nprocesses(tr) + 1 : 1, sizeof *sb->per_proc);
    return sb->per_proc ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
}

void tf_prv_symbols_free(tf_prv_symbols *sb)
{
    for (uint32_t p = 0; sb->tr && sb->per_proc && p < tf_trace_nprocesses(sb->tr); p++)
        tf_symbolizer_free(sb->per_proc[p]);
    free(sb->per_proc);
}

/* Process proc's symboliser, made when first needed. */
static int symbolizer_of(tf_prv_symbols *sb, uint32_t proc, tf_error *err)
{
    if (sb->per_proc[proc])
        return 0;
    return tf_symbolizer_for_process(&sb->per_proc[proc], sb->tr, proc, NULL, err);
}

int tf_prv_symbols_object_names(tf_prv_symbols *sb, char ****names, tf_error *err)
{
    *names = NULL;
    if (!sb->tr)
        return 0;
    uint32_t np = tf_trace_nprocesses(sb->tr);
    char ***all = calloc(np + 1, sizeof *all);
    sb->namings = calloc(np + 1, sizeof *sb->namings);
    int rc = all && sb->namings ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
    for (uint32_t p = 0; rc == 0 && p < np; p++)
        if ((rc = symbolizer_of(sb, p, err)) == 0) {
            rc = tf_object_names(sb->tr, p, sb->per_proc[p], sb->alloc_rules, &sb->namings[p],
                                 err);
            all[p] = sb->namings[p].names;
        }
    if (rc < 0) {
        tf_prv_symbols_object_names_free(sb, all);
        return rc;
    }
    *names = all;
    return 0;
}

void tf_prv_symbols_object_names_free(tf_prv_symbols *sb, char ***names)
{
    for (uint32_t p = 0; sb->namings && p < tf_trace_nprocesses(sb->tr); p++)
        tf_object_naming_free(&sb->namings[p]);
    free(sb->namings);
    sb->namings = NULL;
    free(names);
}

int tf_prv_symbols_resolve(void *arg, uint32_t proc, uint64_t ip, bool return_address,
                           tf_prv_source *src, tf_error *err)
{
    tf_prv_symbols *sb = arg;
    *src = (tf_prv_source){"", "", 0};
    if (!sb->tr || !ip || proc >= tf_trace_nprocesses(sb->tr))
        return 0;
    int rc = symbolizer_of(sb, proc, err);
    const tf_sym_location *loc;
    if (rc == 0)
        rc = tf_symbolize(sb->per_proc[proc], ip, return_address, &loc, err);
    if (rc < 0)
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
