/* SPDX-License-Identifier: BSD-3-Clause */
#include "perf_records.h"

#include <stdlib.h>
#include <string.h>

#include "data_source.h"

/* ---- sample layout ------------------------------------------------------ */

void tf_perf_layout_from_attr(const struct perf_event_attr *attr, uint8_t kind,
                              tf_perf_layout *l)
{
    *l = (tf_perf_layout){
        .sample_type = attr->sample_type, .read_format = attr->read_format,
        .branch_sample_type = attr->branch_sample_type,
        .sample_regs_user = attr->sample_regs_user,
        .sample_regs_intr = attr->sample_regs_intr, .kind = kind,
    };
}

/* Bounds-checked reader over one record body. */
typedef struct tf_cursor {
    const uint8_t *p, *end;
    bool bad;
} tf_cursor;

static const void *take(tf_cursor *c, uint64_t n)
{
    if (c->bad || n > (uint64_t)(c->end - c->p)) {
        c->bad = true;
        return NULL;
    }
    const void *at = c->p;
    c->p += n;
    return at;
}

static uint64_t take_u64(tf_cursor *c)
{
    uint64_t v = 0;
    const void *at = take(c, sizeof v);
    if (at)
        memcpy(&v, at, sizeof v);
    return v;
}

static uint32_t take_u32(tf_cursor *c)
{
    uint32_t v = 0;
    const void *at = take(c, sizeof v);
    if (at)
        memcpy(&v, at, sizeof v);
    return v;
}

static const uint64_t *take_u64s(tf_cursor *c, uint64_t n)
{
    if (n > UINT64_MAX / 8) {
        c->bad = true;
        return NULL;
    }
    return take(c, n * 8);
}

/* struct read_format (linux/perf_event.h, PERF_FORMAT_*). */
static void parse_read(tf_cursor *c, uint64_t rf, tf_perf_sample *s)
{
    bool group = rf & PERF_FORMAT_GROUP;
    uint64_t nr = 1;
    tf_perf_read_value first = { 0 };
    if (group)
        nr = take_u64(c);
    else
        first.value = take_u64(c);
    if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
        s->time_enabled = take_u64(c);
    if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
        s->time_running = take_u64(c);
    s->read_nr = nr;
    for (uint64_t i = 0; i < nr && !c->bad; i++) {
        tf_perf_read_value v = first;
        if (group)
            v.value = take_u64(c);
        if (rf & PERF_FORMAT_ID)
            v.id = take_u64(c);
        if (rf & PERF_FORMAT_LOST)
            v.lost = take_u64(c);
        if (i < TF_PERF_MAX_READ)
            s->read[i] = v;
    }
}

/* { u64 abi; u64 regs[weight(mask)]; }, regs absent when abi is NONE. */
static const uint64_t *parse_regs(tf_cursor *c, uint64_t mask, uint64_t *abi)
{
    *abi = take_u64(c);
    if (*abi == PERF_SAMPLE_REGS_ABI_NONE)
        return NULL;
    return take_u64s(c, (uint64_t)__builtin_popcountll(mask));
}

