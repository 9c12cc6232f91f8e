/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace output: every table is an appendable, chunked, compressed
 * dataset; HDF5's chunk cache holds the chunk being filled, so small batches
 * cost no re-compression until a flush.  Small appends are also staged in
 * memory, up to a quarter of a chunk's rows, and written at a flush, at
 * close or when that much is there: each HDF5 append (extent, selections, write)
 * costs tens of microseconds whatever its size, which the recorder's
 * writer paid for every table at every tick (bench/RESULTS.md, "CPU time
 * on real-code patterns").  The file holds the same bytes at each flush. */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "h5util.h"
#include "strtab.h"
#include "common/tf_output.h"
#include "trace_schema.h"

/* Chunks of about this many bytes (uncompressed), the deflate level, and
 * the byte shuffle before it: docs/trace-format.md ("Storage and its
 * trade-offs") has the measurements behind the choice.  Overridable at
 * build time only to repeat those measurements with bench/trace_io. */
#ifndef TF_TRACE_CHUNK_BYTES
#define TF_TRACE_CHUNK_BYTES (64 * 1024)
#endif
#ifndef TF_TRACE_DEFLATE
#define TF_TRACE_DEFLATE 1
#endif
#ifndef TF_TRACE_SHUFFLE
#define TF_TRACE_SHUFFLE 1
#endif
#define MIN_CHUNK_ROWS 16
/* A table created as the trace closes with at most this many bytes is
 * stored without shuffle and deflate: each chunk compressed costs zlib's
 * set-up (a 256 KiB state), far more than a few hundred bytes saved. */
#define TINY_TABLE_BYTES 4096
/* Records packed per H5Dwrite, which bounds the scratch buffer. */
#define PACK_ROWS 8192

/* One appendable dataset, created in the file when its first rows come
 * (or, empty, at the next flush or the close, and closed again), so that
 * only the tables being written are held open: a Paraver header declaring
 * 4000 threads without records took 131 MB to convert with every table
 * created and held from the start (bench/RESULTS.md, "Paraver"). */
typedef struct table {
    hid_t    dset;       /* -1 while not open */
    hid_t    mem_type;   /* built when opened; owned unless a predefined type */
    bool     own_type;
    bool     exists;     /* created in the file (maybe closed since) */
    const tf_table_schema *schema;   /* NULL: a column of `column` */
    hid_t    column;     /* file type of a schema-less table (predefined) */
    uint32_t ncounters;
    size_t   row_size;   /* bytes of one row in memory */
    uint64_t rows;       /* appended, staged ones included */
    uint64_t written;    /* in the dataset */
    unsigned char *stage;   /* staged rows (memory layout), allocated at first use */
    size_t   staged, stage_cap;   /* rows */
    bool     last;       /* the trace is closing: no more rows will come */
    char     path[80];   /* in the file: "/process/P/thread/T/samples" at most */
} table;

typedef struct wthread {
    uint64_t tid;
    table    events, samples, frames;
    uint64_t last_event, last_sample;   /* times of the last rows written */
} wthread;

typedef struct wprocess {
    uint32_t ncounters;
    table    counters, modules, objects, symbols, frames;
    wthread *threads;
    uint32_t nthreads, cap;
} wprocess;

struct tf_trace_out {
    char     *path;        /* the name users know; used in messages */
    char     *file_path;   /* what HDF5 writes: path, or the temporary name */
    bool      atomic;
    hid_t     file;
    tf_strtab strings;
    table     strings_table;   /* bytes: the strings, each ended by a zero byte */
    size_t    strings_written; /* how many of the interned strings it holds */
    wprocess *procs;
    uint32_t  nprocs, cap;
    unsigned char *scratch;    /* PACK_ROWS packed rows of the widest table */
    size_t    scratch_size;
};

/* ---- tables --------------------------------------------------------------- */

static void table_close(table *t)
{
    if (t->dset >= 0)
        H5Dclose(t->dset);
    if (t->own_type && t->mem_type >= 0)
        H5Tclose(t->mem_type);
    t->dset = t->mem_type = -1;
    t->own_type = false;
    free(t->stage);
    t->stage = NULL;
    t->staged = 0;
}

/* Rows of a chunk of rows of `row` bytes. */
static hsize_t chunk_rows(size_t row)
{
    hsize_t chunk = TF_TRACE_CHUNK_BYTES / (row ? row : 1);
    return chunk < MIN_CHUNK_ROWS ? MIN_CHUNK_ROWS : chunk;
}

/* Describes group/name, a table of schema s (with ncounters counters), or
 * when s is NULL a column of the predefined file type `column`; nothing is
 * created yet. */
static void table_declare(table *t, const char *group, const char *name,
                          const tf_table_schema *s, uint32_t ncounters, hid_t column)
{
    *t = (table){ .dset = -1, .mem_type = -1, .schema = s, .column = column,
                  .ncounters = ncounters,
                  .row_size = s ? tf_schema_row_size(s, ncounters) : H5Tget_size(column) };
    snprintf(t->path, sizeof t->path, "%s/%s", group, name);
    /* A quarter of a chunk (chunk_rows, with the row in memory, which is
     * no shorter than the packed one in the file): four appends where
     * there were tens, for a quarter more memory than the chunk cache's
     * (docs/trace-format.md, "Writing, flushing and crashes"). */
    t->stage_cap = chunk_rows(t->row_size) / 4;
}

/* Opens the table, creating it (empty, unlimited) the first time: in
 * chunks of TF_TRACE_CHUNK_BYTES, or, created as the trace closes, of the
 * rows it has (at least MIN_CHUNK_ROWS).  A short run's tables are each a
 * few rows, and a partial chunk is compressed whole: 64 KiB chunks made
 * the close of a recorded /bin/true's trace 5 ms of deflate (bench/
 * RESULTS.md, "Recorder: start and stop"). */
static int table_open(hid_t file, table *t, tf_error *err)
{
    if (t->dset >= 0)
        return 0;
    const tf_table_schema *s = t->schema;
    hid_t file_type = s ? tf_schema_type(s, t->ncounters, true) : t->column;
    t->own_type = s != NULL;
    t->mem_type = s ? tf_schema_type(s, t->ncounters, false)
                    : t->column == H5T_STD_U8LE ? H5T_NATIVE_UINT8 : H5T_NATIVE_UINT64;
    if (file_type < 0 || t->mem_type < 0) {
        if (s && file_type >= 0)
            H5Tclose(file_type);
        table_close(t);
        return tf_h5_fail(err, TF_ERR_INTERNAL, file, t->path, "cannot build the record type");
    }
    size_t file_row = H5Tget_size(file_type);
    hsize_t chunk = chunk_rows(file_row);
    if (t->last && t->rows < chunk)
        chunk = t->rows > MIN_CHUNK_ROWS ? t->rows : MIN_CHUNK_ROWS;
    bool filtered = !t->last || chunk * file_row > TINY_TABLE_BYTES;
    hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &zero, &unlimited);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    bool ok = space >= 0 && dcpl >= 0 && dapl >= 0 &&
              H5Pset_chunk(dcpl, 1, &chunk) >= 0 &&
              (!TF_TRACE_SHUFFLE || !filtered || H5Pset_shuffle(dcpl) >= 0) &&
              (!TF_TRACE_DEFLATE || !filtered || H5Pset_deflate(dcpl, TF_TRACE_DEFLATE) >= 0) &&
              /* No fill pass over new chunks. */
              H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
              /* Room for the chunk being filled and two more: fully written
               * chunks go first (w0 = 1), the partial one stays cached. */
              H5Pset_chunk_cache(dapl, 101, 3 * chunk * file_row, 1.0) >= 0;
    if (ok)
        t->dset = t->exists ? H5Dopen2(file, t->path, dapl)
                            : H5Dcreate2(file, t->path, file_type, space, H5P_DEFAULT, dcpl,
                                         dapl);
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (dapl >= 0)
        H5Pclose(dapl);
    if (s)
        H5Tclose(file_type);
    if (t->dset < 0) {
        table_close(t);
        return tf_h5_fail(err, TF_ERR_IO, file, t->path, t->exists ? "cannot open the dataset"
                                                                  : "cannot create the dataset");
    }
    t->exists = true;
    return 0;
}

