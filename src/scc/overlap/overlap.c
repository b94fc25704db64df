/* The overlap graph builder of seqgpu scc -g overlap: the reads held in
 * memory; their overlaps from the own overlapper (src/scc/overlap/minimizer.h) or from
 * PAF, each pair once; each overlap classified as miniasm does; contained
 * reads set aside with their containers; the graph of the two strands of
 * every read, with an edge per dovetail (and its complement), less the
 * dovetails of reads whose cycles all go round more than a read length
 * (interspersed repeats); the read coverage, and the share of the implied
 * overlaps found (reads too noisy); then, given the SCCs, each repeat
 * described from its reads: period, unit, the array's length from where it
 * lies in them, copies. */
#define _GNU_SOURCE
#include "scc/overlap/overlap.h"
#include "scc/overlap/paf.h"
#include "formats/input.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "core/progress.h"
#include "scc/overlap/minimizer.h"
#include "scc/period.h"
#include "scc/overlap/readset.h"
#include "scc/repeats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sg_overlap_classify(const sg_overlap_t *o, uint32_t ql, uint32_t tl, uint32_t min_overlap, uint32_t *from,
                        uint32_t *to, uint32_t *ovl)
{
    /* t's overhangs before and after the match, on q's strand */
    int64_t tl5 = o->rev ? (int64_t)tl - o->te : o->ts, tl3 = o->rev ? o->ts : (int64_t)tl - o->te;
    int64_t qs = o->qs, q3 = (int64_t)ql - o->qe;
    int64_t ext5 = qs < tl5 ? qs : tl5, ext3 = q3 < tl3 ? q3 : tl3;
    int64_t qspan = (int64_t)o->qe - o->qs, tspan = (int64_t)o->te - o->ts;
    if (ext5 > SG_OVL_MAX_HANG || ext3 > SG_OVL_MAX_HANG || qspan < (qspan + ext5 + ext3) * SG_OVL_INT_FRAC)
        return SG_OVL_INTERNAL;
    int kind = qs <= tl5 && q3 <= tl3   ? SG_OVL_Q_CONTAINED
               : qs >= tl5 && q3 >= tl3 ? SG_OVL_T_CONTAINED
                                        : SG_OVL_DOVETAIL;
    int64_t lq = qspan + ext5 + ext3, lt = tspan + ext5 + ext3;
    if (lq < min_overlap || lt < min_overlap) return SG_OVL_SHORT;
    if (kind != SG_OVL_DOVETAIL) return kind;
    /* q starts first (its 5' overhang is the longer): q+ -> t; else q- -> t reversed */
    int q_first = qs > tl5;
    *from = sg_vert(o->q, !q_first);
    *to = sg_vert(o->t, q_first ? o->rev : !o->rev);
    int64_t v = lq < lt ? lq : lt;
    if (v > ql) v = ql;
    if (v > tl) v = tl;
    *ovl = (uint32_t)v;
    return SG_OVL_DOVETAIL;
}

typedef struct {
    sg_input_t in; /* first: the input steps take the context as theirs */
    sg_graph_opts_t o;
    sg_readset_t *rs;
    sg_overlap_t *ov; /* those kept: identity high enough */
    size_t n_ov, m_ov;
    uint32_t *root;   /* the read each read is reported with: itself, or its container's */
    sg_mindex_t *index; /* the device's index builder, or NULL */
    uint64_t found, low_identity, kinds[SG_OVL_DOVETAIL + 1], self_reads, contained;
    const sg_repeats_t *repeats; /* the report's, once made */
    uint64_t duplicates;       /* overlaps given twice (PAF), dropped */
    const char *coverage_from; /* "unique reads", "array reads", "none" */
    int coverage_unknown;      /* every read lies in an array whose copies its reads cannot tell apart: coverage 1 */
    uint64_t implied, implied_found; /* overlaps implied by two others, and of those found */
    uint32_t cycle_limit;      /* the longest cycle through a read of a repeat, in bases (or the read's length) */
    uint64_t long_cycle_reads; /* reads on cycles of the graph, none of them that short: left out */
    sg_ovl_stats_t ost;
    double sec_read, sec_graph;
} ovl_t;

static int step_store(void *vctx, void *item, sg_emit_t *emit)
{
    ovl_t *d = vctx;
    if (!item) return 0;
    int r = sg_readset_add(d->rs, item);
    sg_emit(emit, item);
    return r;
}

/* Overlaps as they come: kept when their identity is high enough (and written out after, when asked). */
static int take_overlaps(void *arg, const sg_overlap_t *ov, size_t n)
{
    ovl_t *d = arg;
    d->found += n;
    for (size_t i = 0; i < n; i++) {
        if (ov[i].identity < d->o.min_identity) {
            d->low_identity++;
            continue;
        }
        if (d->n_ov == d->m_ov) d->ov = sg_realloc(d->ov, (d->m_ov = d->m_ov ? 2 * d->m_ov : 4096) * sizeof *d->ov);
        d->ov[d->n_ov++] = ov[i];
    }
    return 0;
}

/* A container of x is longer, or as long and numbered lower: never a cycle. */
static int outranks(const sg_readset_t *rs, uint32_t c, uint32_t x)
{
    uint32_t lc = sg_readset_len(rs, c), lx = sg_readset_len(rs, x);
    return lc > lx || (lc == lx && c < x);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- each pair of reads once ----
 *
 * PAF may give an overlap twice: a file concatenated with itself, or each
 * pair as query and as target (minimap2 --dual=yes, chunked all-vs-all).
 * The overlaps are put in the own overlapper's form (q >= t; a read over
 * itself with its earlier span as q's) and grouped by pair; an overlap of
 * a pair whose ends all lie within a few bases of one already taken, on
 * its strand, is the same one and is dropped. A tandem array's reads
 * overlap at several offsets, which stay; and the read coverage takes the
 * longest overlap of a pair only. */

static void canonical(sg_overlap_t *o)
{
    if (o->q > o->t || (o->q == o->t && o->qs <= o->ts)) return;
    sg_overlap_t x = *o;
    o->q = x.t, o->qs = x.ts, o->qe = x.te;
    o->t = x.q, o->ts = x.qs, o->te = x.qe;
}

static inline uint64_t pair_key(const sg_overlap_t *o) { return (uint64_t)o->q << 32 | o->t; }

static int cmp_by_pair(const void *a, const void *b)
{
    const sg_overlap_t *x = a, *y = b;
    uint64_t kx = pair_key(x), ky = pair_key(y);
    if (kx != ky) return kx < ky ? -1 : 1;
    if (x->qs != y->qs) return x->qs < y->qs ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->qe != y->qe) return x->qe < y->qe ? -1 : 1;
    if (x->te != y->te) return x->te < y->te ? -1 : 1;
    return (x->rev > y->rev) - (x->rev < y->rev);
}

/* Whether a and b (one pair) are one overlap: the same strand, and each
 * end within DUPLICATE_SLACK bases (minimap2's two reports of a pair under
 * --dual=yes differ by 6 bases at most in 99% of pairs; an array's reads
 * overlap again a period on). */
#define DUPLICATE_SLACK 20
static inline int near(uint32_t x, uint32_t y) { return (x > y ? x - y : y - x) <= DUPLICATE_SLACK; }

static int same_overlap(const sg_overlap_t *a, const sg_overlap_t *b)
{
    return a->rev == b->rev && near(a->qs, b->qs) && near(a->qe, b->qe) && near(a->ts, b->ts) && near(a->te, b->te);
}

/* The overlaps in canonical form, grouped by pair (already so from the own
 * overlapper), each once. @return how many were dropped */
