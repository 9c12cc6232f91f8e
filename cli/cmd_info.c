/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold info`: what a trace holds, as text for people or JSON for
 * scripts.  Everything is gathered first (samples are streamed to count
 * them), then printed, so a trace that fails half-way prints nothing but the
 * error. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "commands.h"
#include "extract/instances.h"
#include "msg.h"
#include "extract/object_names.h"
#include "formats/trace_input.h"
#include "common/tf_escape.h"

#define SAMPLE_CHUNK 65536
#define TEXT_OBJECTS_SHOWN 20
/* The kinds of enum tf_sample_kind, then any other value a newer recorder
 * might write, counted rather than mistaken for one of the known kinds. */
#define NSAMPLE_KINDS 5
#define SAMPLE_OTHER 4

static const char *const sample_kind_names[NSAMPLE_KINDS] = {"timer", "load", "store", "rmw",
                                                             "other"};
static const char *const object_kind_names[] = {"heap", "static", "user", "stack", "mmap",
                                                "small"};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold info [OPTIONS] TRACE\n"
            "Summarises a trace: processes, threads, time span, regions with their\n"
            "instances and durations, counters, samples by kind, data objects, and\n"
            "whether the recording completed.\n\n"
            "Options:\n"
            "      --json         print JSON instead of text\n"
            "      --all-objects  list every data object, the static variables of the C\n"
            "                     library, of the other system libraries (/lib, /usr/lib,\n"
            "                     ...) and of the recorder too (hidden by default)\n"
            "      --alloc-wrapper NAME  a routine of the program that allocates for\n"
            "                     its callers: heap objects are named by its caller\n"
            "                     (repeatable; with those named by record's)\n"
            "  -q, --quiet        no progress\n"
            "  -h, --help         show this help and exit\n\n"
            "TRACE is a tracefold HDF5 trace or a Paraver trace (.prv, .prv.gz).\n"
            "Exit status: 0 success, 1 unreadable or malformed trace, 2 wrong command line.\n");
}

/* A process's data objects as listed: their names (object_names.h) and
 * which are left out. */
struct process_objects {
    tf_object_naming naming;     /* names and routines per object of the trace's table */
    bool    *hidden;             /* per object: a system library's static */
    size_t   nhidden;
};

/* What the summary needs beyond the trace's own tables. */
struct summary {
    uint64_t samples[NSAMPLE_KINDS];
    uint64_t first, last;        /* time span of events and samples */
    bool     any_time;
    tf_region_stats *regions;
    size_t   nregions;
    struct process_objects *objects;   /* per process */
    uint32_t nprocesses;
};

static void widen_span(struct summary *s, uint64_t first, uint64_t last)
{
    if (!s->any_time || first < s->first)
        s->first = first;
    if (!s->any_time || last > s->last)
        s->last = last;
    s->any_time = true;
}

static uint64_t total_samples(const tf_trace *tr)
{
    uint64_t n = 0;
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        for (uint32_t t = 0; t < proc->nthreads; t++)
            n += proc->threads[t].nsamples;
    }
    return n;
}

/* Streams every thread's samples once: the counts by kind and the time span
 * need them all, and reading also checks their order. */
static int count_samples(tf_trace *tr, struct summary *s, tf_error *err)
{
    tf_sample *buf = malloc(SAMPLE_CHUNK * sizeof *buf);
    if (!buf)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory reading samples");
    uint64_t total = total_samples(tr), done = 0;
    int rc = 0;
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr) && rc == 0; p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        for (uint32_t t = 0; t < proc->nthreads && rc == 0; t++) {
            tf_sample_cursor *c;
            if ((rc = tf_samples_open(tr, p, t, &c, err)) < 0)
                break;
            size_t n;
            while ((rc = tf_samples_read(c, buf, NULL, SAMPLE_CHUNK, &n, err)) == 0 && n > 0) {
                for (size_t i = 0; i < n; i++)
                    s->samples[buf[i].kind < SAMPLE_OTHER ? buf[i].kind : SAMPLE_OTHER]++;
                widen_span(s, buf[0].time, buf[n - 1].time);
                done += n;
                tf_progress("info: samples", done, total);
            }
            tf_samples_close(c);
        }
    }
    tf_progress_done();
    free(buf);
    return rc;
}

/* The file a static variable belongs to: the file-backed mapping that
 * starts last at or below its address (the part of a .bss beyond the
 * file's end is an anonymous mapping right after the file's own); "" in
 * none. */
static const char *static_file(const tf_trace *tr, const tf_process *p, uint64_t addr)
{
    const tf_module *best = NULL;
    for (size_t i = 0; i < p->nmodules; i++) {
        const tf_module *m = &p->modules[i];
        if (m->start <= addr && tf_trace_string(tr, m->path)[0] == '/' &&
            (!best || m->start > best->start))
            best = m;
    }
    return best ? tf_trace_string(tr, best->path) : "";
}

/* The names of a process's objects, and unless all is set, which are the
 * static variables of system libraries.  Heap objects are named from
 * their allocation stacks where the trace has no call site. */
static int list_objects(const tf_trace *tr, uint32_t proc, bool all, const tf_alloc_rules *rules,
                        struct process_objects *po, tf_error *err)
{
    const tf_process *p = tf_trace_process(tr, proc);
    if (!p->nobjects)
        return 0;
    bool unnamed_heap = false;
    for (size_t i = 0; i < p->nobjects && !unnamed_heap; i++) {
        const tf_object *o = &p->objects[i];
        unnamed_heap = o->stack_len && !tf_trace_string(tr, o->callsite)[0] &&
                       !tf_trace_string(tr, o->name)[0];
    }
    tf_symbolizer *sym = NULL;
    tf_error ignored;
    /* without a symboliser (no modules) such objects keep a neutral name */
    if (unnamed_heap && tf_symbolizer_for_process(&sym, tr, proc, NULL, &ignored) < 0)
        sym = NULL;
    int rc = tf_object_names(tr, proc, sym, rules, &po->naming, err);
    tf_symbolizer_free(sym);
    if (rc < 0)
        return rc;
    if (!(po->hidden = calloc(p->nobjects, sizeof *po->hidden)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory listing the data objects");
    for (size_t i = 0; i < p->nobjects && !all; i++) {
        const tf_object *o = &p->objects[i];
        /* a small block's one frame: where it was allocated */
        bool small = o->kind == TF_OBJECT_SMALL && o->stack_len && o->stack < p->nframes;
        po->hidden[i] = (o->kind == TF_OBJECT_STATIC &&
                         tf_system_library(static_file(tr, p, o->start))) ||
                        (small && tf_system_library(static_file(tr, p, p->frames[o->stack])));
        po->nhidden += po->hidden[i];
    }
    return 0;
}

static void summary_free(struct summary *s)
{
    for (uint32_t p = 0; s->objects && p < s->nprocesses; p++) {
        tf_object_naming_free(&s->objects[p].naming);
        free(s->objects[p].hidden);
    }
    free(s->objects);
    free(s->regions);
}

static int summarise(tf_trace *tr, bool all_objects, const tf_alloc_rules *rules,
                     struct summary *s, tf_error *err)
{
    memset(s, 0, sizeof *s);
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        for (uint32_t t = 0; t < proc->nthreads; t++) {
            const tf_thread *th = &proc->threads[t];
            if (th->nevents)
                widen_span(s, th->events[0].time, th->events[th->nevents - 1].time);
        }
    }
    int rc = count_samples(tr, s, err);
    if (rc < 0)
        return rc;
    s->nprocesses = tf_trace_nprocesses(tr);
    if (!(s->objects = calloc(s->nprocesses + 1, sizeof *s->objects)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory listing the data objects");
    for (uint32_t p = 0; p < s->nprocesses && rc == 0; p++)
        rc = list_objects(tr, p, all_objects, rules, &s->objects[p], err);
    if (rc < 0)
        return rc;
    return tf_region_stats_compute(tr, &s->regions, &s->nregions, err);
}

/* ---- text --------------------------------------------------------------- */

/* A duration with a unit a reader takes in at a glance. */
static const char *human_time(uint64_t ns, char *buf, size_t size)
{
    if (ns >= UINT64_C(1000000000))
        snprintf(buf, size, "%.3f s", ns / 1e9);
    else if (ns >= 1000000)
        snprintf(buf, size, "%.3f ms", ns / 1e6);
    else if (ns >= 1000)
        snprintf(buf, size, "%.3f us", ns / 1e3);
    else
        snprintf(buf, size, "%" PRIu64 " ns", ns);
    return buf;
}

static const char *human_bytes(uint64_t b, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%" PRIu64 " B", b);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
    return buf;
}

static const char *object_kind(uint8_t kind)
{
    return kind < sizeof object_kind_names / sizeof object_kind_names[0]
               ? object_kind_names[kind] : "unknown";
}

static void print_start_time(FILE *out, uint64_t ns)
{
    time_t secs = (time_t)(ns / UINT64_C(1000000000));
    struct tm tm;
    char buf[64];
    if (ns && gmtime_r(&secs, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm))
        fprintf(out, "started:     %s\n", buf);
}

/* A trace's string, escaped (tf_escape.h: it may hold terminal controls),
 * left-aligned in width columns as %-*s would. */
static void put_string(FILE *out, const char *s, size_t width)
{
    size_t n = tf_escape_put(out, s ? s : "");
    if (n < width)
        fprintf(out, "%*s", (int)(width - n), "");
}

/* label, then a trace's string escaped. */
static void put_field(FILE *out, const char *label, const char *s)
{
    fputs(label, out);
    put_string(out, s, 0);
}

static void put_line(FILE *out, const char *label, const char *s)
{
    put_field(out, label, s);
    fputc('\n', out);
}

static void print_text_objects(FILE *out, const tf_process *proc,
                               const struct process_objects *po)
{
    char b[32];
    if (!proc->nobjects)
        return;
    size_t listed = proc->nobjects - po->nhidden, shown = 0;
    fprintf(out, "  data objects: %zu", listed);
    if (po->nhidden)
        fprintf(out, " (and %zu static variable%s and small blocks of system libraries and the "
                     "recorder, not listed: --all-objects)", po->nhidden,
                po->nhidden == 1 ? "" : "s");
    fputc('\n', out);
    for (size_t i = 0; i < proc->nobjects && shown < TEXT_OBJECTS_SHOWN; i++) {
        if (po->hidden[i])
            continue;
        const tf_object *o = &proc->objects[i];
        fprintf(out, "    #%u %-6s ", o->id, object_kind(o->kind));
        put_string(out, po->naming.names[i], 24);
        fprintf(out, " 0x%" PRIx64 " %s", o->start, human_bytes(o->size, b, sizeof b));
        if (po->naming.routines[i][0])
            put_field(out, " in ", po->naming.routines[i]);
        fputc('\n', out);
        shown++;
    }
    if (listed > shown)
        fprintf(out, "    ... and %zu more (--json lists them all)\n", listed - shown);
}

static void print_text(FILE *out, const tf_trace *tr, const struct summary *s)
{
    const tf_trace_meta *m = tf_trace_get_meta(tr);
    char b1[32], b2[32], b3[32], b4[32];
    put_line(out, "trace:       ", tf_input_source(tr));
    fprintf(out, "complete:    %s\n",
            tf_trace_complete(tr) ? "yes" : "no (the recording was interrupted: killed, or "
                                            "its disk full; what was written is readable)");
    put_line(out, "producer:    ", m->producer);
    put_line(out, "host:        ", m->host);
    put_line(out, "command:     ", m->command_line);
    put_line(out, "clock:       ", m->clock);
    print_start_time(out, m->start_time);
    if (tf_trace_alloc_wrappers(tr)[0])
        put_line(out, "allocation wrappers (recorded): ", tf_trace_alloc_wrappers(tr));
    if (s->any_time)
        fprintf(out, "time span:   %s (from %" PRIu64 " to %" PRIu64 " ns)\n",
                human_time(s->last - s->first, b1, sizeof b1), s->first, s->last);
    else
        fprintf(out, "time span:   empty (no events, no samples)\n");

    uint32_t np = tf_trace_nprocesses(tr);
    fprintf(out, "\nprocesses: %u\n", np);
    for (uint32_t p = 0; p < np; p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        fprintf(out, "process %u: pid %" PRId64, p, proc->pid);
        if (proc->rank >= 0)
            fprintf(out, ", rank %d of %d", proc->rank, proc->nranks);
        put_field(out, ", host ", proc->host);
        put_field(out, ", executable ", proc->executable);
        fputc('\n', out);
        fprintf(out, "  counters: %u", proc->ncounters);
        for (uint32_t c = 0; c < proc->ncounters; c++)
            put_field(out, c ? ", " : " (", tf_trace_string(tr, proc->counters[c].name));
        fprintf(out, "%s\n", proc->ncounters ? ")" : "");
        fprintf(out, "  modules: %zu, symbols: %zu\n", proc->nmodules, proc->nsymbols);
        fprintf(out, "  threads: %u\n", proc->nthreads);
        for (uint32_t t = 0; t < proc->nthreads; t++) {
            const tf_thread *th = &proc->threads[t];
            fprintf(out, "    thread %u: tid %" PRIu64 ", %zu events, %zu samples", t, th->tid,
                    th->nevents, th->nsamples);
            if (th->dropped_events || th->dropped_samples)
                fprintf(out, " (lost by the recorder, its buffer full: %" PRIu64 " events, %"
                        PRIu64 " samples)", th->dropped_events, th->dropped_samples);
            fputc('\n', out);
        }
        if (proc->small_past_cap || proc->small_ring_full)
            fprintf(out, "  small blocks not attributed by the recorder: %" PRIu64 " (%" PRIu64
                    " past the small-block log's %" PRIu64 ", option small-blocks; %" PRIu64
                    " allocated faster than the writer took them)\n",
                    proc->small_past_cap + proc->small_ring_full, proc->small_past_cap,
                    proc->small_cap, proc->small_ring_full);
        print_text_objects(out, proc, &s->objects[p]);
    }

    fprintf(out, "\nregions: %zu\n", s->nregions);
    if (s->nregions)
        fprintf(out, "  %-24s %10s %10s %12s %12s %12s %12s\n", "name", "instances",
                "incomplete", "median", "min", "max", "total");
    for (size_t i = 0; i < s->nregions; i++) {
        const tf_region_stats *r = &s->regions[i];
        fputs("  ", out);
        put_string(out, tf_trace_string(tr, r->region), 24);
        fprintf(out, " %10zu %10zu %12s %12s %12s %12s\n", r->count, r->incomplete,
                human_time(r->median, b1, sizeof b1), human_time(r->min, b2, sizeof b2),
                human_time(r->max, b3, sizeof b3), human_time(r->total, b4, sizeof b4));
    }

    uint64_t all = 0;
    for (int k = 0; k < NSAMPLE_KINDS; k++)
        all += s->samples[k];
    fprintf(out, "\nsamples: %" PRIu64 "\n", all);
    for (int k = 0; k < NSAMPLE_KINDS; k++)
        if (k != SAMPLE_OTHER || s->samples[k])
            fprintf(out, "  %-6s %" PRIu64 "\n", sample_kind_names[k], s->samples[k]);
}

/* ---- JSON --------------------------------------------------------------- */

/* `INDENT"key": "value",` and a new line. */
static void json_field(FILE *out, const char *indent, const char *key, const char *value)
{
    fprintf(out, "%s\"%s\": ", indent, key);
    tf_escape_json(out, value);
    fputs(",\n", out);
}

static void json_process(FILE *out, const tf_trace *tr, const tf_process *proc,
                         const struct process_objects *po)
{
    fprintf(out, "    {\"pid\": %" PRId64 ", \"rank\": %d, \"nranks\": %d,\n", proc->pid,
            proc->rank, proc->nranks);
    json_field(out, "     ", "host", proc->host);
    json_field(out, "     ", "executable", proc->executable);
    fputs("     \"counters\": [", out);
    for (uint32_t c = 0; c < proc->ncounters; c++) {
        fputs(c ? ", " : "", out);
        tf_escape_json(out, tf_trace_string(tr, proc->counters[c].name));
    }
    fprintf(out, "],\n     \"modules\": %zu, \"symbols\": %zu,\n", proc->nmodules,
            proc->nsymbols);
    fputs("     \"threads\": [", out);
    for (uint32_t t = 0; t < proc->nthreads; t++)
        fprintf(out, "%s\n       {\"tid\": %" PRIu64 ", \"events\": %zu, \"samples\": %zu, "
                     "\"dropped_events\": %" PRIu64 ", \"dropped_samples\": %" PRIu64 "}",
                t ? "," : "", proc->threads[t].tid, proc->threads[t].nevents,
                proc->threads[t].nsamples, proc->threads[t].dropped_events,
                proc->threads[t].dropped_samples);
    fprintf(out, "],\n     \"small_blocks_cap\": %" PRIu64 ", \"small_blocks_past_cap\": %" PRIu64
                 ", \"small_blocks_ring_full\": %" PRIu64 ",",
            proc->small_cap, proc->small_past_cap, proc->small_ring_full);
    fprintf(out, "\n     \"objects_not_listed\": %zu,\n     \"objects\": [", po->nhidden);
    const char *sep = "";
    for (size_t i = 0; i < proc->nobjects; i++) {
        if (po->hidden[i])
            continue;
        const tf_object *o = &proc->objects[i];
        fprintf(out, "%s\n       {\"id\": %u, \"kind\": \"%s\", \"start\": %" PRIu64
                     ", \"size\": %" PRIu64 ", \"label\": ",
                sep, o->id, object_kind(o->kind), o->start, o->size);
        tf_escape_json(out, po->naming.names[i]);
        fputs(", \"routine\": ", out);
        tf_escape_json(out, po->naming.routines[i]);
        fputs(", \"name\": ", out);
        tf_escape_json(out, tf_trace_string(tr, o->name));
        fputs(", \"callsite\": ", out);
        tf_escape_json(out, tf_trace_string(tr, o->callsite));
        fputc('}', out);
        sep = ",";
    }
    fputs("]}", out);
}

static void print_json(FILE *out, const tf_trace *tr, const struct summary *s)
{
    const tf_trace_meta *m = tf_trace_get_meta(tr);
    fputs("{\n", out);
    json_field(out, "  ", "trace", tf_input_source(tr));
    fprintf(out, "  \"complete\": %s,\n", tf_trace_complete(tr) ? "true" : "false");
    json_field(out, "  ", "producer", m->producer);
    json_field(out, "  ", "host", m->host);
    json_field(out, "  ", "command_line", m->command_line);
    json_field(out, "  ", "clock", m->clock);
    json_field(out, "  ", "alloc_wrappers", tf_trace_alloc_wrappers(tr));
    fprintf(out, "  \"start_time_ns\": %" PRIu64 ",\n", m->start_time);
    if (s->any_time)
        fprintf(out, "  \"time_span\": {\"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64
                     ", \"duration_ns\": %" PRIu64 "},\n",
                s->first, s->last, s->last - s->first);
    else
        fputs("  \"time_span\": null,\n", out);

    fputs("  \"processes\": [\n", out);
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        fputs(p ? ",\n" : "", out);
        json_process(out, tr, tf_trace_process(tr, p), &s->objects[p]);
    }
    fputs("\n  ],\n  \"regions\": [", out);
    for (size_t i = 0; i < s->nregions; i++) {
        const tf_region_stats *r = &s->regions[i];
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        tf_escape_json(out, tf_trace_string(tr, r->region));
        fprintf(out, ", \"instances\": %zu, \"incomplete\": %zu, \"total_ns\": %" PRIu64
                     ", \"median_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64
                     ", \"max_ns\": %" PRIu64 "}",
                r->count, r->incomplete, r->total, r->median, r->min, r->max);
    }
    fputs("\n  ],\n  \"samples\": {", out);
    uint64_t all = 0;
    for (int k = 0; k < NSAMPLE_KINDS; k++) {
        fprintf(out, "\"%s\": %" PRIu64 ", ", sample_kind_names[k], s->samples[k]);
        all += s->samples[k];
    }
    fprintf(out, "\"total\": %" PRIu64 "}\n}\n", all);
}

int tf_cmd_info(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"json", no_argument, NULL, 'j'},
        {"all-objects", no_argument, NULL, 'a'},
        {"alloc-wrapper", required_argument, NULL, 'w'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false, all_objects = false;
    tf_alloc_rules rules = { 0 };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", long_options, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'a': all_objects = true; break;
        case 'w':
            if (!tf_arg_alloc_wrapper(&rules, argc, optarg))
                goto usage_error;
            break;
        case 'q': tf_msg_set_quiet(true); break;
        case 'h': free(rules.wrappers); usage(stdout); return TF_EXIT_OK;
        default: tf_msg_usage("unknown option '%s'", argv[optind - 1]); goto usage_error;
        }
    }
    if (optind == argc) {
        tf_msg_usage("no trace given");
        goto usage_error;
    }
    if (optind + 1 < argc) {
        tf_msg_usage("one trace at a time (unexpected '%s')", argv[optind + 1]);
        goto usage_error;
    }

    tf_error err;
    tf_error_clear(&err);
    tf_trace *tr;
    if (tf_input_open(argv[optind], &tr, &err) < 0) {
        free(rules.wrappers);
        return tf_msg_fail(&err);
    }
    struct summary s;
    int rc = summarise(tr, all_objects, &rules, &s, &err);
    if (rc == 0) {
        if (json)
            print_json(stdout, tr, &s);
        else
            print_text(stdout, tr, &s);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            tf_fail(&err, TF_ERR_IO, "standard output: write error");
            rc = -TF_ERR_IO;
        }
    }
    summary_free(&s);
    tf_input_close(tr);
    free(rules.wrappers);
    return rc < 0 ? tf_msg_fail(&err) : TF_EXIT_OK;
usage_error:
    free(rules.wrappers);
    return TF_EXIT_USAGE;
}
