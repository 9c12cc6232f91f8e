/* SPDX-License-Identifier: BSD-3-Clause */
/* Data addresses → objects on a written trace: by address and lifetime (a
 * freed block reused by a later allocation), a user region before the
 * allocations inside it, statics, the stack, unknown addresses; heap
 * objects named by call site, symbolised from the allocation stack when
 * the trace has no call-site string; families for repeated call sites
 * (temporaries of successive iterations merged, blocks alive together
 * apart), with their allocation counts; and a
 * second process with a shifted layout landing on the same objects and
 * offsets; and a random run of an allocator reusing a few slots, with user
 * regions over them, looked up against a scan of every object. */
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/objmap.h"
#include "extract/trace_names.h"
#include "extract/object_names.h"
#include "target_layout.h"

#define PIE_BASE 0x555555554000ull
#define STACK_TOP 0x7ffd00021000ull

static char target[4096], trace_path[64];

static uint32_t intern(tf_trace_out *w, const char *s)
{
    uint32_t id;
    assert_int_equal(tf_trace_out_intern(w, s, &id, NULL), 0);
    return id;
}

/* Process p: every data address shifted by p·0x5000 (ASLR). */
static void add_process(tf_trace_out *w, uint32_t p, uint64_t code_start, uint64_t code_end,
                        uint64_t return_address)
{
    tf_process_desc d = { .pid = 100 + p, .rank = -1, .executable = target, .host = "test",
                          .build_id = "" };
    uint32_t proc, thread;
    assert_int_equal(tf_trace_out_add_process(w, &d, &proc, NULL), 0);
    assert_int_equal(tf_trace_out_add_thread(w, proc, 100 + p, &thread, NULL), 0);
    uint64_t shift = p * 0x5000ull;
    tf_module m[2] = { { code_start, code_end, 0, intern(w, target), intern(w, "") },
                       { STACK_TOP - 0x21000 + shift, STACK_TOP + shift, 0, intern(w, "[stack]"),
                         intern(w, "") } };
    assert_int_equal(tf_trace_out_append_modules(w, proc, m, 2, NULL), 0);
    uint64_t first;
    assert_int_equal(tf_trace_out_append_frames(w, proc, UINT32_MAX, &return_address, 1, &first,
                                                NULL), 0);
    uint32_t none = intern(w, "");
    tf_object o[] = {
        /* a block freed at 200, its address reused at 300 */
        { 0x10000000 + shift, 4096, 100, 200, first, 1, none, none, 1, TF_OBJECT_HEAP },
        { 0x10000000 + shift, 8192, 300, TF_NOTIME, 0, 2, none, intern(w, "main.c:9"), 0,
          TF_OBJECT_HEAP },
        /* a user region wrapping an allocation */
        { 0x20000000 + shift, 1 << 20, 50, TF_NOTIME, 0, 3, intern(w, "matrix"), none, 0,
          TF_OBJECT_USER },
        { 0x20001000 + shift, 4096, 60, TF_NOTIME, 0, 4, none, intern(w, "sub.c:5"), 0,
          TF_OBJECT_HEAP },
        { 0x30000000 + shift, 64, 0, TF_NOTIME, 0, 5, intern(w, "table"), none, 0,
          TF_OBJECT_STATIC },
        /* two allocations from one call site */
        { 0x40000000 + shift, 256, 10, TF_NOTIME, 0, 6, none, intern(w, "loop.c:3"), 0,
          TF_OBJECT_HEAP },
        { 0x40001000 + shift, 512, 20, TF_NOTIME, 0, 7, none, intern(w, "loop.c:3"), 0,
          TF_OBJECT_HEAP },
        /* a temporary of three iterations, at two addresses: one family */
        { 0x50000000 + shift, 1024, 1000, 1100, 0, 8, none, intern(w, "tmp.c:7"), 0,
          TF_OBJECT_HEAP },
        { 0x50100000 + shift, 1024, 1200, 1300, 0, 9, none, intern(w, "tmp.c:7"), 0,
          TF_OBJECT_HEAP },
        { 0x50000000 + shift, 1024, 1300, 1400, 0, 10, none, intern(w, "tmp.c:7"), 0,
          TF_OBJECT_HEAP },
        /* two blocks of one site alive together, then a third after the
         * first: two families */
        { 0x60000000 + shift, 64, 1000, 2000, 0, 11, none, intern(w, "pair.c:4"), 0,
          TF_OBJECT_HEAP },
        { 0x60001000 + shift, 64, 1500, 2500, 0, 12, none, intern(w, "pair.c:4"), 0,
          TF_OBJECT_HEAP },
        { 0x60002000 + shift, 64, 2000, 3000, 0, 13, none, intern(w, "pair.c:4"), 0,
          TF_OBJECT_HEAP },
        /* small blocks of one call site alive together, apart in memory:
         * one object, laid end to end in allocation order */
        { 0x70000000 + shift, 256, 10, TF_NOTIME, first, 14, none, none, 1, TF_OBJECT_SMALL },
        { 0x70000400 + shift, 512, 11, TF_NOTIME, first, 15, none, none, 1, TF_OBJECT_SMALL },
        { 0x70000800 + shift, 256, 12, TF_NOTIME, first, 16, none, none, 1, TF_OBJECT_SMALL },
        /* allocated between two of them (the same time, a later id): the
         * blocks after it keep their own call site, not its */
        { 0x80000000 + shift, 4096, 10, TF_NOTIME, 0, 17, none, intern(w, "between.c:2"), 0,
          TF_OBJECT_HEAP },
    };
    assert_int_equal(tf_trace_out_append_objects(w, proc, o, sizeof o / sizeof *o, NULL), 0);
}

