/* SPDX-License-Identifier: BSD-3-Clause */
/* The advice rules (docs/algorithms.md, "Advice"). */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advice.h"
#include "analysis_steps.h"
#include "walk_passes.h"
#include "common/tf_array.h"
#include "formats/trace.h"

/* The advice found so far. */
struct found {
    tf_analysis_advice *v;
    size_t n, cap;
};

static tf_analysis_advice *next_slot(struct found *f)
{
    tf_analysis_advice *v = tf_array_room(f->v, f->n, &f->cap, sizeof *v, 8);
    if (!v)
        return NULL;
    f->v = v;
    return &f->v[f->n];
}

/* What every rule is given. */
struct rules {
    const tf_analysis *a;
    const tf_analysis_params *p;
    const tf_analysis_machine *m;     /* NULL: no profile */
    struct found out;
};

/* Memory samples of the analysis in phase ph's span. */
static size_t phase_memory_samples(const tf_analysis *a, const tf_analysis_phase *ph)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nsamples; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        n += s->kind != TF_SAMPLE_TIMER && s->x >= ph->x0 && s->x < ph->x1;
    }
    return n;
}

static double span_of(const tf_analysis_phase *ph)
{
    return ph->x1 - ph->x0;
}

/* The part of a reference's time a faster level can save at most: a load
 * costs at least an L1 hit, and at most (a miss to memory) what the profile
 * measured beyond the caches.  1 without a profile: the bound is then the
 * references' whole time. */
static double latency_factor(const tf_analysis_machine *m)
{
    if (!m || !(m->hit_ns[0] > 0) || !(m->memory_ns > m->hit_ns[0]))
        return 1;
    return 1 - m->hit_ns[0] / m->memory_ns;
}

/* A stream's share of its phase's memory samples, or 0 when its phase is
 * shorter than the rules look at. */
static double stream_share(const tf_analysis *a, const tf_analysis_stream *st, size_t *mem)
{
    if (st->phase >= a->nphases || st->object >= a->nobjects)
        return 0;
    const tf_analysis_phase *ph = &a->phases[st->phase];
    if (span_of(ph) < TF_ADVICE_MIN_PHASE_SPAN || !(*mem = phase_memory_samples(a, ph)))
        return 0;
    double share = (double)st->samples / (double)*mem;
    return share > 1 ? 1 : share;
}

static double kib(double bytes)
{
    return bytes / 1024;
}

/* A block's size as evidence: bytes below a KiB, where "0.2 KiB" would
 * hide a 256-byte row. */
static void block_size_text(char *buf, size_t size, double bytes)
{
    if (bytes < 1024)
        snprintf(buf, size, "%.0f B", bytes);
    else
        snprintf(buf, size, "%.1f KiB", kib(bytes));
}

static int add(struct rules *r, uint32_t phase, uint32_t object, const char *finding,
               const char *suggestion, double gain, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static int add(struct rules *r, uint32_t phase, uint32_t object, const char *finding,
               const char *suggestion, double gain, const char *fmt, ...)
{
    tf_analysis_advice *s = next_slot(&r->out);
    if (!s)
        return -1;
    *s = (tf_analysis_advice){ .phase = phase, .object = object, .expected_gain = gain };
    snprintf(s->finding, sizeof s->finding, "%s", finding);
    snprintf(s->suggestion, sizeof s->suggestion, "%s", suggestion);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->evidence, sizeof s->evidence, fmt, ap);
    va_end(ap);
    r->out.n++;
    return 0;
}

/* Column walk -> loop interchange.  The stride says each reference touches
 * a line of its own (H&P ch. 5.2, "loop interchange"); the time those
 * references take is at most the phase's span times their share of the
 * phase's memory samples (a sample lands on an instruction in proportion to
 * the time it takes), which bounds what reordering them can save. */
static int column_walk(struct rules *r, const tf_analysis_stream *st)
{
    uint64_t line = r->p->line_bytes;
    size_t mem = 0;
    if (st->pattern != TF_ANALYSIS_PATTERN_STRIDED || st->stride < TF_ADVICE_STRIDE_LINES * line)
        return 0;
    double share = stream_share(r->a, st, &mem);
    if (share < TF_ADVICE_MIN_STREAM_SHARE)
        return 0;
    double span = span_of(&r->a->phases[st->phase]);
    return add(r, st->phase, st->object, "column walk",
               "loop interchange (or a transposed layout) so that the innermost loop walks the "
               "object contiguously", span * share,
               "stride %llu B (%llu cache lines; from the %s); %.0f %% of the phase's %zu memory "
               "samples; phase %.1f %% of the iteration",
               (unsigned long long)st->stride, (unsigned long long)(st->stride / line),
               st->stride_from == TF_ANALYSIS_STRIDE_CODE ? "code" : "samples", 100 * share, mem,
               100 * span);
}