/* Creates a table that has had no rows yet, empty, and closes it again:
 * readers expect every table of the format. */
static int table_settle(hid_t file, table *t, tf_error *err)
{
    if (t->exists)
        return 0;
    int rc = table_open(file, t, err);
    table_close(t);
    return rc;
}

/* Writes n rows into the open dataset, after those it holds. */
static int table_write(table *t, const void *rows, size_t n, tf_error *err)
{
    hsize_t start = t->written, count = n, size = t->written + n;
    hid_t fspace = -1, mspace = -1;
    bool ok = H5Dset_extent(t->dset, &size) >= 0 && (fspace = H5Dget_space(t->dset)) >= 0 &&
              H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
              (mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
              H5Dwrite(t->dset, t->mem_type, mspace, fspace, H5P_DEFAULT, rows) >= 0;
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (!ok)
        return tf_h5_fail(err, TF_ERR_IO, t->dset, NULL, "cannot append %zu rows", n);
    t->written += n;
    return 0;
}

/* Writes the staged rows into the dataset, opening (or creating) it. */
static int table_drain(hid_t file, table *t, tf_error *err)
{
    if (!t->staged)
        return 0;
    int rc = table_open(file, t, err);
    if (rc == 0)
        rc = table_write(t, t->stage, t->staged, err);
    if (rc == 0)
        t->staged = 0;
    return rc;
}

/* Stages the rows, or writes them (opening or creating the table) when
 * they do not fit the stage.  A table whose rows all fit the stage until
 * the trace closes is created then, chunked to them (table_open). */
static int table_append(hid_t file, table *t, const void *rows, size_t n, tf_error *err)
{
    if (!n)
        return 0;
    int rc = 0;
    if (t->staged + n > t->stage_cap)
        rc = table_drain(file, t, err);
    if (rc == 0 && n < t->stage_cap && !t->stage)
        t->stage = malloc(t->stage_cap * t->row_size);   /* without it: written at once */
    if (rc == 0 && n < t->stage_cap && t->stage) {
        memcpy(t->stage + t->staged * t->row_size, rows, n * t->row_size);
        t->staged += n;
    } else if (rc == 0 && (rc = table_open(file, t, err)) == 0) {
        rc = table_write(t, rows, n, err);
    }
    if (rc == 0)
        t->rows += n;
    return rc;
}

/* Packs records in batches of PACK_ROWS and appends them. */
static int table_append_records(tf_trace_out *w, table *t, const tf_table_schema *s,
                                uint32_t ncounters, const void *records,
                                const uint64_t *counters, size_t n, tf_error *err)
{
    size_t need = PACK_ROWS * t->row_size;
    if (need > w->scratch_size) {
        unsigned char *p = realloc(w->scratch, need);
        if (!p)
            return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", w->path);
        w->scratch = p;
        w->scratch_size = need;
    }
    size_t values = s->has_counters ? ncounters : 0;
    for (size_t done = 0; done < n;) {
        size_t batch = n - done < PACK_ROWS ? n - done : PACK_ROWS;
        tf_schema_pack(s, ncounters, (const unsigned char *)records + done * s->struct_size,
                       counters ? counters + done * values : NULL, batch, w->scratch);
        int rc = table_append(w->file, t, w->scratch, batch, err);
        if (rc < 0)
            return rc;
        done += batch;
    }
    return 0;
}

/* ---- strings -------------------------------------------------------------- */

int tf_trace_out_intern(tf_trace_out *w, const char *s, uint32_t *id, tf_error *err)
{
    if (!s)
        s = "";
    if (tf_strtab_find(&w->strings, s, id))
        return 0;
    if (!tf_strtab_add(&w->strings, s, id))
        return tf_fail(err, TF_ERR_NOMEM, "%s: cannot intern more strings (%zu so far)",
                       w->path, w->strings.n);
    return 0;
}

/* Appends the strings interned since the last call, each followed by its
 * zero byte (docs/trace-format.md, "Strings"), in one write. */
static int write_new_strings(tf_trace_out *w, tf_error *err)
{
    size_t total = 0;
    for (size_t i = w->strings_written; i < w->strings.n; i++)
        total += strlen(w->strings.strings[i]) + 1;
    if (!total)
        return 0;
    char *bytes = malloc(total);
    if (!bytes)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", w->path);
    char *p = bytes;
    for (size_t i = w->strings_written; i < w->strings.n; i++) {
        size_t len = strlen(w->strings.strings[i]) + 1;
        memcpy(p, w->strings.strings[i], len);
        p += len;
    }
    int rc = table_append(w->file, &w->strings_table, bytes, total, err);
    free(bytes);
    if (rc == 0)
        w->strings_written = w->strings.n;
    return rc;
}

/* ---- creation ------------------------------------------------------------- */

static hid_t out_fapl(bool atomic)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    /* Metadata stays in memory until a flush, so the file on disk is always
     * the state of the last flush: what makes a SIGKILLed trace readable.
     * The 1.8 format, not 1.10's: its superblock would stay marked "open for
     * writing" after a kill, and HDF5 would refuse to open the trace.  A
     * trace written under a temporary name (atomic) is never read before
     * its close, so it keeps libhdf5's own bounded cache instead: the
     * object headers of a Paraver header's every thread would otherwise
     * all stay in memory. */
    H5AC_cache_config_t mdc = { .version = H5AC__CURR_CACHE_CONFIG_VERSION };
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0 ||
        H5Pget_mdc_config(fapl, &mdc) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    if (atomic)
        return fapl;
    mdc.evictions_enabled = false;
    mdc.incr_mode = H5C_incr__off;
    mdc.flash_incr_mode = H5C_flash_incr__off;
    mdc.decr_mode = H5C_decr__off;
    if (H5Pset_mdc_config(fapl, &mdc) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

static hid_t out_fcpl(void)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    /* Space freed by a rewritten chunk is never reused, so nothing the last
     * flush points to is overwritten before the next flush. */
    if (fcpl >= 0 && H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_NONE, 0, 1) < 0) {
        H5Pclose(fcpl);
        return -1;
    }
    return fcpl;
}

