/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace reader: validates a trace at open and loads everything but the
 * samples and the threads' call-stack frames, which are streamed. */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5util.h"
#include "strtab.h"
#include "trace_schema.h"

/* Rows read per hyperslab by the sample cursor when the dataset is not
 * chunked; chunked datasets are read a whole number of chunks at a time. */
#define BLOCK_BYTES (1024 * 1024)

struct tf_trace {
    char          *path;
    hid_t          file;
    tf_trace_meta  meta;
    char          *clock, *host, *command_line, *producer;   /* meta's strings */
    char          *alloc_wrappers;                           /* NULL: none recorded */
    bool           complete;
    char         **strings;       /* one block, from tf_h5_read_strings */
    size_t         nstrings;
    tf_strtab      index;         /* string -> id */
    tf_process    *procs;
    uint32_t       nprocs;
    hid_t        **thread_frames; /* per process and thread, opened on first use */
    /* A set of traces (tf_trace_open_set): the members own the processes and
     * the files; process i is process member_proc[i] of member member_of[i],
     * whose times are shifted by member_shift[] ns onto the set's start. */
    tf_trace     **members;
    uint32_t       nmembers;
    uint32_t       open_member;   /* the one member besides the first whose file is open */
    uint32_t      *member_of, *member_proc;
    uint64_t      *member_shift;
};

struct tf_sample_cursor {
    tf_trace      *tr;
    uint32_t       proc, thread, ncounters;
    hid_t          dset, mem_type;
    size_t         row_size;
    uint64_t       rows, next_row;        /* rows in the dataset, next to fetch */
    unsigned char *block;                 /* fetched packed rows */
    size_t         block_rows, block_n, block_pos;
    uint64_t       delivered;             /* index of the next sample handed out */
    uint64_t       last_time;
    uint64_t       shift;                 /* ns added to each time (member of a set) */
};

/* ---- tables --------------------------------------------------------------- */

/* Opens loc/name and checks that it is a 1-D table of the schema's records
 * (s == NULL: of unsigned 64-bit frames). */
static int table_open(hid_t loc, const char *name, const tf_table_schema *s, uint32_t ncounters,
                      hid_t *dset, uint64_t *rows, tf_error *err)
{
    if (!tf_h5_exists(loc, name))
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "missing dataset");
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "not a dataset");
    hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    hsize_t dims[H5S_MAX_RANK];
    int rank = space < 0 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    char why[256] = "";
    if (rank != 1)
        snprintf(why, sizeof why, "expected a 1-D table, found %d dimensions", rank);
    else if (type < 0)
        snprintf(why, sizeof why, "unreadable type");
    else if (s)
        tf_schema_check_type(s, ncounters, type, why, sizeof why);
    else if (H5Tget_class(type) != H5T_INTEGER || H5Tget_sign(type) != H5T_SGN_NONE ||
             H5Tget_size(type) != 8)
        snprintf(why, sizeof why, "expected unsigned 64-bit frame addresses");
    size_t row_bytes = type < 0 ? 0 : H5Tget_size(type);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (why[0]) {
        H5Dclose(d);
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "%s", why);
    }
    /* Before anything is allocated or iterated: a damaged extent could
     * claim 2^40 rows of chunks never written (docs/trace-format.md, "What
     * a reader guarantees"). */
    int rc = tf_h5_check_extent(d, dims[0], row_bytes, err);
    if (rc < 0) {
        H5Dclose(d);
        return rc;
    }
    *dset = d;
    *rows = dims[0];
    return 0;
}

static int table_read_rows(hid_t dset, hid_t mem_type, uint64_t start, size_t n, void *buf,
                           tf_error *err)
{
    if (!n)
        return 0;
    hsize_t first = start, count = n;
    hid_t fspace = H5Dget_space(dset);
    hid_t mspace = H5Screate_simple(1, &count, NULL);
    bool ok = fspace >= 0 && mspace >= 0 &&
              H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, NULL, &count, NULL) >= 0 &&
              H5Dread(dset, mem_type, mspace, fspace, H5P_DEFAULT, buf) >= 0;
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (!ok)
        return tf_h5_fail(err, TF_ERR_FORMAT, dset, NULL,
                          "cannot read rows %" PRIu64 "..%" PRIu64 " (corrupt or truncated data)",
                          start, start + n - 1);
    return 0;
}

/* Reads a whole table into malloc'ed struct records (and counter rows when
 * counters is not NULL). */
