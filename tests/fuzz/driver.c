/* SPDX-License-Identifier: BSD-3-Clause */
/* A main for the fuzz harnesses when libFuzzer is not linked (gcc builds,
 * make check, AFL++ in file mode):
 *
 *   fuzz_X [-T SECONDS] PATH...                 replays each file (a folder: its files)
 *   fuzz_X -n RUNS|-t SECONDS [-s SEED] [-o DIR] [-T SECONDS] PATH...
 *                                               mutates the files RUNS times or for SECONDS
 *
 * The mutation is blind (no coverage feedback: that is what libFuzzer and
 * AFL++ add): each run takes one corpus file and applies one to four of
 * bit flips, byte and integer overwrites, deletions, insertions,
 * duplications, truncations, splices with another corpus file and
 * replacements of a decimal number.  The same seed gives the same inputs.
 *
 * A crash, a sanitizer report, or an input running past -T seconds stops the
 * run: the input is written to DIR (default: the current folder) as
 * crash-SEED-RUN or timeout-SEED-RUN, a line names it, and the exit status
 * is 1.  In a sanitizer build, so does a run that leaks (leak-SEED-RUN),
 * checked after an input that frees fewer blocks than it allocates, twice
 * in a row.  Replaying reports the file itself.  In a sanitizer build, the
 * allocator refuses any one allocation above 1 GiB and the process above
 * 2 GiB resident (as libFuzzer's defaults): a header that makes a reader
 * ask for more is a finding. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#if defined(__SANITIZE_ADDRESS__)
#define TF_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TF_FUZZ_ASAN 1
#endif
#endif

#ifdef TF_FUZZ_ASAN
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>

/* In the runtime since LLVM 4 (allocator_interface.h in clang's headers,
 * not among gcc's). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

/* Allocations and frees during the current run: a leak check (milliseconds)
 * is only worth it after a run that freed less than it allocated. */
static size_t run_mallocs, run_frees;

static void count_malloc(const volatile void *p, size_t n)
{
    (void)p;
    (void)n;
    run_mallocs++;
}

static void count_free(const volatile void *p)
{
    (void)p;
    run_frees++;
}

/* libhdf5 1.10 leaks what its metadata cache was decoding when a header
 * turns out corrupt: memory no caller ever sees, so no reader can free it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:H5C_protect\n";
}

/* Read by the sanitizer runtime before main; ASAN_OPTIONS adds to these.
 * Allocation stacks are unwound the slow way: libhdf5 and libxml2 keep no
 * frame pointers, and without their frames a leak names neither its
 * caller nor the suppression above. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "max_allocation_size_mb=1024:hard_rss_limit_mb=2048:allocator_may_return_null=0:"
           "fast_unwind_on_malloc=0";
}
#endif

#define MAX_STACKED 4
/* Inputs may grow this much beyond the largest corpus file. */
#define GROWTH 4096

typedef struct input {
    char    *name;
    uint8_t *data;
    size_t   size;
} input;

/* What a fatal signal or the sanitizer's death callback needs: set before
 * each run, read from signal context (write(2) and open(2) only). */
static const uint8_t *cur_data;
static size_t cur_size;
static char cur_crash[600], cur_timeout[600], cur_what[600];

static void say(const char *s)
{
    ssize_t unused = write(STDERR_FILENO, s, strlen(s));
    (void)unused;
}

/* Saves the running input to path (empty: a replayed file, already on disk)
 * and says which input it was. */
