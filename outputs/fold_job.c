/* SPDX-License-Identifier: BSD-3-Clause */
/* The job of `tracefold fold` (fold_job.h): what the command does between
 * parsing its options and saying what it did. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold_job.h"

#include "calibrate/hierarchy.h"
#include "extract/fold_input.h"
#include "formats/trace_input.h"
#include "paraver/synthetic.h"

/* The region to fold: the one asked for, or the repeated region covering
 * the most time, its instances in *chosen (0 for one asked for).  Lists
 * the regions when the name is unknown. */
static int choose_region(tf_trace *tr, const char *spec, uint32_t *region, size_t *chosen,
                         tf_error *err)
{
    *chosen = 0;
    tf_region_stats *st;
    size_t n;
    int rc = tf_region_stats_compute(tr, &st, &n, err);
    if (rc < 0)
        return rc;
    if (!spec) {
        const tf_region_stats *main_region = tf_region_stats_main(st, n);
        if (main_region) {
            *region = main_region->region;
            *chosen = main_region->count;
            free(st);
            return 0;
        }
        free(st);
        return tf_fail(err, TF_ERR_DATA, "%s: no region repeats (at least 2 complete "
                       "instances are needed to fold)", tf_input_source(tr));
    }
    char *name;
    if ((rc = tf_input_region_name(tr, spec, &name, err)) < 0) {
        free(st);
        return rc;
    }
    uint32_t id;
    bool found = tf_trace_find_string(tr, name, &id);
    size_t k = 0;
    while (found && k < n && st[k].region != id)
        k++;
    if (found && k < n) {
        *region = id;
        free(name);
        free(st);
        return 0;
    }
    char list[768] = "";
    size_t at = 0;
    for (k = 0; k < n && at < sizeof list - 64; k++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s (%zu)", k ? ", " : "",
                               tf_trace_string(tr, st[k].region), st[k].count);
    if (k < n)
        snprintf(list + at, sizeof list - at, ", ...");
    /* Most often the run was recorded without marking it: say how to. */
    rc = tf_fail(err, TF_ERR_NOTFOUND, "%s: no region '%s'; regions (instances): %s; to get "
                 "one, record again with `tracefold record --region FUNCTION -- PROGRAM` (each "
                 "call of FUNCTION is an instance, no source change) or mark the iteration "
                 "with tracefold_region_begin/end (docs/recorder.md)",
                 tf_input_source(tr), name, n ? list : "none");
    free(name);
    free(st);
    return rc;
}

/* The iteration from the samples, when no region is marked (or the one
 * beginning in routine `function`, asked for with --region). */
static int find_iteration(tf_fold_opening *op, const char *function)
{
    int rc = tf_iteration_find(op->tr, function, op->in->debug_dir, &op->found, &op->err);
    if (rc < 0)
        return rc;
    const tf_iteration_candidate *c = &op->found.candidates[op->found.chosen];
    op->given = (tf_region_given){ c->function, op->found.instances, op->found.ninstances };
    return 0;
}

static void *open_traces(void *arg)
{
    tf_fold_opening *op = arg;
    const char *spec = op->in->region;
    tf_error_clear(&op->err);
    op->rc = tf_input_open_set(op->in->traces, op->in->ntraces, &op->tr, &op->err);
    /* a trace that cannot be opened (missing: TF_ERR_NOTFOUND) is no
     * routine to look for */
    if (op->rc < 0)
        return NULL;
    op->rc = choose_region(op->tr, spec, &op->region, &op->chosen, &op->err);
    if (op->rc == -TF_ERR_DATA && !spec) {
        /* no region repeats: the iteration from the samples */
        op->rc = find_iteration(op, NULL);
        if (op->rc == -TF_ERR_NOTFOUND) {
            char why[sizeof op->err.msg];
            snprintf(why, sizeof why, "%s", op->err.msg);
            op->rc = tf_fail(&op->err, TF_ERR_NOTFOUND, "%s, and no region repeats: mark the "
                             "iteration, without changing the program, with 'tracefold record "
                             "--region FUNC', or with tracefold_region_begin/end around the "
                             "loop's body (docs/recorder.md)", why);
        }
    } else if (op->rc == -TF_ERR_NOTFOUND && spec) {
        /* not a region: perhaps the routine an iteration found begins in */
        tf_error region_err = op->err;
        op->rc = find_iteration(op, spec);
        if (op->rc < 0)
            op->err = region_err;
    }
    return NULL;
}

void tf_fold_opening_start(tf_fold_opening *op, const tf_fold_job_input *in, bool threaded)
{
    *op = (tf_fold_opening){ .in = in };
    op->threaded = threaded && pthread_create(&op->thread, NULL, open_traces, op) == 0;
}

int tf_fold_opening_wait(tf_fold_opening *op, tf_error *err)
{
    if (op->threaded) {
        pthread_join(op->thread, NULL);
        op->threaded = false;
    } else if (!op->done) {
        open_traces(op);
    }
    op->done = true;
    if (op->rc < 0)
        *err = op->err;
    return op->rc;
}