static const char *lookup(tf_analysis_objmap *m, tf_analysis *a, uint64_t addr, uint64_t t,
                          uint64_t *offset)
{
    uint32_t object;
    assert_int_equal(tf_analysis_objmap_lookup(m, a, addr, t, &object, offset, NULL), 0);
    return a->objects[object].name;
}

static void objects_by_address_and_lifetime(void **state)
{
    fx_target_layout layout;
    assert_int_equal(fx_target_layout_read(target, PIE_BASE, &layout), 0);
    uint64_t code_start = layout.start, code_end = layout.end, outer = layout.outer;
    tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "test", .command_line = "test",
                           .producer = "test_objmap" };
    tf_trace_out *w;
    tf_error err;
    if (tf_trace_out_create(&w, trace_path, &meta, 0, &err))
        fail_msg("%s", err.msg);
    add_process(w, 0, code_start, code_end, outer + 8);
    add_process(w, 1, code_start, code_end, outer + 8);
    assert_int_equal(tf_trace_out_close(w, NULL), 0);
    tf_trace *tr;
    assert_int_equal(tf_trace_open(&tr, trace_path, NULL), 0);
    tf_analysis a = { 0 };
    /* the run's names (extract/trace_names.h): each process's symboliser
     * and objects' names made once, the same ones at every later call */
    tf_trace_names *tn;
    assert_int_equal(tf_trace_names_create(&tn, tr, NULL, NULL, NULL), 0);
    for (uint32_t p = 0; p < 2; p++) {
        tf_symbolizer *sym, *again;
        tf_analysis_objmap *m;
        const tf_object_naming *naming, *named_again;
        assert_int_equal(tf_trace_names_symbolizer(tn, p, &sym, NULL), 0);
        assert_int_equal(tf_trace_names_objects(tn, p, &naming, NULL), 0);
        assert_int_equal(tf_trace_names_symbolizer(tn, p, &again, NULL), 0);
        assert_int_equal(tf_trace_names_objects(tn, p, &named_again, NULL), 0);
        assert_non_null(sym);
        assert_ptr_equal(sym, again);
        assert_ptr_equal(naming, named_again);
        assert_int_equal(tf_analysis_objmap_create(&m, &a, tr, p, naming, NULL), 0);
        uint64_t shift = p * 0x5000ull, off;
        const char *name = lookup(m, &a, 0x10000010 + shift, 150, &off);
        assert_non_null(strstr(name, "symbolize_target.c:"));
        assert_int_equal(off, 16);
        assert_string_equal(lookup(m, &a, 0x10000010 + shift, 350, &off), "main.c:9");
        assert_int_equal(off, 16);
        assert_string_equal(lookup(m, &a, 0x10000010 + shift, 250, &off), "[unknown]");
        assert_int_equal(off, 0x10000010 + shift);
        assert_string_equal(lookup(m, &a, 0x20001010 + shift, 500, &off), "matrix");
        assert_int_equal(off, 0x1010);
        assert_string_equal(lookup(m, &a, 0x30000008 + shift, 500, &off), "table");
        assert_int_equal(off, 8);
        assert_string_equal(lookup(m, &a, 0x40000010 + shift, 500, &off), "loop.c:3");
        assert_string_equal(lookup(m, &a, 0x40001010 + shift, 500, &off), "loop.c:3#2");
        assert_int_equal(off, 16);
        assert_string_equal(lookup(m, &a, STACK_TOP - 64 + shift, 500, &off), "[stack]");
        assert_int_equal(off, 0x21000 - 64);
        assert_string_equal(lookup(m, &a, 0x50000020 + shift, 1050, &off), "tmp.c:7");
        assert_int_equal(off, 32);
        assert_string_equal(lookup(m, &a, 0x50100020 + shift, 1250, &off), "tmp.c:7");
        assert_int_equal(off, 32);
        assert_string_equal(lookup(m, &a, 0x50000020 + shift, 1300, &off), "tmp.c:7");
        assert_string_equal(lookup(m, &a, 0x50000020 + shift, 1150, &off), "[unknown]");
        assert_string_equal(lookup(m, &a, 0x60000008 + shift, 1800, &off), "pair.c:4");
        assert_string_equal(lookup(m, &a, 0x60001008 + shift, 1800, &off), "pair.c:4#2");
        assert_string_equal(lookup(m, &a, 0x60002008 + shift, 2200, &off), "pair.c:4");
        assert_int_equal(off, 8);
        const char *rows = lookup(m, &a, 0x70000010 + shift, 500, &off);
        assert_non_null(strstr(rows, "symbolize_target.c:"));
        assert_null(strchr(rows, '#'));
        assert_int_equal(off, 16);
        assert_string_equal(lookup(m, &a, 0x70000410 + shift, 500, &off), rows);
        assert_int_equal(off, 256 + 16);
        assert_string_equal(lookup(m, &a, 0x70000810 + shift, 500, &off), rows);
        assert_int_equal(off, 768 + 16);
        assert_string_equal(lookup(m, &a, 0x80000010 + shift, 500, &off), "between.c:2");
        tf_analysis_objmap_free(m);
    }
    tf_trace_names_free(tn);
    /* the second process added no object: the same thirteen (twelve and
     * the stack) plus [unknown]; the families count the allocations of
     * both */
    assert_int_equal(a.nobjects, 14);
    for (size_t i = 0; i < a.nobjects; i++) {
        if (a.objects[i].kind == TF_OBJECT_SMALL) {   /* per process, not summed */
            assert_int_equal(a.objects[i].allocations, 6);
            assert_int_equal(a.objects[i].size, 1024);
        }
        if (!strcmp(a.objects[i].name, "tmp.c:7"))
            assert_int_equal(a.objects[i].allocations, 6);
        if (!strcmp(a.objects[i].name, "pair.c:4"))
            assert_int_equal(a.objects[i].allocations, 4);
    }
    tf_analysis_clear(&a);
    tf_trace_close(tr);
    unlink(trace_path);
}