static void save_current(const char *kind, const char *path)
{
    if (!cur_data) {
        say("fuzz: ");
        say(kind);
        say(" outside any input (at exit: replay the inputs one by one to find it)\n");
        return;
    }
    if (path[0]) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        for (size_t done = 0; fd >= 0 && done < cur_size;) {
            ssize_t n = write(fd, cur_data + done, cur_size - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        if (fd >= 0)
            close(fd);
    }
    say("fuzz: ");
    say(kind);
    say(" on ");
    say(cur_what);
    if (path[0]) {
        say(", saved as ");
        say(path);
    }
    say("\n");
}

static void on_crash(void)
{
    save_current("crash", cur_crash);
}

#ifndef TF_FUZZ_ASAN
static void on_fatal_signal(int sig)
{
    (void)sig;
    on_crash();
    /* SA_RESETHAND: returning re-runs the fault, or abort() raises again,
     * under the default action. */
}
#endif

static void on_timeout(int sig)
{
    (void)sig;
    save_current("timeout", cur_timeout);
#ifdef TF_FUZZ_ASAN
    /* Where it was going round: not async-signal-safe, but the process
     * ends here whatever happens. */
    __sanitizer_print_stack_trace();
#endif
    _exit(1);
}

static void install_handlers(void)
{
    struct sigaction sa = { .sa_handler = on_timeout };
    sigaction(SIGALRM, &sa, NULL);
#ifdef TF_FUZZ_ASAN
    __sanitizer_set_death_callback(on_crash);
    __sanitizer_install_malloc_and_free_hooks(count_malloc, count_free);
#else
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESETHAND;
    const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
        sigaction(fatal[i], &sa, NULL);
    /* Without the sanitizer's allocation limit, an address-space limit keeps
     * a runaway allocation from taking the machine. */
    struct rlimit rl = { .rlim_cur = 4ull << 30, .rlim_max = 4ull << 30 };
    setrlimit(RLIMIT_AS, &rl);
#endif
}

/* Runs one input; 1 when it leaked (the sanitizer printed what), else 0.
 * Saving what leaked is the caller's: the input is no crash. */
static int run_one(const uint8_t *data, size_t size, unsigned timeout)
{
    cur_data = data;
    cur_size = size;
#ifdef TF_FUZZ_ASAN
    run_mallocs = run_frees = 0;
#endif
    alarm(timeout);
    LLVMFuzzerTestOneInput(data, size);
    alarm(0);
    int leaked = 0;
#ifdef TF_FUZZ_ASAN
    /* A library's first use of something (libxml2's encoding handlers,
     * HDF5's free lists) keeps blocks for good: only an input that again
     * frees fewer blocks than it allocates is worth the check, as in
     * libFuzzer. */
    if (run_mallocs > run_frees) {
        run_mallocs = run_frees = 0;
        alarm(timeout);
        LLVMFuzzerTestOneInput(data, size);
        alarm(0);
        leaked = run_mallocs > run_frees && __lsan_do_recoverable_leak_check();
    }
#endif
    cur_data = NULL;
    return leaked;
}

/* A leak ends the run like a crash, without the sanitizer's exit report of
 * the same leak. */
static void report_leak(const uint8_t *data, size_t size, const char *path)
{
    cur_data = data;
    cur_size = size;
    save_current("leak", path);
    _exit(1);
}

/* ---- the corpus ---------------------------------------------------------- */

static int load_file(const char *path, input *in)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        fprintf(stderr, "fuzz: %s: cannot read\n", path);
        return -1;
    }
    in->name = strdup(path);
    in->data = buf;
    in->size = n;
    return in->name ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const input *)a)->name, ((const input *)b)->name);
}

static int add_input(input **v, size_t *n, size_t *cap, const char *path)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        input *nv = realloc(*v, *cap * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
    }
    if (load_file(path, &(*v)[*n]) < 0)
        return -1;
    (*n)++;
    return 0;
}

/* The files named, a folder standing for its regular files (not hidden,
 * by name). */
static int load_corpus(char **paths, int npaths, input **v, size_t *n)
{
    size_t cap = 0;
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st) < 0) {
            fprintf(stderr, "fuzz: %s: %s\n", paths[i], strerror(errno));
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (add_input(v, n, &cap, paths[i]) < 0)
                return -1;
            continue;
        }
        DIR *d = opendir(paths[i]);
        if (!d) {
            fprintf(stderr, "fuzz: %s: %s\n", paths[i], strerror(errno));
            return -1;
        }
        size_t first = *n;
        int rc = 0;
        for (struct dirent *e; rc == 0 && (e = readdir(d));) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", paths[i], e->d_name);
            if (e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
                rc = add_input(v, n, &cap, path);
        }
        closedir(d);
        if (rc < 0)
            return -1;
        qsort(*v + first, *n - first, sizeof **v, by_name);
    }
    return 0;
}

/* ---- mutation ------------------------------------------------------------ */

