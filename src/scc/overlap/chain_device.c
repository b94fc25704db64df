/* The overlapper's chaining on a device (sg_mindex_t chain_plan, chain,
 * chain_hits; cuda/scc/chain.cu): the device chains its reads' hits on a
 * thread of its own while the host makes the index's buckets and the
 * repeat reads' hits (hits.c); those are chained on the device too, in
 * turns of about REP_HIT_BUDGET hits (the memory bound). In: the index's
 * plan (which reads are the host's). Out: the device's chains in cx (by
 * read: dev, dev_first; the repeat reads': reps), which a read's overlaps
 * are made from (sg_ovl_device_read, sg_ovl_rep_read; chain.c's block loop). */
#define _GNU_SOURCE
#include "scc/overlap/minimizer_int.h"
#include "scc/overlap/chain.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "core/progress.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *dev_chain_main(void *arg)
{
    dev_chain_t *dc = arg;
    double t0 = sg_realtime();
    dc->r = dc->index->chain(dc->index, &dc->out, &dc->n_out, dc->err, sizeof dc->err);
    dc->sec = sg_realtime() - t0;
    return NULL;
}

/* The plan (max_occ, the repeat reads in cx->host), then the thread. */
int sg_ovl_dev_chain_start(ctx_t *cx, dev_chain_t *dc, char *err, size_t errsz)
{
    dc->index = cx->o.index;
    cx->host = sg_calloc((size_t)sg_readset_n(cx->rs) + 1, 1);
    int r = dc->index->chain_plan(dc->index, cx->o.max_occ, &dc->max_occ, cx->host, &dc->hits, err, errsz);
    if (r < 0) return r;
    if (pthread_create(&dc->tid, NULL, dev_chain_main, dc) != 0) {
        dev_chain_main(dc); /* no thread: here and now */
        return 0;
    }
    dc->started = 1;
    return 0;
}

/* The thread's end, and its chains in cx. */
int sg_ovl_dev_chain_join(ctx_t *cx, dev_chain_t *dc, char *err, size_t errsz)
{
    if (dc->started) pthread_join(dc->tid, NULL);
    dc->started = 0;
    cx->st->device_chain_s = dc->sec;
    if (dc->r < 0) {
        snprintf(err, errsz, "%s", dc->err);
        return dc->r;
    }
    const uint32_t n = sg_readset_n(cx->rs);
    cx->st->hits += dc->hits;
    for (uint32_t q = 0; q < n; q++)
        cx->st->device_reads += sg_readset_stored(cx->rs, q) && (!cx->host[q] || cx->o.index->chain_hits);
    cx->dev = dc->out;
    cx->dev_first = sg_calloc((size_t)n + 2, sizeof *cx->dev_first);
    for (size_t i = 0; i < dc->n_out; i++) cx->dev_first[dc->out[i].q + 1]++;
    for (uint32_t q = 0; q <= n; q++) cx->dev_first[q + 1] += cx->dev_first[q];
    return 0;
}

uint64_t sg_chain_batch_env(uint64_t dflt)
{
    const char *env = getenv("SEQGPU_CUDA_CHAIN_BATCH");
    char *end;
    if (!env || !*env) return dflt;
    unsigned long long v = strtoull(env, &end, 10);
    return *end || v < 1 || *env == '-' ? dflt : v; /* a whole number of 1 or more, or the default */
}

/* A block's repeat reads, in order: their hits, and each's minimizers'
 * positions and repeat counts before each (what an overlap's identity
 * needs). */
typedef struct rep_block {
    uint32_t n, m;
    uint32_t *q;
    uint64_t *hit_off, *mini_off; /* n + 1 */
    uint64_t *key, *val;
    size_t m_hit;
    uint32_t *pos, *rep_before;   /* read k's: pos[mini_off[k] ..], rep_before[mini_off[k] + k ..], one more */
    size_t m_mini;
    int kept; /* listed in the run's store, which frees it */
} rep_block_t;