/* Bytes a stream touches per thread and iteration: what it swept or
 * spanned, no more than its object. */
static double stream_bytes(const tf_analysis *a, const tf_analysis_stream *st)
{
    double size = (double)a->objects[st->object].size;
    return size > 0 && size < st->bytes ? size : st->bytes;
}

/* A walk the code steps by a constant stride whose sampled offsets show no
 * order at the fold's resolution: the phase walks the object again and
 * again (docs/algorithms.md, "Strides from the code"). */
static bool walked_again(const tf_analysis_stream *st, double ordered_r2)
{
    return st->stride_from == TF_ANALYSIS_STRIDE_CODE && st->ordered_r2 < ordered_r2 &&
           st->pattern != TF_ANALYSIS_PATTERN_SPARSE && st->pattern != TF_ANALYSIS_PATTERN_FIXED;
}

/* Bytes of the lines a walk over `span` bytes with `stride` touches: all
 * of them for a stride up to a line, else one line a stride.  A column
 * walk (a Fortran loop whose inner index is the second, a C loop whose
 * inner index is the first) spans the whole array each pass but touches
 * a line of each column: the next pass uses the same lines, at a reuse
 * distance of those lines, not of the array. */
static double lines_touched(double span, uint64_t stride, uint64_t line)
{
    return stride > line && line > 0 ? span * (double)line / (double)stride : span;
}

/* A stream of the phase, with what the reuse distance needs of it. */
struct walk {
    const tf_analysis_stream *st;
    double         span;        /* bytes: swept or spanned, at most the object */
    double         footprint;   /* bytes of the lines a pass touches: the span, or one
                                   line a stride when the stride is longer */
    bool           again;       /* walked again (walked_again) */
    tf_walk_passes passes;      /* of a walk walked again */
};

/* Bytes stream w touches while another walk makes one pass of `pass_ns`,
 * in a phase of `phase_ns`: all its footprint when it too is walked again
 * faster than the sampling (the two cannot be told apart) or spans its
 * range at random; the part of a slower walk's pass, or of an ordered
 * sweep, that fits in that time. */
static double touched_during(const struct walk *w, double pass_ns, double phase_ns)
{
    double part;
    if (w->again)
        part = w->passes.pass_ns > 0 ? pass_ns / w->passes.pass_ns : 1;
    else if (w->st->pattern == TF_ANALYSIS_PATTERN_RANDOM)
        part = 1;
    else
        part = pass_ns / phase_ns;
    return w->footprint * (part < 1 ? part : 1);
}

/* Share of phase ph's memory samples on the source lines where object o
 * is referenced (its routine's, when its samples have no line): the
 * loop's references, which wait for o's loads whether or not a sample
 * lands on those loads.  *mem gets the phase's memory samples. */
static double loop_share(const tf_analysis *a, const tf_analysis_phase *ph, uint32_t o,
                         size_t *mem)
{
    enum { MAX_LINES = 32 };
    struct code_line { uint32_t routine, line; } lines[MAX_LINES];
    size_t nlines = 0, in_loop = 0;
    size_t lo = tf_analysis_lower_index(a, ph->x0), hi = tf_analysis_end_index(a, ph->x1);
    for (size_t i = lo; i < hi && nlines < MAX_LINES; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->kind == TF_SAMPLE_TIMER || s->object != o)
            continue;
        size_t j = 0;
        while (j < nlines && (lines[j].routine != s->routine || lines[j].line != s->line))
            j++;
        if (j == nlines)
            lines[nlines++] = (struct code_line){ s->routine, s->line };
    }
    *mem = 0;
    for (size_t i = lo; i < hi; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->kind == TF_SAMPLE_TIMER)
            continue;
        ++*mem;
        for (size_t j = 0; j < nlines; j++)
            if (lines[j].routine == s->routine && (lines[j].line == s->line || !lines[j].line)) {
                in_loop++;
                break;
            }
    }
    return *mem ? (double)in_loop / (double)*mem : 0;
}

