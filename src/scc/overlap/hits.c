/* The overlapper's hits: read q's minimizers looked up in the index
 * (index.c), LOOKUP_BATCH at a time, and each occurrence of the reads
 * before q (and q's own other places) as a hit (src/scc/overlap/chain.h);
 * in the repeat buckets (above max_occ, or held by q more than
 * SG_REP_MAX_PER_READ times) only with a few partner reads, sampled and
 * thinned (below). In: the index and q. Out: q's hits, minimizers and
 * repeat counts in its query buffer (qbuf_t), for the chaining (chain.c;
 * or a device's, chain_device.c, for the repeat reads). */
#define _GNU_SOURCE
#include "scc/overlap/minimizer_int.h"
#include "scc/overlap/chain.h"
#include "core/dna.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

/* repeats: reads scanned for partners in each bucket, and at most this many
 * partners; a read with more occurrences of a minimizer than SG_REP_MAX_PER_READ
 * gives one per window of SG_REP_WINDOW bases. Inside a long tandem array
 * those still pair with every other (hits that grow with the square of the
 * reads' lengths): when a read's repeat hits would pass a budget,
 * REP_HITS_PER_MINI per repeat minimizer of the read plus REP_HITS_MIN
 * (the hits are counted before they are made), only one in 2, 4, 8, ...
 * of the occurrences away from the reads' ends take part, picked by a hash
 * of read and place. Every multiple of the period keeps its share of hits,
 * and the ends of the reads (REP_END bases) keep all theirs, so that chains
 * still reach them (a dovetail's ends lie within SG_OVL_MAX_HANG of the
 * reads' ends). */
#define REP_SCAN 64
#define REP_PARTNERS_MAX 64
#define SG_REP_WINDOW 256
#define REP_HITS_PER_MINI 8
#define REP_HITS_MIN (1u << 20)
#define REP_END (2 * SG_OVL_MAX_HANG)

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The hit of q's minimizer at qpos, strand qrev, with t's occurrence tps (src/scc/overlap/chain.h). */
static inline void add_hit(const ctx_t *cx, qbuf_t *qb, uint32_t qpos, uint32_t qrev, uint32_t t, uint32_t tps, int rep)
{
    if (qb->n_hit == qb->m_hit) qb->hit = sg_realloc(qb->hit, (qb->m_hit = qb->m_hit ? 2 * qb->m_hit : 4096) * sizeof *qb->hit);
    hit_t *h = &qb->hit[qb->n_hit++];
    sg_hit_make(qpos, qrev, t, tps, sg_readset_len(cx->rs, t), cx->o.k, rep, &h->key, &h->val);
}

/* The entries of a read of len bases in a bucket that take part, by index
 * into e[0..n) (in place order), into keep when not NULL; how many: all,
 * or when there are many (a tandem array of a short period), the first in
 * each window of SG_REP_WINDOW bases; of those, with thin > 1 (a power of
 * two), those in the read's first and last REP_END bases and one in thin
 * of the others. */
static uint32_t rep_sample(const ent_t *e, uint32_t n, uint32_t len, uint32_t thin, uint32_t *keep)
{
    uint32_t m = 0, last = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pos = e[i].ps >> 1;
        if (n > SG_REP_MAX_PER_READ && i && pos / SG_REP_WINDOW == last / SG_REP_WINDOW) continue;
        last = pos;
        if (thin > 1 && pos >= REP_END && (uint64_t)pos + REP_END < len &&
            (sg_mix64((uint64_t)e[i].rid << 32 | pos) & (thin - 1)))
            continue;
        if (keep) keep[m] = i;
        m++;
    }
    return m;
}

/* The entries of read t in bucket e[0..n) (sorted by read): their first index, and how many. */
static uint32_t read_entries(const ent_t *e, uint32_t n, uint32_t t, uint32_t *first)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e[mid].rid < t) lo = mid + 1;
        else hi = mid;
    }
    *first = lo;
    while (hi < n && e[hi].rid == t) hi++;
    return hi - lo;
}

