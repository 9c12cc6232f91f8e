/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_escape.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The longest piece: an escaped C1 control (two escapes of 4 bytes), a NUL. */
#define PIECE_MAX 9

size_t tf_escape_utf8_length(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    /* Per lead byte: the length, and the range the second byte must be in
     * (RFC 3629's table of well-formed sequences). */
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (s[0] < 0x80)
        return s[0] != '\0';
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        lo = s[0] == 0xe0 ? 0xa0 : 0x80;   /* no overlong form */
        hi = s[0] == 0xed ? 0x9f : 0xbf;   /* no surrogate */
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        lo = s[0] == 0xf0 ? 0x90 : 0x80;   /* no overlong form */
        hi = s[0] == 0xf4 ? 0x8f : 0xbf;   /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    /* A NUL ends the scan here too: it is below 0x80. */
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

static size_t escape_bytes(const unsigned char *p, size_t n, char out[PIECE_MAX])
{
    static const char hex[] = "0123456789abcdef";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        out[len++] = '\\';
        out[len++] = 'x';
        out[len++] = hex[p[i] >> 4];
        out[len++] = hex[p[i] & 0xf];
    }
    out[len] = '\0';
    return len;
}

/* The next piece of *s, safe to show, into out (NUL-terminated): one UTF-8
 * character as it is, or the escape of a control or stray byte.  Advances
 * *s past what it consumed; returns the length of out (0 at the end). */
static size_t next_piece(const char **s, char out[PIECE_MAX])
{
    const unsigned char *p = (const unsigned char *)*s;
    size_t n = tf_escape_utf8_length(*s);
    if (!n && !*p) {
        out[0] = '\0';
        return 0;
    }
    if (!n) {   /* a stray byte */
        *s += 1;
        return escape_bytes(p, 1, out);
    }
    *s += n;
    bool control = p[0] < 0x20 || p[0] == 0x7f || (p[0] == 0xc2 && p[1] <= 0x9f);
    if (control)
        return escape_bytes(p, n, out);
    memcpy(out, p, n);
    out[n] = '\0';
    return n;
}

size_t tf_escape_put_marked(FILE *f, const char *s, char c, char mark)
{
    size_t written = 0;
    char piece[PIECE_MAX];
    for (size_t n; (n = next_piece(&s, piece)) > 0; written += n) {
        if (piece[0] == c && c) {
            fputc(mark, f);
            written++;
        }
        fwrite(piece, 1, n, f);
    }
    return written;
}

size_t tf_escape_put(FILE *f, const char *s)
{
    return tf_escape_put_marked(f, s, '\0', '\0');
}

char *tf_escape_dup(const char *s)
{
    char *buf = NULL;
    size_t size;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    tf_escape_put(f, s);
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

void tf_escape_json(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = tf_escape_utf8_length((const char *)p);
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f || !n)
            fprintf(f, "\\u%04x", *p);
        else if (p[0] == 0xc2 && p[1] <= 0x9f)
            fprintf(f, "\\u%04x", p[1]);
        else
            fwrite(p, 1, n, f);
        p += n ? n : 1;
    }
    fputc('"', f);
}
