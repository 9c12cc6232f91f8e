/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness: Paraver input (formats/prv_reader.c, prv_pcf.c, prv_row.c,
 * prv_import.c).  A Paraver trace is up to three files, so an input is
 *
 *   FLAGS PRV [NUL PCF [NUL ROW]]
 *
 * FLAGS (one byte) says how the .prv part reaches the reader and which
 * reader runs; a part that is absent is a file that is absent. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz.h"
#include "formats/prv_import.h"
#include "formats/prv_pcf.h"
#include "formats/prv_reader.h"
#include "formats/prv_row.h"

enum {
    GZIP_TEXT = 1u << 0,  /* the .prv part compressed by the harness, as in.prv.gz */
    GZIP_RAW  = 1u << 1,  /* the .prv part taken as the bytes of in.prv.gz */
    LENIENT   = 1u << 2,  /* bad records skipped (paraver --lenient) */
    IMPORT    = 1u << 3,  /* the whole import into a tracefold trace */
};

/* The next part of the input: up to the next NUL (excluded), or the rest. */
static bool next_part(const uint8_t **at, const uint8_t *end, const uint8_t **part,
                      size_t *len)
{
    if (!*at)
        return false;
    const uint8_t *nul = memchr(*at, 0, (size_t)(end - *at));
    *part = *at;
    *len = (size_t)((nul ? nul : end) - *at);
    *at = nul ? nul + 1 : NULL;
    return true;
}

static void write_gzip(const uint8_t *data, size_t size, char *path, size_t pathsize)
{
    tf_fuzz_path("in.prv.gz", path, pathsize);
    gzFile gz = gzopen(path, "wb1");
    if (!gz || (size && gzwrite(gz, data, (unsigned)size) != (int)size) || gzclose(gz) != Z_OK)
        abort();
}

/* Reads every record, then the labels of what the records name. */
static void read_only(const char *prv, const char *pcf_path, const char *row_path, bool lenient)
{
    tf_error err = { 0 };
    tf_pcf *pcf = NULL;
    tf_row row = { 0 };
    bool have_pcf = pcf_path && tf_pcf_read(pcf_path, &pcf, &err) == 0;
    bool have_row = row_path && tf_row_read(row_path, &row, &err) == 0;
    tf_prv_reader *r;
    if (tf_prv_open(&r, prv, lenient, &err) == 0) {
        const tf_prv_header *h = tf_prv_get_header(r);
        if (have_row && tf_row_check_counts(&row, row_path, h, &err) < 0)
            have_row = false;
        for (uint32_t n = 0; have_row && n < h->nnodes; n++)
            (void)tf_row_name(&row, TF_ROW_NODE, n);
        tf_prv_record rec;
        while (tf_prv_next(r, &rec, &err) > 0) {
            for (size_t i = 0; have_pcf && i < rec.npairs; i++) {
                (void)tf_pcf_type_label(pcf, rec.pairs[i].type);
                (void)tf_pcf_value_label(pcf, rec.pairs[i].type, rec.pairs[i].value);
            }
            if (have_pcf && rec.kind == TF_PRV_STATE)
                (void)tf_pcf_state_label(pcf, rec.state);
            if (have_row)
                (void)tf_row_name(&row, TF_ROW_THREAD, rec.thread_index);
        }
        tf_prv_close(r);
    }
    tf_row_free(&row);
    tf_pcf_free(pcf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned flags = data[0];
    const uint8_t *at = data + 1, *end = data + size, *part;
    size_t len;
    char prv[512], pcf[512], row[512], out[512];
    /* Last input's files must not stand in for this one's absent parts. */
    const char *const names[] = { "in.prv", "in.prv.gz", "in.pcf", "in.row" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        tf_fuzz_path(names[i], prv, sizeof prv);
        unlink(prv);
    }
    next_part(&at, end, &part, &len);
    if (flags & GZIP_RAW)
        tf_fuzz_file("in.prv.gz", part, len, prv, sizeof prv);
    else if (flags & GZIP_TEXT)
        write_gzip(part, len, prv, sizeof prv);
    else
        tf_fuzz_file("in.prv", part, len, prv, sizeof prv);
    bool have_pcf = next_part(&at, end, &part, &len);
    if (have_pcf)
        tf_fuzz_file("in.pcf", part, len, pcf, sizeof pcf);
    bool have_row = next_part(&at, end, &part, &len);
    if (have_row)
        tf_fuzz_file("in.row", part, len, row, sizeof row);

    if (flags & IMPORT) {
        tf_fuzz_path("out.h5", out, sizeof out);
        tf_prv_import_stats stats;
        tf_error err = { 0 };
        if (tf_prv_import(prv, out, flags & LENIENT, NULL, NULL, &stats, &err) == 0)
            unlink(out);
    } else {
        read_only(prv, have_pcf ? pcf : NULL, have_row ? row : NULL, flags & LENIENT);
    }
    return 0;
}
