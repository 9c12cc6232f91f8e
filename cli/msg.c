/* SPDX-License-Identifier: BSD-3-Clause */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/tf_escape.h"

static const char *program = "tracefold";
static bool quiet, silent;
static bool progress_shown;

void tf_msg_set_program(const char *name) { program = name; }
void tf_msg_set_quiet(bool q) { quiet = q; }
void tf_msg_set_silent(bool s) { silent = s; }

static void vmsg(const char *level, const char *fmt, va_list ap)
{
    if (silent)
        return;
    tf_progress_done();
    fprintf(stderr, "%s: %s", program, level);
    /* Messages quote trace strings (region names...): escaped, so that a
     * control character in them cannot act on the terminal (tf_escape.h). */
    char *text;
    if (vasprintf(&text, fmt, ap) < 0) {
        fputs("(out of memory for the message)\n", stderr);
        return;
    }
    tf_escape_put(stderr, text);
    free(text);
    fputc('\n', stderr);
}

void tf_msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("error: ", fmt, ap);
    va_end(ap);
}

void tf_msg_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning: ", fmt, ap);
    va_end(ap);
}

void tf_msg_note(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

int tf_msg_fail(const tf_error *err)
{
    tf_msg_error("%s", err->msg[0] ? err->msg : tf_error_text(err->code));
    return TF_EXIT_FAILURE;
}

int tf_msg_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
    if (!silent)
        fprintf(stderr, "Try '%s --help' for more information.\n", program);
    return TF_EXIT_USAGE;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tf_progress(const char *what, uint64_t done, uint64_t total)
{
    static double last;
    static int tty = -1;
    if (quiet || silent)
        return;
    if (tty < 0)
        tty = isatty(STDERR_FILENO);
    if (!tty)
        return;
    double t = now_s();
    if (t - last < 0.2 && done < total)
        return;
    last = t;
    fputc('\r', stderr);
    tf_escape_put(stderr, what);   /* it may name a region */
    if (total)
        fprintf(stderr, ": %3.0f%%", 100.0 * (double)done / (double)total);
    else
        fprintf(stderr, ": %llu", (unsigned long long)done);
    progress_shown = true;
}

void tf_progress_done(void)
{
    if (!progress_shown)
        return;
    fputs("\r\033[K", stderr);
    progress_shown = false;
}