static int write_root_attributes(tf_trace_out *w, const tf_trace_meta *meta, tf_error *err)
{
    int rc;
    if ((rc = tf_h5_attr_write_string(w->file, TF_ATTR_FORMAT, TF_TRACE_FORMAT, err)) < 0 ||
        (rc = tf_h5_attr_write_int64(w->file, TF_ATTR_VERSION, TF_TRACE_VERSION, err)) < 0 ||
        (rc = tf_h5_attr_write_string(w->file, TF_ATTR_CLOCK, meta->clock, err)) < 0 ||
        (rc = tf_h5_attr_write_string(w->file, TF_ATTR_TIME_UNIT, TF_TIME_UNIT, err)) < 0 ||
        (rc = tf_h5_attr_write_string(w->file, TF_ATTR_HOST, meta->host, err)) < 0 ||
        (rc = tf_h5_attr_write_string(w->file, TF_ATTR_COMMAND_LINE, meta->command_line,
                                      err)) < 0 ||
        (rc = tf_h5_attr_write_string(w->file, TF_ATTR_PRODUCER, meta->producer, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(w->file, TF_ATTR_START_TIME, meta->start_time, err)) < 0 ||
        (rc = tf_h5_attr_write_int64(w->file, TF_ATTR_COMPLETE, 0, err)) < 0)
        return rc;
    return 0;
}

static void out_free(tf_trace_out *w)
{
    for (uint32_t p = 0; p < w->nprocs; p++) {
        wprocess *proc = &w->procs[p];
        for (uint32_t t = 0; t < proc->nthreads; t++) {
            table_close(&proc->threads[t].events);
            table_close(&proc->threads[t].samples);
            table_close(&proc->threads[t].frames);
        }
        free(proc->threads);
        table_close(&proc->counters);
        table_close(&proc->modules);
        table_close(&proc->objects);
        table_close(&proc->symbols);
        table_close(&proc->frames);
    }
    free(w->procs);
    table_close(&w->strings_table);
    if (w->file >= 0)
        H5Fclose(w->file);
    tf_strtab_free(&w->strings);
    free(w->scratch);
    free(w->path);
    free(w->file_path);
    free(w);
}

int tf_trace_out_create(tf_trace_out **out, const char *path, const tf_trace_meta *meta,
                        unsigned flags, tf_error *err)
{
    tf_h5_silence();
    *out = NULL;
    tf_trace_out *w = calloc(1, sizeof *w);
    if (!w)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    w->file = -1;
    table_declare(&w->strings_table, "", TF_DSET_STRINGS, NULL, 0, H5T_STD_U8LE);
    tf_strtab_init(&w->strings);
    w->atomic = flags & TF_TRACE_OUT_ATOMIC;
    w->path = strdup(path);
    if (w->path && w->atomic) {
        size_t len = strlen(path) + 32;
        w->file_path = malloc(len);
        if (w->file_path)
            snprintf(w->file_path, len, "%s.tmp-%ld", path, (long)getpid());
    } else if (w->path) {
        w->file_path = strdup(path);
    }
    uint32_t empty;
    if (!w->path || !w->file_path || !tf_strtab_add(&w->strings, "", &empty)) {
        out_free(w);
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    }
    hid_t fapl = out_fapl(w->atomic), fcpl = out_fcpl();
    errno = 0;
    /* Written in place, a trace replaces only what the output rule let
     * --force replace; anything created at its name since the check
     * stays (common/tf_output.h). */
    unsigned mode = w->atomic || tf_output_may_replace(path) ? H5F_ACC_TRUNC : H5F_ACC_EXCL;
    if (fapl >= 0 && fcpl >= 0)
        w->file = H5Fcreate(w->file_path, mode, fcpl, fapl);
    int saved = errno;
    if (fapl >= 0)
        H5Pclose(fapl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (w->file < 0) {
        int rc = tf_fail(err, TF_ERR_IO, "%s: cannot create the trace: %s", w->file_path,
                         saved ? strerror(saved) : "HDF5 refused it");
        out_free(w);
        return rc;
    }
    hid_t group = -1;
    int rc = write_new_strings(w, err);   /* id 0, "" */
    if (rc == 0)
        rc = write_root_attributes(w, meta, err);
    if (rc == 0)
        rc = tf_h5_group_create(w->file, TF_GROUP_PROCESS, &group, err);
    tf_h5_close(group);
    if (rc < 0) {
        tf_trace_out_abort(w);
        return rc;
    }
    *out = w;
    return 0;
}

/* ---- processes and threads ------------------------------------------------ */

static int check_process(tf_trace_out *w, uint32_t proc, tf_error *err)
{
    if (proc < w->nprocs)
        return 0;
    return tf_fail(err, TF_ERR_USAGE, "%s: no process %" PRIu32 " (%" PRIu32 " added)", w->path,
                   proc, w->nprocs);
}

static int check_thread(tf_trace_out *w, uint32_t proc, uint32_t thread, tf_error *err)
{
    int rc = check_process(w, proc, err);
    if (rc < 0 || thread < w->procs[proc].nthreads)
        return rc;
    return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 " has no thread %" PRIu32
                   " (%" PRIu32 " added)", w->path, proc, thread, w->procs[proc].nthreads);
}

static int write_counters(tf_trace_out *w, uint32_t index, wprocess *p, const tf_process_desc *d,
                          tf_error *err)
{
    tf_counter_desc descs[TF_MAX_COUNTERS];
    for (uint32_t c = 0; c < d->ncounters; c++) {
        const char *unit = d->counter_units && d->counter_units[c] ? d->counter_units[c]
                                                                    : "events";
        int rc;
        if ((rc = tf_trace_out_intern(w, d->counter_names[c], &descs[c].name, err)) < 0 ||
            (rc = tf_trace_out_intern(w, unit, &descs[c].unit, err)) < 0)
            return rc;
        descs[c].kind = d->counter_kinds ? d->counter_kinds[c] : TF_COUNTER_HARDWARE;
    }
    return table_append_records(w, &p->counters, &tf_schema_counters, 0, descs, NULL,
                                d->ncounters, err);
}

static int create_process_group(tf_trace_out *w, uint32_t index, wprocess *p,
                                const tf_process_desc *d, tf_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "%s/%" PRIu32, TF_GROUP_PROCESS, index);
    hid_t g = -1;
    int rc;
    if ((rc = tf_h5_group_create(w->file, name, &g, err)) < 0)
        return rc;
    (void)((rc = tf_h5_attr_write_int64(g, TF_ATTR_PID, d->pid, err)) < 0 ||
           (rc = tf_h5_attr_write_int64(g, TF_ATTR_RANK, d->rank, err)) < 0 ||
           (rc = tf_h5_attr_write_int64(g, TF_ATTR_NRANKS, d->nranks, err)) < 0 ||
           (rc = tf_h5_attr_write_string(g, TF_ATTR_EXECUTABLE, d->executable, err)) < 0 ||
           (rc = tf_h5_attr_write_string(g, TF_ATTR_HOST, d->host, err)) < 0 ||
           (rc = tf_h5_attr_write_string(g, TF_ATTR_BUILD_ID, d->build_id, err)) < 0 ||
           (rc = write_counters(w, index, p, d, err)) < 0 ||
           (rc = tf_h5_group_create(g, TF_GROUP_THREAD, NULL, err)) < 0);
    H5Gclose(g);
    return rc;
}