static int table_load(hid_t loc, const tf_table_schema *s, uint32_t ncounters, void **records,
                      uint64_t **counters, size_t *n, tf_error *err)
{
    hid_t dset, mem_type = -1;
    uint64_t rows;
    int rc = table_open(loc, s->name, s, ncounters, &dset, &rows, err);
    if (rc < 0)
        return rc;
    size_t values = s->has_counters ? ncounters : 0;
    size_t row_size = tf_schema_row_size(s, ncounters);
    unsigned char *packed = malloc(rows ? rows * row_size : 1);
    void *recs = malloc(rows ? rows * s->struct_size : 1);
    uint64_t *vals = counters ? malloc(rows && values ? rows * values * sizeof *vals : 1) : NULL;
    if (!packed || !recs || (counters && !vals))
        rc = tf_h5_fail(err, TF_ERR_NOMEM, loc, s->name, "out of memory for %" PRIu64 " rows",
                        rows);
    else if ((mem_type = tf_schema_type(s, ncounters, false)) < 0)
        rc = tf_h5_fail(err, TF_ERR_INTERNAL, loc, s->name, "cannot build the record type");
    else
        rc = table_read_rows(dset, mem_type, 0, rows, packed, err);
    if (rc == 0)
        tf_schema_unpack(s, ncounters, packed, rows, recs, vals);
    if (mem_type >= 0)
        H5Tclose(mem_type);
    H5Dclose(dset);
    free(packed);
    if (rc < 0) {
        free(recs);
        free(vals);
        return rc;
    }
    *records = recs;
    if (counters)
        *counters = vals;
    *n = rows;
    return 0;
}

static int string_ref(const tf_trace *tr, hid_t loc, const char *table, const char *what,
                      size_t row, uint64_t id, tf_error *err)
{
    if (id < tr->nstrings)
        return 0;
    return tf_h5_fail(err, TF_ERR_FORMAT, loc, table,
                      "row %zu: %s refers to string id %" PRIu64 ", but /%s has %zu strings",
                      row, what, id, TF_DSET_STRINGS, tr->nstrings);
}

/* ---- processes and threads ------------------------------------------------ */

/* Members of a group named 0..n-1, as the trace output makes them. */
static int count_members(hid_t loc, const char *name, uint32_t *n, tf_error *err)
{
    hid_t g;
    int rc = tf_h5_group_open(loc, name, &g, err);
    if (rc < 0)
        return rc;
    H5G_info_t info;
    herr_t r = H5Gget_info(g, &info);
    for (hsize_t i = 0; r >= 0 && i < info.nlinks; i++) {
        char member[32];
        snprintf(member, sizeof member, "%" PRIu64, (uint64_t)i);
        if (H5Lexists(g, member, H5P_DEFAULT) <= 0) {
            rc = tf_h5_fail(err, TF_ERR_FORMAT, g, NULL,
                            "expected members named 0 to %" PRIu64 ", '%s' is missing",
                            (uint64_t)info.nlinks - 1, member);
            break;
        }
    }
    H5Gclose(g);
    if (r < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "cannot list the group");
    if (rc == 0)
        *n = (uint32_t)info.nlinks;
    return rc;
}

static int int32_attr(hid_t g, const char *name, int32_t *value, tf_error *err)
{
    int64_t v;
    int rc = tf_h5_attr_read_int64(g, name, &v, err);
    if (rc < 0)
        return rc;
    if (v < INT32_MIN || v > INT32_MAX)
        return tf_h5_fail(err, TF_ERR_FORMAT, g, NULL, "attribute '%s' = %" PRId64
                          " is out of the 32-bit range", name, v);
    *value = (int32_t)v;
    return 0;
}

static int check_event_refs(const tf_trace *tr, hid_t g, const tf_thread *t, tf_error *err)
{
    for (size_t i = 0; i < t->nevents; i++) {
        const tf_event *e = &t->events[i];
        int rc;
        if (e->kind > TF_EVENT_USER)
            return tf_h5_fail(err, TF_ERR_FORMAT, g, tf_schema_events.name,
                              "event %zu has unknown kind %u", i, e->kind);
        if (e->kind != TF_EVENT_USER &&
            (rc = string_ref(tr, g, tf_schema_events.name, "region event", i, e->value, err)) < 0)
            return rc;
    }
    return 0;
}

static int check_event_order(const tf_trace *tr, uint32_t proc, uint32_t thread,
                             const tf_thread *t, tf_error *err)
{
    for (size_t i = 1; i < t->nevents; i++)
        if (t->events[i].time < t->events[i - 1].time)
            return tf_fail(err, TF_ERR_FORMAT, "%s: process %" PRIu32 ", thread %" PRIu32
                           ": event %zu has time %" PRIu64 " ns, before event %zu's %" PRIu64
                           " ns (events must be in time order)", tr->path, proc, thread, i,
                           t->events[i].time, i - 1, t->events[i - 1].time);
    return 0;
}

/* An attribute that older traces, and producers that lose nothing, leave
 * out: 0 then. */
static int optional_uint64(hid_t g, const char *name, uint64_t *value, tf_error *err)
{
    *value = 0;
    return H5Aexists(g, name) > 0 ? tf_h5_attr_read_uint64(g, name, value, err) : 0;
}

