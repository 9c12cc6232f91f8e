/* SPDX-License-Identifier: BSD-3-Clause */
/* Text from a trace made safe to show: a trace's strings (host, command,
 * region, routine, file, object and counter names) are whatever the
 * recorded program or an imported file held, and a control character in
 * them would reach the user's terminal (an ESC sequence can retitle or
 * clear it) or break a line of CSV or Markdown.  One rule for every sink
 * (terminal, CSV, Markdown, messages, the drawn report): each C0 control (bytes 0x00-0x1f,
 * line breaks and tabs included), DEL (0x7f), each C1 control (U+0080 to
 * U+009F, written in UTF-8 as 0xc2 0x80-0x9f) and each byte that is not
 * part of a well-formed UTF-8 character is written as \xNN (two lowercase
 * hex digits per byte); everything else, non-ASCII letters included, is
 * written as it is. */
#ifndef TF_ESCAPE_H
#define TF_ESCAPE_H

#include <stdio.h>

/* Writes s with the escapes to f; returns the number of bytes written. */
size_t tf_escape_put(FILE *f, const char *s);

/* The same, with mark written before each character c: a format's own
 * quoting ('"' doubled in a CSV field, '|' as "\|" in a Markdown cell). */
size_t tf_escape_put_marked(FILE *f, const char *s, char c, char mark);

/* s with the escapes, as a string for a sink that takes strings (pango's
 * layouts, which refuse text that is not UTF-8); malloc'ed, NULL when out
 * of memory. */
char *tf_escape_dup(const char *s);

/* s as a JSON string, quotes included: the controls above as \u escapes
 * (a terminal showing the output would act on them), a byte that is not
 * UTF-8 as the code point of its value, since JSON text is UTF-8 (RFC 8259,
 * section 8.1). */
void tf_escape_json(FILE *f, const char *s);

/* Length of the well-formed UTF-8 character at s (1 for ASCII; RFC 3629,
 * section 4: no overlong form, no surrogate, nothing above U+10FFFF), 0 if
 * there is none (a stray byte, or the end of the string). */
size_t tf_escape_utf8_length(const char *s);

#endif