static uint64_t dedupe_overlaps(ovl_t *d)
{
    int grouped = 1;
    for (size_t i = 0; i < d->n_ov; i++) {
        canonical(&d->ov[i]);
        if (i && pair_key(&d->ov[i]) < pair_key(&d->ov[i - 1])) grouped = 0;
    }
    if (!grouped) qsort(d->ov, d->n_ov, sizeof *d->ov, cmp_by_pair);
    size_t m = 0;
    for (size_t g = 0, h; g < d->n_ov; g = h) {
        const size_t first = m;
        for (h = g; h < d->n_ov && pair_key(&d->ov[h]) == pair_key(&d->ov[g]); h++) {
            size_t j = first;
            while (j < m && !same_overlap(&d->ov[j], &d->ov[h])) j++;
            if (j == m) d->ov[m++] = d->ov[h];
            else if (d->ov[h].qe - d->ov[h].qs > d->ov[j].qe - d->ov[j].qs) d->ov[j] = d->ov[h]; /* the longer stays */
        }
    }
    uint64_t dropped = d->n_ov - m;
    d->n_ov = m;
    return dropped;
}

/* The coverage a read sees: the bases of the other reads that overlap it
 * (the longest overlap of each pair), over its length less what the
 * overlaps shorter than the minimum m would have brought (reads of mean
 * length L end or start in its first or last m bases with density c / L,
 * each with an overlap of m / 2 on average: m^2 / L bases per unit of
 * coverage). Reads starting at density c / L overlap a read of length l by
 * c l bases in all: the coverage (the depth over the read's own bases is
 * one more). */
static double depth_of(const ovl_t *d, uint32_t i, double sum, double lost)
{
    double len = sg_readset_len(d->rs, i);
    return sum / (len - lost > len / 2 ? len - lost : len / 2);
}

static double median(double *x, uint32_t n)
{
    if (!n) return 0;
    qsort(x, n, sizeof *x, cmp_double);
    return x[n / 2];
}

/* The best identity of each pair of reads inside arrays, and the spans of
 * its overlap there. */
typedef struct {
    uint32_t q, t, lq, lt;
    float identity;
} array_pair_t;

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Where the sorted values v[0..n) split in two classes best (Otsu: the
 * split of the most variance between them): the upper class's first
 * index, when it is a minority clearly apart (its mean ARRAY_CLASS_SD
 * standard deviations of the classes above the lower's); else n. */
#define ARRAY_CLASS_SD 4
static size_t upper_class(const float *v, size_t n)
{
    double total = 0, total2 = 0;
    for (size_t i = 0; i < n; i++) total += v[i], total2 += (double)v[i] * v[i];
    double best = -1, acc = 0, acc2 = 0;
    size_t at = n;
    for (size_t i = 1; i < n; i++) {
        acc += v[i - 1], acc2 += (double)v[i - 1] * v[i - 1];
        if (v[i] == v[i - 1] || 2 * i < n) continue; /* the upper class a minority */
        double w0 = i, w1 = n - i, m0 = acc / w0, m1 = (total - acc) / w1, between = w0 * w1 * (m1 - m0) * (m1 - m0);
        if (between <= best) continue;
        double within = (acc2 - w0 * m0 * m0 + (total2 - acc2) - w1 * m1 * m1) / n;
        best = between;
        at = m1 - m0 >= ARRAY_CLASS_SD * sqrt(within > 0 ? within : 0) ? i : n;
    }
    return at;
}

/* The read coverage: the median depth of the reads outside the arrays
 * (those inside overlap one another at every multiple of the period).
 * With fewer than MIN_UNIQUE_READS of them (enriched satellite reads, a
 * BAC, one long read), from the arrays themselves: the reads of one place
 * overlap at the reads' identity, those of other copies lower by the
 * copies' divergence, so where the pairs' best identities split into a
 * small upper class clearly apart, the depth of the array reads by their
 * upper-class partners only is the coverage. Else the copies cannot be
 * told apart and the coverage is unknown: 1, each read a part of the array
 * of its own (d->coverage_unknown). The overlaps are grouped by pair. */
#define MIN_UNIQUE_READS 20
static double read_coverage(ovl_t *d, const uint8_t *kind, const uint8_t *in_array)
{
    uint32_t n = sg_readset_n(d->rs);
    double *sum = sg_calloc((size_t)n + 1, sizeof *sum);
    array_pair_t *ap = NULL;
    size_t n_ap = 0, m_ap = 0;
    for (size_t g = 0, h; g < d->n_ov; g = h) {
        uint32_t lq = 0, lt = 0;
        const sg_overlap_t *best = NULL; /* inside an array: the overlap of the pair at its best identity */
        for (h = g; h < d->n_ov && pair_key(&d->ov[h]) == pair_key(&d->ov[g]); h++) {
            const sg_overlap_t *o = &d->ov[h];
            if (o->q == o->t || (kind[h] != SG_OVL_DOVETAIL && kind[h] != SG_OVL_Q_CONTAINED && kind[h] != SG_OVL_T_CONTAINED))
                continue;
            if (o->qe - o->qs > lq) lq = o->qe - o->qs, lt = o->te - o->ts;
            if (!best || o->identity > best->identity) best = o;
        }
        const uint32_t q = d->ov[g].q, t = d->ov[g].t;
        sum[q] += lq;
        sum[t] += lt;
        if (best && in_array[q] && in_array[t]) {
            if (n_ap == m_ap) ap = sg_realloc(ap, (m_ap = m_ap ? 2 * m_ap : 1024) * sizeof *ap);
            ap[n_ap++] = (array_pair_t){q, t, best->qe - best->qs, best->te - best->ts, best->identity};
        }
    }
    uint64_t n_stored, bases, n_short, short_bases;
    sg_readset_totals(d->rs, &n_stored, &bases, &n_short, &short_bases);
    const double lost = n_stored ? (double)d->o.min_overlap * d->o.min_overlap / ((double)bases / n_stored) : 0;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (sg_readset_stored(d->rs, i) && !in_array[i]) sum[m++] = depth_of(d, i, sum[i], lost);
    double cov = m >= MIN_UNIQUE_READS ? median(sum, m) : 0; /* 0: they overlap too little to tell */
    d->coverage_from = m >= MIN_UNIQUE_READS ? "unique reads" : "none";
    if (!cov && n_ap) {
        float *v = sg_malloc(n_ap * sizeof *v);
        for (size_t i = 0; i < n_ap; i++) v[i] = ap[i].identity;
        qsort(v, n_ap, sizeof *v, cmp_float);
        size_t at = upper_class(v, n_ap);
        if (at < n_ap) {
            memset(sum, 0, ((size_t)n + 1) * sizeof *sum);
            for (size_t i = 0; i < n_ap; i++)
                if (ap[i].identity >= v[at]) sum[ap[i].q] += ap[i].lq, sum[ap[i].t] += ap[i].lt;
            m = 0;
            for (uint32_t i = 0; i < n; i++)
                if (sg_readset_stored(d->rs, i) && in_array[i]) sum[m++] = depth_of(d, i, sum[i], lost);
            cov = median(sum, m);
            d->coverage_from = "array reads";
        }
        free(v);
    }
    free(ap);
    free(sum);
    /* with arrays to count, never 0 */
    int arrays = 0;
    for (uint32_t i = 0; i < n && !arrays; i++) arrays = in_array[i];
    d->coverage_unknown = cov <= 0 && arrays;
    return d->coverage_unknown ? 1 : cov;
}

/* ---- how many of the overlaps there are were found ----
 *
 * Two reads that both overlap a third, placed by those overlaps so that
 * they share RECALL_MARGIN bases more than --min-overlap, overlap each
 * other: the share of such implied overlaps that were found (at any
 * identity kept) is the overlapper's recall on these reads. Reads of
 * identity well inside its range find nearly all (0.97 and more at 85 to
 * 99%); reads below it find few, and the coverage, the cycles and the
 * arrays go with them. Up to RECALL_READS reads, spread over the input,
 * are the thirds, with RECALL_PAIRS pairs each; the reads inside arrays
 * (which overlap every other at some offset) take no part. */
#define RECALL_READS 4096
#define RECALL_PAIRS 32
#define RECALL_MARGIN 2000
/* below this share found, with this many implied, the reads are too noisy
 * (pbsim CLR reads: 99.6% found at 85% accuracy, 94% at 82%, 64% at 78%) */
#define RECALL_SUPPORTED 0.98
#define RECALL_MIN_IMPLIED 200

typedef struct {
    uint32_t third, read;
    int64_t start, end; /* read's place in third's coordinates */
} placed_t;

static int cmp_placed(const void *a, const void *b)
{
    const placed_t *x = a, *y = b;
    if (x->third != y->third) return x->third < y->third ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->read > y->read) - (x->read < y->read);
}