void tf_fold_opening_end(tf_fold_opening *op)
{
    if (op->threaded)
        pthread_join(op->thread, NULL);
    op->threaded = false;
    if (op->tr)
        tf_input_close(op->tr);
    op->tr = NULL;
    tf_iteration_found_free(&op->found);
}

/* The namer of --phase-level for the opened traces, as *naming (*n NULL,
 * and *naming untouched, at the innermost level, the default). */
static int phase_namer_open(const tf_fold_opening *op, tf_phase_namer **n,
                            tf_extract_namer *naming, tf_error *err)
{
    *n = NULL;
    if (op->in->phase_level.kind == TF_PHASE_LEVEL_INNERMOST)
        return 0;
    int rc = tf_phase_namer_create(n, op->tr, &op->in->phase_level, op->in->debug_dir, err);
    if (rc == 0)
        *naming = (tf_extract_namer){ tf_phase_namer_name, *n };
    return rc;
}

int tf_fold_job_run(tf_fold_opening *op, const tf_fold_params *p, tf_fold_team *team,
                    tf_fold_outputs o, tf_fold_progress progress, tf_fold_result **res,
                    tf_error *err)
{
    *res = NULL;
    tf_cal_profile *profile = NULL;
    /* the profile after the opening: both are HDF5, which one thread
     * at a time may call */
    int rc = tf_fold_opening_wait(op, err);
    if (rc == 0 && !o.profile && o.machine && !(profile = malloc(sizeof *profile)))
        rc = tf_fail(err, TF_ERR_NOMEM, "%s: no memory for the profile", o.machine);
    if (rc == 0 && profile)
        rc = tf_cal_profile_load(profile, o.machine, err);
    tf_fold_params with_given = *p;
    if (op->found.instances)
        with_given.given = &op->given;
    tf_phase_namer *namer = NULL;
    tf_extract_namer naming;
    if (rc == 0 && (rc = phase_namer_open(op, &namer, &naming, err)) == 0 && namer)
        with_given.namer = &naming;
    if (rc == 0)
        rc = tf_fold_trace(op->tr, op->region, &with_given, team, progress, NULL, res, err);
    tf_phase_namer_free(namer);
    /* The outputs name the trace the user gave, not its temporary
     * conversion, which is gone once the fold ends. */
    if (rc == 0 && strcmp((*res)->trace, tf_input_source(op->tr)) != 0) {
        char *source = strdup(tf_input_source(op->tr));
        if (!source) {
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        } else {
            free((*res)->trace);
            (*res)->trace = source;
        }
    }
    if (rc == 0) {
        o.tr = op->tr;
        o.res = *res;
        o.team = team;
        if (profile)
            o.profile = profile;
        rc = tf_fold_outputs_write(&o, err);
    }
    free(profile);
    return rc;
}

/* A member's reading stops when rank 0 has ended the team meanwhile. */
static int leader_ended(void *team, uint64_t done, uint64_t total)
{
    (void)done;
    (void)total;
    return tf_fold_team_ended(team) != 0;
}

int tf_fold_job_serve(tf_fold_opening *op, const tf_fold_params *p, tf_fold_team *team,
                      int failed, const tf_error *failed_err, tf_error *err)
{
    tf_error share_err;
    tf_error_clear(&share_err);
    if (failed < 0)
        share_err = *failed_err;
    tf_fold_input share;
    memset(&share, 0, sizeof share);
    int rc = failed;
    if (op && rc == 0) {
        rc = tf_fold_opening_wait(op, &share_err);
        tf_extract_share mine = { (unsigned)team->rank, (unsigned)team->size };
        tf_phase_namer *namer = NULL;
        tf_extract_namer naming;
        if (rc == 0)
            rc = phase_namer_open(op, &namer, &naming, &share_err);
        if (rc == 0)
            rc = tf_fold_input_extract(op->tr, op->region, p->region_scope,
                                       op->found.instances ? &op->given : NULL,
                                       namer ? &naming : NULL, tf_fold_threads(p, team), mine,
                                       leader_ended, team, &share, &share_err);
        tf_phase_namer_free(namer);
        if (op->tr)
            tf_input_close(op->tr);
        op->tr = NULL;
    }
    /* The leader's synthetic trace asks for this rank's points in order. */
    tf_prv_synthetic_member *synthetic = tf_prv_synthetic_member_new();
    tf_fold_team_handler handler = { tf_prv_synthetic_member_call, synthetic };
    int status = synthetic ? tf_fold_team_serve(team, op ? &share : NULL, rc, &share_err,
                                                &handler, err)
                           : tf_fail(err, TF_ERR_NOMEM, "out of memory");
    tf_prv_synthetic_member_free(synthetic);
    tf_fold_input_free(&share);
    return status;
}
