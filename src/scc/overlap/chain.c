/* The overlapper's chaining on the host, and its last stage: read q's hits
 * (hits.c) sorted, grouped by read t and strand, cut into bands of near
 * diagonals and windows of wide bands, the longest co-linear chain of each
 * window found (src/scc/overlap/chain.h, the same function as the device's
 * in cuda/scc/chain.cu) and kept as an overlap when it is long enough.
 * In: the index, or a device's chains (chain_device.c). Out: each block's
 * overlaps, in read order, to the run's sink (sg_overlaps_find). */
#define _GNU_SOURCE
#include "scc/overlap/minimizer_int.h"
#include "scc/overlap/chain.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "core/progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void radix_hits(hit_t *a, hit_t *tmp, size_t n)
{
    if (n < 32) {
        for (size_t i = 1; i < n; i++) {
            hit_t x = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1].key > x.key; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    size_t cnt[8][256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) cnt[b][(a[i].key >> (8 * b)) & 255]++;
    hit_t *src = a, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        size_t *c = cnt[b];
        if (c[(src[0].key >> (8 * b)) & 255] == n) continue;
        for (size_t d = 0, sum = 0; d < 256; d++) {
            size_t x = c[d];
            c[d] = sum;
            sum += x;
        }
        for (size_t i = 0; i < n; i++) dst[c[(src[i].key >> (8 * b)) & 255]++] = src[i];
        hit_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* The first of q's minimizers at or after position pos. */
static size_t mini_at(const sg_mini_t *m, size_t n, uint32_t pos)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid].pos < pos) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The overlap of q with t on strand rev from chain c, when it is long
 * enough; n_all of q's minimizers lie in the chain's span of q, n_rep of
 * them from buckets above max_occ. The host's chains and a device's
 * (sg_mindex_t chain) go through here. @return whether it is one */
int sg_ovl_chain_overlap(const ctx_t *cx, uint32_t q, uint32_t t, uint32_t rev, const sg_chain_t *c, uint32_t n_rep,
                         uint32_t n_all, sg_overlap_t *out)
{
    const int k = cx->o.k;
    const uint32_t ql = sg_readset_len(cx->rs, q), tl = sg_readset_len(cx->rs, t);
    const uint32_t min_span = (uint32_t)(SG_OVL_INT_FRAC * cx->o.min_overlap);
    if (c->n < SG_CHAIN_MIN_ANCHORS) return 0;
    const uint32_t q0 = sg_hit_qpos(c->first), q1 = sg_hit_qpos(c->last);
    const uint32_t t0 = sg_hit_tpos(c->first), t1 = sg_hit_tpos(c->last);
    sg_overlap_t o = {.q = q, .t = t, .rev = (uint8_t)rev, .anchors = c->n};
    o.qs = q0 >= (uint32_t)k - 1 ? q0 - (k - 1) : 0;
    o.qe = q1 + 1 < ql ? q1 + 1 : ql;
    uint32_t ts = t0 >= (uint32_t)k - 1 ? t0 - (k - 1) : 0, te = t1 + 1 < tl ? t1 + 1 : tl;
    if (ts > te) ts = te;
    o.ts = rev ? tl - te : ts;
    o.te = rev ? tl - ts : te;
    if (o.qe - o.qs < min_span || o.te - o.ts < min_span) return 0;
    /* identity from the share of q's minimizers in the span that the chain
     * holds, as minimap2's divergence: a minimizer from a bucket above
     * max_occ counts as shared (sequence of the repeat that both hold) */
    double frac = n_all ? (double)(c->shared + n_rep) / n_all : 1;
    o.identity = (float)(frac >= 1 ? 1 : pow(frac, 1.0 / k));
    *out = o;
    return 1;
}

/* o as one of the overlaps of the read in qb (qb->ov). */
void sg_ovl_add_overlap(qbuf_t *qb, const sg_overlap_t *o)
{
    if (qb->n_ov == qb->m_ov) qb->ov = sg_realloc(qb->ov, (qb->m_ov = qb->m_ov ? 2 * qb->m_ov : 64) * sizeof *qb->ov);
    qb->ov[qb->n_ov++] = *o;
}

/* The chain of a window of the band in qb->band as the overlap of q with t
 * on strand rev, when it is one. */
static void window_overlap(const ctx_t *cx, uint32_t q, uint32_t t, uint32_t rev, const uint32_t *a, uint32_t na,
                           const uint32_t *b, uint32_t nb, size_t n_mini, qbuf_t *qb)
{
    sg_chain_t c;
    sg_chain_window(&qb->band[0].key, 2, a, na, b, nb, qb->used, qb->wcand, qb->wval, qb->tail, qb->pred, &c);
    if (c.n < SG_CHAIN_MIN_ANCHORS) return;
    size_t lo = mini_at(qb->sb.mini, n_mini, sg_hit_qpos(c.first)), hi = mini_at(qb->sb.mini, n_mini, sg_hit_qpos(c.last) + 1);
    sg_overlap_t o;
    if (sg_ovl_chain_overlap(cx, q, t, rev, &c, qb->rep_before[hi] - qb->rep_before[lo], (uint32_t)(hi - lo), &o))
        sg_ovl_add_overlap(qb, &o);
}

/* Chains of q with t on strand rev from hits h[0..n) (sorted by key), band
 * by band, window by window (src/scc/overlap/chain.h). */
