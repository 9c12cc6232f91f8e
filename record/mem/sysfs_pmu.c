/* SPDX-License-Identifier: BSD-3-Clause */
#include "sysfs_pmu.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a small text file whole, without its trailing newline. */
static int read_text(const char *path, char *buf, size_t size, tf_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tf_fail(err, errno == ENOENT ? TF_ERR_NOTFOUND : TF_ERR_IO, "%s: %s", path,
                       strerror(errno));
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return 0;
}

int tf_sysfs_pmu_type(const char *root, const char *pmu, uint32_t *type, tf_error *err)
{
    char path[PATH_MAX], text[64];
    snprintf(path, sizeof path, "%s/%s/type", root, pmu);
    int rc = read_text(path, text, sizeof text, err);
    if (rc)
        return rc;
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || v > UINT32_MAX)
        return tf_fail(err, TF_ERR_FORMAT, "%s: \"%s\" is not a PMU type number", path, text);
    *type = (uint32_t)v;
    return 0;
}

bool tf_sysfs_pmu_has_event(const char *root, const char *pmu, const char *event)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/events/%s", root, pmu, event);
    return access(path, R_OK) == 0;
}

/* Places value into the config word named by a format ("config1:0-15",
 * ranges separated by commas, low bits of value into the first range). */
static int apply_format(const char *path, const char *format, uint64_t value,
                        struct perf_event_attr *attr, tf_error *err)
{
    const char *colon = strchr(format, ':');
    if (!colon)
        return tf_fail(err, TF_ERR_FORMAT, "%s: \"%s\": expected config:bits", path, format);
    size_t namelen = (size_t)(colon - format);
    __u64 *word = NULL;
    if (namelen == 6 && strncmp(format, "config", 6) == 0)
        word = &attr->config;
    else if (namelen == 7 && strncmp(format, "config1", 7) == 0)
        word = &attr->config1;
    else if (namelen == 7 && strncmp(format, "config2", 7) == 0)
        word = &attr->config2;
    else
        return tf_fail(err, TF_ERR_UNSUPPORTED, "%s: unknown field \"%.*s\"", path,
                       (int)namelen, format);
    const char *p = colon + 1;
    unsigned used = 0;   /* bits of value consumed */
    while (*p) {
        char *end;
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        if (end == p)
            return tf_fail(err, TF_ERR_FORMAT, "%s: \"%s\": bad bit range", path, format);
        if (*end == '-') {
            p = end + 1;
            hi = strtoul(p, &end, 10);
            if (end == p)
                return tf_fail(err, TF_ERR_FORMAT, "%s: \"%s\": bad bit range", path, format);
        }
        if (hi < lo || hi > 63)
            return tf_fail(err, TF_ERR_FORMAT, "%s: \"%s\": bit range out of 0-63", path,
                           format);
        for (unsigned long b = lo; b <= hi; b++, used++) {
            uint64_t bit = used < 64 ? (value >> used) & 1 : 0;
            *word = (*word & ~(1ull << b)) | (bit << b);
        }
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return tf_fail(err, TF_ERR_FORMAT, "%s: \"%s\": bad bit range", path, format);
    }
    if (used < 64 && (value >> used) != 0)
        return tf_fail(err, TF_ERR_USAGE, "%s: value %#" PRIx64 " does not fit in %u bits",
                       path, value, used);
    return 0;
}

static int apply_term(const char *root, const char *pmu, const char *term, uint64_t value,
                      struct perf_event_attr *attr, tf_error *err)
{
    char path[PATH_MAX], format[128];
    snprintf(path, sizeof path, "%s/%s/format/%s", root, pmu, term);
    int rc = read_text(path, format, sizeof format, err);
    return rc ? rc : apply_format(path, format, value, attr, err);
}

int tf_sysfs_pmu_encode(const char *root, const char *pmu, const char *event,
                        const char *override_term, uint64_t override_value,
                        struct perf_event_attr *attr, tf_error *err)
{
    uint32_t type;
    int rc = tf_sysfs_pmu_type(root, pmu, &type, err);
    if (rc)
        return rc;
    char path[PATH_MAX], text[512];
    snprintf(path, sizeof path, "%s/%s/events/%s", root, pmu, event);
    rc = read_text(path, text, sizeof text, err);
    if (rc)
        return rc;
    attr->type = type;
    attr->config = attr->config1 = attr->config2 = 0;
    bool overridden = false;
    char *save = NULL;
    for (char *term = strtok_r(text, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(term, '=');
        uint64_t value = 1;   /* a bare term is a flag */
        if (eq) {
            *eq = '\0';
            char *end;
            errno = 0;
            value = strtoull(eq + 1, &end, 0);
            if (errno || end == eq + 1 || *end)
                return tf_fail(err, TF_ERR_FORMAT, "%s: term %s: bad value \"%s\"", path,
                               term, eq + 1);
        }
        if (override_term && strcmp(term, override_term) == 0) {
            value = override_value;
            overridden = true;
        }
        rc = apply_term(root, pmu, term, value, attr, err);
        if (rc)
            return rc;
    }
    if (override_term && !overridden)
        return apply_term(root, pmu, override_term, override_value, attr, err);
    return 0;
}