static uint64_t rng_state;

/* xorshift64*: fast, and the same everywhere for a given seed. */
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static size_t below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* Sizes and counts where readers go wrong: zero, one, the signed and
 * unsigned limits of each width, and powers of two past any real file. */
static const uint64_t interesting[] = {
    0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
    0xffffffff, 0x100000000, 1ull << 40, 0x7fffffffffffffff, 0x8000000000000000,
    UINT64_MAX,
};
#define NINTERESTING (sizeof interesting / sizeof *interesting)

/* Replaces a run of decimal digits with a random or interesting number:
 * the text formats (Paraver, XML) say their sizes in decimal. */
static size_t mutate_number(uint8_t *d, size_t n, size_t max)
{
    size_t at = below(n);
    while (at < n && (d[at] < '0' || d[at] > '9'))
        at++;
    if (at == n)
        return n;
    size_t start = at;
    while (at < n && d[at] >= '0' && d[at] <= '9')
        at++;
    char num[24];
    uint64_t v = rnd() & 1 ? interesting[below(NINTERESTING)] : rnd() % 1000;
    int len = snprintf(num, sizeof num, "%" PRIu64, v);
    size_t tail = n - at;
    if (start + (size_t)len + tail > max)
        return n;
    memmove(d + start + len, d + at, tail);
    memcpy(d + start, num, (size_t)len);
    return start + (size_t)len + tail;
}

/* One mutation of d[0..n) in place (room for max bytes); the new size. */
static size_t mutate_once(uint8_t *d, size_t n, size_t max, const input *corpus,
                          size_t ncorpus)
{
    switch (below(9)) {
    case 0:   /* flip a bit */
        if (n)
            d[below(n)] ^= (uint8_t)(1u << below(8));
        return n;
    case 1:   /* a random byte */
        if (n)
            d[below(n)] = (uint8_t)rnd();
        return n;
    case 2: { /* an interesting integer of 1, 2, 4 or 8 bytes, little endian */
        size_t w = (size_t)1 << below(4);
        if (n < w)
            return n;
        uint64_t v = interesting[below(NINTERESTING)];
        size_t at = below(n - w + 1);
        for (size_t i = 0; i < w; i++)
            d[at + i] = (uint8_t)(v >> (8 * i));
        return n;
    }
    case 3: { /* delete a range */
        if (!n)
            return n;
        size_t at = below(n), len = 1 + below(n - at < 64 ? n - at : 64);
        memmove(d + at, d + at + len, n - at - len);
        return n - len;
    }
    case 4: { /* insert random bytes */
        size_t len = 1 + below(16), at = below(n + 1);
        if (n + len > max)
            return n;
        memmove(d + at + len, d + at, n - at);
        for (size_t i = 0; i < len; i++)
            d[at + i] = (uint8_t)rnd();
        return n + len;
    }
    case 5: { /* duplicate a range (repeated records, lines, elements) */
        if (!n)
            return n;
        size_t from = below(n), len = 1 + below(n - from < 256 ? n - from : 256);
        size_t at = below(n + 1);
        if (n + len > max)
            return n;
        uint8_t tmp[256];
        memcpy(tmp, d + from, len);
        memmove(d + at + len, d + at, n - at);
        memcpy(d + at, tmp, len);
        return n + len;
    }
    case 6:   /* truncate */
        return below(n + 1);
    case 7: { /* splice: our head, another file's tail */
        const input *o = &corpus[below(ncorpus)];
        size_t at = below(n + 1), from = below(o->size + 1), len = o->size - from;
        if (at + len > max)
            len = max - at;
        memcpy(d + at, o->data + from, len);
        return at + len;
    }
    default:
        return mutate_number(d, n, max);
    }
}

