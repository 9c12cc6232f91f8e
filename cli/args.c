/* SPDX-License-Identifier: BSD-3-Clause */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "extract/alloc_site.h"
#include "msg.h"

bool tf_arg_double(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s || *end || !(d >= lo && d <= hi))
        return false;
    *v = d;
    return true;
}

bool tf_arg_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '+')
        return false;
    unsigned long long u = strtoull(s, &end, 10);
    if (errno || end == s || *end || u < lo || u > hi)
        return false;
    *v = u;
    return true;
}

bool tf_arg_u32(const char *s, uint32_t *v)
{
    uint64_t u;
    if (!tf_arg_uint(s, 0, UINT32_MAX, &u))
        return false;
    *v = (uint32_t)u;
    return true;
}

bool tf_arg_bytes(const char *s, size_t *v)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s || !(d > 0))
        return false;
    double mult = 1;
    switch (*end) {
    case 'K': case 'k': mult = 1024.0; end++; break;
    case 'M': case 'm': mult = 1024.0 * 1024; end++; break;
    case 'G': case 'g': mult = 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end || d * mult >= (double)SIZE_MAX)
        return false;
    *v = (size_t)(d * mult);
    return true;
}

bool tf_arg_alloc_wrapper(struct tf_alloc_rules *rules, int argc, const char *name)
{
    if (!name[0]) {
        tf_msg_usage("--alloc-wrapper: expected the name of a routine, got ''");
        return false;
    }
    if (!rules->wrappers && !(rules->wrappers = calloc((size_t)argc, sizeof *rules->wrappers))) {
        tf_msg_error("out of memory for --alloc-wrapper");
        return false;
    }
    rules->wrappers[rules->nwrappers++] = name;
    return true;
}
