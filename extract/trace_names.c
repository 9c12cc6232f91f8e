/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "trace_names.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct process_names {
    tf_symbolizer   *sym;
    tf_object_naming naming;
    bool             named;   /* naming made */
};

struct tf_trace_names {
    const tf_trace *tr;
    uint32_t        nproc;
    char           *debug_dir;
    tf_alloc_rules  rules;
    bool            has_rules;
    struct process_names *proc;   /* [nproc] */
};

int tf_trace_names_create(tf_trace_names **out, const tf_trace *tr, const char *debug_dir,
                          const tf_alloc_rules *rules, tf_error *err)
{
    *out = NULL;
    tf_trace_names *tn = calloc(1, sizeof *tn);
    uint32_t np = tr ? tf_trace_nprocesses(tr) : 0;
    if (!tn || !(tn->proc = calloc(np + 1, sizeof *tn->proc)) ||
        (debug_dir && !(tn->debug_dir = strdup(debug_dir)))) {
        tf_trace_names_free(tn);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the trace's names");
    }
    tn->tr = tr;
    tn->nproc = np;
    if (rules) {
        tn->rules = *rules;
        tn->has_rules = true;
    }
    *out = tn;
    return 0;
}

const tf_trace *tf_trace_names_trace(const tf_trace_names *tn)
{
    return tn->tr;
}

int tf_trace_names_symbolizer(tf_trace_names *tn, uint32_t proc, tf_symbolizer **sym,
                              tf_error *err)
{
    *sym = NULL;
    if (proc >= tn->nproc)
        return 0;
    struct process_names *p = &tn->proc[proc];
    if (!p->sym) {
        int rc = tf_symbolizer_for_process(&p->sym, tn->tr, proc, tn->debug_dir, err);
        if (rc < 0)
            return rc;
    }
    *sym = p->sym;
    return 0;
}

int tf_trace_names_objects(tf_trace_names *tn, uint32_t proc, const tf_object_naming **naming,
                           tf_error *err)
{
    *naming = NULL;
    if (proc >= tn->nproc)
        return 0;
    struct process_names *p = &tn->proc[proc];
    if (!p->named) {
        tf_symbolizer *sym;
        int rc = tf_trace_names_symbolizer(tn, proc, &sym, err);
        if (rc == 0)
            rc = tf_object_names(tn->tr, proc, sym, tn->has_rules ? &tn->rules : NULL,
                                 &p->naming, err);
        if (rc < 0)
            return rc;
        p->named = true;
    }
    *naming = &p->naming;
    return 0;
}

void tf_trace_names_free(tf_trace_names *tn)
{
    if (!tn)
        return;
    for (uint32_t p = 0; tn->proc && p < tn->nproc; p++) {
        tf_symbolizer_free(tn->proc[p].sym);
        if (tn->proc[p].named)
            tf_object_naming_free(&tn->proc[p].naming);
    }
    free(tn->proc);
    free(tn->debug_dir);
    free(tn);
}