int tf_trace_out_add_process(tf_trace_out *w, const tf_process_desc *d, uint32_t *proc,
                             tf_error *err)
{
    if (d->ncounters > TF_MAX_COUNTERS)
        return tf_fail(err, TF_ERR_USAGE, "%s: %" PRIu32 " counters, at most %d are supported",
                       w->path, d->ncounters, TF_MAX_COUNTERS);
    for (uint32_t c = 0; c < d->ncounters; c++)
        if (!d->counter_names || !d->counter_names[c] || !d->counter_names[c][0])
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ": counter %" PRIu32
                           " has no name", w->path, w->nprocs, c);
    if (w->nprocs == w->cap) {
        uint32_t cap = w->cap ? 2 * w->cap : 4;
        wprocess *procs = realloc(w->procs, cap * sizeof *procs);
        if (!procs)
            return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", w->path);
        w->procs = procs;
        w->cap = cap;
    }
    uint32_t index = w->nprocs;
    wprocess *p = &w->procs[index];
    memset(p, 0, sizeof *p);
    p->ncounters = d->ncounters;
    char group[32];
    snprintf(group, sizeof group, "/%s/%" PRIu32, TF_GROUP_PROCESS, index);
    table_declare(&p->counters, group, tf_schema_counters.name, &tf_schema_counters, 0, -1);
    table_declare(&p->modules, group, tf_schema_modules.name, &tf_schema_modules, 0, -1);
    table_declare(&p->objects, group, tf_schema_objects.name, &tf_schema_objects, 0, -1);
    table_declare(&p->symbols, group, tf_schema_symbols.name, &tf_schema_symbols, 0, -1);
    table_declare(&p->frames, group, TF_DSET_FRAMES, NULL, 0, H5T_STD_U64LE);
    /* Counted before the group is filled, so a failure midway still closes
     * whatever was opened. */
    w->nprocs++;
    int rc = create_process_group(w, index, p, d, err);
    if (rc < 0)
        return rc;
    *proc = index;
    return 0;
}