/* The run's repeat reads, in order: where each is, and its chains. */
typedef struct rep_store {
    rep_block_t **blk;
    size_t n_blk, m_blk;
    uint32_t n, m;
    uint32_t *q;
    const uint64_t **key, **val;
    uint64_t *cnt;
    rep_block_t **in;             /* read i is read at[i] of block in[i] */
    uint32_t *at;
    sg_chain_rec_t *ch;
    size_t n_ch, m_ch;
    size_t *ch_first;             /* read i's chains: ch[ch_first[i] .. ch_first[i + 1]) */
    /* the reads from chained (and the blocks from freed of their hits), the hits since */
    uint32_t pending;
    size_t blk_pending;
    uint64_t pending_hits, budget;
    sg_pfor_t pf;                 /* the loop over blocks, stopped when the pending hits pass REP_HIT_BUDGET */
} rep_store_t;

/* The repeat reads' hits held on the host at once, about (the blocks in
 * flight when the budget is passed add theirs): then they are chained, and
 * their memory freed, before more are made. */
#define REP_HIT_BUDGET (1ull << 27)

static void rep_block_free(rep_block_t *b)
{
    if (!b) return;
    free(b->q);
    free(b->hit_off);
    free(b->mini_off);
    free(b->key);
    free(b->val);
    free(b->pos);
    free(b->rep_before);
    free(b);
}

void sg_ovl_rep_store_free(rep_store_t *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n_blk; i++) rep_block_free(s->blk[i]);
    free(s->blk);
    free(s->q);
    free(s->key);
    free(s->val);
    free(s->cnt);
    free(s->in);
    free(s->at);
    free(s->ch);
    free(s->ch_first);
    free(s);
}

/* Add read q's hits and minimizers from qb. */
static void rep_block_add(rep_block_t *b, uint32_t q, const qbuf_t *qb, size_t n_mini)
{
    if (b->n + 1 >= b->m) {
        b->m = b->m ? 2 * b->m : 16;
        b->q = sg_realloc(b->q, b->m * sizeof *b->q);
        b->hit_off = sg_realloc(b->hit_off, (b->m + 1) * sizeof *b->hit_off);
        b->mini_off = sg_realloc(b->mini_off, (b->m + 1) * sizeof *b->mini_off);
        if (!b->n) b->hit_off[0] = b->mini_off[0] = 0;
    }
    const uint64_t h0 = b->hit_off[b->n], m0 = b->mini_off[b->n];
    if (h0 + qb->n_hit > b->m_hit) {
        b->m_hit = (h0 + qb->n_hit) * 3 / 2 + 1024;
        b->key = sg_realloc(b->key, b->m_hit * sizeof *b->key);
        b->val = sg_realloc(b->val, b->m_hit * sizeof *b->val);
    }
    if (m0 + n_mini + b->n + 1 > b->m_mini) {
        b->m_mini = (m0 + n_mini + b->n + 1) * 3 / 2 + 1024;
        b->pos = sg_realloc(b->pos, b->m_mini * sizeof *b->pos);
        b->rep_before = sg_realloc(b->rep_before, b->m_mini * sizeof *b->rep_before);
    }
    for (size_t i = 0; i < qb->n_hit; i++) b->key[h0 + i] = qb->hit[i].key, b->val[h0 + i] = qb->hit[i].val;
    for (size_t i = 0; i < n_mini; i++) b->pos[m0 + i] = qb->sb.mini[i].pos;
    memcpy(b->rep_before + m0 + b->n, qb->rep_before, (n_mini + 1) * sizeof *b->rep_before);
    b->q[b->n] = q;
    b->hit_off[b->n + 1] = h0 + qb->n_hit;
    b->mini_off[b->n + 1] = m0 + n_mini;
    b->n++;
}