static int has_pair(const ovl_t *d, uint32_t a, uint32_t b)
{
    uint64_t key = a > b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    size_t lo = 0, hi = d->n_ov;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pair_key(&d->ov[mid]) < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < d->n_ov && pair_key(&d->ov[lo]) == key;
}

/* The implied overlaps, and how many were found (the overlaps grouped by pair). */
static void implied_overlaps(const ovl_t *d, const uint8_t *kind, const uint8_t *in_array, uint64_t *implied,
                             uint64_t *found)
{
    const sg_readset_t *rs = d->rs;
    const uint32_t n = sg_readset_n(rs), step = n / RECALL_READS + 1;
    placed_t *pl = NULL;
    size_t n_pl = 0, m_pl = 0;
    *implied = *found = 0;
    for (size_t i = 0; i < d->n_ov; i++) {
        const sg_overlap_t *o = &d->ov[i];
        if (o->q == o->t || in_array[o->q] || in_array[o->t] ||
            (kind[i] != SG_OVL_DOVETAIL && kind[i] != SG_OVL_Q_CONTAINED && kind[i] != SG_OVL_T_CONTAINED))
            continue;
        const int64_t ql = sg_readset_len(rs, o->q), tl = sg_readset_len(rs, o->t);
        for (int side = 0; side < 2; side++) {
            uint32_t third = side ? o->t : o->q, read = side ? o->q : o->t;
            if (third % step) continue;
            int64_t at = side ? (int64_t)o->ts - (o->rev ? ql - o->qe : o->qs) : (int64_t)o->qs - (o->rev ? tl - o->te : o->ts);
            if (n_pl == m_pl) pl = sg_realloc(pl, (m_pl = m_pl ? 2 * m_pl : 4096) * sizeof *pl);
            pl[n_pl++] = (placed_t){third, read, at, at + (side ? ql : tl)};
        }
    }
    if (n_pl) qsort(pl, n_pl, sizeof *pl, cmp_placed);
    const int64_t need = (int64_t)d->o.min_overlap + RECALL_MARGIN;
    for (size_t g = 0, h; g < n_pl; g = h) {
        for (h = g; h < n_pl && pl[h].third == pl[g].third; h++) {}
        uint32_t pairs = 0;
        for (size_t a = g; a < h && pairs < RECALL_PAIRS; a++)
            for (size_t b = a + 1; b < h && pl[b].start + need <= pl[a].end && pairs < RECALL_PAIRS; b++) {
                if (pl[b].read == pl[a].read || (pl[b].end < pl[a].end ? pl[b].end : pl[a].end) - pl[b].start < need)
                    continue;
                pairs++;
                (*implied)++;
                *found += has_pair(d, pl[a].read, pl[b].read);
            }
    }
    free(pl);
}

/* ---- cycles that reads can witness ----
 *
 * A dovetail between reads that end and start inside two copies of an
 * interspersed repeat longer than --min-overlap closes a cycle through all
 * the sequence between the copies, however far apart they lie: a genome's
 * overlap graph has cycles wherever it has repeats. A tandem array's reads
 * overlap one another (and themselves) one period or a few apart, so its
 * cycles close within about a read's length: their displacement (the bases
 * added by each read along the cycle, its length less the overlap) is a
 * multiple of the period that one read spans. So a read takes part in the
 * repeats only when a cycle through it closes within the length that
 * CYCLE_READ_SHARE of the reads reach or pass, or its own length (a read
 * that overlaps itself witnesses its period); the dovetails of the other reads
 * are left out of the graph, and the SCCs are the arrays. A search that
 * settles CYCLE_SEARCH_MAX reads without closing a short cycle finds
 * none: unique sequence holds a few tens of reads within a read length, a
 * collapsed high-copy family (a transposon of thousands of copies) many
 * more, and the arrays' reads close theirs at once. */
#define CYCLE_READ_SHARE 0.01
#define CYCLE_SEARCH_MAX 4096

typedef struct {
    uint32_t *dist, *touched;
    uint64_t *heap; /* distance << 32 | vertex */
    size_t n_heap, m_heap;
} cycle_search_t;

static void heap_push(cycle_search_t *cs, uint64_t x)
{
    if (cs->n_heap == cs->m_heap) cs->heap = sg_realloc(cs->heap, (cs->m_heap = cs->m_heap ? 2 * cs->m_heap : 1024) * sizeof *cs->heap);
    size_t i = cs->n_heap++;
    for (; i && cs->heap[(i - 1) / 2] > x; i = (i - 1) / 2) cs->heap[i] = cs->heap[(i - 1) / 2];
    cs->heap[i] = x;
}

static uint64_t heap_pop(cycle_search_t *cs)
{
    uint64_t top = cs->heap[0], last = cs->heap[--cs->n_heap];
    size_t i = 0, n = cs->n_heap;
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && cs->heap[c + 1] < cs->heap[c]) c++;
        if (cs->heap[c] >= last) break;
        cs->heap[i] = cs->heap[c];
    }
    if (n) cs->heap[i] = last;
    return top;
}

/* Whether a cycle of s's component comp closes through s within limit
 * bases (Dijkstra's search from s, stopped at the first). */
static int short_cycle(const sg_graph_t *g, const uint32_t *comp, uint32_t s, uint32_t limit, cycle_search_t *cs)
{
    uint32_t n_touched = 0, settled = 0;
    int found = 0;
    cs->n_heap = 0;
    cs->dist[s] = 0;
    cs->touched[n_touched++] = s;
    heap_push(cs, s);
    while (cs->n_heap && !found && settled < CYCLE_SEARCH_MAX) {
        uint64_t x = heap_pop(cs);
        uint32_t d = (uint32_t)(x >> 32), v = (uint32_t)x;
        if (d != cs->dist[v]) continue;
        settled++;
        for (uint64_t j = g->off[v]; j < g->off[v + 1] && !found; j++) {
            uint32_t w = g->adj[j], len = (uint32_t)g->star_len[w >> 1];
            if (comp[w] != comp[s]) continue;
            uint64_t nd = d + (uint64_t)(len > g->ovl[j] ? len - g->ovl[j] : 0);
            if (nd > limit) continue;
            if (w == s) found = 1;
            else if (nd < cs->dist[w]) {
                if (cs->dist[w] == UINT32_MAX) cs->touched[n_touched++] = w;
                cs->dist[w] = (uint32_t)nd;
                heap_push(cs, nd << 32 | w);
            }
        }
    }
    for (uint32_t i = 0; i < n_touched; i++) cs->dist[cs->touched[i]] = UINT32_MAX;
    return found;
}

static int cmp_u32_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