static int load_thread(tf_trace *tr, hid_t threads, uint32_t proc, uint32_t index,
                       tf_thread *t, uint32_t ncounters, tf_error *err)
{
    char name[32];
    snprintf(name, sizeof name, "%" PRIu32, index);
    hid_t g, dset;
    int rc = tf_h5_group_open(threads, name, &g, err);
    if (rc < 0)
        return rc;
    uint64_t rows;
    void *events = NULL;
    if ((rc = tf_h5_attr_read_uint64(g, TF_ATTR_TID, &t->tid, err)) == 0 &&
        (rc = optional_uint64(g, TF_ATTR_DROPPED_EVENTS, &t->dropped_events, err)) == 0 &&
        (rc = optional_uint64(g, TF_ATTR_DROPPED_SAMPLES, &t->dropped_samples, err)) == 0 &&
        (rc = table_load(g, &tf_schema_events, ncounters, &events, &t->event_counters,
                         &t->nevents, err)) == 0) {
        t->events = events;
        if ((rc = check_event_refs(tr, g, t, err)) == 0)
            rc = check_event_order(tr, proc, index, t, err);
    }
    if (rc == 0 && (rc = table_open(g, tf_schema_samples.name, &tf_schema_samples, ncounters,
                                    &dset, &rows, err)) == 0) {
        t->nsamples = rows;
        H5Dclose(dset);
    }
    if (rc == 0 && (rc = table_open(g, TF_DSET_FRAMES, NULL, 0, &dset, &rows, err)) == 0) {
        t->nframes = rows;
        H5Dclose(dset);
    }
    H5Gclose(g);
    return rc;
}

static int check_strings(const tf_trace *tr, hid_t g, const tf_table_schema *s,
                         const void *records, size_t n, tf_error *err)
{
    size_t row;
    const char *field;
    uint32_t id;
    if (!tf_schema_bad_string(s, records, n, tr->nstrings, &row, &field, &id))
        return 0;
    return string_ref(tr, g, s->name, field, row, id, err);
}

static int load_frames(hid_t g, uint64_t **frames, size_t *n, tf_error *err)
{
    hid_t dset;
    uint64_t rows;
    int rc = table_open(g, TF_DSET_FRAMES, NULL, 0, &dset, &rows, err);
    if (rc < 0)
        return rc;
    *frames = malloc(rows ? rows * sizeof **frames : 1);
    if (!*frames)
        rc = tf_h5_fail(err, TF_ERR_NOMEM, g, TF_DSET_FRAMES, "out of memory");
    else
        rc = table_read_rows(dset, H5T_NATIVE_UINT64, 0, rows, *frames, err);
    H5Dclose(dset);
    *n = rows;
    return rc;
}

/* A call stack of len frames from first lies within a table of n frames. */
static bool stack_fits(uint64_t first, uint64_t len, uint64_t n)
{
    return len == 0 || (first <= n && len <= n - first);
}

static int check_object_stacks(hid_t g, const tf_process *p, tf_error *err)
{
    for (size_t i = 0; i < p->nobjects; i++) {
        const tf_object *o = &p->objects[i];
        if (!stack_fits(o->stack, o->stack_len, p->nframes))
            return tf_h5_fail(err, TF_ERR_FORMAT, g, tf_schema_objects.name,
                              "row %zu: call stack of %u frames from frame %" PRIu64
                              " lies past the process's %zu frames", i, o->stack_len,
                              o->stack, p->nframes);
    }
    return 0;
}

static int load_process_tables(tf_trace *tr, hid_t g, tf_process *p, tf_error *err)
{
    void *recs = NULL;
    size_t n = 0;
    int rc = table_load(g, &tf_schema_counters, 0, &recs, NULL, &n, err);
    p->counters = recs;
    if (rc < 0)
        return rc;
    if (n > TF_MAX_COUNTERS)
        return tf_h5_fail(err, TF_ERR_FORMAT, g, tf_schema_counters.name,
                          "%zu counters, at most %d are supported", n, TF_MAX_COUNTERS);
    p->ncounters = (uint32_t)n;
    if ((rc = table_load(g, &tf_schema_modules, 0, &recs, NULL, &p->nmodules, err)) < 0)
        return rc;
    p->modules = recs;
    if ((rc = table_load(g, &tf_schema_objects, 0, &recs, NULL, &p->nobjects, err)) < 0)
        return rc;
    p->objects = recs;
    if ((rc = table_load(g, &tf_schema_symbols, 0, &recs, NULL, &p->nsymbols, err)) < 0)
        return rc;
    p->symbols = recs;
    if ((rc = load_frames(g, &p->frames, &p->nframes, err)) < 0 ||
        (rc = check_object_stacks(g, p, err)) < 0 ||
        (rc = check_strings(tr, g, &tf_schema_counters, p->counters, p->ncounters, err)) < 0 ||
        (rc = check_strings(tr, g, &tf_schema_modules, p->modules, p->nmodules, err)) < 0 ||
        (rc = check_strings(tr, g, &tf_schema_objects, p->objects, p->nobjects, err)) < 0)
        return rc;
    return check_strings(tr, g, &tf_schema_symbols, p->symbols, p->nsymbols, err);
}

