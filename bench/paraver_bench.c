/* SPDX-License-Identifier: BSD-3-Clause */
/* Paraver benchmark (protocol: bench/README.md, "Paraver"): generates a
 * large Extrae-like trace, measures the parse throughput of the streaming
 * reader, and times `tracefold fold` of the same trace in the same run. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "formats/prv_reader.h"
#include "formats/prv_types.h"
#include "formats/prv_out.h"

#define THREADS 4
#define SAMPLES_PER_ITER 700
#define ROUTINES 40
#define LINES 120

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The trace being generated, removed when generation fails. */
static tf_prv_out *writing;

static void die(const tf_error *err)
{
    fprintf(stderr, "paraver_bench: %s\n", err->msg);
    tf_prv_out_abort(writing);
    exit(1);
}

/* Iterations of `main` on every thread, each with SAMPLES_PER_ITER samples
 * (routine, line and six counter deltas, as Extrae writes them) in two
 * phases, and a counter-set switch every 8 iterations. */
static void generate(const char *path, uint64_t target_bytes)
{
    tf_error err;
    tf_prv_task task = {THREADS, 1};
    tf_prv_appl appl = {1, &task};
    uint32_t cpus = THREADS;
    tf_prv_header h = {.nnodes = 1, .node_cpus = &cpus, .ncpus = THREADS, .nappls = 1,
                       .appls = &appl, .unit_ns = 1};
    tf_prv_out *w;
    if (tf_prv_out_create(&w, path, &h, &err) < 0)
        die(&err);
    writing = w;
    tf_pcf *pcf = tf_prv_out_pcf(w);
    static const uint32_t counters[6] = {42000050, 42000059, 42000055, 42000000, 42000007, 42000008};
    static const char *const names[6] = {"(PAPI_TOT_INS) Instr completed", "(PAPI_TOT_CYC) Total cycles",
                                         "(PAPI_BR_INS) Branches", "(PAPI_L1_DCM) L1D misses",
                                         "(PAPI_L2_TCM) L2 misses", "(PAPI_L3_TCM) L3 misses"};
    char label[64];
    if (tf_pcf_add_type(pcf, TF_PRV_USER_FUNCTION, 0, "User function", &err) < 0 ||
        tf_pcf_add_value(pcf, TF_PRV_USER_FUNCTION, 0, "End", &err) < 0 ||
        tf_pcf_add_value(pcf, TF_PRV_USER_FUNCTION, 5, "main", &err) < 0 ||
        tf_pcf_add_type(pcf, TF_PRV_SAMPLED_CALLER, 0, "Sampled functions", &err) < 0 ||
        tf_pcf_add_type(pcf, TF_PRV_SAMPLED_LINE, 0, "Sampled lines", &err) < 0 ||
        tf_pcf_add_type(pcf, TF_PRV_COUNTER_SET, 7, "Active hardware counter set", &err) < 0 ||
        tf_pcf_add_state(pcf, 1, "Running", &err) < 0)
        die(&err);
    for (int c = 0; c < 6; c++)
        if (tf_pcf_add_type(pcf, counters[c], 7, names[c], &err) < 0)
            die(&err);
    for (uint64_t v = 2; v < 2 + ROUTINES; v++) {
        snprintf(label, sizeof label, "routine_%" PRIu64, v);
        if (tf_pcf_add_value(pcf, TF_PRV_SAMPLED_CALLER, v, label, &err) < 0)
            die(&err);
    }
    for (uint64_t v = 2; v < 2 + LINES; v++) {
        snprintf(label, sizeof label, "%" PRIu64 " (kernel.c)", 100 + v);
        if (tf_pcf_add_value(pcf, TF_PRV_SAMPLED_LINE, v, label, &err) < 0)
            die(&err);
    }
    tf_row *row = tf_prv_out_row(w);
    for (int t = 0; t < THREADS; t++) {
        snprintf(label, sizeof label, "THREAD 1.1.%d", t + 1);
        if (tf_row_add(row, TF_ROW_THREAD, label, &err) < 0)
            die(&err);
    }
    const uint64_t period = 1000000, iter = SAMPLES_PER_ITER * period;
    uint64_t written = 0, it = 0;
    tf_prv_pair pairs[16];
    for (int t = 0; t < THREADS; t++) {
        tf_prv_record st = {.kind = TF_PRV_STATE, .obj = {t + 1, 1, 1, t + 1}, .time = 0,
                            .end = 0, .state = 1};
        /* The end is unknown yet: the state covers the first iteration. */
        st.end = iter;
        if (tf_prv_write(w, &st, &err) < 0)
            die(&err);
    }
    while (written < target_bytes) {
        uint64_t base = it * (iter + 2 * period);
        for (int s = -1; s <= SAMPLES_PER_ITER; s++) {
            /* One jitter per step for all threads keeps the records in global order. */
            uint64_t jitter = next_rand() % 4000;
            for (int t = 0; t < THREADS; t++) {
                tf_prv_record rec = {.kind = TF_PRV_EVENT, .obj = {t + 1, 1, 1, t + 1},
                                     .pairs = pairs};
                size_t n = 0;
                if (s < 0 || s == SAMPLES_PER_ITER) {
                    rec.time = base + (s < 0 ? 0 : iter + period) + (uint64_t)t;
                    pairs[n++] = (tf_prv_pair){TF_PRV_USER_FUNCTION, s < 0 ? 5 : 0};
                    if (s < 0 && it % 8 == 0)
                        pairs[n++] = (tf_prv_pair){TF_PRV_COUNTER_SET, 1 + (it / 8) % 2};
                } else {
                    rec.time = base + (uint64_t)(s + 1) * period - 2000 + jitter + (uint64_t)t;
                    bool second = s > SAMPLES_PER_ITER / 3;
                    pairs[n++] = (tf_prv_pair){TF_PRV_SAMPLED_CALLER, 2 + (second ? 20 : 0) + next_rand() % 20};
                    pairs[n++] = (tf_prv_pair){TF_PRV_SAMPLED_LINE, 2 + (second ? 60 : 0) + next_rand() % 60};
                }
                for (int c = 0; c < 6; c++) {
                    uint64_t rate = (c == 0 ? 2000000 : c == 1 ? 1500000 : 100000 >> c) *
                                    ((s > SAMPLES_PER_ITER / 3) ? 1 : 2);
                    pairs[n++] = (tf_prv_pair){counters[c], s < 0 ? 0 : rate / 2 + next_rand() % rate};
                }
                rec.npairs = n;
                if (tf_prv_write(w, &rec, &err) < 0)
                    die(&err);
                written += 30 + 14 * n;   /* about the bytes of the record */
            }
        }
        it++;
    }
    writing = NULL;
    if (tf_prv_out_close(w, &err) < 0)
        die(&err);
}