/* The length that CYCLE_READ_SHARE of the stored reads reach or pass. */
static uint32_t cycle_limit(const sg_readset_t *rs)
{
    uint32_t n = sg_readset_n(rs), m = 0;
    uint32_t *len = sg_malloc(((size_t)n + 1) * sizeof *len);
    for (uint32_t i = 0; i < n; i++)
        if (sg_readset_stored(rs, i)) len[m++] = sg_readset_len(rs, i);
    uint32_t lim = 0;
    if (m) {
        qsort(len, m, sizeof *len, cmp_u32_desc);
        lim = len[(uint32_t)(CYCLE_READ_SHARE * (m - 1))];
    }
    free(len);
    return lim;
}

/* What a read is to the cycles of the graph: on none, on a short one (an
 * array's), or on long ones only (left out). */
enum { READ_ACYCLIC, READ_ARRAY, READ_LONG_CYCLES };

/* The graph g less the dovetails of the reads on cycles none of which is
 * short (the reads stay, as vertices of no repeat); each read's place in
 * state. @return the reads left out */
static uint64_t keep_short_cycles(sg_graph_t *g, uint32_t limit, uint8_t *state)
{
    const uint32_t nv = g->n_vert;
    uint32_t *comp = sg_malloc(((size_t)nv + 1) * sizeof *comp), *size = sg_calloc((size_t)nv + 1, sizeof *size);
    sg_scc_tarjan(g, comp);
    for (uint32_t v = 0; v < nv; v++) size[comp[v]]++;
    cycle_search_t cs = {.dist = sg_malloc(((size_t)nv + 1) * sizeof *cs.dist),
                         .touched = sg_malloc(((size_t)nv + 1) * sizeof *cs.touched)};
    for (uint32_t v = 0; v < nv; v++) cs.dist[v] = UINT32_MAX;
    uint64_t dropped = 0;
    /* a read's two strands close the same cycles, reversed: one is searched */
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t v = sg_vert(i, 0), self = 0;
        for (uint64_t j = g->off[v]; j < g->off[v + 1]; j++) self |= g->adj[j] == v;
        state[i] = READ_ACYCLIC;
        if (size[comp[v]] < 2 && !self) continue;
        uint32_t lim = (uint32_t)g->star_len[i] > limit ? (uint32_t)g->star_len[i] : limit;
        state[i] = self || short_cycle(g, comp, v, lim, &cs) ? READ_ARRAY : READ_LONG_CYCLES;
        dropped += state[i] == READ_LONG_CYCLES;
    }
    uint64_t m = 0, *off = g->off;
    for (uint32_t v = 0; v < nv; v++) { /* the CSR compacted in place: off[v + 1] is still v's end */
        uint64_t j = off[v], end = off[v + 1];
        off[v] = m;
        for (; j < end; j++)
            if (state[v >> 1] != READ_LONG_CYCLES && state[g->adj[j] >> 1] != READ_LONG_CYCLES)
                g->adj[m] = g->adj[j], g->ovl[m] = g->ovl[j], m++;
    }
    off[nv] = m;
    g->n_edges = m;
    free(cs.dist);
    free(cs.touched);
    free(cs.heap);
    free(comp);
    free(size);
    return dropped;
}

#define SELF_MARGIN 0.05f

/* Edges by source, target and overlap, the longest first. */
static int cmp_edge(const void *a, const void *b)
{
    const sg_edge_t *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    return (x->ovl < y->ovl) - (x->ovl > y->ovl);
}

static double build_graph(ovl_t *d, sg_graph_t *g)
{
    const sg_readset_t *rs = d->rs;
    uint32_t n = sg_readset_n(rs);
    uint8_t *kind = sg_malloc(d->n_ov + 1), *self = sg_calloc((size_t)n + 1, 1);
    uint32_t *self_ovl = sg_calloc((size_t)n + 1, sizeof *self_ovl);
    sg_edge_t *e = sg_malloc((2 * d->n_ov + 2) * sizeof *e);
    size_t n_e = 0;
    /* a read whose end matches its start lies in a tandem array: its
     * self-overlap is a loop on both strands, and it is never set aside as
     * contained (inside an array every read is contained in a longer one at
     * some offset, and the array would be left with no reads). A read's
     * match with itself is as good as its overlaps with the other reads of
     * its array (SELF_MARGIN below its best); one much worse is a chain
     * through the diverged copies of an interspersed family that the read
     * holds a few of (Alu-like copies 2 kb apart, 12% diverged, in reads of
     * 95%: 0.81 against 0.95), and makes no loop. */
    float *best = sg_calloc((size_t)n + 1, sizeof *best);
    for (size_t i = 0; i < d->n_ov; i++) {
        const sg_overlap_t *o = &d->ov[i];
        uint32_t f = 0, t = 0, l = 0;
        kind[i] = (uint8_t)sg_overlap_classify(o, sg_readset_len(rs, o->q), sg_readset_len(rs, o->t), d->o.min_overlap,
                                               &f, &t, &l);
        if (o->q != o->t && kind[i] != SG_OVL_INTERNAL) {
            if (o->identity > best[o->q]) best[o->q] = o->identity;
            if (o->identity > best[o->t]) best[o->t] = o->identity;
        }
    }
    for (size_t i = 0; i < d->n_ov; i++) {
        const sg_overlap_t *o = &d->ov[i];
        uint32_t f = 0, t = 0, l = 0;
        sg_overlap_classify(o, sg_readset_len(rs, o->q), sg_readset_len(rs, o->t), d->o.min_overlap, &f, &t, &l);
        d->kinds[kind[i]]++;
        if (kind[i] == SG_OVL_DOVETAIL) {
            if (f == t) {
                if (o->identity + SELF_MARGIN < best[o->q]) continue;
                self[o->q] = 1;
                if (l > self_ovl[o->q]) self_ovl[o->q] = l;
            } else {
                e[n_e++] = (sg_edge_t){f, t, l};
                e[n_e++] = (sg_edge_t){sg_vert_flip(t), sg_vert_flip(f), l};
            }
        }
    }
    /* each other read that lies inside a longer one is reported with the
     * longest of those, or with that one's container (lengths rise along the way) */
    uint32_t *container = sg_malloc(((size_t)n + 1) * sizeof *container);
    for (uint32_t i = 0; i < n; i++) container[i] = i;
    for (size_t i = 0; i < d->n_ov; i++) {
        const sg_overlap_t *o = &d->ov[i];
        if (kind[i] != SG_OVL_Q_CONTAINED && kind[i] != SG_OVL_T_CONTAINED) continue;
        uint32_t x = kind[i] == SG_OVL_Q_CONTAINED ? o->q : o->t, c = kind[i] == SG_OVL_Q_CONTAINED ? o->t : o->q;
        if (x != c && !self[x] && outranks(rs, c, x) && (container[x] == x || outranks(rs, c, container[x])))
            container[x] = c;
    }
    free(best);
    d->root = sg_malloc(((size_t)n + 1) * sizeof *d->root);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = i;
        while (container[r] != r) r = container[r];
        d->root[i] = r;
        d->contained += r != i;
        d->self_reads += self[i];
    }
    /* the dovetails between reads that are not contained, each pair of
     * oriented reads once with its longest overlap (a tandem array's reads
     * overlap at several offsets: the shortest step between them), and the loops */
    size_t kept = 0;
    for (size_t i = 0; i < n_e; i++)
        if (container[e[i].from >> 1] == e[i].from >> 1 && container[e[i].to >> 1] == e[i].to >> 1) e[kept++] = e[i];
    qsort(e, kept, sizeof *e, cmp_edge);
    n_e = 0;
    for (size_t i = 0; i < kept; i++)
        if (!n_e || e[i].from != e[n_e - 1].from || e[i].to != e[n_e - 1].to) e[n_e++] = e[i];
    e = sg_realloc(e, (n_e + 2 * (size_t)d->self_reads + 1) * sizeof *e);
    for (uint32_t i = 0; i < n; i++)
        if (self[i]) {
            e[n_e++] = (sg_edge_t){sg_vert(i, 0), sg_vert(i, 0), self_ovl[i]};
            e[n_e++] = (sg_edge_t){sg_vert(i, 1), sg_vert(i, 1), self_ovl[i]};
        }
    memset(g, 0, sizeof *g);
    g->oriented = 1;
    g->reads = 1;
    g->n = n;
    g->n_vert = 2 * n;
    g->name = sg_malloc(((size_t)n + 1) * sizeof *g->name);
    g->seq = sg_malloc(1);
    g->seq_off = sg_calloc((size_t)n + 1, sizeof *g->seq_off);
    g->star_len = sg_malloc(((size_t)n + 1) * sizeof *g->star_len); /* the bases come with the repeats */
    g->kmers = sg_malloc(((size_t)n + 1) * sizeof *g->kmers);
    g->count_sum = sg_calloc((size_t)n + 1, sizeof *g->count_sum);
    for (uint32_t i = 0; i < n; i++) {
        g->name[i] = sg_strdup(sg_readset_name(rs, i));
        g->star_len[i] = g->kmers[i] = sg_readset_len(rs, i);
        g->count_sum[d->root[i]] += sg_readset_len(rs, i);
    }
    sg_graph_set_edges(g, e, n_e);
    free(e);
    d->cycle_limit = cycle_limit(rs);
    uint8_t *state = sg_malloc((size_t)n + 1);
    d->long_cycle_reads = keep_short_cycles(g, d->cycle_limit, state);
    /* a contained read lies where its container does */
    uint8_t *in_array = sg_malloc((size_t)n + 1);
    for (uint32_t i = 0; i < n; i++) in_array[i] = state[d->root[i]] == READ_ARRAY;
    free(container);
    free(self_ovl);
    free(state);
    double cov = read_coverage(d, kind, in_array);
    implied_overlaps(d, kind, in_array, &d->implied, &d->implied_found);
    free(kind);
    free(self);
    free(in_array);
    return cov;
}

