/* SPDX-License-Identifier: BSD-3-Clause */
/* Access streams of one phase on one object, from the folded memory
 * samples' points (x, object-relative offset), per thread index.
 *
 * 1. Slope: the Theil–Sen estimator (median of pairwise slopes), robust to
 *    several parallel streams: pairs across two streams bias the slope up
 *    and down alike, so the median stays on the streams' common slope.
 * 2. Streams: the residuals offset − slope·x cluster around one value per
 *    concurrent stream; clusters are cut where the gap between sorted
 *    residuals exceeds 20 times their median gap, a cache line, and a
 *    quarter of the distance a stream sweeps in the phase (residuals of one
 *    stream spread with the iterations' jitter in proportion to the sweep);
 *    a cluster with under 5 % of the points joins its nearest neighbour.
 * 3. Order statistic: R² = 1 − (within-cluster residual variance) /
 *    (variance of the offsets), 5 %-trimmed (see trimmed_r2).  R² ≥
 *    params.ordered_r2 (0.9) means the offsets follow the streams' lines.
 * 4. Stride: the largest s dividing at least 90 % of the gaps between
 *    successive distinct offsets of each stream, candidates being the gcds
 *    of adjacent gaps.  Linear when below a cache line or no larger than
 *    the instructions' access width (nothing skipped), else strided.
 * 5. Direction: ordered, the sign of the slope; otherwise the sign of the
 *    samples' rank correlation (Spearman) when it is clear (trend_of), else
 *    none.  The code never overrides it.
 * 6. Bytes: per stream |slope| × its x extent, the extent of n uniform
 *    points widened by (n+1)/(n−1) (unbiased range); unordered: the
 *    offsets' range, widened alike.  Bandwidth (ordered streams): the bytes
 *    moved over the phase's mean duration, in MB/s (10^6 bytes): all of
 *    them when linear, the lines touched × the line size when strided.
 * 7. Stride from the code: when at least half of the points come from
 *    instructions whose loop gives them one same stride s (the samples'
 *    code_stride), the stride is |s| (the samples, milliseconds apart,
 *    cannot see a stride that repeats within microseconds; the code states
 *    it).  Unordered samples with a clear trend and R² ≥ params.trend_r2
 *    (0.5) are then a sweep the iterations' jitter blurs: ordered, one
 *    stream, bytes |slope| × the x extent (at most the offsets' range).  Below that, or without a trend, they are at most
 *    a walk faster than the sampling: strided if |s| is (direction the
 *    trend's, else the sign of s; no bandwidth), else random with the
 *    stride |s| — a stream with a low R² is never linear.
 * Each thread index is analysed alone (threads sweep their own slices);
 * the thread with most samples gives the shape of the phase × object
 * (direction, stride, streams, pattern), and bytes and bandwidth are the
 * mean over the threads with that pattern. */
#include "analysis_steps.h"

#include <math.h>
#include <stdlib.h>

#include "formats/trace.h"

struct point {
    uint32_t object, group;
    double   x;
    uint64_t offset;
    double   resid;
    int32_t  code_stride;
    uint8_t  access_bytes;
};

static int by_object_group(const void *pa, const void *pb)
{
    const struct point *p = pa, *q = pb;
    if (p->object != q->object)
        return (p->object > q->object) - (p->object < q->object);
    return (p->group > q->group) - (p->group < q->group);
}

static int by_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

static int by_resid(const void *pa, const void *pb)
{
    const struct point *p = pa, *q = pb;
    return (p->resid > q->resid) - (p->resid < q->resid);
}

static int by_x(const void *pa, const void *pb)
{
    const struct point *p = pa, *q = pb;
    return (p->x > q->x) - (p->x < q->x);
}

static int by_point_offset(const void *pa, const void *pb)
{
    const struct point *p = pa, *q = pb;
    return (p->offset > q->offset) - (p->offset < q->offset);
}

static int by_offset(const void *pa, const void *pb)
{
    uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
    return (x > y) - (x < y);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* xorshift64*: a fixed-seed generator, so that the sampled pairs and thus
 * the results are the same on every run. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ull;
}

#define TS_MAX_PAIRS 20000

/* Theil–Sen slope of offset over x; all pairs for small n, else a fixed
 * pseudo-random sample of TS_MAX_PAIRS pairs.  scratch holds TS_MAX_PAIRS. */