static int mutate_loop(const input *corpus, size_t ncorpus, uint64_t runs, unsigned seconds,
                       uint64_t seed, const char *outdir, unsigned timeout)
{
    size_t max = 0;
    for (size_t i = 0; i < ncorpus; i++)
        if (corpus[i].size > max)
            max = corpus[i].size;
    max = 2 * max + GROWTH;
    uint8_t *buf = malloc(max);
    if (!buf) {
        fputs("fuzz: out of memory\n", stderr);
        return 1;
    }
    rng_state = seed ? seed : 1;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t done = 0;
    double elapsed = 0;
    for (; (!runs || done < runs) && (!seconds || elapsed < seconds); done++) {
        const input *in = &corpus[below(ncorpus)];
        memcpy(buf, in->data, in->size);
        size_t n = in->size;
        for (size_t k = 1 + below(MAX_STACKED); k > 0; k--)
            n = mutate_once(buf, n, max, corpus, ncorpus);
        snprintf(cur_what, sizeof cur_what, "a mutation of %s (seed %" PRIu64 ", run %" PRIu64 ")",
                 in->name, seed, done);
        snprintf(cur_crash, sizeof cur_crash, "%s/crash-%" PRIu64 "-%" PRIu64, outdir, seed, done);
        snprintf(cur_timeout, sizeof cur_timeout, "%s/timeout-%" PRIu64 "-%" PRIu64, outdir, seed,
                 done);
        if (run_one(buf, n, timeout)) {
            char leak[600];
            snprintf(leak, sizeof leak, "%s/leak-%" PRIu64 "-%" PRIu64, outdir, seed, done);
            report_leak(buf, n, leak);
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        elapsed = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    elapsed = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
    printf("fuzz: %" PRIu64 " runs in %.1f s (%.0f/s) from %zu corpus files, seed %" PRIu64
           ", no finding\n",
           done, elapsed, elapsed > 0 ? (double)done / elapsed : 0.0, ncorpus, seed);
    free(buf);
    return 0;
}

static int replay(const input *corpus, size_t ncorpus, unsigned timeout)
{
    cur_crash[0] = cur_timeout[0] = '\0';
    for (size_t i = 0; i < ncorpus; i++) {
        snprintf(cur_what, sizeof cur_what, "%s", corpus[i].name);
        if (run_one(corpus[i].data, corpus[i].size, timeout))
            report_leak(corpus[i].data, corpus[i].size, "");
    }
    printf("fuzz: %zu inputs replayed, no finding\n", ncorpus);
    return 0;
}

static void usage(FILE *out, const char *prog)
{
    fprintf(out,
            "Usage: %s [-T SECONDS] PATH...\n"
            "       %s -n RUNS|-t SECONDS [-s SEED] [-o DIR] [-T SECONDS] PATH...\n"
            "Replays the files (a folder: its files) through the reader, or mutates\n"
            "them RUNS times or for SECONDS.  A crash, a sanitizer report or an input\n"
            "running past -T SECONDS (default 10) is saved in DIR (default .) and the\n"
            "exit status is 1.\n",
            prog, prog);
}

static int number(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-')
        return -1;
    *v = x;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t runs = 0, seconds = 0, seed = 1, timeout = 10;
    const char *outdir = ".";
    int c;
    while ((c = getopt(argc, argv, "n:t:s:o:T:h")) != -1) {
        uint64_t *target = c == 'n' ? &runs : c == 't' ? &seconds : c == 's' ? &seed
                         : c == 'T' ? &timeout : NULL;
        if (c == 'o') {
            outdir = optarg;
        } else if (c == 'h') {
            usage(stdout, argv[0]);
            return 0;
        } else if (!target || number(optarg, target) < 0) {
            usage(stderr, argv[0]);
            return 2;
        }
    }
    if (optind == argc || timeout == 0 || timeout > 3600 || seconds > 1000000) {
        usage(stderr, argv[0]);
        return 2;
    }
    input *corpus = NULL;
    size_t ncorpus = 0;
    if (load_corpus(argv + optind, argc - optind, &corpus, &ncorpus) < 0)
        return 2;
    if (ncorpus == 0) {
        fprintf(stderr, "fuzz: no input files\n");
        return 2;
    }
    install_handlers();
    int rc = runs || seconds
                 ? mutate_loop(corpus, ncorpus, runs, (unsigned)seconds, seed, outdir,
                               (unsigned)timeout)
                 : replay(corpus, ncorpus, (unsigned)timeout);
    for (size_t i = 0; i < ncorpus; i++) {
        free(corpus[i].name);
        free(corpus[i].data);
    }
    free(corpus);
    return rc;
}