/* The device failed at a stage of the overlapper that the host's threads
 * do (instead) from the reads they hold: under auto, said through the
 * build's stage; whether they do. */
static int fall_back(ovl_t *d, sg_graph_builder_t *b, const char *instead)
{
    sg_stage_t *s = d->o.stage;
    if (!s) return 0;
    s->instead = instead;
    snprintf(s->err, sizeof s->err, "%s", b->err);
    if (!sg_stage_fall_back(s, NULL)) return 0;
    b->backend = "cpu";
    return 1;
}

static int ovl_build(sg_graph_builder_t *b, sg_reader_t *rd, sg_graph_t *g)
{
    ovl_t *d = b->priv;
    memset(g, 0, sizeof *g);
    double t0 = sg_realtime();
    sg_input_init(&d->in, rd, 0);
    const sg_step_t steps[] = {
        {"read", sg_input_read, 1, 0},
        {"parse", sg_input_parse, 0, 0},
        {"chunk", sg_input_chunk, 1, 0},
        {"store", step_store, 1, 0},
    };
    sg_pipeline_opts_t po = {.n_threads = d->o.n_threads, .max_items = 2 * d->o.n_threads + 4,
                             .free_item = sg_input_free_chunk};
    int r = sg_pipeline_run(steps, 4, d, &po);
    if (r == 0) r = sg_readset_finish(d->rs, rd); /* before the reader goes: its files name the reads */
    sg_input_free(&d->in);
    b->sec[0] = d->sec_read = sg_realtime() - t0;
    if (r < 0) return r;
    uint64_t n_stored, bases, n_short, short_bases;
    sg_readset_totals(d->rs, &n_stored, &bases, &n_short, &short_bases);
    sg_info("%llu reads, %llu bases; %llu reads shorter than --min-overlap (%u) skipped", (unsigned long long)n_stored,
            (unsigned long long)bases, (unsigned long long)n_short, d->o.min_overlap);
    if (!n_stored && n_short)
        sg_warn("no read is %u bases or longer (--min-overlap): no overlaps, no repeats", d->o.min_overlap);
    t0 = sg_realtime();
    if (d->o.overlaps) {
        sg_progress_stage("reading overlaps", sg_input_stored_bytes((char *const *)&d->o.overlaps, 1));
        r = sg_paf_read(d->o.overlaps, d->rs, take_overlaps, d);
        if (r == 0 && !d->found && n_stored) /* an empty PAF, or one of the short reads only */
            sg_warn("'%s' holds no overlap between reads of %u bases or longer (--min-overlap): no repeats",
                    d->o.overlaps, d->o.min_overlap);
    } else {
        sg_ovl_opts_t oo;
        sg_ovl_opts_default(&oo, d->o.n_threads, d->o.min_overlap);
        if (d->o.sketch_k) oo.k = d->o.sketch_k, oo.w = d->o.sketch_w, oo.hpc = d->o.sketch_hpc;
        oo.index = d->index;
        oo.fallback = d->o.stage && d->o.stage->fallback;
        r = sg_overlaps_find(d->rs, &oo, take_overlaps, d, &d->ost, b->err, sizeof b->err);
        if (r == 0 && d->ost.chain_fallback) /* auto: the index was built, the host's threads chained */
            (void)fall_back(d, b, "chaining the overlaps on the cpu");
        if (r == SG_ERR_DEVICE && fall_back(d, b, "building the overlap index on the cpu")) {
            /* auto: the reads are here, the host's threads take over */
            oo.index = NULL;
            r = sg_overlaps_find(d->rs, &oo, take_overlaps, d, &d->ost, b->err, sizeof b->err);
        }
    }
    if (r == 0) d->duplicates = dedupe_overlaps(d);
    if (r == 0 && d->o.overlaps_out) { /* the kept ones, in order, formatted on all threads */
        double t1 = sg_realtime();
        r = sg_paf_write_all(d->o.overlaps_out, d->rs, d->ov, d->n_ov, d->o.n_threads);
        d->ost.overlap_s += sg_realtime() - t1; /* the own overlapper's output is part of its time, as minimap2's */
    }
    b->sec[1] = sg_realtime() - t0;
    if (r < 0) return r;
    t0 = sg_realtime();
    sg_progress_stage("the overlap graph", 0);
    b->coverage = build_graph(d, g);
    b->sec[2] = d->sec_graph = sg_realtime() - t0;
    const double recall = d->implied ? (double)d->implied_found / d->implied : 1;
    sg_info("%llu overlaps (%llu below --min-identity, %llu given twice): %llu dovetails, %llu containments, "
            "%llu internal, %llu short; %.1f%% of the %llu overlaps that others imply found",
            (unsigned long long)d->found, (unsigned long long)d->low_identity, (unsigned long long)d->duplicates,
            (unsigned long long)d->kinds[SG_OVL_DOVETAIL],
            (unsigned long long)(d->kinds[SG_OVL_Q_CONTAINED] + d->kinds[SG_OVL_T_CONTAINED]),
            (unsigned long long)d->kinds[SG_OVL_INTERNAL], (unsigned long long)d->kinds[SG_OVL_SHORT], 100 * recall,
            (unsigned long long)d->implied);
    if (d->implied >= RECALL_MIN_IMPLIED && recall < RECALL_SUPPORTED)
        sg_warn("only %.1f%% of the overlaps that other overlaps imply were found (%llu of %llu): the reads' identity "
                "is below what %s finds overlaps at (about 85%% for PacBio CLR and ONT; pbsim's CLR default is 78%%), "
                "so the read coverage (%.1f) and the arrays are underestimated and periods may be wrong. Correct the "
                "reads first (a long-read corrector), or use more accurate reads (HiFi, recent ONT)",
                100 * recall, (unsigned long long)d->implied_found, (unsigned long long)d->implied,
                d->o.overlaps ? "the overlapper of --overlaps" : "the own overlapper", b->coverage);
    if (d->coverage_unknown)
        sg_warn("the read coverage cannot be told from these reads (fewer than %u reads outside the tandem arrays "
                "that overlap others, and the arrays' copies as alike as the reads are accurate): it is taken as 1, so "
                "the arrays' lengths and copies are upper bounds (the reads' bases); give reads of the flanks too, or "
                "more accurate reads", MIN_UNIQUE_READS);
    sg_info("%llu reads contained, %llu overlap themselves, %llu on cycles none of which closes within %u bases "
            "(interspersed repeats) left out; read coverage %.1f (from %s)",
            (unsigned long long)d->contained, (unsigned long long)d->self_reads,
            (unsigned long long)d->long_cycle_reads, d->cycle_limit, b->coverage,
            d->coverage_unknown ? "none: unknown" : d->coverage_from);
    return 0;
}

