/* SPDX-License-Identifier: BSD-3-Clause */
/* A vsnprintf that is async-signal-safe: no allocation, no locale, no locks,
 * no errno.  Capstone formats every decoded instruction into text (even
 * when only its details are wanted) through the vsnprintf it was given with
 * CS_OPT_MEM; the effective-address decoder hands it this one so that
 * decoding inside a signal handler never enters stdio.
 *
 * Supported: flags '-' and '0', a field width and precision (digits or '*'),
 * the length modifiers hh h l ll z j t, and the conversions d i u x X o c s p
 * and %%.  An unknown conversion is copied to the output as written.
 * Floating point is not supported (capstone's x86 printer does not use it). */
#ifndef TF_SIGSAFE_FORMAT_H
#define TF_SIGSAFE_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* Same contract as C's vsnprintf: writes at most size bytes including the
 * terminating NUL and returns the length the full output would have.
 * Async-signal-safe. */
int tf_sigsafe_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
