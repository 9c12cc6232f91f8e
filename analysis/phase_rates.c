/* SPDX-License-Identifier: BSD-3-Clause */
/* Rates of a phase from the fold's mean normalised counter curves: the
 * counter's mean events in [x0, x1) are mean_total · (Y(x1) − Y(x0)), Y
 * linearly interpolated on its grid; divided by the phase's mean duration
 * (x1 − x0) · duration they give events per second (MIPS for
 * instructions), divided by the instructions' events they give events per
 * instruction (IPC is instructions over cycles).  A rate that no thread
 * can reach is not given (fold/rate_check.h: the fold drops such points of
 * its curves): a phase's mean rate, from the same curves, can be too. */
#include "analysis_steps.h"

#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "fold/preempt.h"
#include "fold/rate_check.h"

static double curve_at(const tf_analysis_counter *c, double x)
{
    if (c->npoints < 2 || !c->curve)
        return NAN;
    double pos = x * (double)(c->npoints - 1);
    if (pos <= 0)
        return c->curve[0];
    if (pos >= (double)(c->npoints - 1))
        return c->curve[c->npoints - 1];
    size_t j = (size_t)pos;
    double f = pos - (double)j;
    return c->curve[j] * (1 - f) + c->curve[j + 1] * f;
}

static bool name_is(const char *name, const char *const *names)
{
    for (; *names; names++)
        if (!strcasecmp(name, *names))
            return true;
    return false;
}

/* Names by which the usual back ends and Extrae call the two counters that
 * define MIPS and IPC. */
static const char *const instructions_names[] = {
    "instructions", "PAPI_TOT_INS", "INST_RETIRED", "INST_RETIRED:ANY", "INST_RETIRED.ANY",
    "INST_RETIRED:ANY_P", "instructions:u", NULL,
};
static const char *const cycles_names[] = {
    "cycles", "cpu-cycles", "PAPI_TOT_CYC", "CPU_CLK_UNHALTED", "CPU_CLK_UNHALTED:THREAD_P",
    "UNHALTED_CORE_CYCLES", "cycles:u", NULL,
};

/* Counters whose rate is the machine's scheduling of the thread, not the
 * program: the time it ran (its rate is the CPU utilisation) and the
 * scheduler's events. */
static const char *const scheduling_names[] = {
    "task-clock", "cpu-clock", "context-switches", "cs", "cpu-migrations", "migrations", NULL,
};

/* Leaves out phase ph's rates beyond what a thread can do: a CPU-time
 * counter past TF_RATE_MAX_CPU_SHARE CPU-seconds per second, instructions
 * and cycles past TF_RATE_MAX_IPC instructions per cycle. */
static void drop_impossible(tf_analysis_phase *ph, const tf_analysis_counter *counters, size_t ncounters,
                            double seconds, size_t ins, size_t cyc)
{
    /* the CPU share said is that of the preferred CPU-time counter
     * (fold/preempt.h: task-clock before cpu-clock) */
    ph->cpu_share = NAN;
    int said_rank = -1;
    for (size_t c = 0; c < ncounters; c++) {
        const tf_analysis_counter *cc = &counters[c];
        int rank = tf_fold_cpu_time_rank(cc->name);
        if (rank < 0)
            continue;
        double events = cc->mean_total * (curve_at(cc, ph->x1) - curve_at(cc, ph->x0));
        double share = events / seconds / 1e9;
        if (said_rank < 0 || rank < said_rank) {
            ph->cpu_share = share;
            said_rank = rank;
        }
        if (share > TF_RATE_MAX_CPU_SHARE)
            ph->per_unit[c] = NAN;
    }
    ph->ipc_dropped = ins != SIZE_MAX && cyc != SIZE_MAX && ph->ipc > TF_RATE_MAX_IPC;
    if (ph->ipc_dropped) {
        ph->ipc = ph->mips = NAN;
        ph->per_unit[ins] = ph->per_unit[cyc] = NAN;
    }
}

bool tf_analysis_is_instructions(const char *name)
{
    return name_is(name, instructions_names);
}

bool tf_analysis_is_scheduling(const char *name)
{
    return name_is(name, scheduling_names);
}

int tf_analysis_phase_rates(tf_analysis *a, const tf_analysis_counter *counters, size_t ncounters,
                            tf_error *err)
{
    size_t ins = SIZE_MAX, cyc = SIZE_MAX;
    for (size_t c = 0; c < ncounters; c++) {
        if (ins == SIZE_MAX && name_is(counters[c].name, instructions_names))
            ins = c;
        else if (cyc == SIZE_MAX && name_is(counters[c].name, cycles_names))
            cyc = c;
    }
    a->per_instruction = ins != SIZE_MAX;
    for (size_t k = 0; k < a->nphases; k++) {
        tf_analysis_phase *ph = &a->phases[k];
        free(ph->per_unit);
        ph->per_unit = NULL;
        if (!ncounters)
            continue;
        ph->per_unit = malloc(ncounters * sizeof *ph->per_unit);
        if (!ph->per_unit)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for phase rates");
        double seconds = (ph->x1 - ph->x0) * a->duration_ns * 1e-9;
        double n_ins = NAN;
        if (ins != SIZE_MAX)
            n_ins = counters[ins].mean_total *
                    (curve_at(&counters[ins], ph->x1) - curve_at(&counters[ins], ph->x0));
        for (size_t c = 0; c < ncounters; c++) {
            const tf_analysis_counter *cc = &counters[c];
            double events = cc->mean_total * (curve_at(cc, ph->x1) - curve_at(cc, ph->x0));
            ph->per_unit[c] = ins != SIZE_MAX ? events / n_ins : events / seconds;
            if (c == cyc)
                ph->ipc = n_ins / events;
        }
        if (ins != SIZE_MAX)
            ph->mips = n_ins / seconds / 1e6;
        drop_impossible(ph, counters, ncounters, seconds, ins, cyc);
    }
    return 0;
}