/* ---- the report ---- */

typedef struct {
    ovl_t *d;
    double coverage;
    uint32_t *kids_off, *kids; /* reads of each root: kids[kids_off[r] .. kids_off[r + 1]) */
    size_t *by_off;            /* the overlaps of read r: d->ov[by[by_off[r] .. by_off[r + 1])] */
    uint32_t *by;
    uint8_t *seen;             /* per read, cleared after each repeat */
    uint32_t *cand;            /* a repeat's reads, and those that overlap them */
} describe_t;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Where an array lies in the reads (loci from long reads): a read holds
 * its ends when a kilobase or more of other sequence (and two periods: a
 * stretch may end a period short of the array) lies beyond the periodic
 * stretches on both sides, which run from end to end without a gap of more
 * than a tenth; such a read spans the array, and its stretch's length is
 * the array's, when no read holds a longer stretch of it (a read's noisy
 * end, or a few chance repeats, make a short stretch look bounded: on
 * pbsim's CLR reads, up to a kilobase at a read's end is unmarked). */
static uint32_t locus_flank(uint32_t period) { return 2 * period + 100 > 1000 ? 2 * period + 100 : 1000; }

static int spans_array(const sg_period_extent_t *e, uint32_t len, uint32_t period)
{
    const uint32_t f = locus_flank(period);
    return e->bases && e->start >= f && (uint64_t)e->end + f <= len && (e->end - e->start) * 9ull <= e->bases * 10;
}

/* A component of reads: the period and unit from its reads (those of the
 * graph: each lies in the array, or runs out of it); every read it stands
 * for (the contained ones too, those in the array when there is a period);
 * the array's length and copies from where it lies in those reads and in
 * the reads that overlap them: the median length in the reads that span
 * it, with the least and the most, or else the bases inside it over the
 * read coverage (every base of an array lies in c reads), with the longest
 * stretch of it in one read as the least. */
static void describe_reads(void *ctx, const sg_graph_t *g, const uint32_t *comp, uint32_t c, const uint32_t *mv,
                           uint32_t n_mv, sg_repeat_t *r)
{
    (void)g, (void)comp, (void)c, (void)mv, (void)n_mv;
    describe_t *x = ctx;
    const ovl_t *d = x->d;
    const sg_readset_t *rs = d->rs;
    /* the period, from the reads of the graph */
    char **seq = sg_malloc(((size_t)r->n_nodes + 1) * sizeof *seq);
    uint32_t *len = sg_malloc(((size_t)r->n_nodes + 1) * sizeof *len), n_seq = 0;
    uint64_t spelled = 0;
    for (uint32_t i = 0; i < r->n_nodes && spelled < SG_PERIOD_BASES; i++) {
        uint32_t l = sg_readset_len(rs, r->nodes[i]);
        if (!sg_readset_stored(rs, r->nodes[i])) continue;
        seq[n_seq] = sg_malloc((size_t)l + 1);
        sg_readset_spell(rs, r->nodes[i], seq[n_seq]);
        len[n_seq++] = l;
        spelled += l;
    }
    sg_period_t p;
    sg_period_find((const char *const *)seq, len, n_seq, &p);
    for (uint32_t i = 0; i < n_seq; i++) free(seq[i]);
    free(seq);
    free(len);
    /* the reads: the graph's and theirs, then those that overlap them */
    uint32_t n_cand = 0, n_members;
    for (uint32_t i = 0; i < r->n_nodes; i++)
        for (uint32_t j = x->kids_off[r->nodes[i]]; j < x->kids_off[r->nodes[i] + 1]; j++) {
            uint32_t k = x->kids[j];
            x->seen[k] = 1 + (k == r->nodes[i]); /* 2: a read of the graph */
            x->cand[n_cand++] = k;
        }
    n_members = n_cand;
    for (uint32_t i = 0; i < n_members; i++)
        for (size_t j = x->by_off[x->cand[i]]; j < x->by_off[x->cand[i] + 1]; j++) {
            const sg_overlap_t *o = &d->ov[x->by[j]];
            uint32_t other = o->q == x->cand[i] ? o->t : o->q;
            if (!x->seen[other]) x->seen[other] = 3, x->cand[n_cand++] = other;
        }
    double *span = sg_malloc(((size_t)n_cand + 1) * sizeof *span);
    uint32_t n_span = 0, longest = 0, n_in = 0;
    uint64_t inside = 0, bases = 0;
    char *buf = NULL;
    size_t m_buf = 0;
    for (uint32_t i = 0; i < n_cand; i++) {
        uint32_t k = x->cand[i], l = sg_readset_len(rs, k);
        sg_period_extent_t e = {0};
        if (p.period && sg_readset_stored(rs, k)) {
            if (l + 1 > m_buf) buf = sg_realloc(buf, m_buf = (size_t)l + 1);
            sg_readset_spell(rs, k, buf);
            sg_period_extent(buf, l, p.period, &e);
        }
        /* a member: a read of the graph, or one it contains that lies in the array */
        if (x->seen[k] == 2 || (x->seen[k] == 1 && (!p.period || e.bases))) x->cand[n_in++] = k, bases += l;
        x->seen[k] = 0;
        inside += e.bases;
        if (e.longest > longest) longest = e.longest;
        if (spans_array(&e, l, p.period)) span[n_span++] = e.end - e.start;
    }
    free(buf);
    free(r->nodes);
    r->nodes = sg_malloc(((size_t)n_in + 1) * sizeof *r->nodes);
    memcpy(r->nodes, x->cand, (size_t)n_in * sizeof *r->nodes);
    qsort(r->nodes, n_in, sizeof *r->nodes, cmp_u32);
    r->n_nodes = n_in;
    r->kmers = bases;
    r->mean_count = x->coverage;
    r->period = p.period;
    r->tandem = p.tandem;
    r->unit = p.unit;
    /* a read that spans the array holds it whole: the longest stretch in any read, or about */
    uint32_t kept_span = 0;
    for (uint32_t i = 0; i < n_span; i++)
        if (span[i] >= 0.9 * longest) span[kept_span++] = span[i];
    n_span = kept_span;
    r->spanning = n_span;
    if (n_span) {
        qsort(span, n_span, sizeof *span, cmp_double);
        r->length = span[n_span / 2];
        r->length_min = span[0];
        r->length_max = span[n_span - 1];
    } else if (p.period) { /* with the coverage unknown (1), an upper bound */
        r->length = x->coverage > 0 ? inside / x->coverage : 0;
        r->length_min = longest;
        if (r->length < longest) r->length = longest;
    } else { /* no period: the reads' bases over the coverage, and a read (they start in all but the last) */
        r->length = x->coverage > 0 && n_in ? bases / x->coverage + (double)bases / n_in : 0;
    }
    free(span);
    r->copies = p.period ? r->length / p.period : 0;
}