/* One streaming pass: records and wall/CPU seconds. */
static uint64_t parse(const char *path, double *wall, double *cpu)
{
    tf_error err;
    tf_prv_reader *r;
    double t0 = now(), c0 = cpu_now();
    if (tf_prv_open(&r, path, false, &err) < 0)
        die(&err);
    tf_prv_record rec;
    uint64_t n = 0, pairs = 0;
    int rc;
    while ((rc = tf_prv_next(r, &rec, &err)) == 1) {
        n++;
        pairs += rec.npairs;
    }
    if (rc < 0)
        die(&err);
    tf_prv_close(r);
    *wall = now() - t0;
    *cpu = cpu_now() - c0;
    return n + (pairs == 0);   /* pairs keeps the loop from being optimised away */
}

/* Runs argv, failing the benchmark when it fails: wall seconds, and its
 * CPU seconds in *cpu. */
static double run(char *const argv[], double *cpu)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "paraver_bench: %s %s failed\n", argv[0], argv[1]);
        exit(1);
    }
    *cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return now() - t0;
}

int main(int argc, char **argv)
{
    uint64_t mb = 1024;
    int repeats = 3;
    const char *path = "paraver_bench.prv", *tracefold = NULL;
    bool keep = false;
    int c;
    while ((c = getopt(argc, argv, "s:r:o:t:k")) != -1) {
        switch (c) {
        case 's': mb = strtoull(optarg, NULL, 10); break;
        case 'r': repeats = (int)strtol(optarg, NULL, 10); break;
        case 'o': path = optarg; break;
        case 't': tracefold = optarg; break;
        case 'k': keep = true; break;
        default:
            fprintf(stderr, "usage: paraver_bench [-s MB] [-r REPEATS] [-o FILE.prv] [-t TRACEFOLD] [-k]\n");
            return 2;
        }
    }
    if (mb == 0 || repeats < 1) {
        fprintf(stderr, "paraver_bench: -s and -r must be positive\n");
        return 2;
    }
    double t0 = now();
    generate(path, mb << 20);
    struct stat st;
    if (stat(path, &st) < 0) {
        perror(path);
        return 1;
    }
    double size_mb = (double)st.st_size / 1e6;
    printf("generated %s: %.1f MB in %.1f s (%d threads, %d samples per iteration)\n", path,
           size_mb, now() - t0, THREADS, SAMPLES_PER_ITER);
    fflush(stdout);
    double best_wall = 1e30, best_cpu = 1e30;
    uint64_t records = 0;
    for (int i = 0; i < repeats; i++) {
        double wall, cpu;
        records = parse(path, &wall, &cpu);
        printf("parse %d: %.3f s wall, %.3f s CPU, %.0f MB/s wall, %.0f MB/s CPU\n", i + 1, wall, cpu,
               size_mb / wall, size_mb / cpu);
        if (wall < best_wall)
            best_wall = wall;
        if (cpu < best_cpu)
            best_cpu = cpu;
    }
    printf("parse best: %" PRIu64 " records, %.0f MB/s wall, %.0f MB/s CPU, %.2f M records/s\n",
           records, size_mb / best_wall, size_mb / best_cpu, (double)records / best_wall / 1e6);
    if (tracefold) {
        /* The conversion alone, then the whole fold (which converts again). */
        char outdir[4200], h5[4200], cmd[8500];
        snprintf(outdir, sizeof outdir, "%s.fold", path);
        snprintf(h5, sizeof h5, "%s.h5", path);
        char *import[] = {(char *)tracefold, "paraver", "-q", "--import", (char *)path, "-o", h5, NULL};
        char *fold[] = {(char *)tracefold, "fold", "-q", "--force", (char *)path, "--region",
                        "User function=main", "-o", outdir, NULL};
        double import_cpu, import_wall = run(import, &import_cpu);
        double fold_cpu, fold_wall = run(fold, &fold_cpu);
        printf("import: %.2f s wall, %.2f s CPU (%.0f MB/s CPU)\n", import_wall, import_cpu,
               size_mb / import_cpu);
        printf("fold: %.2f s wall, %.2f s CPU; read-only: %.2f s wall, %.2f s CPU; "
               "fold / read-only: %.1f wall, %.1f CPU\n", fold_wall, fold_cpu, best_wall, best_cpu,
               fold_wall / best_wall, fold_cpu / best_cpu);
        if (!keep) {
            snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", outdir, h5);
            if (system(cmd) != 0)
                fprintf(stderr, "paraver_bench: could not remove %s\n", outdir);
        }
    }
    if (!keep) {
        char *pcf = tf_prv_sibling(path, ".pcf"), *row = tf_prv_sibling(path, ".row");
        unlink(path);
        if (pcf)
            unlink(pcf);
        if (row)
            unlink(row);
        free(pcf);
        free(row);
    }
    return best_wall > 0 && size_mb / best_wall >= 100 ? 0 : 1;
}
