/* SPDX-License-Identifier: BSD-3-Clause */
/* Superscript key marks. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "key_mark.h"

void tf_key_mark(unsigned key, char *buf, size_t len)
{
    static const char *const sup[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    char digits[16];
    snprintf(digits, sizeof digits, "%u", key);
    buf[0] = 0;
    for (const char *d = digits; *d; d++)
        strncat(buf, sup[*d - '0'], len - strlen(buf) - 1);
}