int tf_perf_parse_sample(const tf_perf_layout *l, const void *body, size_t len,
                         tf_perf_sample *s)
{
    const uint64_t t = l->sample_type;
    tf_cursor c = { .p = body, .end = (const uint8_t *)body + len };
    memset(s, 0, sizeof *s);
    /* The order below is the ABI's (PERF_RECORD_SAMPLE). */
    if (t & PERF_SAMPLE_IDENTIFIER)
        s->identifier = take_u64(&c);
    if (t & PERF_SAMPLE_IP)
        s->ip = take_u64(&c);
    if (t & PERF_SAMPLE_TID) {
        s->pid = take_u32(&c);
        s->tid = take_u32(&c);
    }
    if (t & PERF_SAMPLE_TIME)
        s->time = take_u64(&c);
    if (t & PERF_SAMPLE_ADDR)
        s->addr = take_u64(&c);
    if (t & PERF_SAMPLE_ID)
        s->id = take_u64(&c);
    if (t & PERF_SAMPLE_STREAM_ID)
        s->stream_id = take_u64(&c);
    if (t & PERF_SAMPLE_CPU) {
        s->cpu = take_u32(&c);
        take_u32(&c);   /* res */
    }
    if (t & PERF_SAMPLE_PERIOD)
        s->period = take_u64(&c);
    if (t & PERF_SAMPLE_READ)
        parse_read(&c, l->read_format, s);
    if (t & PERF_SAMPLE_CALLCHAIN) {
        s->callchain_nr = take_u64(&c);
        s->callchain = take_u64s(&c, s->callchain_nr);
    }
    if (t & PERF_SAMPLE_RAW) {
        /* size counts the padding that realigns what follows to 8 bytes. */
        s->raw_size = take_u32(&c);
        s->raw = take(&c, s->raw_size);
    }
    if (t & PERF_SAMPLE_BRANCH_STACK) {
        s->branch_nr = take_u64(&c);
        if (l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
            take_u64(&c);   /* hw_idx */
        if (s->branch_nr > UINT64_MAX / 3)
            c.bad = true;
        else
            take_u64s(&c, s->branch_nr * 3);   /* { from, to, flags } */
    }
    if (t & PERF_SAMPLE_REGS_USER)
        s->regs_user = parse_regs(&c, l->sample_regs_user, &s->regs_user_abi);
    if (t & PERF_SAMPLE_STACK_USER) {
        s->stack_user_size = take_u64(&c);
        s->stack_user = take(&c, s->stack_user_size);
        if (s->stack_user_size)
            s->stack_user_dyn_size = take_u64(&c);
    }
    if (t & PERF_SAMPLE_WEIGHT_TYPE) {
        uint64_t w = take_u64(&c);
        if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
            /* union perf_sample_weight, little-endian: var1_dw, var2_w, var3_w */
            s->weight = w & 0xffffffffu;
            s->weight_var2 = (uint16_t)(w >> 32);
            s->weight_var3 = (uint16_t)(w >> 48);
        } else {
            s->weight = w;
        }
    }
    if (t & PERF_SAMPLE_DATA_SRC)
        s->data_src = take_u64(&c);
    if (t & PERF_SAMPLE_TRANSACTION)
        s->transaction = take_u64(&c);
    if (t & PERF_SAMPLE_REGS_INTR)
        s->regs_intr = parse_regs(&c, l->sample_regs_intr, &s->regs_intr_abi);
    if (t & PERF_SAMPLE_PHYS_ADDR)
        s->phys_addr = take_u64(&c);
    if (t & PERF_SAMPLE_CGROUP)
        s->cgroup = take_u64(&c);
    if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
        s->data_page_size = take_u64(&c);
    if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
        s->code_page_size = take_u64(&c);
    if (t & PERF_SAMPLE_AUX) {
        s->aux_size = take_u64(&c);
        take(&c, s->aux_size);
    }
    return c.bad ? -TF_ERR_FORMAT : 0;
}

void tf_perf_to_tf_sample(const tf_perf_layout *l, const tf_perf_sample *p, tf_sample *s)
{
    tf_mem_source src;
    tf_mem_source_decode(p->data_src, &src);
    s->kind = src.op == TF_MEM_OP_LOAD    ? TF_SAMPLE_LOAD
            : src.op == TF_MEM_OP_STORE   ? TF_SAMPLE_STORE
                                          : l->kind;
    s->time = p->time;
    s->ip = p->ip;
    s->addr = p->addr;
    s->data_source = p->data_src;
    s->weight = p->weight > UINT32_MAX ? UINT32_MAX : (uint32_t)p->weight;
    s->level = src.level;
    s->flags = tf_mem_source_flags(&src);
}

/* ---- ring buffer ---------------------------------------------------------- */

