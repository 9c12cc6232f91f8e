/* SPDX-License-Identifier: BSD-3-Clause */
/* The routine[line] labels of phases. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "report_phases.h"

void tf_report_phase_label(const tf_report_page *page, const tf_report_phase *ph, char *buf,
                           size_t len)
{
    const char *name = page->routines[ph->routine];
    if (ph->line)
        snprintf(buf, len, "%s[%u]", name, ph->line);
    else
        snprintf(buf, len, "%s", name);
}

/* Whether phase i gets a label: it has a routine and is not labelled like
 * the one before it (split there by a rate change: it keeps its boundary
 * line but not a second label). */
static bool labelled(const tf_report_page *page, size_t i)
{
    const tf_report_phase *ph = &page->phases[i];
    return ph->routine < page->nroutines
        && !(i > 0 && page->phases[i - 1].routine == ph->routine
             && page->phases[i - 1].line == ph->line);
}

void tf_report_phase_labels_choose(const tf_report_page *page, unsigned max, bool *keep)
{
    size_t n = 0;
    for (size_t i = 0; i < page->nphases; i++)
        n += keep[i] = labelled(page, i);
    if (max == 0 || n <= max)
        return;
    for (size_t i = 1; i < page->nphases && n > max; i++)
        if (keep[i] && tf_report_phase_siblings(&page->phases[i - 1], &page->phases[i])) {
            keep[i] = false;
            n--;
        }
    while (n > max) {
        size_t narrowest = SIZE_MAX;
        for (size_t i = 0; i < page->nphases; i++)
            if (keep[i] && (narrowest == SIZE_MAX
                            || page->phases[i].x1 - page->phases[i].x0
                                   < page->phases[narrowest].x1 - page->phases[narrowest].x0))
                narrowest = i;
        keep[narrowest] = false;
        n--;
    }
}