static int cmp_rep(const void *a, const void *b)
{
    const rep_t *x = a, *y = b;
    if (x->e != y->e) return x->e < y->e ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Hits of q's minimizers from buckets above max_occ, with its own other
 * occurrences (self) and with those of a few partner reads. The partners
 * are the same in every bucket, so that their hits add up to chains: the
 * reads before q that share the most of q's repeat minimizers, counted
 * among the REP_SCAN reads before q in each bucket. */
static void rep_hits(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    if (!qb->n_rep) return;
    qsort(qb->rep, qb->n_rep, sizeof *qb->rep, cmp_rep);
    size_t n_cand = 0;
    for (size_t g = 0, h; g < qb->n_rep; g = h) {
        const ent_t *e = qb->rep[g].e;
        for (h = g + 1; h < qb->n_rep && qb->rep[h].e == e; h++) {}
        uint32_t iq;
        read_entries(e, qb->rep[g].n, q, &iq);
        for (uint32_t seen = 0, at = iq; at > 0 && seen < REP_SCAN; seen++) {
            uint32_t t = e[at - 1].rid;
            while (at > 0 && e[at - 1].rid == t) at--;
            if (n_cand == qb->m_cand) qb->cand = sg_realloc(qb->cand, (qb->m_cand = qb->m_cand ? 2 * qb->m_cand : 1024) * sizeof *qb->cand);
            qb->cand[n_cand++] = t;
        }
    }
    /* the partners: most buckets shared, then nearest to q */
    uint32_t part[REP_PARTNERS_MAX], cnt[REP_PARTNERS_MAX], n_part = 0;
    const uint32_t max_part = cx->o.rep_partners < REP_PARTNERS_MAX ? (uint32_t)cx->o.rep_partners : REP_PARTNERS_MAX;
    if (n_cand) qsort(qb->cand, n_cand, sizeof *qb->cand, cmp_u32);
    for (size_t i = 0, j; i < n_cand; i = j) {
        for (j = i + 1; j < n_cand && qb->cand[j] == qb->cand[i]; j++) {}
        uint32_t c = (uint32_t)(j - i), t = qb->cand[i], at = n_part;
        while (at > 0 && (cnt[at - 1] < c || (cnt[at - 1] == c && part[at - 1] < t))) at--;
        if (at >= max_part) continue;
        if (n_part < max_part) n_part++;
        memmove(part + at + 1, part + at, (n_part - 1 - at) * sizeof *part);
        memmove(cnt + at + 1, cnt + at, (n_part - 1 - at) * sizeof *cnt);
        part[at] = t, cnt[at] = c;
    }
    /* the thinning: the least that keeps the hits within the read's budget */
    const uint32_t lq = sg_readset_len(cx->rs, q);
    const uint64_t budget = (uint64_t)REP_HITS_PER_MINI * qb->n_rep + REP_HITS_MIN;
    uint32_t thin = 1;
    for (uint64_t prev = UINT64_MAX;; thin *= 2) {
        uint64_t est = 0;
        for (size_t g = 0, h; g < qb->n_rep && est <= budget; g = h) {
            const ent_t *e = qb->rep[g].e;
            uint32_t iq, it;
            for (h = g + 1; h < qb->n_rep && qb->rep[h].e == e; h++) {}
            uint32_t nq = read_entries(e, qb->rep[g].n, q, &iq);
            uint64_t mq = rep_sample(e + iq, nq, lq, thin, NULL);
            est += mq * (mq - (mq > 0)) / 2;
            for (uint32_t p = 0; p < n_part; p++) {
                uint32_t nt = read_entries(e, iq, part[p], &it);
                est += mq * rep_sample(e + it, nt, sg_readset_len(cx->rs, part[p]), thin, NULL);
            }
        }
        /* within the budget, or no thinning left to do (the reads' ends) */
        if (est <= budget || est == prev || thin >= (1u << 30)) break;
        prev = est;
    }
    for (size_t g = 0, h; g < qb->n_rep; g = h) {
        const ent_t *e = qb->rep[g].e;
        uint32_t n = qb->rep[g].n, iq, it;
        for (h = g + 1; h < qb->n_rep && qb->rep[h].e == e; h++) {}
        uint32_t nq = read_entries(e, n, q, &iq);
        if (nq > qb->m_keep) {
            qb->m_keep = 2 * nq;
            qb->qk = sg_realloc(qb->qk, qb->m_keep * sizeof *qb->qk);
            qb->tk = sg_realloc(qb->tk, qb->m_keep * sizeof *qb->tk);
        }
        uint32_t mq = rep_sample(e + iq, nq, lq, thin, qb->qk);
        for (uint32_t a = 0; a < mq; a++) /* self: each pair of places once */
            for (uint32_t b = a + 1; b < mq; b++)
                add_hit(cx, qb, e[iq + qb->qk[a]].ps >> 1, e[iq + qb->qk[a]].ps & 1, q, e[iq + qb->qk[b]].ps, 1);
        for (uint32_t p = 0; p < n_part; p++) {
            uint32_t nt = read_entries(e, iq, part[p], &it);
            if (!nt) continue;
            if (nt > qb->m_keep) {
                qb->m_keep = 2 * nt;
                qb->qk = sg_realloc(qb->qk, qb->m_keep * sizeof *qb->qk);
                qb->tk = sg_realloc(qb->tk, qb->m_keep * sizeof *qb->tk);
            }
            uint32_t mt = rep_sample(e + it, nt, sg_readset_len(cx->rs, part[p]), thin, qb->tk);
            for (uint32_t a = 0; a < mq; a++)
                for (uint32_t b = 0; b < mt; b++)
                    add_hit(cx, qb, e[iq + qb->qk[a]].ps >> 1, e[iq + qb->qk[a]].ps & 1, part[p], e[it + qb->tk[b]].ps, 1);
        }
    }
}

/* q's hits (qb->hit) with the reads before it and its own other places;
 * its minimizers (qb->sb.mini) and how many of them, before each, are from
 * repeat buckets (qb->rep_before). @return how many minimizers */
size_t sg_ovl_read_hits(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    size_t n_mini = sg_ovl_sketch_read(cx, q, &qb->sb);
    const sg_mini_t *mini = qb->sb.mini;
    if (n_mini + 1 > qb->m_rep_before)
        qb->rep_before = sg_realloc(qb->rep_before, (qb->m_rep_before = n_mini + 1) * sizeof *qb->rep_before);
    qb->n_hit = qb->n_rep = 0;
    qb->rep_before[0] = 0;
    lookup_t lk[LOOKUP_BATCH];
    for (size_t b0 = 0; b0 < n_mini; b0 += LOOKUP_BATCH) {
        size_t nb = n_mini - b0 < LOOKUP_BATCH ? n_mini - b0 : LOOKUP_BATCH;
        for (size_t x = 0; x < nb; x++) lookup_slot(cx, mini[b0 + x].h, &lk[x]);
        for (size_t x = 0; x < nb; x++) lookup_range(&lk[x]);
        for (size_t x = 0; x < nb; x++) lookup_bucket(&lk[x]);
        for (size_t x = 0; x < nb; x++) {
            size_t i = b0 + x;
            const ent_t *e = lk[x].e;
            uint32_t n = lk[x].n, is_rep = n > cx->max_occ, iq;
            /* a bucket that q holds many times (a tandem array in q) is a
             * repeat's too, whatever its size: its pairs in full grow with
             * the square of q's length */
            if (!is_rep && n > SG_REP_MAX_PER_READ) is_rep = read_entries(e, n, q, &iq) > SG_REP_MAX_PER_READ;
            qb->rep_before[i + 1] = qb->rep_before[i] + is_rep;
            if (is_rep) {
                if (qb->n_rep == qb->m_rep) qb->rep = sg_realloc(qb->rep, (qb->m_rep = qb->m_rep ? 2 * qb->m_rep : 256) * sizeof *qb->rep);
                qb->rep[qb->n_rep++] = (rep_t){e, n, mini[i].pos, mini[i].rev};
                continue;
            }
            for (uint32_t j = 0; j < n && e[j].rid <= q; j++)
                if (e[j].rid < q || (e[j].ps >> 1) > mini[i].pos) add_hit(cx, qb, mini[i].pos, mini[i].rev, e[j].rid, e[j].ps, 0);
        }
    }
    rep_hits(cx, q, qb);
    qb->hits += qb->n_hit;
    qb->rep_reads += qb->n_rep > 0;
    return n_mini;
}

/* A query buffer's memory (the buffer itself is the caller's). */
void sg_ovl_free_qbuf(qbuf_t *qb)
{
    free(qb->sb.codes);
    free(qb->sb.mini);
    free(qb->rep_before);
    free(qb->hit);
    free(qb->tmp);
    free(qb->band);
    free(qb->rep);
    free(qb->cand);
    free(qb->qk);
    free(qb->tk);
    free(qb->tail);
    free(qb->pred);
    free(qb->wcand);
    free(qb->wval);
    free(qb->order);
    free(qb->start);
    free(qb->used);
}
