/* SPDX-License-Identifier: BSD-3-Clause */
/* The marks of a page's numbered key: a shortened or left-out text is
 * shown as (or ends with) its number in superscript digits, "¹²", and the
 * key gives the full text after the same mark.  Shared by both back ends. */
#ifndef TF_RENDER_KEY_MARK_H
#define TF_RENDER_KEY_MARK_H

#include <stddef.h>

/* key (from 1) as superscript digits into buf. */
void tf_key_mark(unsigned key, char *buf, size_t len);

#endif
