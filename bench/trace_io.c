/* SPDX-License-Identifier: BSD-3-Clause */
/* Trace I/O benchmark (protocol: bench/README.md, "Trace I/O"): writes a
 * trace of N samples with 8 counters, then reads the samples back through
 * the reader's cursor and, in the same run, with one bare H5Dread of the
 * whole dataset into memory.  The cursor must cost at most 2x the bare read. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "formats/trace.h"

#define NCOUNTERS 8
#define BATCH 65536          /* samples per append, as a recorder flushes them */
#define CURSOR_BATCH 4096    /* samples per tf_samples_read, as fold reads them */
#define BAR 2.0
/* A packed sample row: 49 bytes of fields, then the counter values
 * (docs/trace-format.md).  MB/s figures count these uncompressed bytes. */
#define ROW_BYTES (49 + 8 * NCOUNTERS)

/* Wall-clock and CPU seconds: on a shared machine the CPU time is the
 * steadier figure, so both are reported. */
typedef struct span {
    double wall, cpu;
} span;

static double clock_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static span now(void)
{
    return (span){ clock_seconds(CLOCK_MONOTONIC), clock_seconds(CLOCK_PROCESS_CPUTIME_ID) };
}

static span since(span start)
{
    span end = now();
    return (span){ end.wall - start.wall, end.cpu - start.cpu };
}

static void add(span *total, span part)
{
    total->wall += part.wall;
    total->cpu += part.cpu;
}

static span best(span a, span b)
{
    return (span){ a.wall < b.wall ? a.wall : b.wall, a.cpu < b.cpu ? a.cpu : b.cpu };
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)   /* xorshift64: reproducible, cheap */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Samples that compress like real ones: 1 ms period with jitter, a few
 * thousand distinct code addresses, streaming data addresses for memory
 * samples, cumulative counters growing at noisy rates. */
static void make_batch(tf_sample *s, uint64_t *c, size_t n, uint64_t *time, uint64_t *counters)
{
    static const uint64_t rate[NCOUNTERS] = { 2000000, 1500000, 40000, 9000, 1200, 300000,
                                              700000, 50 };
    for (size_t i = 0; i < n; i++) {
        *time += 1000000 - 5000 + rng() % 10000;
        uint64_t r = rng();
        uint8_t kind = (uint8_t)(r % 3);
        s[i] = (tf_sample){ .time = *time, .ip = 0x401000 + 4 * (r >> 8) % 8192,
                            .kind = kind, .level = kind ? (uint8_t)(1 + (r >> 40) % 7) : 0 };
        if (kind) {
            s[i].addr = 0x7f3a00000000ull + 64 * (*time / 1000) % (1u << 30);
            s[i].weight = (uint32_t)(4 + (r >> 20) % 300);
            s[i].data_source = 0x68100142ull;
        }
        for (int k = 0; k < NCOUNTERS; k++) {
            counters[k] += rate[k] - rate[k] / 20 + rng() % (rate[k] / 10 + 1);
            c[i * NCOUNTERS + k] = counters[k];
        }
    }
}

static void report(const char *what, span spent, size_t n)
{
    printf("%-14s %7.3f s wall %7.3f s cpu  %10.0f samples/s  %7.1f MB/s  (by cpu time: "
           "%10.0f samples/s %7.1f MB/s)\n", what, spent.wall, spent.cpu, n / spent.wall,
           (double)n * ROW_BYTES / spent.wall / 1e6, n / spent.cpu,
           (double)n * ROW_BYTES / spent.cpu / 1e6);
}

static int write_trace(const char *path, size_t n, tf_error *err)
{
    static const char *const names[NCOUNTERS] = {
        "instructions", "cycles", "L1D misses", "L2 misses", "L3 misses", "branches",
        "loads", "branch misses" };
    tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "bench",
                           .command_line = "trace_io", .producer = "bench/trace_io" };
    tf_process_desc d = { .pid = 1, .rank = -1, .ncounters = NCOUNTERS, .counter_names = names };
    tf_sample *s = malloc(BATCH * sizeof *s);
    uint64_t *c = malloc(BATCH * NCOUNTERS * sizeof *c), time = 0, counters[NCOUNTERS] = { 0 };
    tf_trace_out *w = NULL;
    uint32_t p, t;
    int rc = !s || !c ? tf_fail(err, TF_ERR_NOMEM, "out of memory") : 0;
    if (rc == 0 && (rc = tf_trace_out_create(&w, path, &meta, 0, err)) == 0 &&
        (rc = tf_trace_out_add_process(w, &d, &p, err)) == 0)
        rc = tf_trace_out_add_thread(w, p, 1, &t, err);
    /* Generating the samples is not the output's cost: only appends count. */
    span spent = { 0, 0 };
    for (size_t done = 0; rc == 0 && done < n; done += BATCH) {
        size_t m = n - done < BATCH ? n - done : BATCH;
        make_batch(s, c, m, &time, counters);
        span t0 = now();
        rc = tf_trace_out_append_samples(w, p, t, s, c, m, err);
        add(&spent, since(t0));
    }
    span t0 = now();
    if (rc == 0) {
        rc = tf_trace_out_close(w, err);
        w = NULL;
    }
    add(&spent, since(t0));
    tf_trace_out_abort(w);
    free(s);
    free(c);
    if (rc == 0)
        report("write", spent, n);
    return rc;
}

/* Bare reads of the samples dataset in its own (packed) type, nothing
 * unpacked: whole = one H5Dread of everything into one buffer, as the
 * protocol asks; otherwise chunk-aligned blocks of about 1 MiB into a reused
 * buffer, the hyperslabs the cursor reads, which isolates its unpacking. */