/* Creates (or opens) the group /process/<proc>/thread/<thread>. */
static int thread_group(tf_trace_out *w, uint32_t proc, uint32_t thread, bool create, hid_t *g,
                        tf_error *err)
{
    char name[96];
    snprintf(name, sizeof name, "%s/%" PRIu32 "/%s/%" PRIu32, TF_GROUP_PROCESS, proc,
             TF_GROUP_THREAD, thread);
    return create ? tf_h5_group_create(w->file, name, g, err)
                  : tf_h5_group_open(w->file, name, g, err);
}

int tf_trace_out_add_thread(tf_trace_out *w, uint32_t proc, uint64_t tid, uint32_t *thread,
                            tf_error *err)
{
    int rc = check_process(w, proc, err);
    if (rc < 0)
        return rc;
    wprocess *p = &w->procs[proc];
    if (p->nthreads == p->cap) {
        uint32_t cap = p->cap ? 2 * p->cap : 4;
        wthread *threads = realloc(p->threads, cap * sizeof *threads);
        if (!threads)
            return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", w->path);
        p->threads = threads;
        p->cap = cap;
    }
    uint32_t index = p->nthreads;
    wthread *t = &p->threads[index];
    *t = (wthread){ .tid = tid };
    char group[48];
    snprintf(group, sizeof group, "/%s/%" PRIu32 "/%s/%" PRIu32, TF_GROUP_PROCESS, proc,
             TF_GROUP_THREAD, index);
    table_declare(&t->events, group, tf_schema_events.name, &tf_schema_events, p->ncounters, -1);
    table_declare(&t->samples, group, tf_schema_samples.name, &tf_schema_samples, p->ncounters,
                  -1);
    table_declare(&t->frames, group, TF_DSET_FRAMES, NULL, 0, H5T_STD_U64LE);
    p->nthreads++;
    hid_t g = -1;
    if ((rc = thread_group(w, proc, index, true, &g, err)) < 0)
        return rc;
    rc = tf_h5_attr_write_uint64(g, TF_ATTR_TID, tid, err);
    H5Gclose(g);
    if (rc < 0)
        return rc;
    *thread = index;
    return 0;
}