static int load_process(tf_trace *tr, hid_t procs, uint32_t index, tf_process *p,
                        tf_error *err)
{
    char name[32];
    snprintf(name, sizeof name, "%" PRIu32, index);
    hid_t g, threads = -1;
    int rc = tf_h5_group_open(procs, name, &g, err);
    if (rc < 0)
        return rc;
    char *exe = NULL, *host = NULL, *build_id = NULL;
    (void)((rc = tf_h5_attr_read_int64(g, TF_ATTR_PID, &p->pid, err)) < 0 ||
           (rc = int32_attr(g, TF_ATTR_RANK, &p->rank, err)) < 0 ||
           (rc = int32_attr(g, TF_ATTR_NRANKS, &p->nranks, err)) < 0 ||
           (rc = tf_h5_attr_read_string(g, TF_ATTR_EXECUTABLE, &exe, err)) < 0 ||
           (rc = tf_h5_attr_read_string(g, TF_ATTR_HOST, &host, err)) < 0 ||
           (rc = tf_h5_attr_read_string(g, TF_ATTR_BUILD_ID, &build_id, err)) < 0 ||
           (rc = optional_uint64(g, TF_ATTR_SMALL_CAP, &p->small_cap, err)) < 0 ||
           (rc = optional_uint64(g, TF_ATTR_SMALL_PAST_CAP, &p->small_past_cap, err)) < 0 ||
           (rc = optional_uint64(g, TF_ATTR_SMALL_RING_FULL, &p->small_ring_full, err)) < 0);
    p->executable = exe;
    p->host = host;
    p->build_id = build_id;
    uint32_t nthreads = 0;
    if (rc == 0)
        rc = load_process_tables(tr, g, p, err);
    if (rc == 0)
        rc = count_members(g, TF_GROUP_THREAD, &nthreads, err);
    if (rc == 0) {
        p->threads = calloc(nthreads ? nthreads : 1, sizeof *p->threads);
        tr->thread_frames[index] = malloc((nthreads ? nthreads : 1) * sizeof(hid_t));
        if (!p->threads || !tr->thread_frames[index])
            rc = tf_h5_fail(err, TF_ERR_NOMEM, g, NULL, "out of memory");
    }
    if (rc == 0) {
        for (uint32_t t = 0; t < nthreads; t++)
            tr->thread_frames[index][t] = -1;
        rc = tf_h5_group_open(g, TF_GROUP_THREAD, &threads, err);
    }
    for (uint32_t t = 0; rc == 0 && t < nthreads; t++) {
        rc = load_thread(tr, threads, index, t, &p->threads[t], p->ncounters, err);
        p->nthreads = t + 1;   /* so that close frees what was loaded */
    }
    tf_h5_close(threads);
    H5Gclose(g);
    return rc;
}

/* ---- opening -------------------------------------------------------------- */

static int read_identity(tf_trace *tr, tf_error *err)
{
    if (!tf_h5_exists(tr->file, "/") || H5Aexists(tr->file, TF_ATTR_FORMAT) <= 0)
        return tf_fail(err, TF_ERR_FORMAT, "%s: not a tracefold trace (the root group has no "
                       "'%s' attribute)", tr->path, TF_ATTR_FORMAT);
    char *format = NULL;
    int rc = tf_h5_attr_read_string(tr->file, TF_ATTR_FORMAT, &format, err);
    if (rc < 0)
        return rc;
    if (strcmp(format, TF_TRACE_FORMAT) != 0) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not a tracefold trace: format is '%s', "
                     "expected '%s'", tr->path, format, TF_TRACE_FORMAT);
        free(format);
        return rc;
    }
    free(format);
    int64_t version;
    if ((rc = tf_h5_attr_read_int64(tr->file, TF_ATTR_VERSION, &version, err)) < 0)
        return rc;
    if (version < TF_TRACE_OLDEST_VERSION || version > TF_TRACE_VERSION)
        return tf_fail(err, TF_ERR_VERSION, "%s: trace format version %" PRId64 " is not "
                       "supported (this tracefold reads versions %d to %d)", tr->path, version,
                       TF_TRACE_OLDEST_VERSION, TF_TRACE_VERSION);
    return 0;
}

static int read_meta(tf_trace *tr, tf_error *err)
{
    char *unit = NULL;
    int64_t complete = 0;
    int rc;
    (void)((rc = tf_h5_attr_read_string(tr->file, TF_ATTR_CLOCK, &tr->clock, err)) < 0 ||
           (rc = tf_h5_attr_read_string(tr->file, TF_ATTR_HOST, &tr->host, err)) < 0 ||
           (rc = tf_h5_attr_read_string(tr->file, TF_ATTR_COMMAND_LINE, &tr->command_line,
                                        err)) < 0 ||
           (rc = tf_h5_attr_read_string(tr->file, TF_ATTR_PRODUCER, &tr->producer, err)) < 0 ||
           (rc = tf_h5_attr_read_uint64(tr->file, TF_ATTR_START_TIME, &tr->meta.start_time,
                                        err)) < 0 ||
           (rc = tf_h5_attr_read_int64(tr->file, TF_ATTR_COMPLETE, &complete, err)) < 0 ||
           (rc = tf_h5_attr_read_string(tr->file, TF_ATTR_TIME_UNIT, &unit, err)) < 0);
    if (rc == 0 && strcmp(unit, TF_TIME_UNIT) != 0)
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: time unit is '%s', version %d traces use '%s'",
                     tr->path, unit, TF_TRACE_VERSION, TF_TIME_UNIT);
    /* Optional: traces recorded without alloc-wrapper, and older ones,
     * have none. */
    if (rc == 0 && H5Aexists(tr->file, TF_ATTR_ALLOC_WRAPPERS) > 0)
        rc = tf_h5_attr_read_string(tr->file, TF_ATTR_ALLOC_WRAPPERS, &tr->alloc_wrappers, err);
    free(unit);
    tr->meta.clock = tr->clock;
    tr->meta.host = tr->host;
    tr->meta.command_line = tr->command_line;
    tr->meta.producer = tr->producer;
    tr->complete = complete != 0;
    return rc;
}