/* The largest level from L2 on that `bytes` exceed, -1 when none. */
static int level_exceeded(const tf_analysis_machine *m, double bytes)
{
    int level = -1;
    for (unsigned l = 1; l < m->nlevels; l++)
        if (m->cache_bytes[l] > 0 && bytes > m->cache_bytes[l])
            level = (int)l;
    return level;
}

/* ns per line of a sequential walk served from beyond cache level l:
 * the profile's line walk at its largest size above that cache and at
 * most `bytes` (the reuse distance); 0 when it walked none. */
static double line_walk_beyond(const tf_analysis_machine *m, int l, double bytes)
{
    double ns = 0;
    for (unsigned i = 0; i < m->nline_walk; i++)
        if (m->line_walk_bytes[i] > m->cache_bytes[l] && m->line_walk_bytes[i] <= bytes)
            ns = m->line_walk_ns[i];
    return ns;
}

/* What the rule measured of one walk walked again. */
struct reuse {
    const struct walk *w;
    double pass_ns;        /* its pass, measured; 0: faster than the sampling */
    double distance, others;   /* bytes between two uses of a line; of them, other streams' */
    int    level;
    double share;          /* its loop's share of the phase's memory samples */
    size_t mem;
    double line_ns;        /* resolved passes: a line from beyond the level (line walk) */
    double fetch_share;    /* resolved passes: of a pass, fetching the footprint at that pace */
};

/* Reuse distance past a cache level -> blocking (H&P ch. 5.2,
 * "blocking"; docs/algorithms.md, "Reuse distance past a cache").  An
 * object walked again and again uses each line of its footprint at least
 * once a pass: between two uses the program touches that footprint and
 * what the phase's other streams touch during a pass.  Past a cache,
 * every pass brings the footprint in again from beyond it.  A pass
 * shorter than the sampling interval (walk_passes.h) is known to be no
 * longer than that: what the others touch meanwhile is not known to be
 * more than nothing, and its reuse distance is its footprint alone (a
 * 256-byte vector used for every row of a matrix is not past a cache,
 * whatever the rows stream in an interval).  A longer one, which the
 * samples resolve, may use each line
 * many times a pass (a blocked product's output, walked once per tile),
 * and counts only when fetching the footprint from beyond the level, at
 * the pace of the profile's line walk, takes TF_ADVICE_MIN_FETCH_SHARE
 * of a pass or more. */
static bool reuse_of(struct rules *r, uint32_t k, const struct walk *w, size_t nw,
                     size_t i, struct reuse *out)
{
    const tf_analysis *a = r->a;
    const tf_analysis_machine *m = r->m;
    const tf_analysis_phase *ph = &a->phases[k];
    double phase_ns = span_of(ph) * a->duration_ns;
    bool resolved = w[i].passes.pass_ns > 0;
    /* passes not timed, and a trend the fold sees (a blocked product's
     * tiles one after the other: R2 of 0.85 from 10 samples, 0.86 from
     * 17): its passes may be local, over far less than the span, which
     * is then no evidence of their footprint */
    if (!resolved && w[i].st->ordered_r2 >= r->p->trend_r2)
        return false;
    *out = (struct reuse){ .w = &w[i], .pass_ns = w[i].passes.pass_ns };
    for (size_t j = 0; resolved && j < nw; j++)
        if (j != i)
            out->others += touched_during(&w[j], out->pass_ns, phase_ns);
    out->distance = w[i].footprint + out->others;
    if ((out->level = level_exceeded(m, out->distance)) < 0)
        return false;
    out->share = loop_share(a, ph, w[i].st->object, &out->mem);
    if (out->share < TF_ADVICE_MIN_STREAM_SHARE)
        return false;
    if (!resolved)
        return true;
    out->line_ns = line_walk_beyond(m, out->level, out->distance);
    out->fetch_share = w[i].footprint / (double)r->p->line_bytes * out->line_ns / out->pass_ns;
    return out->fetch_share >= TF_ADVICE_MIN_FETCH_SHARE;
}