static double theil_sen(const struct point *p, size_t n, double *scratch)
{
    size_t m = 0;
    if (n * (n - 1) / 2 <= TS_MAX_PAIRS) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (p[j].x != p[i].x)
                    scratch[m++] = ((double)p[j].offset - (double)p[i].offset) / (p[j].x - p[i].x);
    } else {
        uint64_t state = 0x9e3779b97f4a7c15ull;
        for (size_t t = 0; t < TS_MAX_PAIRS; t++) {
            size_t i = next_random(&state) % n, j = next_random(&state) % n;
            if (p[j].x != p[i].x)
                scratch[m++] = ((double)p[j].offset - (double)p[i].offset) / (p[j].x - p[i].x);
        }
    }
    if (!m)
        return 0;
    qsort(scratch, m, sizeof *scratch, by_double);
    return m % 2 ? scratch[m / 2] : (scratch[m / 2 - 1] + scratch[m / 2]) / 2;
}

/* Cuts p[0..n), sorted by residual, into clusters; cut[c] is the first
 * point of cluster c+1.  Returns the number of clusters. */
static size_t cluster_residuals(const struct point *p, size_t n, double min_gap, double *gaps,
                                size_t *cut)
{
    for (size_t i = 0; i + 1 < n; i++)
        gaps[i] = p[i + 1].resid - p[i].resid;
    qsort(gaps, n - 1, sizeof *gaps, by_double);
    double median = gaps[(n - 1) / 2];
    if (median <= 0)
        median = (p[n - 1].resid - p[0].resid) / (double)(n - 1);
    double threshold = fmax(20 * median, min_gap);
    size_t ncut = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (p[i + 1].resid - p[i].resid > threshold)
            cut[ncut++] = i + 1;
    size_t min = (size_t)ceil(fmax(3, 0.05 * (double)n));
    while (ncut) {
        size_t smallest = 0, size_min = SIZE_MAX;
        for (size_t c = 0; c <= ncut; c++) {
            size_t b = c ? cut[c - 1] : 0, e = c < ncut ? cut[c] : n;
            if (e - b < size_min) {
                size_min = e - b;
                smallest = c;
            }
        }
        if (size_min >= min)
            break;
        /* drop the cut on the side of the nearer neighbour */
        size_t drop;
        if (smallest == 0)
            drop = 0;
        else if (smallest == ncut)
            drop = ncut - 1;
        else {
            size_t l = cut[smallest - 1], r = cut[smallest];
            drop = p[l].resid - p[l - 1].resid <= p[r].resid - p[r - 1].resid ? smallest - 1
                                                                               : smallest;
        }
        for (size_t c = drop; c + 1 < ncut; c++)
            cut[c] = cut[c + 1];
        ncut--;
    }
    return ncut + 1;
}

static int by_u64_descending(const void *pa, const void *pb)
{
    uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
    return (x < y) - (x > y);
}

/* The largest stride dividing at least 90 % of the gaps between successive
 * distinct offsets; the candidates, the gcds of adjacent gaps, are tried
 * from the largest down, each once.  cand is scratch of ngap. */
static uint64_t dominant_stride(const uint64_t *gap, size_t ngap, uint64_t *cand)
{
    if (ngap == 1)
        return gap[0];
    size_t nc = 0;
    for (size_t i = 0; i + 1 < ngap; i++)
        cand[nc++] = gcd_u64(gap[i], gap[i + 1]);
    qsort(cand, nc, sizeof *cand, by_u64_descending);
    for (size_t c = 0; c < nc; c++) {
        if (c && cand[c] == cand[c - 1])
            continue;
        size_t divides = 0;
        for (size_t j = 0; j < ngap; j++)
            divides += gap[j] % cand[c] == 0;
        if (divides >= 0.9 * (double)ngap)
            return cand[c];
    }
    return 0;
}

/* The gaps between successive distinct offsets of each cluster, appended
 * to gap[]; offs is scratch of n.  Returns the number of gaps. */
static size_t cluster_gaps(const struct point *p, size_t n, const size_t *cut, size_t ncl,
                           uint64_t *offs, uint64_t *gap)
{
    size_t ngap = 0;
    for (size_t c = 0; c < ncl; c++) {
        size_t b = c ? cut[c - 1] : 0, e = c + 1 < ncl ? cut[c] : n, m = 0;
        for (size_t i = b; i < e; i++)
            offs[m++] = p[i].offset;
        qsort(offs, m, sizeof *offs, by_offset);
        for (size_t i = 0; i + 1 < m; i++)
            if (offs[i + 1] != offs[i])
                gap[ngap++] = offs[i + 1] - offs[i];
    }
    return ngap;
}