static int read_strings(tf_trace *tr, tf_error *err)
{
    int rc = tf_h5_read_strings(tr->file, TF_DSET_STRINGS, &tr->strings, &tr->nstrings, err);
    if (rc < 0)
        return rc;
    if (tr->nstrings == 0 || tr->strings[0][0] != '\0')
        return tf_fail(err, TF_ERR_FORMAT, "%s: /%s: string id 0 must be the empty string",
                       tr->path, TF_DSET_STRINGS);
    for (size_t i = 0; i < tr->nstrings; i++) {
        uint32_t id;
        /* A duplicate keeps its first id, as the trace output would have. */
        if (!tf_strtab_find(&tr->index, tr->strings[i], &id) &&
            !tf_strtab_add(&tr->index, tr->strings[i], &id))
            return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory for the strings", tr->path);
    }
    return 0;
}

static int read_processes(tf_trace *tr, tf_error *err)
{
    uint32_t n;
    int rc = count_members(tr->file, TF_GROUP_PROCESS, &n, err);
    if (rc < 0)
        return rc;
    tr->procs = calloc(n ? n : 1, sizeof *tr->procs);
    tr->thread_frames = calloc(n ? n : 1, sizeof *tr->thread_frames);
    if (!tr->procs || !tr->thread_frames)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", tr->path);
    hid_t procs;
    if ((rc = tf_h5_group_open(tr->file, TF_GROUP_PROCESS, &procs, err)) < 0)
        return rc;
    for (uint32_t p = 0; rc == 0 && p < n; p++) {
        rc = load_process(tr, procs, p, &tr->procs[p], err);
        tr->nprocs = p + 1;
    }
    H5Gclose(procs);
    return rc;
}

int tf_trace_open(tf_trace **out, const char *path, tf_error *err)
{
    *out = NULL;
    tf_trace *tr = calloc(1, sizeof *tr);
    if (!tr)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    tr->file = -1;
    tf_strtab_init(&tr->index);
    tr->path = strdup(path);
    int64_t file = -1;
    int rc = tr->path ? tf_h5_file_open(path, false, &file, err)
                      : tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    tr->file = file;
    (void)(rc < 0 || (rc = read_identity(tr, err)) < 0 || (rc = read_meta(tr, err)) < 0 ||
           (rc = read_strings(tr, err)) < 0 || (rc = read_processes(tr, err)) < 0);
    if (rc < 0) {
        tf_trace_close(tr);
        return rc;
    }
    *out = tr;
    return 0;
}

static void set_close(tf_trace *tr);
static int member_acquire(tf_trace *set, uint32_t m, tf_error *err);
static void member_release(tf_trace *m);

void tf_trace_close(tf_trace *tr)
{
    if (!tr)
        return;
    if (tr->members) {
        set_close(tr);
        return;
    }
    for (uint32_t i = 0; i < tr->nprocs; i++) {
        tf_process *p = &tr->procs[i];
        for (uint32_t t = 0; t < p->nthreads; t++) {
            free(p->threads[t].events);
            free(p->threads[t].event_counters);
            if (tr->thread_frames[i] && tr->thread_frames[i][t] >= 0)
                H5Dclose(tr->thread_frames[i][t]);
        }
        free(tr->thread_frames[i]);
        free(p->threads);
        free((char *)p->executable);
        free((char *)p->host);
        free((char *)p->build_id);
        free(p->counters);
        free(p->modules);
        free(p->objects);
        free(p->symbols);
        free(p->frames);
    }
    free(tr->thread_frames);
    free(tr->procs);
    free(tr->strings);
    tf_strtab_free(&tr->index);
    free(tr->clock);
    free(tr->host);
    free(tr->command_line);
    free(tr->producer);
    free(tr->alloc_wrappers);
    if (tr->file >= 0)
        H5Fclose(tr->file);
    free(tr->path);
    free(tr);
}

/* ---- accessors ------------------------------------------------------------ */

const char *tf_trace_path(const tf_trace *tr) { return tr->path; }
const tf_trace_meta *tf_trace_get_meta(const tf_trace *tr) { return &tr->meta; }

const char *tf_trace_alloc_wrappers(const tf_trace *tr)
{
    if (tr->nmembers)
        tr = tr->members[0];
    return tr->alloc_wrappers ? tr->alloc_wrappers : "";
}
bool tf_trace_complete(const tf_trace *tr) { return tr->complete; }
uint32_t tf_trace_nprocesses(const tf_trace *tr) { return tr->nprocs; }
int64_t tf_trace_file(const tf_trace *tr) { return tr->members ? tr->members[0]->file : tr->file; }

const tf_process *tf_trace_process(const tf_trace *tr, uint32_t i)
{
    return i < tr->nprocs ? &tr->procs[i] : NULL;
}

const char *tf_trace_string(const tf_trace *tr, uint32_t id)
{
    return id < tr->nstrings ? tr->strings[id] : "";
}

bool tf_trace_find_string(const tf_trace *tr, const char *s, uint32_t *id)
{
    return tf_strtab_find(&tr->index, s, id);
}