/* A read that overlaps itself but closes no cycle with other reads runs
 * out of an array into its flank (its start or its end unique sequence):
 * its loop alone makes a component. It is folded into the component of
 * more than one read that it shares the most dovetails with (then the
 * lowest), its array, whose boundary it holds. */
static void fold_flank_reads(const sg_graph_t *g, uint32_t *comp, uint32_t n_comp)
{
    const uint32_t NONE = UINT32_MAX;
    uint32_t *first = sg_malloc(((size_t)n_comp + 1) * sizeof *first), *twin = sg_malloc(((size_t)n_comp + 1) * sizeof *twin);
    uint32_t *votes = sg_calloc((size_t)n_comp + 1, sizeof *votes), *cand = sg_malloc(((size_t)g->n_edges + 1) * sizeof *cand);
    uint8_t *multi = sg_calloc((size_t)n_comp + 1, 1);
    for (uint32_t c = 0; c < n_comp; c++) first[c] = NONE;
    for (uint32_t v = 0; v < g->n_vert; v++) {
        uint32_t c = comp[v];
        twin[c] = comp[sg_vert_flip(v)];
        if (first[c] == NONE) first[c] = v >> 1;
        else if (first[c] != v >> 1) multi[c] = 1;
    }
    for (uint32_t i = 0; i < g->n; i++) {
        const uint32_t p = sg_vert(i, 0), m = sg_vert(i, 1);
        int loop = 0;
        for (uint64_t j = g->off[p]; j < g->off[p + 1]; j++) loop |= g->adj[j] == p;
        if (!loop || multi[comp[p]]) continue;
        /* p's successors, and its predecessors (the complements of m's successors) */
        uint32_t n_cand = 0, best = NONE;
        for (uint64_t j = g->off[p]; j < g->off[p + 1]; j++)
            if (multi[comp[g->adj[j]]]) cand[n_cand++] = comp[g->adj[j]];
        for (uint64_t j = g->off[m]; j < g->off[m + 1]; j++)
            if (multi[comp[sg_vert_flip(g->adj[j])]]) cand[n_cand++] = comp[sg_vert_flip(g->adj[j])];
        for (uint32_t j = 0; j < n_cand; j++) {
            uint32_t c = cand[j];
            votes[c]++;
            if (best == NONE || votes[c] > votes[best] || (votes[c] == votes[best] && c < best)) best = c;
        }
        for (uint32_t j = 0; j < n_cand; j++) votes[cand[j]] = 0;
        if (best == NONE) continue;
        comp[p] = best;
        comp[m] = twin[best];
    }
    free(first);
    free(twin);
    free(votes);
    free(cand);
    free(multi);
}

/* An array whose cycles the overlaps leave open in places (a short
 * period's reads in HiFi, paired by the repeats' rules mostly with reads of
 * their own place) is two or more components one after the other, linked
 * by dovetails one way. Two repeats linked by a dovetail whose periods
 * agree within 3%, and their units too up to MERGE_UNIT bases (a long
 * unit's consensus differs by a few bases between two sets of reads), are
 * one: their components are merged (and their twins). @return how many
 * merges */
#define MERGE_UNIT 100
static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
}

static int same_array(const sg_repeat_t *a, const sg_repeat_t *b)
{
    if (!a->period || !b->period) return 0;
    uint64_t lo = a->period < b->period ? a->period : b->period, hi = a->period ^ b->period ^ lo;
    if ((hi - lo) * 100 > 3 * hi) return 0;
    return hi > MERGE_UNIT || !strcmp(a->unit, b->unit);
}

static uint32_t merge_open_arrays(const sg_graph_t *g, uint32_t *comp, uint32_t n_comp, const sg_repeats_t *rp)
{
    uint32_t *up = sg_malloc(((size_t)n_comp + 1) * sizeof *up), merged = 0;
    for (uint32_t c = 0; c < n_comp; c++) up[c] = c;
    for (uint32_t u = 0; u < g->n_vert; u++)
        for (uint64_t j = g->off[u]; j < g->off[u + 1]; j++) {
            uint32_t v = g->adj[j], a = rp->node_repeat[u >> 1], b = rp->node_repeat[v >> 1];
            if (!a || !b || a == b || !same_array(&rp->r[a - 1], &rp->r[b - 1])) continue;
            uint32_t x = uf_find(up, comp[u]), y = uf_find(up, comp[v]);
            if (x != y) up[x > y ? x : y] = x < y ? x : y, merged++;
            x = uf_find(up, comp[sg_vert_flip(u)]), y = uf_find(up, comp[sg_vert_flip(v)]);
            if (x != y) up[x > y ? x : y] = x < y ? x : y;
        }
    if (merged)
        for (uint32_t v = 0; v < g->n_vert; v++) comp[v] = uf_find(up, comp[v]);
    free(up);
    return merged;
}

static int ovl_repeats(sg_graph_builder_t *b, sg_graph_t *g, uint32_t *comp, uint32_t n_comp, sg_repeats_t *out)
{
    ovl_t *d = b->priv;
    fold_flank_reads(g, comp, n_comp);
    uint32_t n = sg_readset_n(d->rs);
    describe_t x = {.d = d, .coverage = b->coverage};
    x.kids_off = sg_calloc((size_t)n + 2, sizeof *x.kids_off);
    x.kids = sg_malloc(((size_t)n + 1) * sizeof *x.kids);
    for (uint32_t i = 0; i < n; i++) x.kids_off[d->root[i] + 2]++;
    for (uint32_t i = 0; i < n; i++) x.kids_off[i + 2] += x.kids_off[i + 1];
    for (uint32_t i = 0; i < n; i++) x.kids[x.kids_off[d->root[i] + 1]++] = i;
    /* the overlaps of each read */
    x.by_off = sg_calloc((size_t)n + 2, sizeof *x.by_off);
    for (size_t i = 0; i < d->n_ov; i++) x.by_off[d->ov[i].q + 2]++, x.by_off[d->ov[i].t + 2] += d->ov[i].t != d->ov[i].q;
    for (uint32_t i = 0; i < n; i++) x.by_off[i + 2] += x.by_off[i + 1];
    x.by = sg_malloc((2 * d->n_ov + 1) * sizeof *x.by);
    for (size_t i = 0; i < d->n_ov; i++) {
        x.by[x.by_off[d->ov[i].q + 1]++] = (uint32_t)i;
        if (d->ov[i].t != d->ov[i].q) x.by[x.by_off[d->ov[i].t + 1]++] = (uint32_t)i;
    }
    x.seen = sg_calloc((size_t)n + 1, 1);
    x.cand = sg_malloc(((size_t)n + 1) * sizeof *x.cand);
    sg_repeats_find_by(g, comp, n_comp, describe_reads, &x, out);
    if (merge_open_arrays(g, comp, n_comp, out)) { /* described again, as one */
        sg_repeats_free(out);
        sg_repeats_find_by(g, comp, n_comp, describe_reads, &x, out);
    }
    out->kind = SG_REPEATS_READS;
    d->repeats = out; /* for --stats, written before the repeats are freed */
    free(x.kids_off);
    free(x.kids);
    free(x.by_off);
    free(x.by);
    free(x.seen);
    free(x.cand);
    /* the bases each read of a repeat stands for (RC in PREFIX.gfa): its own
     * and those of the reads it contains in the repeat */
    for (uint32_t i = 0; i < n; i++)
        if (out->node_repeat[d->root[i]]) g->count_sum[i] = 0;
    for (uint32_t i = 0; i < n; i++)
        if (out->node_repeat[d->root[i]] && out->node_repeat[i]) g->count_sum[d->root[i]] += sg_readset_len(d->rs, i);
    /* the repeats' reads get their bases in the graph (for PREFIX.gfa) */
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (out->node_repeat[i] && sg_readset_stored(d->rs, i)) total += sg_readset_len(d->rs, i);
    free(g->seq);
    g->seq = sg_malloc(total + 1);
    for (uint32_t i = 0; i < n; i++) {
        int has = out->node_repeat[i] && sg_readset_stored(d->rs, i);
        g->seq_off[i + 1] = g->seq_off[i] + (has ? sg_readset_len(d->rs, i) : 0);
        if (!has) continue;
        g->star_len[i] = 0;
        char *s = sg_malloc((size_t)sg_readset_len(d->rs, i) + 1);
        sg_readset_spell(d->rs, i, s);
        memcpy(g->seq + g->seq_off[i], s, sg_readset_len(d->rs, i));
        free(s);
    }
    return 0;
}