/* R² of the streams' lines, 5 %-trimmed: the points whose residual lies
 * farthest from their cluster's mean (the 5 % of them that iterations
 * with shifted phase boundaries bring in from the neighbouring phase) are
 * left out of both sums.  dev is scratch of n. */
static double trimmed_r2(struct point *p, size_t n, const size_t *cut, size_t ncl, double *dev)
{
    for (size_t c = 0; c < ncl; c++) {
        size_t b = c ? cut[c - 1] : 0, e = c + 1 < ncl ? cut[c] : n;
        double m = 0;
        for (size_t i = b; i < e; i++)
            m += p[i].resid;
        m /= (double)(e - b);
        for (size_t i = b; i < e; i++)
            p[i].resid -= m;
    }
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(p[i].resid);
    qsort(dev, n, sizeof *dev, by_double);
    double limit = dev[(size_t)(0.95 * (double)(n - 1))];
    double mean = 0, within = 0, total = 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(p[i].resid) <= limit) {
            mean += (double)p[i].offset;
            kept++;
        }
    mean /= (double)kept;
    for (size_t i = 0; i < n; i++)
        if (fabs(p[i].resid) <= limit) {
            within += p[i].resid * p[i].resid;
            total += ((double)p[i].offset - mean) * ((double)p[i].offset - mean);
        }
    return total > 0 ? 1 - within / total : 0;
}

struct scratch {
    double   *pairs;     /* TS_MAX_PAIRS */
    double   *gaps;      /* n */
    size_t   *cut;       /* n */
    uint64_t *offs, *ugaps;
};

static double unbiased_range(double range, size_t n)
{
    return n > 1 ? range * (double)(n + 1) / (double)(n - 1) : range;
}

/* The most common nonzero value of v[0..m) (sorted here) and, in *count,
 * how many hold it; 0 when none. */
static uint64_t mode_of(uint64_t *v, size_t m, size_t *count)
{
    qsort(v, m, sizeof *v, by_offset);
    uint64_t mode = 0;
    *count = 0;
    for (size_t b = 0, e; b < m; b = e) {
        for (e = b; e < m && v[e] == v[b]; e++)
            ;
        if (v[b] && e - b > *count) {
            *count = e - b;
            mode = v[b];
        }
    }
    return mode;
}

/* Step 7 (docs/algorithms.md): the stride the code gives at least half of
 * the points, signed; 0 when none.  v is scratch of n. */
static int64_t stride_from_code(const struct point *p, size_t n, uint64_t *v)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (uint64_t)(int64_t)p[i].code_stride;
    size_t count;
    uint64_t mode = mode_of(v, n, &count);
    return 2 * count >= n ? (int64_t)mode : 0;
}

/* The bytes the points' instructions access at once: the most common
 * known width, 0 when none is known.  v is scratch of n. */
static uint64_t access_width(const struct point *p, size_t n, uint64_t *v)
{
    for (size_t i = 0; i < n; i++)
        v[i] = p[i].access_bytes;
    size_t count;
    return mode_of(v, n, &count);
}

/* Step 4's rule: a stride below a cache line touches every line, one no
 * larger than the access leaves no byte out (an AVX-512 copy moving 64
 * bytes every 64): both are linear. */
static uint8_t pattern_of_stride(uint64_t stride, uint64_t width, const tf_analysis_params *prm)
{
    return stride < prm->line_bytes || stride <= width ? TF_ANALYSIS_PATTERN_LINEAR
                                                       : TF_ANALYSIS_PATTERN_STRIDED;
}

/* The bytes an ordered stream moves between memory and the caches for the
 * `bytes` it sweeps: all of them when linear; when strided, the lines it
 * touches times the line size (each access brings in its ceil(width /
 * line) lines, at least one; the bytes between are never fetched). */
static double moved_bytes(const tf_analysis_stream *st, uint64_t width, const tf_analysis_params *prm)
{
    if (st->pattern == TF_ANALYSIS_PATTERN_LINEAR)
        return st->bytes;
    uint64_t lines = width > prm->line_bytes ? (width + prm->line_bytes - 1) / prm->line_bytes : 1;
    return st->bytes * fmin(1, (double)(lines * prm->line_bytes) / (double)st->stride);
}

