/* SPDX-License-Identifier: BSD-3-Clause */
/* Named page sizes and the WxH parser. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "page_size.h"

#define PT_PER_MM (72.0 / 25.4)
#define PT_PER_IN 72.0

/* Widths are the column widths of the common journal templates (IEEE
 * 3.5 in = 88.9 mm and 7.16 in = 182 mm, Elsevier 90 and 190 mm, Springer
 * 84 and 174 mm), rounded to 88 and 180 mm; heights leave room for the
 * caption on the page.  The slide is PowerPoint's 16:9 on-screen page,
 * 10 x 5.625 in. */
static const struct {
    const char *name;
    double      w_mm, h_mm;
} named[] = {
    {"single-column", 88.0, 150.0},
    {"double-column", 180.0, 160.0},
    {"slide", 254.0, 142.875},
};

static bool side(const char *s, char **end, double *mm)
{
    if (!(*s >= '0' && *s <= '9'))
        return false;
    *mm = strtod(s, end);
    return *end != s && isfinite(*mm);
}

bool tf_page_size_parse(const char *s, tf_page_size *size)
{
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (!strcmp(s, named[i].name)) {
            *size = (tf_page_size){named[i].w_mm * PT_PER_MM, named[i].h_mm * PT_PER_MM};
            return true;
        }
    char *end;
    double w, h;
    if (!side(s, &end, &w) || (*end != 'x' && *end != 'X') || !side(end + 1, &end, &h))
        return false;
    double per_mm = 1;
    if (!strcmp(end, "in"))
        per_mm = 25.4;
    else if (*end && strcmp(end, "mm"))
        return false;
    w *= per_mm;
    h *= per_mm;
    if (w < TF_PAGE_MIN_W_MM || h < TF_PAGE_MIN_H_MM || w > TF_PAGE_MAX_MM || h > TF_PAGE_MAX_MM)
        return false;
    *size = (tf_page_size){w * PT_PER_MM, h * PT_PER_MM};
    return true;
}