/* The largest record: perf_event_header.size is a u16. */
#define TF_PERF_MAX_RECORD 65536

int tf_perf_ring_init(tf_perf_ring *r, void *base, size_t mmap_len, size_t page_size,
                      tf_error *err)
{
    memset(r, 0, sizeof *r);
    r->page = base;
    uint64_t offset = r->page->data_offset, size = r->page->data_size;
    if (size == 0) {   /* kernels before 4.1 leave them 0: data follows the first page */
        offset = page_size;
        size = mmap_len > page_size ? mmap_len - page_size : 0;
    }
    if (size == 0 || (size & (size - 1)) != 0 || offset + size > mmap_len)
        return tf_fail(err, TF_ERR_USAGE,
                       "perf ring buffer: data area of %llu bytes at %llu in a %zu-byte "
                       "mapping (expected a power of two inside it)",
                       (unsigned long long)size, (unsigned long long)offset, mmap_len);
    r->scratch = malloc(TF_PERF_MAX_RECORD);
    if (!r->scratch)
        return tf_fail(err, TF_ERR_NOMEM, "perf ring buffer scratch");
    r->data = (uint8_t *)base + offset;
    r->size = size;
    return 0;
}

void tf_perf_ring_fini(tf_perf_ring *r)
{
    free(r->scratch);
    r->scratch = NULL;
}

/* Copies len bytes at ring offset off, wrapping at the end. */
static void copy_out(const tf_perf_ring *r, uint64_t off, void *dst, size_t len)
{
    size_t first = r->size - off < len ? (size_t)(r->size - off) : len;
    memcpy(dst, r->data + off, first);
    memcpy((uint8_t *)dst + first, r->data, len - first);
}

/* Record bodies (linux/perf_event.h, enum perf_event_type):
 * PERF_RECORD_LOST { header; u64 id; u64 lost; sample_id }
 * PERF_RECORD_LOST_SAMPLES { header; u64 lost; sample_id } */
static uint64_t u64_at(const uint8_t *rec, size_t size, size_t off)
{
    uint64_t v = 0;
    if (off + sizeof v <= size)
        memcpy(&v, rec + off, sizeof v);
    return v;
}

long tf_perf_ring_drain(tf_perf_ring *r, const tf_perf_layout *l, tf_perf_sample_fn fn,
                        void *ctx, tf_perf_drain_stats *stats)
{
    /* ABI: read data_head, then smp_rmb() before reading the data. */
    uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = r->page->data_tail;
    long n = 0, rc = 0;
    while (head - tail >= sizeof(struct perf_event_header)) {
        uint64_t off = tail & (r->size - 1);
        struct perf_event_header h;
        copy_out(r, off, &h, sizeof h);
        if (h.size < sizeof h || h.size > head - tail || (h.size & 7) != 0) {
            tail = head;   /* lost sync: nothing after this can be trusted */
            rc = -TF_ERR_FORMAT;
            break;
        }
        const uint8_t *rec = r->data + off;
        if (off + h.size > r->size) {   /* split at the end of the buffer */
            copy_out(r, off, r->scratch, h.size);
            rec = r->scratch;
        }
        tf_perf_sample s;
        switch (h.type) {
        case PERF_RECORD_SAMPLE:
            if (tf_perf_parse_sample(l, rec + sizeof h, h.size - sizeof h, &s) == 0) {
                stats->samples++;
                fn(ctx, &s);
            } else {
                stats->malformed++;
            }
            break;
        case PERF_RECORD_LOST:
            stats->lost += u64_at(rec, h.size, sizeof h + 8);
            stats->lost_notices++;
            break;
        case PERF_RECORD_LOST_SAMPLES:
            stats->lost += u64_at(rec, h.size, sizeof h);
            stats->lost_notices++;
            break;
        default:
            stats->other++;
            break;
        }
        tail += h.size;
        n++;
    }
    /* ABI: smp_mb() after reading the data, before writing data_tail. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
    return rc ? rc : n;
}