/* ---- records -------------------------------------------------------------- */

/* Appends a batch of a thread's events or samples (what), refusing it
 * whole when a time goes backwards; *last is the thread's latest time. */
static int append_timed(tf_trace_out *w, uint32_t proc, uint32_t thread, const char *what,
                        table *t, const tf_table_schema *s, uint64_t *last, const void *records,
                        const uint64_t *counters, size_t n, tf_error *err)
{
    uint64_t prev = *last;
    const unsigned char *r = records;
    for (size_t i = 0; i < n; i++, r += s->struct_size) {
        uint64_t time;
        memcpy(&time, r, sizeof time);   /* time is the first member of both records */
        if (time < prev)
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ", thread %" PRIu32
                           ": %s %" PRIu64 " has time %" PRIu64 " ns, before the previous one's %"
                           PRIu64 " ns (times within a thread must not decrease)",
                           w->path, proc, thread, what, t->rows + i, time, prev);
        prev = time;
    }
    int rc = table_append_records(w, t, s, w->procs[proc].ncounters, records, counters, n, err);
    if (rc == 0)
        *last = prev;
    return rc;
}

int tf_trace_out_append_events(tf_trace_out *w, uint32_t proc, uint32_t thread, const tf_event *ev,
                               const uint64_t *counters, size_t n, tf_error *err)
{
    int rc = check_thread(w, proc, thread, err);
    if (rc < 0)
        return rc;
    wthread *t = &w->procs[proc].threads[thread];
    for (size_t i = 0; i < n; i++) {
        uint64_t row = t->events.rows + i;
        if (ev[i].kind > TF_EVENT_USER)
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ", thread %" PRIu32
                           ": event %" PRIu64 " has unknown kind %u", w->path, proc, thread,
                           row, ev[i].kind);
        if (ev[i].kind != TF_EVENT_USER && ev[i].value >= w->strings.n)
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ", thread %" PRIu32
                           ": event %" PRIu64 " names region string id %" PRIu64 ", which "
                           "was never interned (%zu strings)", w->path, proc, thread, row,
                           ev[i].value, w->strings.n);
    }
    return append_timed(w, proc, thread, "event", &t->events, &tf_schema_events, &t->last_event,
                        ev, counters, n, err);
}

int tf_trace_out_set_dropped(tf_trace_out *w, uint32_t proc, uint32_t thread, uint64_t events,
                             uint64_t samples, tf_error *err)
{
    int rc = check_thread(w, proc, thread, err);
    if (rc < 0)
        return rc;
    hid_t g = -1;
    if ((rc = thread_group(w, proc, thread, false, &g, err)) < 0)
        return rc;
    (void)((rc = tf_h5_attr_write_uint64(g, TF_ATTR_DROPPED_EVENTS, events, err)) < 0 ||
           (rc = tf_h5_attr_write_uint64(g, TF_ATTR_DROPPED_SAMPLES, samples, err)) < 0);
    H5Gclose(g);
    return rc;
}

