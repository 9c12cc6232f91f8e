/* SPDX-License-Identifier: BSD-3-Clause */
/* Region specs "TYPE=VALUE" against the /paraver group an import leaves in
 * the trace (prv_import.c writes it). */
#include "prv_import.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"

typedef struct region_table {
    char     *source;   /* the .prv the trace was converted from */
    size_t    n;
    uint64_t *type, *value;
    char    **type_label, **value_label, **name;
} region_table;

static void table_free(region_table *t)
{
    free(t->source);
    free(t->type);
    free(t->value);
    free(t->type_label);
    free(t->value_label);
    free(t->name);
    memset(t, 0, sizeof *t);
}

static int table_load(const tf_trace *tr, const char *spec, region_table *t, tf_error *err)
{
    memset(t, 0, sizeof *t);
    int64_t file = tf_trace_file(tr);
    if (!tf_h5_exists(file, TF_PRV_IMPORT_GROUP))
        return tf_fail(err, TF_ERR_USAGE,
                       "%s: region '%s': TYPE=VALUE specs apply to traces read from Paraver",
                       tf_trace_path(tr), spec);
    int64_t g;
    int rc = tf_h5_group_open(file, TF_PRV_IMPORT_GROUP, &g, err);
    if (rc == 0)
        rc = tf_h5_attr_read_string(g, "source", &t->source, err);
    if (rc < 0) {
        tf_h5_close(g);
        return rc;
    }
    if (!tf_h5_exists(g, "region_name")) {
        tf_h5_close(g);
        return 0;   /* a trace without user functions */
    }
    size_t n[5], cols;
    if ((rc = tf_h5_read_array(g, "region_type", TF_H5_UINT64, (void **)&t->type, &n[0], &cols, err)) == 0 &&
        (rc = tf_h5_read_array(g, "region_value", TF_H5_UINT64, (void **)&t->value, &n[1], &cols, err)) == 0 &&
        (rc = tf_h5_read_strings(g, "region_type_label", &t->type_label, &n[2], err)) == 0 &&
        (rc = tf_h5_read_strings(g, "region_value_label", &t->value_label, &n[3], err)) == 0 &&
        (rc = tf_h5_read_strings(g, "region_name", &t->name, &n[4], err)) == 0) {
        t->n = n[0];
        for (int i = 1; i < 5; i++)
            if (n[i] != t->n)
                rc = tf_h5_fail(err, TF_ERR_FORMAT, g, NULL,
                                "region tables of different lengths (%zu and %zu)", n[0], n[i]);
    }
    tf_h5_close(g);
    if (rc < 0)
        table_free(t);
    return rc;
}

/* A side of the spec matches numerically when it is all digits, else by label. */
static bool side_matches(const char *side, uint64_t number, const char *label)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(side, &end, 10);
    if (*side >= '0' && *side <= '9' && !*end && !errno)
        return v == number;
    return label && !strcmp(side, label);
}

int tf_prv_region_resolve(const tf_trace *tr, const char *spec, char **name, tf_error *err)
{
    *name = NULL;
    const char *eq = strchr(spec, '=');
    if (!eq)
        return tf_fail(err, TF_ERR_USAGE, "region '%s': expected TYPE=VALUE", spec);
    char *type_side = strndup(spec, (size_t)(eq - spec));
    if (!type_side)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    const char *value_side = eq + 1;
    region_table t;
    int rc = table_load(tr, spec, &t, err);
    for (size_t i = 0; rc == 0 && i < t.n && !*name; i++)
        if (side_matches(type_side, t.type[i], t.type_label[i]) &&
            side_matches(value_side, t.value[i], t.value_label[i]) &&
            !(*name = strdup(t.name[i])))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    if (rc == 0 && !*name) {
        /* Name what the trace has, so a typo is easy to fix. */
        char have[600] = "";
        size_t used = 0;
        for (size_t i = 0; i < t.n && used < sizeof have; i++)
            used += (size_t)snprintf(have + used, sizeof have - used, "%s%s=%s (%" PRIu64 "=%" PRIu64 ")",
                                     i ? ", " : "", t.type_label[i], t.value_label[i],
                                     t.type[i], t.value[i]);
        rc = tf_fail(err, TF_ERR_NOTFOUND, "%s: no region matches '%s'; the trace has: %s",
                     t.source, spec, t.n ? have : "no user functions");
    }
    table_free(&t);
    free(type_side);
    return rc;
}
