/* SPDX-License-Identifier: BSD-3-Clause */
/* The synthetic workloads, as data: phases with their code location and
 * counter rates, memory streams over named objects.  docs/commands/synth.md
 * documents these tables; keep the two in step. */
#ifndef TF_SYNTH_SCENARIO_H
#define TF_SYNTH_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#define TF_SYNTH_NAMED_COUNTERS 8
#define TF_SYNTH_MAX_PHASES 64
#define TF_SYNTH_MAX_STREAMS 3
#define TF_SYNTH_MAX_OBJECTS 8

enum tf_synth_pattern { TF_PATTERN_LINEAR, TF_PATTERN_STRIDED, TF_PATTERN_RANDOM };

typedef struct tf_synth_stream {
    uint8_t  object;       /* index in the scenario's objects */
    bool     store;        /* stores, else loads */
    uint8_t  pattern;      /* enum tf_synth_pattern */
    int8_t   direction;    /* +1 up, -1 down, 0 for random */
    uint32_t stride;       /* bytes between consecutive references */
    uint32_t streams;      /* concurrent parts of the span */
    uint64_t bytes;        /* span swept per instance and thread */
} tf_synth_stream;

typedef struct tf_synth_phase {
    const char *name;      /* also the sub-region name with --nested */
    const char *routine, *file;
    uint32_t    line;
    double      share;     /* nominal fraction of the instance */
    double      rates[TF_SYNTH_NAMED_COUNTERS];   /* events/s */
    uint32_t    nstreams;
    tf_synth_stream streams[TF_SYNTH_MAX_STREAMS];
} tf_synth_phase;

typedef struct tf_synth_object {
    const char *name;      /* statics; "" for heap objects */
    const char *callsite;  /* heap objects; "" for statics */
    uint8_t     kind;      /* enum tf_object_kind */
} tf_synth_object;

/* A second kind of instance: the same phases at the same rates, but a
 * different duration and different phase shares (an iteration that also
 * does extra work), so that durations are multi-modal. */
typedef struct tf_synth_kind {
    uint32_t every;        /* instance j of a thread is of this kind when j % every == every - 1 */
    double   duration;     /* nominal duration relative to --duration */
    double   shares[TF_SYNTH_MAX_PHASES];
} tf_synth_kind;

typedef struct tf_synth_scenario {
    const char *name;
    uint32_t nphases;
    const tf_synth_phase *phases;
    uint32_t nobjects;
    const tf_synth_object *objects;
    const tf_synth_kind *second;   /* NULL: all instances are of one kind */
} tf_synth_scenario;

/* The kind (group) of instance j of a thread: 0, or 1 for the second kind. */
uint32_t tf_synth_kind_of(const tf_synth_scenario *sc, uint32_t j);
/* Phase k's nominal share of an instance of that kind. */
double tf_synth_share(const tf_synth_scenario *sc, uint32_t kind, uint32_t k);
/* Nominal duration of an instance of that kind relative to --duration. */
double tf_synth_kind_duration(const tf_synth_scenario *sc, uint32_t kind);

/* NULL when there is no scenario of that name. */
const tf_synth_scenario *tf_synth_scenario_find(const char *name);
/* "phases, flat": for messages and --help. */
const char *tf_synth_scenario_names(void);

/* Counter c's name and nominal rate in phase k; counters past the named
 * ones get generated names and rates. */
const char *tf_synth_counter_name(uint32_t c, char *buf, unsigned size);
double tf_synth_counter_rate(const tf_synth_phase *ph, uint32_t k, uint32_t c);

/* The label of an object as analyses show it: a static's name, a heap
 * object's call site. */
const char *tf_synth_object_label(const tf_synth_object *o);

#endif
