/* SPDX-License-Identifier: BSD-3-Clause */
#include "sigsafe_format.h"

#include <stdbool.h>
#include <stdint.h>

/* Output cursor: counts every byte, stores those that fit. */
typedef struct tf_out {
    char  *buf;
    size_t size;
    size_t len;
} tf_out;

static void put(tf_out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void pad(tf_out *o, char c, int n)
{
    for (; n > 0; n--)
        put(o, c);
}

typedef struct tf_spec {
    bool left;      /* '-' */
    bool zero;      /* '0' */
    int  width;
    int  prec;      /* -1: none */
} tf_spec;

/* Emits an already converted body (sign/prefix, digits) with the field
 * width, zero padding and precision rules of C's printf. */
static void emit_number(tf_out *o, const tf_spec *sp, const char *prefix, const char *digits,
                        int ndigits)
{
    int nprefix = 0;
    while (prefix[nprefix])
        nprefix++;
    /* A precision of 0 with the value 0 prints no digits. */
    if (sp->prec == 0 && ndigits == 1 && digits[0] == '0')
        ndigits = 0;
    int zeros = sp->prec > ndigits ? sp->prec - ndigits : 0;
    int body = nprefix + zeros + ndigits;
    int fill = sp->width > body ? sp->width - body : 0;
    if (!sp->left && !(sp->zero && sp->prec < 0))
        pad(o, ' ', fill);
    for (int i = 0; i < nprefix; i++)
        put(o, prefix[i]);
    if (!sp->left && sp->zero && sp->prec < 0)
        pad(o, '0', fill);
    pad(o, '0', zeros);
    for (int i = 0; i < ndigits; i++)
        put(o, digits[i]);
    if (sp->left)
        pad(o, ' ', fill);
}

/* Digits of v in base, most significant first, into out; returns count. */
static int to_digits(uintmax_t v, unsigned base, bool upper, char out[sizeof(uintmax_t) * 3])
{
    const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char rev[sizeof(uintmax_t) * 3];
    int n = 0;
    do {
        rev[n++] = set[v % base];
        v /= base;
    } while (v);
    for (int i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

enum tf_length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE, LEN_MAX, LEN_PTRDIFF };

static intmax_t signed_arg(va_list *ap, enum tf_length len)
{
    switch (len) {
    case LEN_CHAR:    return (signed char)va_arg(*ap, int);
    case LEN_SHORT:   return (short)va_arg(*ap, int);
    case LEN_LONG:    return va_arg(*ap, long);
    case LEN_LLONG:   return va_arg(*ap, long long);
    case LEN_SIZE:    return (intmax_t)va_arg(*ap, size_t);
    case LEN_MAX:     return va_arg(*ap, intmax_t);
    case LEN_PTRDIFF: return va_arg(*ap, ptrdiff_t);
    case LEN_INT:     break;
    }
    return va_arg(*ap, int);
}

static uintmax_t unsigned_arg(va_list *ap, enum tf_length len)
{
    switch (len) {
    case LEN_CHAR:    return (unsigned char)va_arg(*ap, unsigned);
    case LEN_SHORT:   return (unsigned short)va_arg(*ap, unsigned);
    case LEN_LONG:    return va_arg(*ap, unsigned long);
    case LEN_LLONG:   return va_arg(*ap, unsigned long long);
    case LEN_SIZE:    return va_arg(*ap, size_t);
    case LEN_MAX:     return va_arg(*ap, uintmax_t);
    case LEN_PTRDIFF: return (uintmax_t)va_arg(*ap, ptrdiff_t);
    case LEN_INT:     break;
    }
    return va_arg(*ap, unsigned);
}

/* Parses digits or '*' at *f; returns the value, -1 when absent. */
static int parse_count(const char **f, va_list *ap)
{
    if (**f == '*') {
        (*f)++;
        return va_arg(*ap, int);
    }
    if (**f < '0' || **f > '9')
        return -1;
    int v = 0;
    while (**f >= '0' && **f <= '9')
        v = v * 10 + (*(*f)++ - '0');
    return v;
}

static enum tf_length parse_length(const char **f)
{
    switch (**f) {
    case 'h':
        (*f)++;
        if (**f == 'h') { (*f)++; return LEN_CHAR; }
        return LEN_SHORT;
    case 'l':
        (*f)++;
        if (**f == 'l') { (*f)++; return LEN_LLONG; }
        return LEN_LONG;
    case 'z': (*f)++; return LEN_SIZE;
    case 'j': (*f)++; return LEN_MAX;
    case 't': (*f)++; return LEN_PTRDIFF;
    default:  return LEN_INT;
    }
}

static void emit_string(tf_out *o, const tf_spec *sp, const char *s)
{
    if (!s)
        s = "(null)";
    int n = 0;
    while (s[n] && (sp->prec < 0 || n < sp->prec))
        n++;
    int fill = sp->width > n ? sp->width - n : 0;
    if (!sp->left)
        pad(o, ' ', fill);
    for (int i = 0; i < n; i++)
        put(o, s[i]);
    if (sp->left)
        pad(o, ' ', fill);
}

/* One conversion starting after '%'; returns the position after it. */
static const char *convert(tf_out *o, const char *f, va_list *ap)
{
    const char *start = f - 1;
    tf_spec sp = { .prec = -1 };
    for (;; f++) {
        if (*f == '-')
            sp.left = true;
        else if (*f == '0')
            sp.zero = true;
        else
            break;
    }
    sp.width = parse_count(&f, ap);
    if (sp.width < 0 && f[-1] == '*') {   /* negative '*' width means left-justified */
        sp.left = true;
        sp.width = -sp.width;
    }
    if (*f == '.') {
        f++;
        sp.prec = parse_count(&f, ap);
        if (sp.prec < 0 && f[-1] != '*')
            sp.prec = 0;                   /* "%.d": precision zero */
    }
    enum tf_length len = parse_length(&f);
    char digits[sizeof(uintmax_t) * 3];
    switch (*f) {
    case 'd':
    case 'i': {
        intmax_t v = signed_arg(ap, len);
        uintmax_t mag = v < 0 ? (uintmax_t)0 - (uintmax_t)v : (uintmax_t)v;
        emit_number(o, &sp, v < 0 ? "-" : "", digits, to_digits(mag, 10, false, digits));
        break;
    }
    case 'u':
        emit_number(o, &sp, "", digits, to_digits(unsigned_arg(ap, len), 10, false, digits));
        break;
    case 'x':
    case 'X':
        emit_number(o, &sp, "", digits,
                    to_digits(unsigned_arg(ap, len), 16, *f == 'X', digits));
        break;
    case 'o':
        emit_number(o, &sp, "", digits, to_digits(unsigned_arg(ap, len), 8, false, digits));
        break;
    case 'p':
        emit_number(o, &sp, "0x", digits,
                    to_digits((uintptr_t)va_arg(*ap, void *), 16, false, digits));
        break;
    case 'c': {
        char c[2] = { (char)va_arg(*ap, int), '\0' };
        tf_spec one = sp;
        one.prec = 1;
        emit_string(o, &one, c);
        break;
    }
    case 's':
        emit_string(o, &sp, va_arg(*ap, const char *));
        break;
    case '%':
        put(o, '%');
        break;
    default:
        /* Unknown conversion: copy it as written and stop interpreting it. */
        for (const char *p = start; p <= f && *p; p++)
            put(o, *p);
        return *f ? f + 1 : f;
    }
    return f + 1;
}

int tf_sigsafe_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    tf_out o = { .buf = buf, .size = size };
    va_list args;
    va_copy(args, ap);
    for (const char *f = fmt; *f;) {
        if (*f != '%') {
            put(&o, *f++);
            continue;
        }
        f = convert(&o, f + 1, &args);
    }
    va_end(args);
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return (int)o.len;
}
