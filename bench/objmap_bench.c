/* SPDX-License-Identifier: BSD-3-Clause */
/* The object map against the number of allocations (bench/README.md,
 * "Object map"): `objmap_bench N TRACE` writes TRACE with one process of
 * N heap objects as a program allocating per-iteration temporaries makes
 * them (N/4 iterations, four call sites, each block freed before the next
 * iteration, the addresses reused), plus 100 long-lived arrays; then times
 * building the map and naming the families (tf_an_objmap_create), and one
 * lookup per allocation, at a time inside its life.  Prints
 * "allocations N", "families F", "create_seconds S", "lookup_seconds S"
 * (CPU time of this process, steadier than wall time on a shared
 * machine). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "objmap.h"

#define SITES 4
#define LONG_LIVED 100

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

/* Object i: long-lived arrays first, then the temporaries of iteration
 * (i − LONG_LIVED) / SITES at its site's one address. */
static tf_object object_at(size_t i, const uint32_t *site)
{
    if (i < LONG_LIVED)
        return (tf_object){ 0x100000000ull + i * 0x100000ull, 0x80000, 1, TF_NOTIME, 0,
                            (uint32_t)i + 1, 0, site[SITES], 0, TF_OBJECT_HEAP };
    size_t k = i - LONG_LIVED, it = k / SITES, s = k % SITES;
    uint64_t begin = 1000 + it * 1000;
    return (tf_object){ 0x200000000ull + s * 0x100000ull, 0x40000 + s * 64, begin + s,
                        begin + 900, 0, (uint32_t)i + 1, 0, site[s], 0, TF_OBJECT_HEAP };
}

static int write_trace(const char *path, size_t n, tf_error *err)
{
    tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "bench", .command_line = "bench",
                           .producer = "objmap_bench" };
    tf_process_desc d = { .pid = 1, .rank = -1, .executable = "/bench", .host = "bench",
                          .build_id = "" };
    tf_writer *w;
    uint32_t proc, thread, site[SITES + 1];
    if (tf_writer_create(&w, path, &meta, 0, err) < 0)
        return -1;
    int rc = tf_writer_add_process(w, &d, &proc, err);
    if (!rc)
        rc = tf_writer_add_thread(w, proc, 1, &thread, err);
    for (int s = 0; s <= SITES && !rc; s++) {
        char name[32];
        snprintf(name, sizeof name, "bench.c:%d:5", 10 + s);
        rc = tf_writer_intern(w, name, &site[s], err);
    }
    tf_object batch[4096];
    for (size_t i = 0; i < n && !rc; i += sizeof batch / sizeof batch[0]) {
        size_t m = 0;
        for (; m < sizeof batch / sizeof batch[0] && i + m < n; m++)
            batch[m] = object_at(i + m, site);
        rc = tf_writer_append_objects(w, proc, batch, m, err);
    }
    int crc = tf_writer_close(w, rc ? NULL : err);
    return rc ? rc : crc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: objmap_bench ALLOCATIONS TRACE\n");
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10) + LONG_LIVED;
    tf_error err;
    if (write_trace(argv[2], n, &err) < 0)
        return fail(&err);
    tf_trace *tr;
    if (tf_trace_open(&tr, argv[2], &err) < 0)
        return fail(&err);
    tf_analysis a = { 0 };
    tf_an_objmap *m;
    double t0 = cpu_now();
    if (tf_an_objmap_create(&m, &a, tr, 0, NULL, NULL, &err) < 0)
        return fail(&err);
    double t1 = cpu_now();
    uint32_t site[SITES + 1] = { 0 };
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        tf_object o = object_at(i, site);
        uint32_t object;
        uint64_t offset;
        found += tf_an_objmap_find(m, o.start + o.size / 2, o.alloc_time + 10, &object, &offset);
    }
    double t2 = cpu_now();
    printf("allocations %zu\nfamilies %zu\nfound %zu\ncreate_seconds %.3f\nlookup_seconds %.3f\n",
           n, a.nobjects, found, t1 - t0, t2 - t1);
    tf_an_objmap_free(m);
    tf_analysis_clear(&a);
    tf_trace_close(tr);
    return found == n ? 0 : 1;
}