/* Spearman's rank correlation of the offsets with x: the correlation of
 * their ranks, tied values sharing their mean rank.  Reorders p; uses
 * p[].resid as scratch. */
static double rank_correlation(struct point *p, size_t n)
{
    qsort(p, n, sizeof *p, by_x);
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b; e < n && p[e].x == p[b].x; e++)
            ;
        for (size_t i = b; i < e; i++)
            p[i].resid = (double)(b + 1 + e) / 2;   /* the mean of ranks b+1..e */
    }
    qsort(p, n, sizeof *p, by_point_offset);
    double mean = (double)(n + 1) / 2, sxy = 0, sxx = 0, syy = 0;
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b; e < n && p[e].offset == p[b].offset; e++)
            ;
        double ry = (double)(b + 1 + e) / 2 - mean;
        for (size_t i = b; i < e; i++) {
            double rx = p[i].resid - mean;
            sxy += rx * ry;
            sxx += rx * rx;
            syy += ry * ry;
        }
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* The samples' own direction (step 5): the sign of their rank correlation
 * rho when it is clear, at least prm->trend_rho and beyond 2.58 standard
 * deviations of rho over n points in no order (1/sqrt(n - 1): a 1 %
 * two-sided level); else 0. */
static int trend_of(double rho, size_t n, const tf_analysis_params *prm)
{
    if (fabs(rho) < prm->trend_rho || fabs(rho) * sqrt((double)(n - 1)) < 2.576)
        return 0;
    return rho > 0 ? 1 : -1;
}

/* The bytes random offsets span: their range without the few points that
 * stand apart at either end, widened by (m+1)/(m-1) for the m kept.
 * Sorted, the offsets are cut where a gap exceeds 20 times the median gap
 * and a cache line (as the residuals are in step 2); an end group of
 * fewer than max(3, 5 %) of the points is left out while more than half
 * remain.  Those points are not the walk's: memmove, say, copies an
 * object's head and tail before sweeping it, and in a short phase one such
 * sample at the object's other end made the range the whole object.
 * offs and gaps hold n each. */
static double random_span(const struct point *p, size_t n, const tf_analysis_params *prm,
                          uint64_t *offs, uint64_t *gaps)
{
    for (size_t i = 0; i < n; i++)
        offs[i] = p[i].offset;
    qsort(offs, n, sizeof *offs, by_offset);
    if (n < 3)   /* no median gap to judge by */
        return unbiased_range((double)(offs[n - 1] - offs[0]), n);
    for (size_t i = 0; i + 1 < n; i++)
        gaps[i] = offs[i + 1] - offs[i];
    qsort(gaps, n - 1, sizeof *gaps, by_offset);
    double median = (double)gaps[(n - 1) / 2];
    double threshold = fmax(20 * median, (double)prm->line_bytes);
    size_t few = (size_t)ceil(fmax(3, 0.05 * (double)n)), lo = 0, hi = n;
    for (;;) {
        size_t end = lo + 1;   /* the low end group: [lo, end) */
        while (end < hi && (double)(offs[end] - offs[end - 1]) <= threshold)
            end++;
        if (end - lo >= few || 2 * (hi - end) <= n)
            break;
        lo = end;
    }
    for (;;) {
        size_t start = hi - 1; /* the high end group: [start, hi) */
        while (start > lo && (double)(offs[start] - offs[start - 1]) <= threshold)
            start--;
        if (hi - start >= few || 2 * (start - lo) <= n)
            break;
        hi = start;
    }
    return unbiased_range((double)(offs[hi - 1] - offs[lo]), hi - lo);
}