static void chain_group(const ctx_t *cx, uint32_t q, uint32_t t, uint32_t rev, const hit_t *h, size_t n, size_t n_mini,
                        qbuf_t *qb)
{
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b + 1; e < n && sg_hit_diag(h[e].key) - sg_hit_diag(h[e - 1].key) <= SG_CHAIN_GAP; e++) {}
        if (e - b < SG_CHAIN_MIN_ANCHORS) continue;
        const int64_t d_first = sg_hit_diag(h[b].key), d_last = sg_hit_diag(h[e - 1].key);
        const uint32_t m = (uint32_t)(e - b);
        for (uint32_t i = 0; i < m; i++) qb->band[i] = (hit_t){h[b + i].val, h[b + i].key};
        radix_hits(qb->band, qb->tmp, m); /* by val */
        memset(qb->used, 0, m);
        if (!sg_chain_wide(d_first, d_last)) {
            window_overlap(cx, q, t, rev, NULL, m, NULL, 0, n_mini, qb);
            continue;
        }
        const uint32_t n_sl = sg_chain_slices(&qb->band[0].val, 2, m, d_first, d_last, qb->order, qb->start);
        for (uint32_t w = 0; w < n_sl; w++) {
            const uint32_t *sa = qb->order + qb->start[w], *sb = qb->order + qb->start[w + 1];
            const uint32_t na = qb->start[w + 1] - qb->start[w], nb = w + 1 < n_sl ? qb->start[w + 2] - qb->start[w + 1] : 0;
            window_overlap(cx, q, t, rev, sa, na, sb, nb, n_mini, qb);
            if (sg_chain_last_window(d_first, d_last, w)) break;
        }
    }
}

/* The overlaps of q: its hits, sorted, chained band by band. */
static void query_read(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    const size_t n_mini = sg_ovl_read_hits(cx, q, qb);
    if (2 * qb->n_hit > qb->m_tmp) qb->tmp = sg_realloc(qb->tmp, (qb->m_tmp = 2 * qb->n_hit) * sizeof *qb->tmp);
    if (qb->n_hit > qb->m_band) qb->band = sg_realloc(qb->band, (qb->m_band = qb->n_hit) * sizeof *qb->band);
    hit_t *h = qb->hit;
    radix_hits(h, qb->tmp, qb->n_hit);
    /* per read t and strand, chains in bands of near diagonals */
    if (qb->n_hit > qb->m_chain) {
        qb->m_chain = qb->n_hit;
        qb->tail = sg_realloc(qb->tail, qb->m_chain * sizeof *qb->tail);
        qb->pred = sg_realloc(qb->pred, qb->m_chain * sizeof *qb->pred);
        qb->wcand = sg_realloc(qb->wcand, qb->m_chain * sizeof *qb->wcand);
        qb->wval = sg_realloc(qb->wval, qb->m_chain * sizeof *qb->wval);
        qb->order = sg_realloc(qb->order, qb->m_chain * sizeof *qb->order);
        qb->start = sg_realloc(qb->start, (qb->m_chain + 4) * sizeof *qb->start);
        qb->used = sg_realloc(qb->used, qb->m_chain);
    }
    for (size_t g = 0, gend; g < qb->n_hit; g = gend) {
        for (gend = g + 1; gend < qb->n_hit && h[gend].key >> 31 == h[g].key >> 31; gend++) {}
        chain_group(cx, q, (uint32_t)(h[g].key >> 32), (uint32_t)(h[g].key >> 31) & 1, h + g, gend - g, n_mini, qb);
    }
}

typedef struct {
    sg_overlap_t *ov;
    size_t n;
} block_ovl_t;

static void free_block_ovl(void *p)
{
    block_ovl_t *b = p;
    free(b->ov);
    free(b);
}

/* Block bi's overlaps: each read's from a device's chains, from the
 * device's chains of the host's hits (a repeat read), or chained here. */
static int query_block(void *vctx, size_t bi, void **out)
{
    ctx_t *cx = vctx;
    qbuf_t qb = {0};
    for (uint32_t q = cx->block[bi]; q < cx->block[bi + 1]; q++) {
        if (!sg_readset_stored(cx->rs, q)) continue;
        if (cx->dev_first && !cx->host[q]) sg_ovl_device_read(cx, q, &qb);
        else if (cx->reps) sg_ovl_rep_read(cx, q, &qb);
        else query_read(cx, q, &qb);
    }
    __atomic_fetch_add(&cx->st->hits, qb.hits, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cx->st->repeat_reads, qb.rep_reads, __ATOMIC_RELAXED);
    sg_progress_add(sg_ovl_block_bases(cx, bi, NULL));
    block_ovl_t *b = sg_malloc(sizeof *b);
    b->ov = qb.ov;
    b->n = qb.n_ov;
    qb.ov = NULL;
    sg_ovl_free_qbuf(&qb);
    *out = b;
    return 0;
}

/* ... to the sink, in block order. */
static int emit_block(void *vctx, size_t bi, void *out)
{
    (void)bi;
    ctx_t *cx = vctx;
    const block_ovl_t *b = out;
    cx->st->overlaps += b->n;
    return b->n ? cx->sink(cx->sink_arg, b->ov, b->n) : 0;
}

/* Every block's overlaps, on all threads, to the sink in read order. */
int sg_ovl_overlaps(ctx_t *cx, int nt)
{
    sg_pfor_t query = {.n = cx->n_block, .work = query_block, .collect = emit_block, .free_out = free_block_ovl, .ctx = cx};
    return sg_parallel_map(&query, nt);
}