static int check_thread(const tf_trace *tr, uint32_t proc, uint32_t thread, tf_error *err)
{
    if (proc >= tr->nprocs)
        return tf_fail(err, TF_ERR_USAGE, "%s: no process %" PRIu32 " (the trace has %" PRIu32
                       ")", tr->path, proc, tr->nprocs);
    if (thread >= tr->procs[proc].nthreads)
        return tf_fail(err, TF_ERR_USAGE, "%s: process %" PRIu32 " has no thread %" PRIu32
                       " (it has %" PRIu32 ")", tr->path, proc, thread,
                       tr->procs[proc].nthreads);
    return 0;
}

static void thread_group(uint32_t proc, uint32_t thread, char *buf, size_t size)
{
    snprintf(buf, size, "/%s/%" PRIu32 "/%s/%" PRIu32, TF_GROUP_PROCESS, proc, TF_GROUP_THREAD,
             thread);
}

/* ---- frames --------------------------------------------------------------- */

int tf_trace_read_frames(tf_trace *tr, uint32_t proc, uint32_t thread, uint64_t first,
                         size_t n, uint64_t *ips, tf_error *err)
{
    if (tr->members && proc < tr->nprocs) {
        int rc = member_acquire(tr, tr->member_of[proc], err);
        return rc < 0 ? rc : tf_trace_read_frames(tr->members[tr->member_of[proc]],
                                                  tr->member_proc[proc], thread, first, n, ips,
                                                  err);
    }
    if (thread == UINT32_MAX) {
        if (proc >= tr->nprocs)
            return check_thread(tr, proc, 0, err);
        const tf_process *p = &tr->procs[proc];
        if (first > p->nframes || n > p->nframes - first)
            return tf_fail(err, TF_ERR_FORMAT, "%s: process %" PRIu32 ": frames %" PRIu64
                           "..+%zu are out of range (%zu frames)", tr->path, proc, first, n,
                           p->nframes);
        memcpy(ips, p->frames + first, n * sizeof *ips);
        return 0;
    }
    int rc = check_thread(tr, proc, thread, err);
    if (rc < 0)
        return rc;
    const tf_thread *t = &tr->procs[proc].threads[thread];
    if (first > t->nframes || n > t->nframes - first)
        return tf_fail(err, TF_ERR_FORMAT, "%s: process %" PRIu32 ", thread %" PRIu32
                       ": frames %" PRIu64 "..+%zu are out of range (%zu frames)", tr->path,
                       proc, thread, first, n, t->nframes);
    hid_t *dset = &tr->thread_frames[proc][thread];
    if (*dset < 0) {
        char group[96];
        thread_group(proc, thread, group, sizeof group);
        hid_t g;
        uint64_t rows;
        if ((rc = tf_h5_group_open(tr->file, group, &g, err)) < 0)
            return rc;
        rc = table_open(g, TF_DSET_FRAMES, NULL, 0, dset, &rows, err);
        H5Gclose(g);
        if (rc < 0)
            return rc;
    }
    return table_read_rows(*dset, H5T_NATIVE_UINT64, first, n, ips, err);
}

/* ---- sample cursor -------------------------------------------------------- */

/* A whole number of chunks per read, so each chunk is decompressed once. */
static size_t block_rows(hid_t dset, size_t row_size)
{
    size_t rows = BLOCK_BYTES / row_size;
    hid_t dcpl = H5Dget_create_plist(dset);
    hsize_t chunk = 0;
    if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, &chunk) == 1 &&
        chunk > 0)
        rows = chunk * (rows / chunk ? rows / chunk : 1);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return rows ? rows : 1;
}