/* The stream of one thread's points p[0..n) in a phase lasting span. */
static void analyse_points(struct point *p, size_t n, double span, double duration_ns,
                           const tf_analysis_params *prm, struct scratch *s, tf_analysis_stream *out)
{
    out->samples = n;
    out->bandwidth = NAN;
    out->ordered_r2 = NAN;
    out->streams = 1;
    if (n < prm->min_stream_samples) {
        out->pattern = TF_ANALYSIS_PATTERN_SPARSE;
        return;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        lo = p[i].offset < lo ? p[i].offset : lo;
        hi = p[i].offset > hi ? p[i].offset : hi;
    }
    if (hi - lo < prm->line_bytes) {
        out->pattern = TF_ANALYSIS_PATTERN_FIXED;
        out->bytes = (double)(hi - lo);
        return;
    }
    int trend = trend_of(rank_correlation(p, n), n, prm);
    int64_t code = stride_from_code(p, n, s->offs);
    uint64_t width = access_width(p, n, s->offs);
    double slope = theil_sen(p, n, s->pairs);
    for (size_t i = 0; i < n; i++)
        p[i].resid = (double)p[i].offset - slope * p[i].x;
    qsort(p, n, sizeof *p, by_resid);
    /* streams closer than a quarter of their sweep overlap in time: one */
    double sweep = fabs(slope) * span;
    size_t ncl = cluster_residuals(p, n, fmax((double)prm->line_bytes, 0.25 * sweep), s->gaps,
                                   s->cut);
    out->ordered_r2 = trimmed_r2(p, n, s->cut, ncl, s->gaps);
    if (out->ordered_r2 >= prm->ordered_r2) {
        double bytes = 0;
        for (size_t c = 0; c < ncl; c++) {
            size_t b = c ? s->cut[c - 1] : 0, e = c + 1 < ncl ? s->cut[c] : n;
            double x0 = 1, x1 = 0;
            for (size_t i = b; i < e; i++) {
                x0 = fmin(x0, p[i].x);
                x1 = fmax(x1, p[i].x);
            }
            bytes += fabs(slope) * unbiased_range(x1 - x0, e - b);
        }
        if (bytes < (double)prm->line_bytes) {
            out->pattern = TF_ANALYSIS_PATTERN_FIXED;
            out->bytes = (double)(hi - lo);
            return;
        }
        out->direction = slope > 0 ? 1 : -1;
        out->streams = (uint32_t)ncl;
        out->stride = dominant_stride(
            s->ugaps, cluster_gaps(p, n, s->cut, ncl, s->offs, s->ugaps), s->offs);
        out->stride_from = TF_ANALYSIS_STRIDE_SAMPLES;
        out->bytes = bytes;
    } else {
        /* no lines: the offsets' span, and the samples' trend if any */
        out->bytes = random_span(p, n, prm, s->offs, s->ugaps);
        out->direction = trend;
        out->pattern = TF_ANALYSIS_PATTERN_RANDOM;
        if (!code)
            return;
        if (!trend || out->ordered_r2 < prm->trend_r2) {
            /* the samples see no sweep: a walk faster than the sampling
             * whose stride only the code sees; strided if its stride is,
             * else still random (never linear), with the code's stride */
            out->stride = (uint64_t)llabs(code);
            out->stride_from = TF_ANALYSIS_STRIDE_CODE;
            if (pattern_of_stride(out->stride, width, prm) == TF_ANALYSIS_PATTERN_LINEAR)
                return;
            out->pattern = TF_ANALYSIS_PATTERN_STRIDED;
            if (!trend)
                out->direction = code > 0 ? 1 : -1;
            return;
        }
    }
    if (out->pattern == TF_ANALYSIS_PATTERN_RANDOM) {
        /* a blurred sweep: one stream, bytes from its slope as ordered
         * ones' (the range would count the blur), at most the range */
        double x0 = 1, x1 = 0;
        for (size_t i = 0; i < n; i++) {
            x0 = fmin(x0, p[i].x);
            x1 = fmax(x1, p[i].x);
        }
        out->bytes = fmin(out->bytes, fabs(slope) * unbiased_range(x1 - x0, n));
    }
    if (code) {
        out->stride = (uint64_t)llabs(code);
        out->stride_from = TF_ANALYSIS_STRIDE_CODE;
    }
    out->pattern = pattern_of_stride(out->stride, width, prm);
    if (span > 0 && duration_ns > 0)
        out->bandwidth = moved_bytes(out, width, prm) / (span * duration_ns) * 1e3;
}

static bool is_memory(const tf_analysis_sample *s)
{
    return s->object != TF_ANALYSIS_NONE &&
           (s->kind == TF_SAMPLE_LOAD || s->kind == TF_SAMPLE_STORE || s->kind == TF_SAMPLE_RMW);
}

/* Combines the per-thread results r[0..n) of one phase × object. */
static tf_analysis_stream combine_threads(const tf_analysis_stream *r, size_t n)
{
    size_t best = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        total += r[i].samples;
        if (r[i].samples > r[best].samples)
            best = i;
    }
    tf_analysis_stream out = r[best];
    out.samples = total;
    double bytes = 0, bw = 0;
    size_t same = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].pattern != out.pattern)
            continue;
        bytes += r[i].bytes;
        bw += r[i].bandwidth;
        same++;
    }
    out.bytes = bytes / (double)same;
    out.bandwidth = bw / (double)same;
    return out;
}