/* A block's repeat reads, their hits made on one thread. */
static int rep_block(void *vctx, size_t bi, void **out)
{
    ctx_t *cx = vctx;
    qbuf_t qb = {0};
    rep_block_t *b = sg_calloc(1, sizeof *b);
    for (uint32_t q = cx->block[bi]; q < cx->block[bi + 1]; q++) {
        if (!sg_readset_stored(cx->rs, q) || !cx->host[q]) continue;
        size_t n_mini = sg_ovl_read_hits(cx, q, &qb);
        rep_block_add(b, q, &qb, n_mini);
    }
    __atomic_fetch_add(&cx->st->hits, qb.hits, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cx->st->repeat_reads, qb.rep_reads, __ATOMIC_RELAXED);
    sg_progress_add(sg_ovl_block_bases(cx, bi, cx->host));
    sg_ovl_free_qbuf(&qb);
    *out = b;
    return 0;
}

/* ... listed in the run's, in order (the block is kept, not copied). */
static int rep_collect(void *vctx, size_t bi, void *out)
{
    (void)bi;
    ctx_t *cx = vctx;
    rep_store_t *s = cx->reps;
    rep_block_t *b = out;
    if (!b->n) return 0;
    b->kept = 1;
    if (s->n_blk == s->m_blk) s->blk = sg_realloc(s->blk, (s->m_blk = s->m_blk ? 2 * s->m_blk : 64) * sizeof *s->blk);
    s->blk[s->n_blk++] = b;
    if (s->n + b->n + 1 > s->m) {
        s->m = (s->n + b->n + 1) * 2;
        s->q = sg_realloc(s->q, s->m * sizeof *s->q);
        s->key = sg_realloc(s->key, s->m * sizeof *s->key);
        s->val = sg_realloc(s->val, s->m * sizeof *s->val);
        s->cnt = sg_realloc(s->cnt, s->m * sizeof *s->cnt);
        s->in = sg_realloc(s->in, s->m * sizeof *s->in);
        s->at = sg_realloc(s->at, s->m * sizeof *s->at);
    }
    s->pending_hits += b->hit_off[b->n];
    if (s->pending_hits >= s->budget) __atomic_store_n(&s->pf.stop, 1, __ATOMIC_RELAXED); /* read by the loop's source */
    for (uint32_t k = 0; k < b->n; k++, s->n++) {
        s->q[s->n] = b->q[k];
        s->key[s->n] = b->key + b->hit_off[k];
        s->val[s->n] = b->val + b->hit_off[k];
        s->cnt[s->n] = b->hit_off[k + 1] - b->hit_off[k];
        s->in[s->n] = b;
        s->at[s->n] = k;
    }
    return 0;
}

static void rep_free_out(void *out)
{
    rep_block_t *b = out;
    if (!b->kept) rep_block_free(b);
}

/* The repeat reads' hits, made on the host's threads, up to about
 * REP_HIT_BUDGET of them; again after repeat_chains, from where it stopped.
 * @return 0 (more to make: cx->reps->pf.next < cx->n_block), or a code */
static int repeat_hits(ctx_t *cx, int nt)
{
    double t0 = sg_realtime();
    if (!cx->reps) {
        cx->reps = sg_calloc(1, sizeof *cx->reps);
        cx->reps->pf = (sg_pfor_t){.n = cx->n_block, .work = rep_block, .collect = rep_collect,
                                   .free_out = rep_free_out, .ctx = cx};
        cx->reps->budget = sg_chain_batch_env(REP_HIT_BUDGET); /* the tests make many turns so */
    }
    cx->reps->pf.stop = 0;
    cx->st->repeat_turns++;
    int r = sg_parallel_map(&cx->reps->pf, nt);
    cx->st->repeat_hits_s += sg_realtime() - t0;
    return r;
}