static int reuse_distance(struct rules *r, uint32_t k, struct walk *w)
{
    const tf_analysis *a = r->a;
    const tf_analysis_machine *m = r->m;
    const tf_analysis_phase *ph = &a->phases[k];
    double span = span_of(ph);
    if (span < TF_ADVICE_MIN_PHASE_SPAN || !(a->duration_ns > 0))
        return 0;
    size_t nw = 0;
    uint64_t elem = 0;
    bool any = false;
    tf_error e;   /* out of memory only, which the caller reports */
    double interval;   /* the sampler's, whose aliases the passes' timing settles */
    if (tf_walk_sampling_interval(a, k, &interval, &e) < 0)
        return -1;
    for (size_t s = 0; s < a->nstreams; s++) {
        const tf_analysis_stream *st = &a->streams[s];
        if (st->phase != k || st->object >= a->nobjects)
            continue;
        w[nw] = (struct walk){ .st = st, .span = stream_bytes(a, st),
                               .again = walked_again(st, r->p->ordered_r2) };
        w[nw].footprint = lines_touched(w[nw].span, st->stride, r->p->line_bytes);
        if (w[nw].again && tf_walk_passes_of(a, st, w[nw].span, interval, &w[nw].passes, &e) < 0)
            return -1;
        any |= w[nw].again;
        if (st->stride > 0 && st->stride <= r->p->line_bytes && (!elem || st->stride < elem))
            elem = st->stride;
        nw++;
    }
    if (!any)
        return 0;
    struct reuse best = { 0 }, cand;
    for (size_t i = 0; i < nw; i++)
        if (w[i].again && reuse_of(r, k, w, nw, i, &cand) &&
            (!best.w || cand.share > best.share ||
             (cand.share == best.share && cand.distance > best.distance)))
            best = cand;
    if (!best.w)
        return 0;
    /* tiles that bring the bytes between two uses within TF_ADVICE_TILE_SHARE
     * of the cache, each stream keeping its part of them */
    const struct walk *bw = best.w;
    const char *name = a->objects[bw->st->object].name;
    double cache = m->cache_bytes[best.level],
           tile = TF_ADVICE_TILE_SHARE * cache * bw->footprint / best.distance;
    char block[96] = "";
    if (elem)
        snprintf(block, sizeof block, " (%.0f x %.0f elements of %llu B)",
                 floor(sqrt(tile / (double)elem)), floor(sqrt(tile / (double)elem)),
                 (unsigned long long)elem);
    char suggestion[200];
    snprintf(suggestion, sizeof suggestion,
             "blocking (tiling) for L%d: tiles of at most %.0f KiB of %s%s, each used in full "
             "before the next", best.level + 1, kib(tile), name, block);
    const tf_walk_passes *wp = &bw->passes;
    char passes[240];
    if (wp->pass_ns > 0)
        snprintf(passes, sizeof passes, "a pass every %.2f ms (%zu successive samples lined "
                 "up at %.2f), its %.0f lines at %.2f ns each beyond L%d (the profile's line "
                 "walk) %.0f %% of it", wp->pass_ns / 1e6, wp->pairs, wp->coherence,
                 bw->footprint / (double)r->p->line_bytes, best.line_ns, best.level + 1,
                 100 * best.fetch_share);
    else if (wp->pairs >= TF_WALK_MIN_PAIRS)
        snprintf(passes, sizeof passes, "faster than the sampling: %zu successive samples "
                 "%.0f us apart line up with no pass (at best %.2f)", wp->pairs,
                 wp->gap_ns / 1e3, wp->coherence);
    else
        snprintf(passes, sizeof passes, "faster than the fold resolves (%zu successive samples, "
                 "too few to time a pass)", wp->pairs);
    char over[64];
    int len = snprintf(over, sizeof over, "%.0f KiB", kib(bw->span));
    if (bw->footprint < bw->span)
        snprintf(over + len, sizeof over - (size_t)len, ", %.0f KiB of lines a pass",
                 kib(bw->footprint));
    return add(r, k, bw->st->object, "reuse distance past a cache", suggestion,
               span * best.share * latency_factor(m),
               "reuse distance %.0f KiB, above L%d's %.0f KiB (profile): %s walked again over "
               "%s (stride %llu B from the code, R2 %.2f), %s; other streams %.0f KiB a "
               "pass; its loop %.0f %% of the phase's %zu memory samples; phase %.1f %% of the "
               "iteration",
               kib(best.distance), best.level + 1, kib(cache), name, over,
               (unsigned long long)bw->st->stride, bw->st->ordered_r2, passes, kib(best.others),
               100 * best.share, best.mem, 100 * span);
}