int tf_trace_out_set_alloc_wrappers(tf_trace_out *w, const char *names, tf_error *err)
{
    return tf_h5_attr_write_string(w->file, TF_ATTR_ALLOC_WRAPPERS, names, err) < 0 ? -1 : 0;
}

int tf_trace_out_set_small_lost(tf_trace_out *w, uint32_t proc, uint64_t cap, uint64_t past_cap,
                                uint64_t ring_full, tf_error *err)
{
    int rc = check_process(w, proc, err);
    if (rc < 0)
        return rc;
    char name[64];
    snprintf(name, sizeof name, "%s/%" PRIu32, TF_GROUP_PROCESS, proc);
    hid_t g = -1;
    if ((rc = tf_h5_group_open(w->file, name, &g, err)) < 0)
        return rc;
    (void)((rc = tf_h5_attr_write_uint64(g, TF_ATTR_SMALL_CAP, cap, err)) < 0 ||
           (rc = tf_h5_attr_write_uint64(g, TF_ATTR_SMALL_PAST_CAP, past_cap, err)) < 0 ||
           (rc = tf_h5_attr_write_uint64(g, TF_ATTR_SMALL_RING_FULL, ring_full, err)) < 0);
    H5Gclose(g);
    return rc;
}

int tf_trace_out_append_samples(tf_trace_out *w, uint32_t proc, uint32_t thread, const tf_sample *s,
                                const uint64_t *counters, size_t n, tf_error *err)
{
    int rc = check_thread(w, proc, thread, err);
    if (rc < 0)
        return rc;
    wthread *t = &w->procs[proc].threads[thread];
    for (size_t i = 0; i < n; i++) {
        uint64_t row = t->samples.rows + i;
        if (s[i].kind > TF_SAMPLE_RMW)
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ", thread %" PRIu32
                           ": sample %" PRIu64 " has unknown kind %u", w->path, proc, thread,
                           row, s[i].kind);
        if (s[i].stack_len && (s[i].stack > t->frames.rows ||
                               s[i].stack_len > t->frames.rows - s[i].stack))
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ", thread %" PRIu32
                           ": sample %" PRIu64 " refers to frames %" PRIu64 "..+%u, but the "
                           "thread has %" PRIu64 " frames", w->path, proc, thread, row,
                           s[i].stack, s[i].stack_len, t->frames.rows);
    }
    return append_timed(w, proc, thread, "sample", &t->samples, &tf_schema_samples,
                        &t->last_sample, s, counters, n, err);
}

int tf_trace_out_append_frames(tf_trace_out *w, uint32_t proc, uint32_t thread, const uint64_t *ips,
                               size_t n, uint64_t *first, tf_error *err)
{
    int rc = thread == UINT32_MAX ? check_process(w, proc, err)
                                  : check_thread(w, proc, thread, err);
    if (rc < 0)
        return rc;
    table *t = thread == UINT32_MAX ? &w->procs[proc].frames
                                    : &w->procs[proc].threads[thread].frames;
    if (first)
        *first = t->rows;
    return table_append(w->file, t, ips, n, err);
}

/* String ids in the records must have been interned already. */
static int check_strings(tf_trace_out *w, uint32_t proc, const tf_table_schema *s,
                         const void *records, size_t n, uint64_t first_row, tf_error *err)
{
    size_t row;
    const char *field;
    uint32_t id;
    if (!tf_schema_bad_string(s, records, n, w->strings.n, &row, &field, &id))
        return 0;
    return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ": %s row %" PRIu64 ": %s is "
                   "string id %" PRIu32 ", which was never interned (%zu strings)", w->path, proc,
                   s->name, first_row + row, field, id, w->strings.n);
}

static int append_process_records(tf_trace_out *w, uint32_t proc, table *t,
                                  const tf_table_schema *s, const void *records, size_t n,
                                  tf_error *err)
{
    int rc = check_strings(w, proc, s, records, n, t->rows, err);
    return rc < 0 ? rc : table_append_records(w, t, s, 0, records, NULL, n, err);
}

int tf_trace_out_append_objects(tf_trace_out *w, uint32_t proc, const tf_object *o, size_t n,
                                tf_error *err)
{
    int rc = check_process(w, proc, err);
    if (rc < 0)
        return rc;
    wprocess *p = &w->procs[proc];
    for (size_t i = 0; i < n; i++) {
        uint64_t row = p->objects.rows + i;
        if (o[i].kind > TF_OBJECT_SMALL)
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ": object %" PRIu64
                           " has unknown kind %u", w->path, proc, row, o[i].kind);
        if (o[i].stack_len && (o[i].stack > p->frames.rows ||
                               o[i].stack_len > p->frames.rows - o[i].stack))
            return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 ": object %" PRIu64
                           " refers to frames %" PRIu64 "..+%u, but the process has %" PRIu64
                           " frames", w->path, proc, row, o[i].stack, o[i].stack_len,
                           p->frames.rows);
    }
    return append_process_records(w, proc, &p->objects, &tf_schema_objects, o, n, err);
}

