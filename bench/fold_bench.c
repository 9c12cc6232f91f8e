/* SPDX-License-Identifier: BSD-3-Clause */
/* The fold benchmark (bench/README.md, "Fold"), one mode per process so
 * that each has its own peak memory:
 *
 *   fold_bench read TRACE       only read every sample with its counters,
 *                               through the streaming reader and batch size
 *                               the fold uses: "samples N", "bytes B" (the
 *                               samples' in-memory size, N·(sizeof(tf_sample)
 *                               + 8·counters)), "read_seconds S"
 *   fold_bench fold TRACE DIR   the fold engine's whole job on the region
 *                               that covers the most time: read and extract,
 *                               filter, fit with bands, write DIR/fold.h5 and
 *                               the CSV files: "fold_seconds S", with the
 *                               extraction+fit and the writing apart
 *
 * Both print "peak_rss_bytes" and "cpu_seconds" (getrusage). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "common/tf_parallel.h"
#include "fold/fold_csv.h"
#include "fold/fold_engine.h"
#include "extract/instances.h"
#include "formats/trace.h"
#include "outputs/fold_outputs.h"

#define BATCH 32768

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak memory and CPU time (user + system) of this process so far: on a
 * shared machine the CPU time is the steadier figure. */
static void usage_report(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak_rss_bytes %llu\ncpu_seconds %.3f\n", (unsigned long long)ru.ru_maxrss * 1024,
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6);
}

static int fail(const tf_error *err)
{
    fprintf(stderr, "fold_bench: %s\n", err->msg);
    return 1;
}

/* The fold engine's job on the region that covers the most time, with the
 * default parameters; *tr stays open for the outputs (keep_open). */
static int fold_region(const char *path, bool keep_open, tf_trace **tr, tf_fold_result **res)
{
    tf_error err;
    if (tf_trace_open(tr, path, &err) < 0)
        return fail(&err);
    tf_region_stats *st;
    size_t n;
    if (tf_region_stats_compute(*tr, &st, &n, &err) < 0)
        return fail(&err);
    if (n == 0) {
        fprintf(stderr, "fold_bench: %s: no region\n", path);
        return 1;
    }
    tf_fold_params p;
    tf_fold_params_default(&p);
    int rc = tf_fold_trace(*tr, st[0].region, &p, NULL, NULL, NULL, res, &err);
    free(st);
    if (!keep_open || rc < 0) {
        tf_trace_close(*tr);
        *tr = NULL;
    }
    return rc < 0 ? fail(&err) : 0;
}

static int fold(const char *path, const char *dir)
{
    tf_error err;
    double t0 = now();
    tf_trace *tr;
    tf_fold_result *res;
    if (fold_region(path, false, &tr, &res) != 0)
        return 1;
    double t1 = now();
    char file[4200];
    snprintf(file, sizeof file, "%s/fold.h5", dir);
    if (mkdir(dir, 0777) != 0 || tf_fold_result_save(res, file, &err) < 0 ||
        tf_fold_write_csv(res, dir, &err) < 0) {
        fprintf(stderr, "fold_bench: %s: cannot write (exists?)%s%s\n", dir,
                err.msg[0] ? ": " : "", err.msg);
        return 1;
    }
    double t2 = now();
    printf("extract_fit_seconds %.3f\nwrite_seconds %.3f\nfold_seconds %.3f\n", t1 - t0,
           t2 - t1, t2 - t0);
    tf_fold_result_free(res);
    usage_report();
    return 0;
}

static int outputs(const char *path, const char *dir)
{
    tf_error err;
    double t0 = now();
    tf_trace *tr;
    tf_fold_result *res;
    if (fold_region(path, true, &tr, &res) != 0)
        return 1;
    double t1 = now();
    tf_analysis_params params;
    tf_analysis_params_default(&params);
    int rc = tf_fold_outputs_write(&(tf_fold_outputs){ .tr = tr, .res = res, .outdir = dir,
                                                       .threads = tf_parallel_cpus(),
                                                       .analysis = &params },
                                   &err);
    double t2 = now();
    tf_trace_close(tr);
    tf_fold_result_free(res);
    if (rc < 0)
        return fail(&err);
    printf("extract_fit_seconds %.3f\noutputs_seconds %.3f\nfold_seconds %.3f\n", t1 - t0,
           t2 - t1, t2 - t0);
    usage_report();
    return 0;
}

static int read_only(const char *path)
{
    tf_error err;
    double t0 = now();
    tf_trace *tr;
    if (tf_trace_open(&tr, path, &err) < 0)
        return fail(&err);
    tf_sample *batch = malloc(BATCH * sizeof *batch);
    uint64_t *values = malloc((size_t)BATCH * TF_MAX_COUNTERS * sizeof *values);
    if (!batch || !values) {
        fprintf(stderr, "fold_bench: out of memory\n");
        return 1;
    }
    uint64_t samples = 0, bytes = 0, checksum = 0;
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        for (uint32_t t = 0; t < proc->nthreads; t++) {
            tf_sample_cursor *cur;
            if (tf_samples_open(tr, p, t, &cur, &err) < 0)
                return fail(&err);
            size_t n;
            int rc;
            while ((rc = tf_samples_read(cur, batch, values, BATCH, &n, &err)) == 0 && n > 0) {
                samples += n;
                bytes += n * (sizeof(tf_sample) + proc->ncounters * sizeof(uint64_t));
                /* Touch what was read so nothing is optimised away. */
                checksum += batch[n - 1].time + values[(n - 1) * proc->ncounters];
            }
            tf_samples_close(cur);
            if (rc < 0)
                return fail(&err);
        }
    }
    tf_trace_close(tr);
    double t1 = now();
    printf("samples %llu\nbytes %llu\nread_seconds %.3f\nchecksum %llu\n",
           (unsigned long long)samples, (unsigned long long)bytes, t1 - t0,
           (unsigned long long)checksum);
    free(batch);
    free(values);
    usage_report();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "read"))
        return read_only(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "fold"))
        return fold(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "outputs"))
        return outputs(argv[2], argv[3]);
    fprintf(stderr, "usage: fold_bench read TRACE | fold_bench fold|outputs TRACE DIR\n");
    return 2;
}