/* The length of an object's name without its family suffix "#N" (the
 * blocks of one call site alive at once, docs/algorithms.md, "Families"). */
static size_t site_length(const char *name)
{
    const char *hash = strrchr(name, '#');
    if (!hash || !hash[1])
        return strlen(name);
    for (const char *c = hash + 1; *c; c++)
        if (!isdigit((unsigned char)*c))
            return strlen(name);
    return (size_t)(hash - name);
}

/* Blocks of a call site: an object and its site's name. */
struct block {
    uint32_t    object;
    const char *name;
    size_t      site;     /* length of the name without "#N" */
};

/* The number of heap blocks object ob stands for when they are small
 * enough for the rule, else 0: a heap object is one block (its family's
 * blocks alive at once are objects of their own, "site#N"); an object of
 * kind small is all the small blocks of its call site, laid end to end
 * (docs/algorithms.md, "Small blocks"), as a matrix allocated a row at a
 * time below the recorder's heap threshold is. */
static size_t small_blocks(const tf_analysis_object *ob)
{
    if (ob->size == 0)
        return 0;
    if (ob->kind == TF_OBJECT_HEAP)
        return ob->size <= TF_ADVICE_SMALL_BYTES;
    if (ob->kind == TF_OBJECT_SMALL && ob->allocations > 0 &&
        ob->size <= (uint64_t)TF_ADVICE_SMALL_BYTES * ob->allocations)
        return ob->allocations;
    return 0;
}

static int by_site(const void *pa, const void *pb)
{
    const struct block *x = pa, *y = pb;
    int c = strncmp(x->name, y->name, x->site < y->site ? x->site : y->site);
    if (c)
        return c;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return (x->object > y->object) - (x->object < y->object);
}

static bool same_site(const struct block *x, const struct block *y)
{
    return x->site == y->site && !strncmp(x->name, y->name, x->site);
}

/* Many small blocks of one call site touched in one phase -> one
 * contiguous allocation.  Each block starts a new run for the hardware
 * prefetchers and carries the allocator's header and padding; one block
 * walks as one stream.  Bound: the time of the blocks' references. */
static int small_allocations(struct rules *r, uint32_t k, size_t *count, struct block *cand)
{
    const tf_analysis *a = r->a;
    const tf_analysis_phase *ph = &a->phases[k];
    double span = span_of(ph);
    if (span < TF_ADVICE_MIN_PHASE_SPAN)
        return 0;
    memset(count, 0, a->nobjects * sizeof *count);
    size_t mem = 0;
    for (size_t i = tf_analysis_lower_index(a, ph->x0); i < a->nsamples && a->samples[i].x < ph->x1;
         i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->kind == TF_SAMPLE_TIMER)
            continue;
        mem++;
        if (s->object < a->nobjects)
            count[s->object]++;
    }
    size_t nc = 0;
    for (uint32_t o = 0; o < a->nobjects; o++)
        if (count[o] && small_blocks(&a->objects[o]))
            cand[nc++] = (struct block){ o, a->objects[o].name, site_length(a->objects[o].name) };
    if (!mem || !nc)
        return 0;
    qsort(cand, nc, sizeof *cand, by_site);
    for (size_t i = 0, j; i < nc; i = j) {
        size_t refs = 0, blocks = 0;
        double bytes = 0, largest = 0;
        bool below_threshold = false;   /* blocks of kind small: their sizes are summed */
        for (j = i; j < nc && same_site(&cand[i], &cand[j]); j++) {
            const tf_analysis_object *ob = &a->objects[cand[j].object];
            refs += count[cand[j].object];
            blocks += small_blocks(ob);
            bytes += (double)ob->size;
            below_threshold |= ob->kind == TF_OBJECT_SMALL;
            largest = (double)ob->size > largest ? (double)ob->size : largest;
        }
        double share = (double)refs / (double)mem;
        if (blocks < TF_ADVICE_MIN_BLOCKS || share < TF_ADVICE_MIN_STREAM_SHARE)
            continue;
        char each[64], block[32];
        block_size_text(block, sizeof block, below_threshold ? bytes / (double)blocks : largest);
        if (below_threshold)
            snprintf(each, sizeof each, "%s each on average", block);
        else
            snprintf(each, sizeof each, "at most %s each", block);
        if (add(r, k, cand[i].object, "many small allocations",
                "one contiguous allocation for the blocks of this call site (an array of rows "
                "rather than a row per allocation), walked as one stream",
                span * share * latency_factor(r->m),
                "%zu blocks from call site %.*s, %s, %.1f KiB together, carry %.0f %% of the "
                "phase's %zu memory samples; phase %.1f %% of the iteration",
                blocks, (int)cand[i].site, cand[i].name, each, kib(bytes), 100 * share, mem,
                100 * span) < 0)
            return -1;
    }
    return 0;
}

