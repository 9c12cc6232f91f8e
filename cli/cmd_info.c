/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold info`: what a trace holds, as text for people or JSON for
 * scripts.  Everything is gathered first (samples are streamed to count
 * them), then printed, so a trace that fails half-way prints nothing but the
 * error.  It reads the trace through the installed reader API
 * (include/tracefold/read.h): what it prints is what a program gets. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "commands.h"
#include "msg.h"
#include "common/tf_escape.h"
#include "extract/alloc_site.h"
#include "tracefold/read.h"

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

static int out_of_memory(tracefold_error *err, const char *doing)
{
    err->code = TRACEFOLD_ERR_NOMEM;
    snprintf(err->message, sizeof err->message, "out of memory %s", doing);
    return -TRACEFOLD_ERR_NOMEM;
}

/* What the summary shows of one process. */
struct process_summary {
    tracefold_process  proc;
    tracefold_thread  *threads;       /* [proc.nthreads] */
    const char       **counters;      /* [proc.ncounters] names */
    tracefold_object  *objects;       /* [proc.nobjects] */
    bool              *hidden;        /* per object: the system's, and not --all-objects */
    size_t             nhidden;
};

/* What the summary needs beyond what the reader hands out on demand. */
struct summary {
    tracefold_trace_info info;
    uint64_t samples[NSAMPLE_KINDS];
    uint64_t first, last;        /* time span of events and samples */
    bool     any_time;
    struct process_summary *processes;   /* [info.nprocesses] */
    tracefold_region *regions;           /* [info.nregions] */
};

static void widen_span(struct summary *s, uint64_t first, uint64_t last)
{
    if (!s->any_time || first < s->first)
        s->first = first;
    if (!s->any_time || last > s->last)
        s->last = last;
    s->any_time = true;
}

/* Streams every thread's samples once: the counts by kind and the time span
 * need them all, and reading also checks their order. */
static int count_samples(tracefold_trace *tr, struct summary *s, tracefold_error *err)
{
    uint64_t total = 0, done = 0;
    for (uint32_t p = 0; p < s->info.nprocesses; p++)
        for (uint32_t t = 0; t < s->processes[p].proc.nthreads; t++)
            total += s->processes[p].threads[t].nsamples;
    tracefold_sample *buf = malloc(SAMPLE_CHUNK * sizeof *buf);
    if (!buf)
        return out_of_memory(err, "reading samples");
    int rc = 0;
    for (uint32_t p = 0; p < s->info.nprocesses && rc == 0; p++) {
        for (uint32_t t = 0; t < s->processes[p].proc.nthreads && rc == 0; t++) {
            tracefold_samples *c;
            if ((rc = tracefold_samples_open(tr, p, t, &c, err)) < 0)
                break;
            size_t n;
            while ((rc = tracefold_samples_read(c, buf, NULL, SAMPLE_CHUNK, &n, err)) == 0 &&
                   n > 0) {
                for (size_t i = 0; i < n; i++)
                    s->samples[buf[i].kind < SAMPLE_OTHER ? buf[i].kind : SAMPLE_OTHER]++;
                widen_span(s, buf[0].time, buf[n - 1].time);
                done += n;
                tf_progress("info: samples", done, total);
            }
            tracefold_samples_close(c);
        }
    }
    tf_progress_done();
    free(buf);
    return rc;
}

/* Process p's threads and counters, and room for its objects; the threads'
 * events widen the time span. */
static int summarise_process(tracefold_trace *tr, uint32_t p, struct summary *s,
                             tracefold_error *err)
{
    struct process_summary *ps = &s->processes[p];
    int rc = tracefold_process_get(tr, p, &ps->proc, err);
    if (rc < 0)
        return rc;
    ps->threads = calloc(ps->proc.nthreads + 1, sizeof *ps->threads);
    ps->counters = calloc(ps->proc.ncounters + 1, sizeof *ps->counters);
    ps->objects = calloc(ps->proc.nobjects + 1, sizeof *ps->objects);
    ps->hidden = calloc(ps->proc.nobjects + 1, sizeof *ps->hidden);
    if (!ps->threads || !ps->counters || !ps->objects || !ps->hidden)
        return out_of_memory(err, "listing the data objects");
    for (uint32_t t = 0; t < ps->proc.nthreads && rc == 0; t++)
        if ((rc = tracefold_thread_get(tr, p, t, &ps->threads[t], err)) == 0 &&
            ps->threads[t].nevents)
            widen_span(s, ps->threads[t].first_event, ps->threads[t].last_event);
    for (uint32_t c = 0; c < ps->proc.ncounters && rc == 0; c++) {
        tracefold_counter counter;
        if ((rc = tracefold_counter_get(tr, p, c, &counter, err)) == 0)
            ps->counters[c] = counter.name;
    }
    return rc;
}

/* Process p's objects, and unless all is set, which are the system's. */
static int list_objects(tracefold_trace *tr, uint32_t p, bool all, struct process_summary *ps,
                        tracefold_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < ps->proc.nobjects && rc == 0; i++) {
        rc = tracefold_object_get(tr, p, i, &ps->objects[i], err);
        ps->hidden[i] = !all && ps->objects[i].system;
        ps->nhidden += ps->hidden[i];
    }
    return rc;
}

static void summary_free(struct summary *s)
{
    for (uint32_t p = 0; s->processes && p < s->info.nprocesses; p++) {
        free(s->processes[p].threads);
        free(s->processes[p].counters);
        free(s->processes[p].objects);
        free(s->processes[p].hidden);
    }
    free(s->processes);
    free(s->regions);
}

static int summarise(tracefold_trace *tr, bool all_objects, struct summary *s,
                     tracefold_error *err)
{
    memset(s, 0, sizeof *s);
    tracefold_trace_get_info(tr, &s->info);
    s->processes = calloc(s->info.nprocesses + 1, sizeof *s->processes);
    s->regions = calloc(s->info.nregions + 1, sizeof *s->regions);
    if (!s->processes || !s->regions)
        return out_of_memory(err, "listing the processes");
    int rc = 0;
    for (uint32_t p = 0; p < s->info.nprocesses && rc == 0; p++)
        rc = summarise_process(tr, p, s, err);
    if (rc < 0 || (rc = count_samples(tr, s, err)) < 0)
        return rc;
    for (uint32_t p = 0; p < s->info.nprocesses && rc == 0; p++)
        rc = list_objects(tr, p, all_objects, &s->processes[p], err);
    for (size_t i = 0; i < s->info.nregions && rc == 0; i++)
        rc = tracefold_region_get(tr, i, &s->regions[i], err);
    return rc;
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

static const char *object_kind(int kind)
{
    return kind >= 0 && (size_t)kind < sizeof object_kind_names / sizeof object_kind_names[0]
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

static void print_text_objects(FILE *out, const struct process_summary *ps)
{
    char b[32];
    size_t nobjects = ps->proc.nobjects;
    if (!nobjects)
        return;
    size_t listed = nobjects - ps->nhidden, shown = 0;
    fprintf(out, "  data objects: %zu", listed);
    if (ps->nhidden)
        fprintf(out, " (and %zu static variable%s and small blocks of system libraries and the "
                     "recorder, not listed: --all-objects)", ps->nhidden,
                ps->nhidden == 1 ? "" : "s");
    fputc('\n', out);
    for (size_t i = 0; i < nobjects && shown < TEXT_OBJECTS_SHOWN; i++) {
        if (ps->hidden[i])
            continue;
        const tracefold_object *o = &ps->objects[i];
        fprintf(out, "    #%u %-6s ", o->id, object_kind(o->kind));
        put_string(out, o->name, 24);
        fprintf(out, " 0x%" PRIx64 " %s", o->start, human_bytes(o->size, b, sizeof b));
        if (o->routine[0])
            put_field(out, " in ", o->routine);
        fputc('\n', out);
        shown++;
    }
    if (listed > shown)
        fprintf(out, "    ... and %zu more (--json lists them all)\n", listed - shown);
}

static void print_text(FILE *out, const struct summary *s)
{
    const tracefold_trace_info *m = &s->info;
    char b1[32], b2[32], b3[32], b4[32];
    put_line(out, "trace:       ", m->path);
    fprintf(out, "complete:    %s\n",
            m->complete ? "yes" : "no (the recording was interrupted: killed, or "
                                  "its disk full; what was written is readable)");
    put_line(out, "producer:    ", m->producer);
    put_line(out, "host:        ", m->host);
    put_line(out, "command:     ", m->command_line);
    put_line(out, "clock:       ", m->clock);
    print_start_time(out, m->start_time);
    if (m->alloc_wrappers[0])
        put_line(out, "allocation wrappers (recorded): ", m->alloc_wrappers);
    if (s->any_time)
        fprintf(out, "time span:   %s (from %" PRIu64 " to %" PRIu64 " ns)\n",
                human_time(s->last - s->first, b1, sizeof b1), s->first, s->last);
    else
        fprintf(out, "time span:   empty (no events, no samples)\n");

    fprintf(out, "\nprocesses: %u\n", m->nprocesses);
    for (uint32_t p = 0; p < m->nprocesses; p++) {
        const struct process_summary *ps = &s->processes[p];
        const tracefold_process *proc = &ps->proc;
        fprintf(out, "process %u: pid %" PRId64, p, proc->pid);
        if (proc->rank >= 0)
            fprintf(out, ", rank %d of %d", proc->rank, proc->nranks);
        put_field(out, ", host ", proc->host);
        put_field(out, ", executable ", proc->executable);
        fputc('\n', out);
        fprintf(out, "  counters: %u", proc->ncounters);
        for (uint32_t c = 0; c < proc->ncounters; c++)
            put_field(out, c ? ", " : " (", ps->counters[c]);
        fprintf(out, "%s\n", proc->ncounters ? ")" : "");
        fprintf(out, "  modules: %zu, symbols: %zu\n", proc->nmodules, proc->nsymbols);
        fprintf(out, "  threads: %u\n", proc->nthreads);
        for (uint32_t t = 0; t < proc->nthreads; t++) {
            const tracefold_thread *th = &ps->threads[t];
            fprintf(out, "    thread %u: tid %" PRIu64 ", %zu events, %zu samples", t, th->tid,
                    th->nevents, th->nsamples);
            if (th->dropped_events || th->dropped_samples)
                fprintf(out, " (lost by the recorder, its buffer full: %" PRIu64 " events, %"
                        PRIu64 " samples)", th->dropped_events, th->dropped_samples);
            fputc('\n', out);
        }
        if (proc->small_blocks_past_cap || proc->small_blocks_ring_full)
            fprintf(out, "  small blocks not attributed by the recorder: %" PRIu64 " (%" PRIu64
                    " past the small-block log's %" PRIu64 ", option small-blocks; %" PRIu64
                    " allocated faster than the writer took them)\n",
                    proc->small_blocks_past_cap + proc->small_blocks_ring_full,
                    proc->small_blocks_past_cap, proc->small_blocks_cap,
                    proc->small_blocks_ring_full);
        print_text_objects(out, ps);
    }

    fprintf(out, "\nregions: %zu\n", m->nregions);
    if (m->nregions)
        fprintf(out, "  %-24s %10s %10s %12s %12s %12s %12s\n", "name", "instances",
                "incomplete", "median", "min", "max", "total");
    for (size_t i = 0; i < m->nregions; i++) {
        const tracefold_region *r = &s->regions[i];
        fputs("  ", out);
        put_string(out, r->name, 24);
        fprintf(out, " %10zu %10zu %12s %12s %12s %12s\n", r->ninstances, r->incomplete,
                human_time(r->median_ns, b1, sizeof b1), human_time(r->min_ns, b2, sizeof b2),
                human_time(r->max_ns, b3, sizeof b3), human_time(r->total_ns, b4, sizeof b4));
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

static void json_process(FILE *out, const struct process_summary *ps)
{
    const tracefold_process *proc = &ps->proc;
    fprintf(out, "    {\"pid\": %" PRId64 ", \"rank\": %d, \"nranks\": %d,\n", proc->pid,
            proc->rank, proc->nranks);
    json_field(out, "     ", "host", proc->host);
    json_field(out, "     ", "executable", proc->executable);
    fputs("     \"counters\": [", out);
    for (uint32_t c = 0; c < proc->ncounters; c++) {
        fputs(c ? ", " : "", out);
        tf_escape_json(out, ps->counters[c]);
    }
    fprintf(out, "],\n     \"modules\": %zu, \"symbols\": %zu,\n", proc->nmodules,
            proc->nsymbols);
    fputs("     \"threads\": [", out);
    for (uint32_t t = 0; t < proc->nthreads; t++)
        fprintf(out, "%s\n       {\"tid\": %" PRIu64 ", \"events\": %zu, \"samples\": %zu, "
                     "\"dropped_events\": %" PRIu64 ", \"dropped_samples\": %" PRIu64 "}",
                t ? "," : "", ps->threads[t].tid, ps->threads[t].nevents,
                ps->threads[t].nsamples, ps->threads[t].dropped_events,
                ps->threads[t].dropped_samples);
    fprintf(out, "],\n     \"small_blocks_cap\": %" PRIu64 ", \"small_blocks_past_cap\": %" PRIu64
                 ", \"small_blocks_ring_full\": %" PRIu64 ",",
            proc->small_blocks_cap, proc->small_blocks_past_cap, proc->small_blocks_ring_full);
    fprintf(out, "\n     \"objects_not_listed\": %zu,\n     \"objects\": [", ps->nhidden);
    const char *sep = "";
    for (size_t i = 0; i < proc->nobjects; i++) {
        if (ps->hidden[i])
            continue;
        const tracefold_object *o = &ps->objects[i];
        fprintf(out, "%s\n       {\"id\": %u, \"kind\": \"%s\", \"start\": %" PRIu64
                     ", \"size\": %" PRIu64 ", \"label\": ",
                sep, o->id, object_kind(o->kind), o->start, o->size);
        tf_escape_json(out, o->name);
        fputs(", \"routine\": ", out);
        tf_escape_json(out, o->routine);
        fputs(", \"name\": ", out);
        tf_escape_json(out, o->recorded_name);
        fputs(", \"callsite\": ", out);
        tf_escape_json(out, o->callsite);
        fputc('}', out);
        sep = ",";
    }
    fputs("]}", out);
}

static void print_json(FILE *out, const struct summary *s)
{
    const tracefold_trace_info *m = &s->info;
    fputs("{\n", out);
    json_field(out, "  ", "trace", m->path);
    fprintf(out, "  \"complete\": %s,\n", m->complete ? "true" : "false");
    json_field(out, "  ", "producer", m->producer);
    json_field(out, "  ", "host", m->host);
    json_field(out, "  ", "command_line", m->command_line);
    json_field(out, "  ", "clock", m->clock);
    json_field(out, "  ", "alloc_wrappers", m->alloc_wrappers);
    fprintf(out, "  \"start_time_ns\": %" PRIu64 ",\n", m->start_time);
    if (s->any_time)
        fprintf(out, "  \"time_span\": {\"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64
                     ", \"duration_ns\": %" PRIu64 "},\n",
                s->first, s->last, s->last - s->first);
    else
        fputs("  \"time_span\": null,\n", out);

    fputs("  \"processes\": [\n", out);
    for (uint32_t p = 0; p < m->nprocesses; p++) {
        fputs(p ? ",\n" : "", out);
        json_process(out, &s->processes[p]);
    }
    fputs("\n  ],\n  \"regions\": [", out);
    for (size_t i = 0; i < m->nregions; i++) {
        const tracefold_region *r = &s->regions[i];
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        tf_escape_json(out, r->name);
        fprintf(out, ", \"instances\": %zu, \"incomplete\": %zu, \"total_ns\": %" PRIu64
                     ", \"median_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64
                     ", \"max_ns\": %" PRIu64 "}",
                r->ninstances, r->incomplete, r->total_ns, r->median_ns, r->min_ns, r->max_ns);
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

    tracefold_error err = { 0 };
    tracefold_trace *tr = NULL;
    struct summary s = { 0 };
    int rc = tracefold_trace_open(argv[optind], &tr, &err);
    if (rc == 0)
        rc = tracefold_trace_set_alloc_wrappers(tr, rules.wrappers, rules.nwrappers, &err);
    if (rc == 0 && (rc = summarise(tr, all_objects, &s, &err)) == 0) {
        if (json)
            print_json(stdout, &s);
        else
            print_text(stdout, &s);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            err.code = TRACEFOLD_ERR_IO;
            snprintf(err.message, sizeof err.message, "standard output: write error");
            rc = -TRACEFOLD_ERR_IO;
        }
    }
    summary_free(&s);
    tracefold_trace_close(tr);
    free(rules.wrappers);
    if (rc < 0) {
        tf_msg_error("%s", err.message[0] ? err.message : tracefold_status_text(err.code));
        return TF_EXIT_FAILURE;
    }
    return TF_EXIT_OK;
usage_error:
    free(rules.wrappers);
    return TF_EXIT_USAGE;
}
