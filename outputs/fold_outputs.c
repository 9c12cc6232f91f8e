/* SPDX-License-Identifier: BSD-3-Clause */
/* The outputs of a fold (fold_outputs.h), moved out of `tracefold fold`
 * (cli/cmd_fold.c) so that the command only parses and prints. */
#include "config.h"

#include "fold_outputs.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "analysis/analysis_run.h"
#include "common/tf_output.h"
#include "fold/fold_csv.h"
#include "paraver/synthetic.h"
#include "render/render.h"

/* A warning (warn true) or a note for the caller, formatted here. */
__attribute__((format(printf, 3, 4)))
static void say(const tf_fold_outputs *o, bool warn, const char *fmt, ...)
{
    void (*to)(void *, const char *) = warn ? o->warn : o->note;
    if (!to)
        return;
    char msg[TF_ERROR_MSG_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    to(o->arg, msg);
}

/* The report (tracefold render's default PDF) of res beside fold.h5 in
 * dir, from the result, the analyses and the profile in memory.  A drawing
 * failure is only a warning: the fold's own outputs stand. */
static void write_report(const tf_fold_outputs *o, const char *dir,
                         const tf_analysis_set *analyses)
{
    char fold[4200], pdf[4200];
    tf_error err = {0};
    snprintf(fold, sizeof fold, "%s/fold.h5", dir);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    if (tf_render_fold_report(fold, o->res, analyses, o->profile, pdf, &err) < 0)
        say(o, true, "no report.pdf: %s", err.msg);
}

/* What is written beside the analysis while it is worked out: the first
 * part of the synthetic Paraver trace (folded.prv, .pcf, .row; no HDF5 and
 * no symbol lookup), then fold.h5, the machine profile and the CSV files.
 * A synthetic trace that fails, like the report, only warns. */
struct side {
    const tf_fold_outputs *o;
    const char *dir;
    bool with_synthetic;           /* begin the synthetic trace too */
    tf_prv_synthetic *synthetic;   /* begun, or NULL */
    int rc;                        /* of fold.h5 and the CSV files */
    tf_error err;
    /* begun: the synthetic trace is begun (or failed), under lock */
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    bool            begun;
};

static void begin_synthetic(struct side *s)
{
    char fold[4200], prv[4200];
    tf_error err = {0};
    snprintf(fold, sizeof fold, "%s/fold.h5", s->dir);
    snprintf(prv, sizeof prv, "%s/folded.prv", s->dir);
    const tf_fold_outputs *o = s->o;
    if (tf_prv_synthetic_begin(fold, o->res, o->tr, o->team, &o->analysis->alloc_rules, prv,
                               &s->synthetic, &err) < 0)
        say(o, true, "no folded.prv: %s", err.msg);
}

static void *write_side(void *arg)
{
    struct side *s = arg;
    char fold[4200];
    snprintf(fold, sizeof fold, "%s/fold.h5", s->dir);
    if (s->with_synthetic)
        begin_synthetic(s);
    pthread_mutex_lock(&s->lock);
    s->begun = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    tf_error_clear(&s->err);
    const tf_fold_outputs *o = s->o;
    s->rc = tf_fold_result_save(o->res, fold, &s->err);
    if (s->rc == 0 && o->profile)
        s->rc = tf_cal_profile_attach(o->profile, o->machine, fold, &s->err);
    if (s->rc == 0)
        s->rc = tf_fold_write_csv(o->res, s->dir, &s->err);
    return NULL;
}

/* The synthetic trace begun by the side thread, once it is. */
static tf_prv_synthetic *side_synthetic(struct side *s)
{
    pthread_mutex_lock(&s->lock);
    while (!s->begun)
        pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return s->synthetic;
}

/* The rest of the synthetic trace, its phases from the analyses. */
struct synthetic_end {
    tf_prv_synthetic *synthetic;
    const tf_analysis_set *analyses;
    unsigned threads;
    int rc;
    tf_error err;
};

static void *finish_synthetic(void *arg)
{
    struct synthetic_end *e = arg;
    tf_error_clear(&e->err);
    e->rc = tf_prv_synthetic_end(e->synthetic, e->analyses, e->threads, &e->err);
    return NULL;
}

/* The profile's figures the advice rules compare with (advice.h). */
static void machine_figures(const tf_cal_profile *p, tf_analysis_machine *m)
{
    *m = (tf_analysis_machine){ .memory_ns = p->memory_ns, .page_bytes = p->page_bytes,
                                .tlb_reach_bytes = p->tlb_reach_bytes, .tlb_miss_ns = p->tlb_miss_ns };
    for (int l = 0; l < p->nlevels && l < TF_ANALYSIS_MAX_CACHES; l++, m->nlevels++) {
        m->cache_bytes[l] = p->levels[l].size_bytes;
        m->hit_ns[l] = p->levels[l].hit_ns;
    }
    /* the stride of a line, its largest sizes where it has more points */
    for (int k = 0; k < p->nstrides; k++)
        if (p->line_bytes > 0 && p->stride_bytes[k] == p->line_bytes) {
            const tf_cal_curve *c = &p->stride[k];
            size_t first = c->n > TF_ANALYSIS_MAX_WALK ? c->n - TF_ANALYSIS_MAX_WALK : 0;
            for (size_t i = first; i < c->n; i++, m->nline_walk++) {
                m->line_walk_bytes[m->nline_walk] = c->bytes[i];
                m->line_walk_ns[m->nline_walk] = c->ns[i];
            }
        }
}

/* Writes the result into a temporary sibling of outdir and renames it.
 * With more than one thread the outputs are written by three threads, so
 * that the analysis, which one thread works out, has company:
 *   - this thread works the analysis out, then saves it (tables, fold.h5)
 *     and writes the report;
 *   - a side thread begins the synthetic trace (its points ordered by
 *     time), then writes fold.h5 and the CSV files;
 *   - once the analysis is known and the synthetic trace begun, a third
 *     thread ends the synthetic trace (its phases, every record), without
 *     waiting for fold.h5.
 * HDF5 as Debian builds it is not thread-safe, and libdw is not known to
 * be: HDF5 is called by the side thread until it is joined, then by this
 * one; symbols are looked up by the analysis, then by the synthetic
 * trace's end (the report takes the analysis in memory, each point's place
 * from its caches and object maps, and symbolises nothing).  What they
 * share, the result, the trace and the analyses, nothing changes
 * meanwhile.  With one thread the same steps run one after
 * the other, the synthetic trace last but the report, and the files are
 * the same. */
int tf_fold_outputs_write(const tf_fold_outputs *o, tf_error *err)
{
    const tf_fold_result *res = o->res;
    unsigned threads = o->threads;
    char tmp[4096];
    if (tf_output_begin_folder(o->outdir, tmp, sizeof tmp, err) < 0)
        return -err->code;
    struct side side = { .o = o, .dir = tmp, .with_synthetic = threads > 1,
                         .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
    pthread_t side_thread, end_thread;
    bool side_threaded = threads > 1 && pthread_create(&side_thread, NULL, write_side, &side) == 0;
    tf_analysis_set analyses = { 0 };
    tf_analysis_params params = *o->analysis;
    tf_analysis_machine machine;
    if (o->profile) {
        machine_figures(o->profile, &machine);
        params.machine = &machine;
    }
    int rc = tf_analysis_run_groups(o->tr, res, o->debug_dir, &params, &analyses, err);
    for (size_t k = 0; rc == 0 && k < analyses.n; k++) {
        const tf_analysis *an = &analyses.list[k];
        if (an->nsamples < an->nfolded)
            say(o, false, "group %u: the phases, code lines and address space rest on %zu of "
                          "its %zu folded samples, a uniform choice (--analysis-samples 0 "
                          "takes them all)", an->group, an->nsamples, an->nfolded);
    }
    struct synthetic_end end = { .analyses = &analyses, .threads = threads };
    bool end_threaded = false;
    if (side_threaded) {
        end.synthetic = side_synthetic(&side);
        end_threaded = rc == 0 && end.synthetic &&
                       pthread_create(&end_thread, NULL, finish_synthetic, &end) == 0;
        pthread_join(side_thread, NULL);
    } else {
        write_side(&side);
    }
    if (side.rc < 0) {
        rc = side.rc;
        *err = side.err;
    }
    if (rc == 0)
        rc = tf_analysis_save(&analyses, res, tmp, err);
    /* The synthetic trace reads only the phases and routines meanwhile. */
    tf_analysis_set_drop_samples(&analyses);
    if (!end_threaded && rc == 0) {
        /* One thread: the synthetic trace's records are made only now,
         * once the analysis' samples are freed, for a lower peak. */
        if (!side.with_synthetic)
            begin_synthetic(&side);
        end.synthetic = side.synthetic;
        if (end.synthetic)
            finish_synthetic(&end);
    } else if (!end_threaded) {
        tf_prv_synthetic_abort(side.synthetic);
    }
    if (rc == 0)
        write_report(o, tmp, &analyses);
    if (end_threaded)
        pthread_join(end_thread, NULL);
    /* Only a warning, as for the report; none when everything failed. */
    if (rc == 0 && end.synthetic && end.rc < 0)
        say(o, true, "no folded.prv: %s", end.err.msg);
    tf_analysis_set_free(&analyses);
    return tf_output_finish_folder(tmp, o->outdir, TF_FOLD_OUTPUTS_MARKER, o->replace, rc, err);
}
