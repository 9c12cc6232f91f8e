/* SPDX-License-Identifier: BSD-3-Clause */
/* read_trace: what a trace (and, given one, a fold result) holds, through
 * the installed reader API (docs/api.md).  Build it against an installed
 * tracefold:
 *
 *     cc read_trace.c $(pkg-config --cflags --libs tracefold-read) -o read_trace
 *     ./read_trace TRACE.h5 [OUTDIR/fold.h5]
 *
 * One record per line, "what key value ...", for people and for awk. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <tracefold/read.h>

static const char *const sample_kinds[] = {"timer", "load", "store", "rmw", "other"};
#define OTHER_KIND 4

static int fail(const tracefold_error *err)
{
    fprintf(stderr, "read_trace: %s (%s)\n", err->message, tracefold_status_text(err->code));
    return 1;
}

/* Every sample of one thread, counted by kind. */
static int count_samples(tracefold_trace *tr, uint32_t p, uint32_t t, uint64_t counts[5],
                         tracefold_error *err)
{
    tracefold_samples *s;
    tracefold_sample buf[1024];
    size_t n;
    if (tracefold_samples_open(tr, p, t, &s, err) < 0)
        return -1;
    int rc;
    while ((rc = tracefold_samples_read(s, buf, NULL, 1024, &n, err)) == 0 && n > 0)
        for (size_t i = 0; i < n; i++)
            counts[buf[i].kind < OTHER_KIND ? buf[i].kind : OTHER_KIND]++;
    tracefold_samples_close(s);
    return rc;
}

static int print_process(tracefold_trace *tr, uint32_t p, uint64_t counts[5],
                         tracefold_error *err)
{
    tracefold_process proc;
    if (tracefold_process_get(tr, p, &proc, err) < 0)
        return -1;
    printf("process %" PRIu32 " pid %" PRId64 " rank %" PRId32 " threads %" PRIu32
           " counters %" PRIu32 " objects %zu\n",
           p, proc.pid, proc.rank, proc.nthreads, proc.ncounters, proc.nobjects);
    for (uint32_t c = 0; c < proc.ncounters; c++) {
        tracefold_counter ctr;
        if (tracefold_counter_get(tr, p, c, &ctr, err) < 0)
            return -1;
        printf("counter %" PRIu32 " %" PRIu32 " %s\n", p, c, ctr.name);
    }
    for (uint32_t t = 0; t < proc.nthreads; t++) {
        tracefold_thread th;
        if (tracefold_thread_get(tr, p, t, &th, err) < 0 || count_samples(tr, p, t, counts, err) < 0)
            return -1;
        printf("thread %" PRIu32 " %" PRIu32 " tid %" PRIu64 " events %zu samples %zu\n", p, t,
               th.tid, th.nevents, th.nsamples);
    }
    for (size_t i = 0; i < proc.nobjects; i++) {
        tracefold_object o;
        if (tracefold_object_get(tr, p, i, &o, err) < 0)
            return -1;
        printf("object %" PRIu32 " id %" PRIu32 " start %" PRIu64 " size %" PRIu64 " name %s\n",
               p, o.id, o.start, o.size, o.name);
    }
    return 0;
}

static int print_regions(tracefold_trace *tr, size_t nregions, tracefold_error *err)
{
    for (size_t r = 0; r < nregions; r++) {
        tracefold_region reg;
        const tracefold_instance *inst;
        size_t n, complete = 0;
        if (tracefold_region_get(tr, r, &reg, err) < 0 ||
            tracefold_region_instances(tr, r, &inst, &n, err) < 0)
            return -1;
        for (size_t i = 0; i < n; i++)
            complete += inst[i].complete;
        printf("region %s instances %zu incomplete %zu total_ns %" PRIu64 " min_ns %" PRIu64
               " median_ns %" PRIu64 " max_ns %" PRIu64 " listed %zu complete %zu\n",
               reg.name, reg.ninstances, reg.incomplete, reg.total_ns, reg.min_ns,
               reg.median_ns, reg.max_ns, n, complete);
    }
    return 0;
}

static int print_trace(const char *path, tracefold_error *err)
{
    tracefold_trace *tr;
    if (tracefold_trace_open(path, &tr, err) < 0)
        return -1;
    tracefold_trace_info info;
    tracefold_trace_get_info(tr, &info);
    printf("trace %s\ncomplete %s\nprocesses %" PRIu32 "\n", info.path,
           info.complete ? "yes" : "no", info.nprocesses);
    uint64_t counts[5] = {0};
    int rc = 0;
    for (uint32_t p = 0; p < info.nprocesses && rc == 0; p++)
        rc = print_process(tr, p, counts, err);
    if (rc == 0) {
        printf("regions %zu\n", info.nregions);
        rc = print_regions(tr, info.nregions, err);
    }
    if (rc == 0) {
        uint64_t all = 0;
        for (int k = 0; k < 5; k++) {
            printf("samples %s %" PRIu64 "\n", sample_kinds[k], counts[k]);
            all += counts[k];
        }
        printf("samples total %" PRIu64 "\n", all);
    }
    tracefold_trace_close(tr);
    return rc;
}

/* A fold result: its regions and groups, and where each counter's fitted
 * curve ends (1 for a counter that rests on enough instances). */
static int print_fold(const char *path, tracefold_error *err)
{
    tracefold_fold *f;
    if (tracefold_fold_open(path, &f, err) < 0)
        return -1;
    tracefold_fold_info info;
    tracefold_fold_get_info(f, &info);
    printf("fold %s regions %" PRIu32 "\n", info.path, info.nregions);
    int rc = 0;
    for (uint32_t r = 0; r < info.nregions && rc == 0; r++) {
        tracefold_fold_region reg;
        if ((rc = tracefold_fold_region_get(f, r, &reg, err)) < 0)
            break;
        printf("fold-region %s instances %zu used %zu excluded %zu incomplete %zu groups %" PRIu32
               "\n", reg.name, reg.ninstances, reg.used, reg.excluded, reg.incomplete,
               reg.ngroups);
        for (uint32_t g = 0; g < reg.ngroups && rc == 0; g++) {
            tracefold_fold_group grp;
            tracefold_fold_point pt;
            size_t n;
            if ((rc = tracefold_fold_group_get(f, r, g, &grp, err)) < 0 ||
                (rc = tracefold_fold_points_read(f, r, g, 0, &pt, NULL, 1, &n, err)) < 0)
                break;
            printf("fold-group %" PRIu32 " %" PRIu32 " instances %" PRIu32 " points %zu"
                   " mean_duration_ns %.0f first_x %.3f\n", r, g, grp.instances, grp.npoints,
                   grp.mean_duration_ns, n ? pt.x : -1.0);
            for (uint32_t c = 0; c < reg.ncounters && rc == 0; c++) {
                tracefold_fold_curve cv;
                if ((rc = tracefold_fold_curve_get(f, r, g, c, &cv, err)) < 0)
                    break;
                printf("fold-curve %" PRIu32 " %" PRIu32 " %s end %.3f\n", r, g,
                       reg.counter_names[c], cv.grid ? cv.value[cv.grid - 1] : NAN);
            }
        }
    }
    tracefold_fold_close(f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: read_trace TRACE.h5 [FOLD.h5]\n");
        return 2;
    }
    tracefold_error err;
    if (print_trace(argv[1], &err) < 0 || (argc == 3 && print_fold(argv[2], &err) < 0))
        return fail(&err);
    return 0;
}
