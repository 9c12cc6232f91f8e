/* SPDX-License-Identifier: BSD-3-Clause */
/* The object map against the number of allocations (bench/README.md,
 * "Object map"): `objmap_bench N TRACE` writes TRACE with one process of
 * N allocations spread over 1000 iterations of a region as a program
 * allocating per-iteration temporaries and small blocks makes them: half
 * heap temporaries from four call sites, freed at the end of their
 * iteration and their addresses reused in the next, half small blocks
 * (kind small, below the heap threshold) from one call site kept to the
 * end, as the rows of a matrix allocated a row at a time; plus 100
 * long-lived arrays and 20 memory samples per iteration in the blocks of
 * that iteration, so that `tracefold fold TRACE` folds it (bench/
 * fold_allocs.sh).  Then times building the map and naming the families
 * (tf_analysis_objmap_create), and one lookup per allocation, at a time inside
 * its life.  Prints "allocations N", "families F", "found N",
 * "create_seconds S", "lookup_seconds S" (CPU time of this process,
 * steadier than wall time on a shared machine). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/objmap.h"

#define SITES 4
#define LONG_LIVED 100
#define ITERATIONS 1000
#define SAMPLES 20   /* per iteration */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const tf_error *err)
{
    fprintf(stderr, "objmap_bench: %s\n", err->msg);
    return 1;
}

/* The allocations' layout: per allocations in each iteration, which
 * lasts period ns from begin(it); allocation j of an iteration at
 * begin + 1 + j, the temporaries freed at begin + period - 100. */
struct layout {
    size_t n;          /* allocations, long-lived arrays aside */
    size_t per;
    uint64_t period;
    uint32_t site[SITES + 2];   /* string ids: the temporaries', the arrays', the small blocks' */
};

static uint64_t begin_of(const struct layout *l, size_t it)
{
    return 1000 + it * l->period;
}

/* Object i: long-lived arrays first, then allocation i − LONG_LIVED. */
static tf_object object_at(const struct layout *l, size_t i)
{
    if (i < LONG_LIVED)
        return (tf_object){ 0x100000000ull + i * 0x100000ull, 0x80000, 1, TF_NOTIME, 0,
                            (uint32_t)i + 1, 0, l->site[SITES], 0, TF_OBJECT_HEAP };
    size_t k = i - LONG_LIVED, it = k / l->per, j = k % l->per;
    uint64_t t = begin_of(l, it) + 1 + j;
    if (k % 2)   /* a small block, kept */
        return (tf_object){ 0x4000000000ull + k * 64, 48, t, TF_NOTIME, 0, (uint32_t)i + 1, 0,
                            l->site[SITES + 1], 0, TF_OBJECT_SMALL };
    size_t s = (j / 2) % SITES;
    return (tf_object){ 0x200000000ull + (j / 2) * 0x100000ull, 0x40000 + s * 64, t,
                        begin_of(l, it) + l->period - 100, 0, (uint32_t)i + 1, 0, l->site[s], 0,
                        TF_OBJECT_HEAP };
}

/* The region's instances and, in each, SAMPLES loads in the blocks
 * allocated in it (in the long-lived arrays when it has none). */
static int write_thread(tf_trace_out *w, uint32_t proc, uint32_t thread, uint32_t region,
                        const struct layout *l, tf_error *err)
{
    int rc = 0;
    for (size_t it = 0; it < ITERATIONS && !rc; it++) {
        uint64_t b = begin_of(l, it);
        tf_event enter = { b, region, 0, TF_EVENT_ENTER }, exit = { b + l->period - 50, region, 0,
                                                                      TF_EVENT_EXIT };
        tf_sample s[SAMPLES];
        for (size_t q = 0; q < SAMPLES; q++) {
            size_t k = it * l->per + q % l->per;
            tf_object o = object_at(l, k < l->n ? LONG_LIVED + k : q);
            s[q] = (tf_sample){ .time = b + l->per + 2 + q, .ip = 0x401000 + q * 4,
                                .addr = o.start + 8, .kind = TF_SAMPLE_LOAD,
                                .level = TF_LEVEL_UNKNOWN, .flags = TF_SAMPLE_SOFTWARE };
        }
        if (!(rc = tf_trace_out_append_events(w, proc, thread, &enter, NULL, 1, err)) &&
            !(rc = tf_trace_out_append_samples(w, proc, thread, s, NULL, SAMPLES, err)))
            rc = tf_trace_out_append_events(w, proc, thread, &exit, NULL, 1, err);
    }
    return rc;
}