static void ovl_stats(const sg_graph_builder_t *b, FILE *fp)
{
    const ovl_t *d = b->priv;
    uint64_t n_stored, bases, n_short, short_bases;
    sg_readset_totals(d->rs, &n_stored, &bases, &n_short, &short_bases);
    fprintf(fp, "  \"graph\": \"overlap\",\n  \"graph_backend\": \"%s\",\n", b->backend);
    fprintf(fp, "  \"overlaps_from\": \"%s\",\n", d->o.overlaps ? "paf" : "minimizers");
    fprintf(fp, "  \"reads\": %llu,\n  \"bases\": %llu,\n  \"short_reads_skipped\": %llu,\n  \"short_bases_skipped\": %llu,\n",
            (unsigned long long)n_stored, (unsigned long long)bases, (unsigned long long)n_short,
            (unsigned long long)short_bases);
    fprintf(fp, "  \"min_overlap\": %u,\n  \"min_identity\": %.3f,\n", d->o.min_overlap, d->o.min_identity);
    if (!d->o.overlaps)
        fprintf(fp, "  \"minimizers\": {\"index\": \"%s\", \"k\": %d, \"w\": %d, \"hpc\": %s, \"sketched\": %llu, \"indexed\": %llu, "
                    "\"buckets\": %llu, \"max_occ\": %u, \"repeat_buckets\": %llu, \"hits\": %llu, "
                    "\"repeat_reads\": %llu, \"repeat_turns\": %u, \"reads_chained_on_device\": %llu, \"seconds\": {\"index\": %.4f, \"device_chain\": %.4f, "
                    "\"repeat_hits\": %.4f, \"repeat_chain\": %.4f, \"overlaps\": %.4f}},\n",
                d->ost.index_device && d->index ? d->index->name : "cpu", d->o.sketch_k ? d->o.sketch_k : SG_OVL_K,
                d->o.sketch_k ? d->o.sketch_w : SG_OVL_W, !d->o.sketch_k || d->o.sketch_hpc ? "true" : "false",
                (unsigned long long)d->ost.minimizers, (unsigned long long)d->ost.indexed,
                (unsigned long long)d->ost.buckets, d->ost.max_occ, (unsigned long long)d->ost.rep_buckets,
                (unsigned long long)d->ost.hits, (unsigned long long)d->ost.repeat_reads, d->ost.repeat_turns,
                (unsigned long long)d->ost.device_reads, d->ost.index_s, d->ost.device_chain_s, d->ost.repeat_hits_s,
                d->ost.repeat_chain_s, d->ost.emit_s);
    if (!d->o.overlaps && d->index && d->index->stats && !strcmp(b->backend, d->index->name)) {
        fprintf(fp, "  \"index_%s\": {", d->index->name);
        d->index->stats(d->index, fp);
        fputs("},\n", fp);
    }
    fprintf(fp, "  \"overlaps\": %llu,\n  \"low_identity\": %llu,\n  \"dovetails\": %llu,\n  \"containments\": %llu,\n"
                "  \"internal\": %llu,\n  \"short\": %llu,\n  \"contained_reads\": %llu,\n  \"self_overlapping_reads\": %llu,\n"
                "  \"duplicate_overlaps\": %llu,\n  \"implied_overlaps\": %llu,\n  \"implied_overlaps_found\": %llu,\n"
                "  \"cycle_limit\": %u,\n  \"long_cycle_reads\": %llu,\n  \"coverage\": %.3f,\n  \"coverage_from\": \"%s\",\n",
            (unsigned long long)d->found, (unsigned long long)d->low_identity,
            (unsigned long long)d->kinds[SG_OVL_DOVETAIL],
            (unsigned long long)(d->kinds[SG_OVL_Q_CONTAINED] + d->kinds[SG_OVL_T_CONTAINED]),
            (unsigned long long)d->kinds[SG_OVL_INTERNAL], (unsigned long long)d->kinds[SG_OVL_SHORT],
            (unsigned long long)d->contained, (unsigned long long)d->self_reads, (unsigned long long)d->duplicates,
            (unsigned long long)d->implied, (unsigned long long)d->implied_found, d->cycle_limit,
            (unsigned long long)d->long_cycle_reads, b->coverage, d->coverage_unknown ? "none" : d->coverage_from);
    /* the arrays' lengths (repeats.tsv's last columns) */
    fputs("  \"array_lengths\": [", fp);
    for (uint32_t i = 0; d->repeats && i < d->repeats->n; i++) {
        const sg_repeat_t *x = &d->repeats->r[i];
        fprintf(fp, "%s{\"id\": \"repeat%u\", \"period\": %llu, \"length\": %.0f, \"length_min\": ", i ? ", " : "", i + 1,
                (unsigned long long)x->period, x->length);
        if (x->length_min > 0) fprintf(fp, "%.0f", x->length_min);
        else fputs("null", fp);
        fputs(", \"length_max\": ", fp);
        if (x->length_max > 0) fprintf(fp, "%.0f", x->length_max);
        else fputs("null", fp);
        fprintf(fp, ", \"spanning_reads\": %u}", x->spanning);
    }
    fputs("],\n", fp);
    fprintf(fp, "  \"overlap_seconds\": {\"read\": %.4f, \"index\": %.4f, \"overlap\": %.4f, \"graph\": %.4f},\n",
            d->sec_read, d->ost.index_s, d->o.overlaps ? b->sec[1] : d->ost.overlap_s, d->sec_graph);
}

static void ovl_free(sg_graph_builder_t *b)
{
    ovl_t *d = b->priv;
    sg_readset_free(d->rs);
    if (d->index) d->index->free(d->index);
    free(d->ov);
    free(d->root);
    free(d);
    free(b);
}

sg_graph_builder_t *sg_graph_builder_overlap(const sg_graph_opts_t *o, const char *backend, sg_mindex_t *index)
{
    ovl_t *d = sg_calloc(1, sizeof *d);
    d->o = *o;
    d->index = index;
    d->rs = sg_readset_new(o->min_overlap);
    sg_graph_builder_t *b = sg_calloc(1, sizeof *b);
    b->name = "overlap";
    b->backend = backend;
    b->build = ovl_build;
    b->stats = ovl_stats;
    b->repeats = ovl_repeats;
    b->free = ovl_free;
    b->priv = d;
    return b;
}

int sg_graph_builder_overlap_cpu(const sg_graph_opts_t *o, sg_graph_builder_t **out, char *err, size_t errsz)
{
    (void)err, (void)errsz;
    *out = sg_graph_builder_overlap(o, "cpu", NULL);
    return 0;
}