/* Share of phase k's loads with a known level served beyond the local
 * caches, NAN when no level is known. */
static double memory_share(const tf_analysis *a, uint32_t k)
{
    double beyond = 0;
    bool known = false;
    for (size_t l = 0; l < a->nlevels; l++) {
        const tf_analysis_level *lv = &a->levels[l];
        if (lv->phase != k || lv->level == TF_LEVEL_UNKNOWN)
            continue;
        known = true;
        if (lv->level >= TF_LEVEL_REMOTE_CACHE_1)
            beyond += lv->share;
    }
    return known ? beyond : NAN;
}

/* Random over an object past the last-level cache -> software prefetch or
 * a layout that makes the walk ordered.  Uniform random loads over S bytes
 * hit a cache of C bytes at most C/S of the time; where the loads' levels
 * are measured (PEBS, IBS) they must also show it. */
static int random_large(struct rules *r, const tf_analysis_stream *st)
{
    const tf_analysis_machine *m = r->m;
    if (st->pattern != TF_ANALYSIS_PATTERN_RANDOM || st->stride_from != TF_ANALYSIS_STRIDE_NONE ||
        st->samples < TF_ADVICE_MIN_RANDOM_SAMPLES)
        return 0;
    double llc = m->cache_bytes[m->nlevels - 1], range = stream_bytes(r->a, st);
    size_t mem = 0;
    if (!(llc > 0) || range < TF_ADVICE_LLC_TIMES * llc)
        return 0;
    double share = stream_share(r->a, st, &mem), beyond = memory_share(r->a, st->phase);
    if (share < TF_ADVICE_MIN_STREAM_SHARE || beyond < TF_ADVICE_MIN_MEMORY_SHARE)
        return 0;
    char levels[96] = "load levels not measured";
    if (!isnan(beyond))
        snprintf(levels, sizeof levels, "%.0f %% of the phase's loads served beyond the caches",
                 100 * beyond);
    double span = span_of(&r->a->phases[st->phase]);
    return add(r, st->phase, st->object, "random over a large object",
               "software prefetch a few iterations ahead (the addresses are known early), or a "
               "layout that orders the walk (sort the indices, pack the hot fields)",
               span * share * latency_factor(m),
               "random over %.0f KiB, %.1f times the last-level cache's %.0f KiB (profile): "
               "uniform random loads miss it at least %.0f %% of the time; %s; memory latency "
               "%.0f ns against %.1f ns in L1; %.0f %% of the phase's %zu memory samples; phase "
               "%.1f %% of the iteration",
               kib(range), range / llc, kib(llc), 100 * (1 - llc / range), levels, m->memory_ns,
               m->hit_ns[0], 100 * share, mem, 100 * span);
}

/* A stream over more pages than the TLB holds, with few references per
 * page -> huge pages.  Each reference can then miss the TLB; huge pages
 * cover the range with a few entries.  Bound: the references' time times
 * the part of one that a TLB miss can be, miss / (miss + L1 hit).  A
 * stream random at the fold's resolution whose instruction steps by a
 * constant stride is a walk walked again (walked_again), not random
 * references: page / stride references a page, as a strided stream has
 * (matmul_vec's mm_ikj walks z a row at a time, 256 references a page). */