static int write_trace(const char *path, struct layout *l, tf_error *err)
{
    tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "bench", .command_line = "bench",
                           .producer = "objmap_bench" };
    tf_process_desc d = { .pid = 1, .rank = -1, .executable = "/bench", .host = "bench",
                          .build_id = "" };
    tf_trace_out *w;
    uint32_t proc, thread, region;
    if (tf_trace_out_create(&w, path, &meta, 0, err) < 0)
        return -1;
    int rc = tf_trace_out_add_process(w, &d, &proc, err);
    if (!rc)
        rc = tf_trace_out_add_thread(w, proc, 1, &thread, err);
    if (!rc)
        rc = tf_trace_out_intern(w, "iteration", &region, err);
    for (int s = 0; s < SITES + 2 && !rc; s++) {
        char name[32];
        snprintf(name, sizeof name, "bench.c:%d:5", 10 + s);
        rc = tf_trace_out_intern(w, name, &l->site[s], err);
    }
    tf_object batch[4096];
    for (size_t i = 0; i < l->n + LONG_LIVED && !rc; i += sizeof batch / sizeof batch[0]) {
        size_t m = 0;
        for (; m < sizeof batch / sizeof batch[0] && i + m < l->n + LONG_LIVED; m++)
            batch[m] = object_at(l, i + m);
        rc = tf_trace_out_append_objects(w, proc, batch, m, err);
    }
    if (!rc)
        rc = write_thread(w, proc, thread, region, l, err);
    int crc = tf_trace_out_close(w, rc ? NULL : err);
    return rc ? rc : crc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: objmap_bench ALLOCATIONS TRACE\n");
        return 2;
    }
    struct layout l = { .n = strtoull(argv[1], NULL, 10) };
    if (l.n < ITERATIONS || l.n > 100000000) {
        fprintf(stderr, "objmap_bench: from %d to 10^8 allocations\n", ITERATIONS);
        return 2;
    }
    l.per = (l.n + ITERATIONS - 1) / ITERATIONS;
    l.period = 4 * l.per + 1000;
    tf_error err;
    if (write_trace(argv[2], &l, &err) < 0)
        return fail(&err);
    tf_trace *tr;
    if (tf_trace_open(&tr, argv[2], &err) < 0)
        return fail(&err);
    tf_analysis a = { 0 };
    tf_analysis_objmap *m;
    double t0 = cpu_now();
    tf_object_naming naming;
    if (tf_object_names(tr, 0, NULL, NULL, &naming, &err) < 0 ||
        tf_analysis_objmap_create(&m, &a, tr, 0, &naming, &err) < 0)
        return fail(&err);
    tf_object_naming_free(&naming);
    double t1 = cpu_now();
    size_t n = l.n + LONG_LIVED, found = 0;
    for (size_t i = 0; i < n; i++) {
        tf_object o = object_at(&l, i);
        uint32_t object;
        uint64_t offset;
        found += tf_analysis_objmap_find(m, o.start + o.size / 2, o.alloc_time + 1, &object, &offset);
    }
    double t2 = cpu_now();
    printf("allocations %zu\nfamilies %zu\nfound %zu\ncreate_seconds %.3f\nlookup_seconds %.3f\n",
           n, a.nobjects, found, t1 - t0, t2 - t1);
    tf_analysis_objmap_free(m);
    tf_analysis_clear(&a);
    tf_trace_close(tr);
    return found == n ? 0 : 1;
}