int tf_samples_open(tf_trace *tr, uint32_t proc, uint32_t thread, tf_sample_cursor **out,
                    tf_error *err)
{
    *out = NULL;
    if (tr->members && proc < tr->nprocs) {
        int rc = member_acquire(tr, tr->member_of[proc], err);
        if (rc == 0)
            rc = tf_samples_open(tr->members[tr->member_of[proc]], tr->member_proc[proc], thread,
                                 out, err);
        if (rc == 0)
            (*out)->shift = tr->member_shift[tr->member_of[proc]];
        return rc;
    }
    int rc = check_thread(tr, proc, thread, err);
    if (rc < 0)
        return rc;
    tf_sample_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", tr->path);
    *c = (tf_sample_cursor){ .tr = tr, .proc = proc, .thread = thread, .dset = -1,
                             .mem_type = -1, .ncounters = tr->procs[proc].ncounters };
    char group[96];
    thread_group(proc, thread, group, sizeof group);
    hid_t g;
    if ((rc = tf_h5_group_open(tr->file, group, &g, err)) == 0) {
        rc = table_open(g, tf_schema_samples.name, &tf_schema_samples, c->ncounters, &c->dset,
                        &c->rows, err);
        H5Gclose(g);
    }
    if (rc == 0) {
        c->row_size = tf_schema_row_size(&tf_schema_samples, c->ncounters);
        c->block_rows = block_rows(c->dset, c->row_size);
        c->block = malloc(c->block_rows * c->row_size);
        c->mem_type = tf_schema_type(&tf_schema_samples, c->ncounters, false);
        if (!c->block || c->mem_type < 0)
            rc = tf_fail(err, TF_ERR_NOMEM, "%s: out of memory for the sample cursor", tr->path);
    }
    if (rc < 0) {
        tf_samples_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

static int fetch_block(tf_sample_cursor *c, tf_error *err)
{
    uint64_t left = c->rows - c->next_row;
    size_t n = left < c->block_rows ? (size_t)left : c->block_rows;
    int rc = table_read_rows(c->dset, c->mem_type, c->next_row, n, c->block, err);
    if (rc < 0)
        return rc;
    c->next_row += n;
    c->block_n = n;
    c->block_pos = 0;
    return 0;
}

int tf_samples_read(tf_sample_cursor *c, tf_sample *s, uint64_t *counters, size_t max,
                    size_t *n, tf_error *err)
{
    size_t done = 0;
    while (done < max) {
        if (c->block_pos == c->block_n) {
            if (c->next_row == c->rows)
                break;
            int rc = fetch_block(c, err);
            if (rc < 0) {
                *n = 0;
                return rc;
            }
        }
        size_t m = c->block_n - c->block_pos;
        if (m > max - done)
            m = max - done;
        tf_schema_unpack(&tf_schema_samples, c->ncounters, c->block + c->block_pos * c->row_size,
                         m, s + done, counters ? counters + done * c->ncounters : NULL);
        uint64_t nframes = c->tr->procs[c->proc].threads[c->thread].nframes;
        for (size_t i = done; i < done + m; i++) {
            uint64_t row = c->delivered + (i - done);
            if (!stack_fits(s[i].stack, s[i].stack_len, nframes)) {
                *n = 0;
                return tf_h5_fail(err, TF_ERR_FORMAT, c->dset, NULL, "row %" PRIu64 ": call "
                                  "stack of %u frames from frame %" PRIu64 " lies past the "
                                  "thread's %" PRIu64 " frames", row, s[i].stack_len,
                                  s[i].stack, nframes);
            }
            s[i].time += c->shift;
            if (s[i].time < c->last_time) {
                *n = 0;
                return tf_fail(err, TF_ERR_FORMAT, "%s: process %" PRIu32 ", thread %" PRIu32
                               ": sample %" PRIu64 " has time %" PRIu64 " ns, before sample %"
                               PRIu64 "'s %" PRIu64 " ns (samples must be in time order)",
                               c->tr->path, c->proc, c->thread, c->delivered + (i - done),
                               s[i].time, c->delivered + (i - done) - 1, c->last_time);
            }
            c->last_time = s[i].time;
        }
        c->block_pos += m;
        c->delivered += m;
        done += m;
    }
    *n = done;
    return 0;
}

void tf_samples_close(tf_sample_cursor *c)
{
    if (!c)
        return;
    if (c->mem_type >= 0)
        H5Tclose(c->mem_type);
    if (c->dset >= 0)
        H5Dclose(c->dset);
    free(c->block);
    free(c);
}

/* ---- sets of traces ------------------------------------------------------- */

/* Process order of a set: by MPI rank (processes without one last), then
 * as given. */
typedef struct set_order {
    int64_t  rank;
    uint32_t index;
} set_order;

static int set_order_cmp(const void *a, const void *b)
{
    const set_order *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void remap_strings(const tf_table_schema *s, void *records, size_t n,
                          const uint32_t *map)
{
    for (size_t r = 0; r < n; r++) {
        unsigned char *rec = (unsigned char *)records + r * s->struct_size;
        for (size_t f = 0; f < s->nfields; f++) {
            uint32_t id;
            if (!s->fields[f].string || s->fields[f].size != sizeof id)
                continue;
            memcpy(&id, rec + s->fields[f].offset, sizeof id);
            id = map[id];
            memcpy(rec + s->fields[f].offset, &id, sizeof id);
        }
    }
}

/* Member m's processes join the set: string ids onto the set's table, times
 * onto the set's start (statics keep alloc_time 0, never-freed objects
 * TF_NOTIME). */
static int set_adopt(tf_trace *set, uint32_t m, tf_error *err)
{
    tf_trace *mt = set->members[m];
    uint32_t *map = malloc((mt->nstrings ? mt->nstrings : 1) * sizeof *map);
    if (!map)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", mt->path);
    for (size_t i = 0; i < mt->nstrings; i++)
        if (!tf_strtab_find(&set->index, mt->strings[i], &map[i]) &&
            !tf_strtab_add(&set->index, mt->strings[i], &map[i])) {
            free(map);
            return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory for the strings", mt->path);
        }
    uint64_t shift = set->member_shift[m];
    for (uint32_t p = 0; p < mt->nprocs; p++) {
        tf_process *proc = &mt->procs[p];
        remap_strings(&tf_schema_counters, proc->counters, proc->ncounters, map);
        remap_strings(&tf_schema_modules, proc->modules, proc->nmodules, map);
        remap_strings(&tf_schema_objects, proc->objects, proc->nobjects, map);
        remap_strings(&tf_schema_symbols, proc->symbols, proc->nsymbols, map);
        for (size_t o = 0; o < proc->nobjects; o++) {
            tf_object *obj = &proc->objects[o];
            obj->alloc_time += obj->alloc_time ? shift : 0;
            obj->free_time += obj->free_time != TF_NOTIME ? shift : 0;
        }
        for (uint32_t t = 0; t < proc->nthreads; t++)
            for (size_t e = 0; e < proc->threads[t].nevents; e++) {
                tf_event *ev = &proc->threads[t].events[e];
                ev->time += shift;
                if (ev->kind != TF_EVENT_USER)
                    ev->value = map[ev->value];
            }
        set->member_of[set->nprocs] = m;
        set->member_proc[set->nprocs] = p;
        set->procs[set->nprocs++] = *proc;
    }
    free(map);
    return 0;
}

int tf_trace_open_set(tf_trace **out, const char *const *paths, size_t n, tf_error *err)
{
    *out = NULL;
    if (n == 0)
        return tf_fail(err, TF_ERR_USAGE, "no trace to open");
    if (n == 1)
        return tf_trace_open(out, paths[0], err);
    tf_trace *set = calloc(1, sizeof *set);
    set_order *order = calloc(n, sizeof *order);
    tf_trace **opened = calloc(n, sizeof *opened);
    if (set) {
        set->file = -1;
        tf_strtab_init(&set->index);
        set->members = calloc(n, sizeof *set->members);
        set->member_shift = calloc(n, sizeof *set->member_shift);
        set->path = strdup(paths[0]);
    }
    int rc = 0;
    if (!set || !order || !opened || !set->members || !set->member_shift || !set->path ||
        n > UINT32_MAX)
        rc = tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", paths[0]);
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = tf_trace_open(&opened[i], paths[i], err);
        if (rc == 0)
            member_release(opened[i]);
        order[i].index = (uint32_t)i;
        order[i].rank = rc == 0 && opened[i]->nprocs && opened[i]->procs[0].rank >= 0
                            ? opened[i]->procs[0].rank : INT64_MAX;
    }
    if (rc == 0)
        qsort(order, n, sizeof *order, set_order_cmp);
    for (size_t i = 0; set && set->members && opened && order && i < n; i++)
        if (opened[order[i].index])
            set->members[set->nmembers++] = opened[order[i].index];
    free(opened);
    free(order);
    size_t nprocs = 0;
    uint64_t start = UINT64_MAX;
    for (uint32_t m = 0; rc == 0 && m < set->nmembers; m++) {
        nprocs += set->members[m]->nprocs;
        if (set->members[m]->meta.start_time < start)
            start = set->members[m]->meta.start_time;
    }
    if (rc == 0) {
        set->procs = calloc(nprocs ? nprocs : 1, sizeof *set->procs);
        set->member_of = calloc(nprocs ? nprocs : 1, sizeof *set->member_of);
        set->member_proc = calloc(nprocs ? nprocs : 1, sizeof *set->member_proc);
        if (!set->procs || !set->member_of || !set->member_proc)
            rc = tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", paths[0]);
    }
    if (set)
        set->complete = true;
    for (uint32_t m = 0; rc == 0 && m < set->nmembers; m++) {
        set->member_shift[m] = set->members[m]->meta.start_time - start;
        set->complete &= set->members[m]->complete;
        rc = set_adopt(set, m, err);
    }
    if (rc < 0) {
        if (set)
            set_close(set);
        return rc;
    }
    set->strings = set->index.strings;
    set->nstrings = set->index.n;
    set->meta = set->members[0]->meta;
    set->meta.start_time = start;
    if ((rc = member_acquire(set, 0, err)) < 0) {
        set_close(set);
        return rc;
    }
    *out = set;
    return 0;
}

/* Members' files are open one at a time besides the first (whose file
 * tf_trace_file gives): with a thousand ranks, a thousand open HDF5 files
 * would hold their caches all at once.  A file closed while a sample
 * cursor still reads it stays open until the cursor closes (HDF5's weak
 * close). */
static void member_release(tf_trace *m)
{
    for (uint32_t p = 0; p < m->nprocs; p++)
        for (uint32_t t = 0; t < m->procs[p].nthreads; t++)
            if (m->thread_frames[p][t] >= 0) {
                H5Dclose(m->thread_frames[p][t]);
                m->thread_frames[p][t] = -1;
            }
    if (m->file >= 0)
        H5Fclose(m->file);
    m->file = -1;
}

static int member_acquire(tf_trace *set, uint32_t m, tf_error *err)
{
    if (set->open_member != m && set->open_member != 0)
        member_release(set->members[set->open_member]);
    set->open_member = m;
    tf_trace *mt = set->members[m];
    if (mt->file >= 0)
        return 0;
    int64_t file;
    int rc = tf_h5_file_open(mt->path, false, &file, err);
    mt->file = rc < 0 ? -1 : file;
    return rc;
}

/* The members own everything the processes point to; the set owns its
 * arrays and its string table. */
static void set_close(tf_trace *tr)
{
    for (uint32_t m = 0; m < tr->nmembers; m++)
        tf_trace_close(tr->members[m]);
    free(tr->members);
    free(tr->member_of);
    free(tr->member_proc);
    free(tr->member_shift);
    free(tr->procs);
    tf_strtab_free(&tr->index);
    free(tr->path);
    free(tr);
}