static int tlb_reach(struct rules *r, const tf_analysis_stream *st)
{
    const tf_analysis_machine *m = r->m;
    double page = m->page_bytes, range = stream_bytes(r->a, st);
    bool stepped = st->stride_from == TF_ANALYSIS_STRIDE_CODE && st->stride > 0;
    bool sparse_pages = stepped || st->pattern == TF_ANALYSIS_PATTERN_STRIDED
                            ? (double)st->stride * TF_ADVICE_REFS_PER_PAGE >= page
                            : st->pattern == TF_ANALYSIS_PATTERN_RANDOM &&
                                  st->samples >= TF_ADVICE_MIN_RANDOM_SAMPLES;
    size_t mem = 0;
    if (!sparse_pages || range <= m->tlb_reach_bytes)
        return 0;
    double share = stream_share(r->a, st, &mem);
    if (share < TF_ADVICE_MIN_STREAM_SHARE)
        return 0;
    double part = m->tlb_miss_ns > 0 && m->hit_ns[0] > 0
                      ? m->tlb_miss_ns / (m->tlb_miss_ns + m->hit_ns[0]) : 1;
    char per_page[64];
    if (!stepped && st->pattern == TF_ANALYSIS_PATTERN_RANDOM)
        snprintf(per_page, sizeof per_page, "random");
    else
        snprintf(per_page, sizeof per_page, "stride %llu B, %.1f references per page",
                 (unsigned long long)st->stride, page / (double)st->stride);
    double span = span_of(&r->a->phases[st->phase]);
    return add(r, st->phase, st->object, "pages beyond the TLB's reach",
               "huge pages for the object (madvise MADV_HUGEPAGE, or an allocation from "
               "hugetlbfs)", span * share * part,
               "%s over %.0f KiB, %.0f pages of %.0f KiB, %.1f times the TLB's reach of %.0f KiB "
               "(profile); TLB miss %.1f ns; %.0f %% of the phase's %zu memory samples; phase "
               "%.1f %% of the iteration",
               per_page, kib(range), range / page, kib(page), range / m->tlb_reach_bytes,
               kib(m->tlb_reach_bytes), m->tlb_miss_ns, 100 * share, mem, 100 * span);
}

/* The index of the page-fault counter, or -1. */
static int fault_counter(const tf_analysis *a)
{
    for (size_t c = 0; c < a->ncounters; c++)
        if (strstr(a->counter_names[c], "fault") || strstr(a->counter_names[c], "FAULT"))
            return (int)c;
    return -1;
}

/* Page faults per iteration in phase ph from its rate of counter c, NAN
 * when the rate is not known. */
static double phase_faults(const tf_analysis *a, const tf_analysis_phase *ph, int c)
{
    if (!ph->per_unit)
        return NAN;
    double seconds = span_of(ph) * a->duration_ns / 1e9;
    if (a->per_instruction)
        return ph->per_unit[c] * ph->mips * 1e6 * seconds;
    return ph->per_unit[c] * seconds;
}

/* A large block allocated in every iteration, whose pages fault in every
 * iteration -> allocate it once.  A fresh block of that size comes from
 * mmap (glibc's threshold is 128 KiB to 32 MiB) and each of its pages
 * faults on first touch.  Bound: the spans of the top-level phases in
 * which faults happen: their time holds every fault the change removes. */
static int temporaries(struct rules *r)
{
    const tf_analysis *a = r->a;
    int c = fault_counter(a);
    size_t instances = a->sampling.instances;
    double page = r->m && r->m->page_bytes > 0 ? r->m->page_bytes : (double)sysconf(_SC_PAGESIZE);
    if (c < 0 || !instances || !(page > 0))
        return 0;
    double faults = 0, most = -1, spans = 0;
    uint32_t at = TF_ANALYSIS_NONE;
    for (uint32_t k = 0; k < a->nphases; k++) {
        const tf_analysis_phase *ph = &a->phases[k];
        double f = ph->parent == TF_ANALYSIS_NONE ? phase_faults(a, ph, c) : NAN;
        if (!(f >= 0.5))
            continue;
        faults += f;
        spans += span_of(ph);
        if (f > most) {
            most = f;
            at = k;
        }
    }
    if (at == TF_ANALYSIS_NONE)
        return 0;
    for (uint32_t o = 0; o < a->nobjects; o++) {
        const tf_analysis_object *ob = &a->objects[o];
        double pages = (double)ob->size / page, per_iteration =
            (double)ob->allocations / (double)instances;
        if (!ob->refs || (ob->kind != TF_OBJECT_HEAP && ob->kind != TF_OBJECT_MMAP) ||
            pages < TF_ADVICE_MIN_TEMP_PAGES || per_iteration < 1 ||
            faults < TF_ADVICE_FAULTED_SHARE * pages)
            continue;
        if (add(r, at, o, "allocation in every iteration",
                "allocate the block once, before the loop, and reuse it",
                spans > 1 ? 1 : spans,
                "%zu allocations of up to %.0f KiB over %zu iterations (%.1f per iteration), "
                "%.0f pages of %.0f KiB; %.0f page faults per iteration (counter %s), %.0f in "
                "phase %s; the phases with faults span %.1f %% of the iteration",
                ob->allocations, kib((double)ob->size), instances, per_iteration, pages,
                kib(page), faults, a->counter_names[c], most, a->phases[at].label,
                100 * spans) < 0)
            return -1;
    }
    return 0;
}