int tf_analysis_streams(tf_analysis *a, const tf_analysis_params *prm, tf_error *err)
{
    size_t nmem = 0;
    for (size_t i = 0; i < a->nsamples; i++)
        nmem += is_memory(&a->samples[i]);
    struct point *pts = malloc((nmem + 1) * sizeof *pts);
    tf_analysis_stream *per_group = malloc((nmem + 1) * sizeof *per_group);
    struct scratch s = {
        .pairs = malloc(TS_MAX_PAIRS * sizeof *s.pairs),
        .gaps = malloc((nmem + 1) * sizeof *s.gaps),
        .cut = malloc((nmem + 1) * sizeof *s.cut),
        .offs = malloc((nmem + 1) * sizeof *s.offs),
        .ugaps = malloc((nmem + 1) * sizeof *s.ugaps),
    };
    tf_analysis_stream *out = NULL;
    size_t nout = 0, cap = 0;
    int rc = 0;
    if (!pts || !per_group || !s.pairs || !s.gaps || !s.cut || !s.offs || !s.ugaps) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory analysing %zu memory samples", nmem);
        goto done;
    }
    for (size_t k = 0; k < a->nphases; k++) {
        const tf_analysis_phase *ph = &a->phases[k];
        /* a phase split into sub-phases is described by them: a sweep up
         * then down over the whole phase is two streams, not a random one */
        bool split = false;
        for (size_t j = 0; j < a->nphases && !split; j++)
            split = a->phases[j].parent == k;
        if (split)
            continue;
        size_t n = 0;
        size_t end = tf_analysis_end_index(a, ph->x1);
        for (size_t i = tf_analysis_lower_index(a, ph->x0); i < end; i++) {
            const tf_analysis_sample *sm = &a->samples[i];
            if (is_memory(sm))
                pts[n++] = (struct point){ sm->object, sm->group, sm->x, sm->offset, 0,
                                           sm->code_stride, sm->access_bytes };
        }
        qsort(pts, n, sizeof *pts, by_object_group);
        for (size_t b = 0; b < n;) {
            size_t e = b, ng = 0;
            while (e < n && pts[e].object == pts[b].object) {
                size_t g = e;
                while (e < n && pts[e].object == pts[b].object && pts[e].group == pts[g].group)
                    e++;
                per_group[ng] = (tf_analysis_stream){ .phase = (uint32_t)k, .object = pts[b].object };
                analyse_points(pts + g, e - g, ph->x1 - ph->x0, a->duration_ns, prm, &s,
                               &per_group[ng]);
                ng++;
            }
            /* iterations whose phase boundaries moved bring a few samples
             * of the neighbouring phase's objects: not a stream of this one.
             * A phase that is the whole iteration has no neighbour: there a
             * small share is the object's own (memmove's stores, past which
             * the sampling skids, are a twentieth of its samples), reported
             * once it has enough samples for a pattern. */
            bool alone = ph->x0 <= 0 && ph->x1 >= 1;
            if ((double)(e - b) < prm->min_stream_share * (double)n &&
                (!alone || e - b < prm->min_stream_samples)) {
                b = e;
                continue;
            }
            if (nout == cap) {
                cap = cap ? 2 * cap : 32;
                tf_analysis_stream *v = realloc(out, cap * sizeof *v);
                if (!v) {
                    rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for streams");
                    goto done;
                }
                out = v;
            }
            out[nout++] = combine_threads(per_group, ng);
            /* [unknown] gathers the addresses of no object, of unrelated
             * mappings and processes: the bytes between them were not
             * moved (an MPI run's showed 1.8 TB/s). */
            if (a->objects[pts[b].object].kind == TF_ANALYSIS_OBJECT_UNKNOWN)
                out[nout - 1].bandwidth = NAN;
            b = e;
        }
    }
    free(a->streams);
    a->streams = out;
    a->nstreams = nout;
    out = NULL;
done:
    free(out);
    free(pts);
    free(per_group);
    free(s.pairs);
    free(s.gaps);
    free(s.cut);
    free(s.offs);
    free(s.ugaps);
    return rc;
}
