/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading PERF_RECORD_SAMPLE records from a perf ring buffer (the PEBS and
 * IBS back ends): the ring protocol (data_head/data_tail with the barriers
 * the ABI asks for, records split at the end of the buffer, lost-record
 * notices) and the sample layout, which depends on the event's sample_type
 * and read_format and follows the field order documented in
 * linux/perf_event.h (enum perf_event_type, PERF_RECORD_SAMPLE).
 *
 * Signal safety: tf_perf_parse_sample, tf_perf_to_tf_sample and
 * tf_perf_ring_drain allocate nothing and take no lock; a ring may be
 * drained from the sampling signal handler of the thread that owns it, or
 * from another thread, but by one reader at a time.  tf_perf_ring_init
 * allocates the scratch buffer for records split at the buffer end. */
#ifndef TF_PERF_RECORDS_H
#define TF_PERF_RECORDS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"
#include "formats/trace.h"

/* What decides the layout of an event's sample records. */
typedef struct tf_perf_layout {
    uint64_t sample_type;         /* PERF_SAMPLE_* */
    uint64_t read_format;         /* PERF_FORMAT_* (PERF_SAMPLE_READ) */
    uint64_t branch_sample_type;  /* PERF_SAMPLE_BRANCH_HW_INDEX adds a field */
    uint64_t sample_regs_user;    /* one u64 per bit set */
    uint64_t sample_regs_intr;
    uint8_t  kind;                /* enum tf_sample_kind of the event: load or store */
} tf_perf_layout;

void tf_perf_layout_from_attr(const struct perf_event_attr *attr, uint8_t kind,
                              tf_perf_layout *l);

#define TF_PERF_MAX_READ 16   /* counters of a PERF_FORMAT_GROUP read kept */

typedef struct tf_perf_read_value {
    uint64_t value, id, lost;
} tf_perf_read_value;

/* One decoded sample.  Fields absent from sample_type are 0; the pointers
 * point into the record (valid until the next record is read). */
typedef struct tf_perf_sample {
    uint64_t identifier, ip, time, addr, id, stream_id, period;
    uint32_t pid, tid, cpu;
    uint64_t read_nr;             /* counters read (group: nr; else 1) */
    uint64_t time_enabled, time_running;
    tf_perf_read_value read[TF_PERF_MAX_READ];
    uint64_t callchain_nr;
    const uint64_t *callchain;
    uint32_t raw_size;
    const void *raw;
    uint64_t branch_nr;           /* branch entries (their contents are skipped) */
    uint64_t regs_user_abi;
    const uint64_t *regs_user;
    uint64_t stack_user_size, stack_user_dyn_size;
    const uint8_t *stack_user;    /* the copy of the user stack from regs_user's sp (dyn_size valid bytes) */
    uint64_t weight;              /* WEIGHT: the u64; WEIGHT_STRUCT: var1_dw */
    uint16_t weight_var2, weight_var3;   /* WEIGHT_STRUCT only */
    uint64_t data_src, transaction;
    uint64_t regs_intr_abi;
    const uint64_t *regs_intr;
    uint64_t phys_addr, cgroup, data_page_size, code_page_size, aux_size;
} tf_perf_sample;

/* Decodes the body of a PERF_RECORD_SAMPLE (what follows its
 * perf_event_header, len bytes).  0, or -TF_ERR_FORMAT when the record is
 * shorter than its layout says.  The body must be 8-byte aligned. */
int tf_perf_parse_sample(const tf_perf_layout *l, const void *body, size_t len,
                         tf_perf_sample *out);

/* The trace record of a memory sample: kind from the data source's
 * operation when it names one (IBS samples both), else the event's kind;
 * ip, addr, weight (cycles, saturated to 32 bits), data source, level and
 * flags.  time is the perf time as is (ns on the event's clock); the caller
 * rebases it and fills the call stack.  Async-signal-safe. */
void tf_perf_to_tf_sample(const tf_perf_layout *l, const tf_perf_sample *p, tf_sample *s);

/* ---- the ring buffer ---------------------------------------------------- */

typedef struct tf_perf_ring {
    struct perf_event_mmap_page *page;   /* the first mmap'ed page */
    uint8_t  *data;                      /* the data area */
    uint64_t  size;                      /* bytes, a power of two */
    uint8_t  *scratch;                   /* one record split at the end */
} tf_perf_ring;

typedef struct tf_perf_drain_stats {
    uint64_t samples;        /* PERF_RECORD_SAMPLE handed to the callback */
    uint64_t lost;           /* samples the kernel dropped (LOST, LOST_SAMPLES) */
    uint64_t lost_notices;   /* LOST / LOST_SAMPLES records seen */
    uint64_t malformed;      /* samples shorter than their layout, skipped */
    uint64_t other;          /* other record types, skipped */
} tf_perf_drain_stats;

/* base: the mapping of 1 + 2^n pages returned by mmap on the event's fd. */
int  tf_perf_ring_init(tf_perf_ring *r, void *base, size_t mmap_len, size_t page_size,
                       tf_error *err) __attribute__((warn_unused_result));
void tf_perf_ring_fini(tf_perf_ring *r);

typedef void (*tf_perf_sample_fn)(void *ctx, const tf_perf_sample *s);

/* Consumes every record between data_tail and data_head, calling fn for
 * each sample, adding to *stats, and then publishes the new data_tail.
 * Returns the number of records consumed, or -TF_ERR_FORMAT when a record
 * header is corrupt (the ring is then emptied).  Async-signal-safe. */
long tf_perf_ring_drain(tf_perf_ring *r, const tf_perf_layout *l, tf_perf_sample_fn fn,
                        void *ctx, tf_perf_drain_stats *stats);

#endif