static int by_gain(const void *pa, const void *pb)
{
    const tf_analysis_advice *a = pa, *b = pb;
    return (a->expected_gain < b->expected_gain) - (a->expected_gain > b->expected_gain);
}

static bool is_leaf(const tf_analysis *a, uint32_t k)
{
    for (size_t j = 0; j < a->nphases; j++)
        if (a->phases[j].parent == k)
            return false;
    return true;
}

int tf_analysis_advice_find(const tf_analysis *a, const tf_analysis_params *params,
                            tf_analysis_advice **list, size_t *n, unsigned *untried,
                            tf_error *err)
{
    *list = NULL;
    *n = 0;
    tf_analysis_params defaults;
    if (!params) {
        tf_analysis_params_default(&defaults);
        params = &defaults;
    }
    const tf_analysis_machine *m = params->machine;
    bool caches = m && m->nlevels >= 2 && m->nlevels <= TF_ANALYSIS_MAX_CACHES,
         llc = m && m->nlevels >= 1 && m->nlevels <= TF_ANALYSIS_MAX_CACHES && m->memory_ns > 0,
         tlb = m && m->page_bytes > 0 && m->tlb_reach_bytes > 0;
    *untried = (caches ? 0 : TF_ANALYSIS_RULE_REUSE_DISTANCE) | (llc ? 0 : TF_ANALYSIS_RULE_RANDOM_LARGE) |
               (tlb ? 0 : TF_ANALYSIS_RULE_TLB_REACH);
    struct rules r = { a, params, m, { 0 } };
    size_t *count = malloc((a->nobjects + 1) * sizeof *count);
    struct block *cand = malloc((a->nobjects + 1) * sizeof *cand);
    struct walk *walks = malloc((a->nstreams + 1) * sizeof *walks);
    int rc = count && cand && walks ? 0 : -1;
    for (size_t s = 0; !rc && s < a->nstreams; s++) {
        const tf_analysis_stream *st = &a->streams[s];
        rc = column_walk(&r, st);
        if (!rc && llc)
            rc = random_large(&r, st);
        if (!rc && tlb)
            rc = tlb_reach(&r, st);
    }
    for (uint32_t k = 0; !rc && k < a->nphases; k++) {
        if (!is_leaf(a, k))
            continue;
        if (caches)
            rc = reuse_distance(&r, k, walks);
        if (!rc)
            rc = small_allocations(&r, k, count, cand);
    }
    if (!rc)
        rc = temporaries(&r);
    free(count);
    free(cand);
    free(walks);
    if (rc) {
        free(r.out.v);
        return tf_fail(err, TF_ERR_NOMEM, "advice for region %s: out of memory", a->region);
    }
    if (r.out.n == 0) {
        free(r.out.v);
        return 0;
    }
    qsort(r.out.v, r.out.n, sizeof *r.out.v, by_gain);
    *list = r.out.v;
    *n = r.out.n;
    return 0;
}

void tf_analysis_advice_untried_text(unsigned untried, char *buf, size_t size)
{
    static const struct { unsigned rule; const char *what; } lacks[] = {
        { TF_ANALYSIS_RULE_REUSE_DISTANCE, "reuse distance past a cache (the cache sizes)" },
        { TF_ANALYSIS_RULE_RANDOM_LARGE,
          "random over a large object (the last-level cache's size and the memory latency)" },
        { TF_ANALYSIS_RULE_TLB_REACH,
          "pages beyond the TLB's reach (the TLB's reach and the page size)" },
    };
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof lacks / sizeof *lacks && at < size; i++)
        if (untried & lacks[i].rule)
            at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? "; " : "Not tried, for "
                                   "want of the machine profile (`tracefold calibrate`, then "
                                   "`tracefold fold --machine PROFILE`): ", lacks[i].what);
    if (at && at < size)
        snprintf(buf + at, size - at, ".");
}