static span bare_read(const char *path, size_t n, bool whole, uint64_t *check)
{
    span t0 = now();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/process/0/thread/0/samples", H5P_DEFAULT);
    hid_t ftype = H5Dget_type(d), mtype = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
    hid_t dcpl = H5Dget_create_plist(d), fspace = H5Dget_space(d);
    size_t row = H5Tget_size(mtype);
    hsize_t chunk = 1, block = n;
    if (!whole && H5Pget_chunk(dcpl, 1, &chunk) == 1)
        block = chunk * ((1 << 20) / row / chunk ? (1 << 20) / row / chunk : 1);
    unsigned char *buf = malloc(block * row);
    bool ok = f >= 0 && d >= 0 && buf;
    hsize_t start = 0;
    for (; ok && start < n; start += block) {
        hsize_t count = n - start < block ? n - start : block;
        hid_t mspace = H5Screate_simple(1, &count, NULL);
        ok = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
             H5Dread(d, mtype, mspace, fspace, H5P_DEFAULT, buf) >= 0;
        H5Sclose(mspace);
        if (ok && start + count == n)
            memcpy(check, buf + (count - 1) * row, sizeof *check);   /* the last time */
    }
    if (!ok) {
        fprintf(stderr, "trace_io: bare H5Dread failed\n");
        exit(1);
    }
    H5Sclose(fspace);
    H5Pclose(dcpl);
    H5Tclose(mtype);
    H5Tclose(ftype);
    H5Dclose(d);
    H5Fclose(f);
    free(buf);
    return since(t0);
}

static span cursor_read(const char *path, size_t n, uint64_t *check)
{
    tf_error err;
    tf_trace *tr;
    tf_sample_cursor *c;
    tf_sample *s = malloc(CURSOR_BATCH * sizeof *s);
    uint64_t *v = malloc(CURSOR_BATCH * NCOUNTERS * sizeof *v);
    span t0 = now();
    if (!s || !v || tf_trace_open(&tr, path, &err) < 0 || tf_samples_open(tr, 0, 0, &c, &err) < 0) {
        fprintf(stderr, "trace_io: %s\n", err.msg);
        exit(1);
    }
    size_t total = 0, got;
    uint64_t last = 0;
    do {
        if (tf_samples_read(c, s, v, CURSOR_BATCH, &got, &err) < 0) {
            fprintf(stderr, "trace_io: %s\n", err.msg);
            exit(1);
        }
        if (got)
            last = s[got - 1].time;
        total += got;
    } while (got);
    tf_samples_close(c);
    tf_trace_close(tr);
    span spent = since(t0);
    free(s);
    free(v);
    if (total != n) {
        fprintf(stderr, "trace_io: read %zu samples, wrote %zu\n", total, n);
        exit(1);
    }
    *check = last;
    return spent;
}

static void usage(FILE *out)
{
    fputs("usage: trace_io [-n SAMPLES] [-r REPEATS] [-o FILE] [-k]\n"
          "  -n SAMPLES  samples to write and read (default 10000000)\n"
          "  -r REPEATS  read passes of each kind, alternating; the best counts (default 3)\n"
          "  -o FILE     trace to write (default trace_io.h5 here)\n"
          "  -k          keep the trace afterwards\n", out);
}

int main(int argc, char **argv)
{
    size_t n = 10000000;
    int repeats = 3, opt;
    const char *path = "trace_io.h5";
    bool keep = false;
    while ((opt = getopt(argc, argv, "n:r:o:kh")) != -1) {
        switch (opt) {
        case 'n': n = strtoull(optarg, NULL, 10); break;
        case 'r': repeats = (int)strtol(optarg, NULL, 10); break;
        case 'o': path = optarg; break;
        case 'k': keep = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!n || repeats < 1) {
        usage(stderr);
        return 2;
    }
    tf_error err;
    printf("trace_io: %zu samples, %d counters, %d bytes per sample uncompressed\n", n,
           NCOUNTERS, ROW_BYTES);
    if (write_trace(path, n, &err) < 0) {
        fprintf(stderr, "trace_io: %s\n", err.msg);
        return 1;
    }
    struct stat st;
    if (stat(path, &st) == 0)
        printf("file           %8.1f MB (%.2f x smaller than the records)\n", st.st_size / 1e6,
               (double)n * ROW_BYTES / (double)st.st_size);
    span bare = { 1e30, 1e30 }, blocks = bare, cursor = bare;
    uint64_t check_bare = 0, check_blocks = 0, check_cursor = 0;
    for (int r = 0; r < repeats; r++) {
        bare = best(bare, bare_read(path, n, true, &check_bare));
        blocks = best(blocks, bare_read(path, n, false, &check_blocks));
        cursor = best(cursor, cursor_read(path, n, &check_cursor));
    }
    if (check_bare != check_cursor || check_blocks != check_cursor) {
        fprintf(stderr, "trace_io: the two reads disagree on the last sample's time\n");
        return 1;
    }
    report("bare H5Dread", bare, n);
    report("bare, blocks", blocks, n);
    report("cursor read", cursor, n);
    printf("cursor / blocks %6.2f wall %7.2f cpu  (the cost of unpacking)\n",
           cursor.wall / blocks.wall, cursor.cpu / blocks.cpu);
    double ratio = cursor.wall / bare.wall;
    printf("cursor / bare  %7.2f wall %7.2f cpu  (bar: at most %.1f) %s\n", ratio,
           cursor.cpu / bare.cpu, BAR, ratio <= BAR ? "PASS" : "FAIL");
    if (!keep)
        unlink(path);
    return ratio <= BAR ? 0 : 1;
}