/* A random run: 3000 allocations in 48 slots of 4 KiB (an allocator
 * reusing addresses: blocks alive together never overlap), a few never
 * freed, from 9 call sites; 6 user regions of distinct sizes over the
 * slots.  Every lookup must give what a scan of all objects gives: the
 * user region first, then the smallest block alive at that time (the
 * alloc time included, the free time not). */
static void random_run_against_a_scan(void **state)
{
    (void)state;
    enum { SLOTS = 48, ALLOCS = 3000, USERS = 6, QUERIES = 20000 };
    const uint64_t base = 0x90000000ull, slot_bytes = 4096;
    tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "test", .command_line = "test",
                           .producer = "test_objmap" };
    tf_trace_out *w;
    assert_int_equal(tf_trace_out_create(&w, trace_path, &meta, 0, NULL), 0);
    tf_process_desc d = { .pid = 7, .rank = -1, .executable = target, .host = "test",
                          .build_id = "" };
    uint32_t proc, thread;
    assert_int_equal(tf_trace_out_add_process(w, &d, &proc, NULL), 0);
    assert_int_equal(tf_trace_out_add_thread(w, proc, 7, &thread, NULL), 0);
    static tf_object o[ALLOCS + USERS];
    uint32_t none = intern(w, ""), site[9];
    for (int k = 0; k < 9; k++) {
        char name[32];
        snprintf(name, sizeof name, "site%d.c:%d", k, k + 1);
        site[k] = intern(w, name);
    }
    int holder[SLOTS];   /* the block in each slot, -1 none */
    for (int k = 0; k < SLOTS; k++)
        holder[k] = -1;
    srand(12345);
    uint64_t t = 100;
    size_t n = 0, kept = 0;
    while (n < ALLOCS) {
        t += 1 + (uint64_t)(rand() % 20);
        int k = rand() % SLOTS;
        if (holder[k] >= 0 && o[holder[k]].free_time == TF_NOTIME)
            continue;   /* kept to the end: its slot stays taken */
        uint64_t start = base + (uint64_t)k * slot_bytes + (uint64_t)(rand() % 8) * 16;
        uint64_t size = 16 + (uint64_t)(rand() % (int)(slot_bytes - 16));
        if (start + size > base + (uint64_t)(k + 1) * slot_bytes)
            size = base + (uint64_t)(k + 1) * slot_bytes - start;
        /* most freed after a while (the slot free again from then on: the
         * allocator reuses it), a few kept to the end */
        bool keep = kept < 10 && rand() % 100 == 0;
        kept += keep;
        uint64_t free_time = keep ? TF_NOTIME : t + 1 + (uint64_t)(rand() % 300);
        if (holder[k] >= 0 && o[holder[k]].free_time > t)
            continue;   /* still alive: another slot */
        o[n] = (tf_object){ start, size, t, free_time, 0, (uint32_t)n + 1, none,
                            site[rand() % 9], 0, TF_OBJECT_HEAP };
        holder[k] = (int)n++;
    }
    uint64_t end = t + 500;
    for (int u = 0; u < USERS; u++, n++) {
        uint64_t a0 = 50 + (uint64_t)(rand() % (int)(end / 2));
        o[n] = (tf_object){ base + (uint64_t)(u * 7) * slot_bytes + 100,
                            (uint64_t)(u + 3) * slot_bytes + (uint64_t)u, a0,
                            u % 2 ? a0 + (end / 3) : TF_NOTIME, 0, (uint32_t)n + 1,
                            site[u], none, 0, TF_OBJECT_USER };
    }
    assert_int_equal(tf_trace_out_append_objects(w, proc, o, n, NULL), 0);
    assert_int_equal(tf_trace_out_close(w, NULL), 0);
    tf_trace *tr;
    assert_int_equal(tf_trace_open(&tr, trace_path, NULL), 0);
    tf_object_naming naming;
    assert_int_equal(tf_object_names(tr, 0, NULL, NULL, &naming, NULL), 0);
    tf_analysis a = { 0 };
    tf_analysis_objmap *m;
    assert_int_equal(tf_analysis_objmap_create(&m, &a, tr, 0, &naming, NULL), 0);
    const tf_process *p = tf_trace_process(tr, 0);
    for (int q = 0; q < QUERIES; q++) {
        uint64_t addr = base - 64 + (uint64_t)(rand() % (int)(SLOTS * slot_bytes + 128));
        /* a quarter of the times exactly an event's */
        const tf_object *e = &p->objects[rand() % (int)p->nobjects];
        uint64_t when = rand() % 4 ? (uint64_t)(rand() % (int)end)
                        : rand() % 2 || e->free_time == TF_NOTIME ? e->alloc_time : e->free_time;
        const tf_object *best = NULL;
        size_t best_i = 0;
        for (size_t i = 0; i < p->nobjects; i++) {
            const tf_object *c = &p->objects[i];
            if (addr - c->start >= c->size || when < c->alloc_time ||
                (c->free_time != TF_NOTIME && when >= c->free_time))
                continue;
            bool user = c->kind == TF_OBJECT_USER;
            if (!best || (user && best->kind != TF_OBJECT_USER) ||
                (user == (best->kind == TF_OBJECT_USER) && c->size < best->size)) {
                best = c;
                best_i = i;
            }
        }
        uint32_t object;
        uint64_t off;
        bool found = tf_analysis_objmap_find(m, addr, when, &object, &off);
        if (!best) {
            if (found)
                fail_msg("%#llx at %llu: found %s, no object holds it", (unsigned long long)addr,
                         (unsigned long long)when, a.objects[object].name);
            continue;
        }
        if (!found || strcmp(a.objects[object].name, naming.names[best_i]) ||
            off != addr - best->start)
            fail_msg("%#llx at %llu: %s+%llu, expected %s+%llu", (unsigned long long)addr,
                     (unsigned long long)when, found ? a.objects[object].name : "nothing",
                     (unsigned long long)off, naming.names[best_i],
                     (unsigned long long)(addr - best->start));
    }
    tf_analysis_objmap_free(m);
    tf_object_naming_free(&naming);
    tf_analysis_clear(&a);
    tf_trace_close(tr);
    unlink(trace_path);
}

int main(void)
{
    const char *bld = getenv("top_builddir");
    snprintf(target, sizeof target, "%s/tests/analysis/symbolize_target", bld ? bld : ".");
    snprintf(trace_path, sizeof trace_path, "/tmp/tf-objmap-%ld.h5", (long)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(objects_by_address_and_lifetime),
        cmocka_unit_test(random_run_against_a_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