int tf_trace_out_append_modules(tf_trace_out *w, uint32_t proc, const tf_module *m, size_t n,
                                tf_error *err)
{
    int rc = check_process(w, proc, err);
    return rc < 0 ? rc : append_process_records(w, proc, &w->procs[proc].modules,
                                                 &tf_schema_modules, m, n, err);
}

int tf_trace_out_append_symbols(tf_trace_out *w, uint32_t proc, const tf_symbol *s, size_t n,
                                tf_error *err)
{
    int rc = check_process(w, proc, err);
    return rc < 0 ? rc : append_process_records(w, proc, &w->procs[proc].symbols,
                                                 &tf_schema_symbols, s, n, err);
}

/* ---- flush and close ------------------------------------------------------ */

/* Calls fn on every table of the trace, in one order, up to an error. */
static int each_table(tf_trace_out *w, int (*fn)(hid_t, table *, tf_error *), tf_error *err)
{
    int rc = fn(w->file, &w->strings_table, err);
    for (uint32_t i = 0; rc == 0 && i < w->nprocs; i++) {
        wprocess *p = &w->procs[i];
        table *tables[] = { &p->counters, &p->modules, &p->objects, &p->symbols, &p->frames };
        for (size_t k = 0; rc == 0 && k < sizeof tables / sizeof tables[0]; k++)
            rc = fn(w->file, tables[k], err);
        for (uint32_t t = 0; rc == 0 && t < p->nthreads; t++) {
            wthread *th = &p->threads[t];
            (void)((rc = fn(w->file, &th->events, err)) < 0 ||
                   (rc = fn(w->file, &th->samples, err)) < 0 ||
                   (rc = fn(w->file, &th->frames, err)) < 0);
        }
    }
    return rc;
}

/* Everything into the file: the strings interned since the last time, the
 * staged rows, and the tables that have had no rows yet (empty), so that
 * the file on disk has every table the format names. */
static int write_all(tf_trace_out *w, tf_error *err)
{
    int rc = write_new_strings(w, err);
    if (rc == 0)
        rc = each_table(w, table_drain, err);
    return rc == 0 ? each_table(w, table_settle, err) : rc;
}

int tf_trace_out_flush(tf_trace_out *w, tf_error *err)
{
    int rc = write_all(w, err);
    if (rc < 0)
        return rc;
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0)
        return tf_fail(err, TF_ERR_IO, "%s: cannot flush the trace to disk", w->file_path);
    return 0;
}

int64_t tf_trace_out_file(tf_trace_out *w)
{
    return w->file;
}

/* Marks the table's rows as all in (the trace is closing). */
static int table_last(hid_t file, table *t, tf_error *err)
{
    (void)file;
    (void)err;
    t->last = true;
    return 0;
}

int tf_trace_out_rename(tf_trace_out *w, const char *path, tf_error *err)
{
    char *name = strdup(path), *file = w->atomic ? w->file_path : strdup(path);
    if (!name || !file) {
        free(name);
        if (file != w->file_path)
            free(file);
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!w->atomic && rename(w->file_path, path) < 0) {
        int e = errno;
        free(name);
        free(file);
        return tf_fail(err, TF_ERR_IO, "%s: cannot rename the trace to %s: %s", w->file_path,
                       path, strerror(e));
    }
    if (!w->atomic)
        free(w->file_path);
    free(w->path);
    w->path = name;
    w->file_path = file;
    return 0;
}

int tf_trace_out_close(tf_trace_out *w, tf_error *err)
{
    int rc = each_table(w, table_last, err);
    if (rc == 0)
        rc = write_all(w, err);
    if (rc == 0)
        rc = tf_h5_attr_write_int64(w->file, TF_ATTR_COMPLETE, 1, err);
    if (rc < 0) {
        tf_trace_out_abort(w);
        return rc;
    }
    hid_t file = w->file;
    w->file = -1;
    /* The datasets close first, so that closing the file writes everything. */
    char *path = w->path, *file_path = w->file_path;
    bool atomic = w->atomic;
    w->path = w->file_path = NULL;
    out_free(w);
    if (H5Fclose(file) < 0)
        rc = tf_fail(err, TF_ERR_IO, "%s: cannot write the trace to disk", file_path);
    if (rc == 0 && atomic)
        rc = tf_output_commit(file_path, path, err);
    if (rc < 0 && atomic)
        unlink(file_path);
    free(path);
    free(file_path);
    return rc;
}

void tf_trace_out_abort(tf_trace_out *w)
{
    if (!w)
        return;
    if (w->atomic && w->file_path)
        unlink(w->file_path);
    else if (w->file >= 0)   /* an honest incomplete trace: its strings resolve */
        write_all(w, NULL);
    out_free(w);
}