/* The pending repeat reads' hits chained on the device, and freed. */
static int repeat_chains(ctx_t *cx, char *err, size_t errsz)
{
    rep_store_t *s = cx->reps;
    const uint32_t p = s->pending, n = s->n - p;
    if (!n) return 0;
    double t0 = sg_realtime();
    sg_chain_rec_t *ch = NULL;
    size_t n_ch = 0;
    int r = cx->o.index->chain_hits(cx->o.index, n, s->q + p, s->key + p, s->val + p, s->cnt + p, &ch, &n_ch, err,
                                    errsz);
    cx->st->repeat_chain_s += sg_realtime() - t0;
    for (; s->blk_pending < s->n_blk; s->blk_pending++) { /* the hits are done with */
        rep_block_t *b = s->blk[s->blk_pending];
        free(b->key);
        free(b->val);
        b->key = b->val = NULL;
    }
    memset(s->key + p, 0, n * sizeof *s->key);
    memset(s->val + p, 0, n * sizeof *s->val);
    s->pending = s->n;
    s->pending_hits = 0;
    if (r < 0) return r;
    if (s->n_ch + n_ch > s->m_ch) s->ch = sg_realloc(s->ch, (s->m_ch = (s->n_ch + n_ch) * 3 / 2 + 64) * sizeof *s->ch);
    if (n_ch) memcpy(s->ch + s->n_ch, ch, n_ch * sizeof *ch);
    s->n_ch += n_ch;
    free(ch);
    return 0;
}

/* All the repeat reads' hits, made and chained in turns; the first turn's
 * hits are made while the device's thread still chains (dc), before the
 * join. @return 0, or a code (SG_ERR_DEVICE with the reason in err) */
int sg_ovl_repeat_reads(ctx_t *cx, dev_chain_t *dc, int nt, char *err, size_t errsz)
{
    int r = repeat_hits(cx, nt);
    char jerr[512] = "";
    int rj = sg_ovl_dev_chain_join(cx, dc, jerr, sizeof jerr); /* always: the thread ends before anything is freed */
    if (r == 0 && rj < 0) {
        snprintf(err, errsz, "%s", jerr);
        r = rj;
    }
    while (r == 0) {
        r = repeat_chains(cx, err, errsz);
        if (r < 0 || cx->reps->pf.next == cx->reps->pf.n) break;
        r = repeat_hits(cx, nt);
    }
    if (r < 0) return r;
    rep_store_t *s = cx->reps;
    s->ch_first = sg_calloc((size_t)s->n + 1, sizeof *s->ch_first);
    size_t k = 0; /* both in order of read */
    for (size_t i = 0; i < s->n_ch; i++) {
        while (k < s->n && s->q[k] != s->ch[i].q) s->ch_first[++k] = i;
        if (k == s->n) {
            snprintf(err, errsz, "internal error: a chain of read %u, not a repeat read", s->ch[i].q);
            return SG_ERR_SYSTEM; /* a bug, not the device's failure: no fallback */
        }
    }
    while (k < s->n) s->ch_first[++k] = s->n_ch;
    return 0;
}

/* The overlaps of repeat read q from the device's chains of its hits. */
void sg_ovl_rep_read(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    const rep_store_t *s = cx->reps;
    uint32_t i = sg_first_at(s->q, s->n, q);
    if (i == s->n || s->q[i] != q) return;
    const rep_block_t *b = s->in[i];
    const uint32_t k = s->at[i];
    const uint32_t *pos = b->pos + b->mini_off[k], *rb = b->rep_before + b->mini_off[k] + k;
    const uint32_t n_mini = (uint32_t)(b->mini_off[k + 1] - b->mini_off[k]);
    for (size_t c = s->ch_first[i]; c < s->ch_first[i + 1]; c++) {
        const sg_chain_rec_t *d = &s->ch[c];
        uint32_t lo = sg_first_at(pos, n_mini, sg_hit_qpos(d->c.first)), hi = sg_first_at(pos, n_mini, sg_hit_qpos(d->c.last) + 1);
        sg_overlap_t o;
        if (sg_ovl_chain_overlap(cx, q, d->t, d->rev, &d->c, rb[hi] - rb[lo], hi - lo, &o)) sg_ovl_add_overlap(qb, &o);
    }
}

/* The overlaps of q from a device's chains. */
void sg_ovl_device_read(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    for (size_t i = cx->dev_first[q]; i < cx->dev_first[q + 1]; i++) {
        const sg_chain_rec_t *d = &cx->dev[i];
        sg_overlap_t o;
        if (sg_ovl_chain_overlap(cx, q, d->t, d->rev, &d->c, 0, d->n_all, &o)) sg_ovl_add_overlap(qb, &o);
    }
}
