#define _GNU_SOURCE
#include "scc/overlap/minimizer.h"
#include "scc/overlap/chain.h"
#include "core/dna.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "core/progress.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- sketch ---- */

size_t sg_sketch(const uint8_t *codes, uint32_t len, int k, int w, int hpc, sg_mini_t **a, size_t *m)
{
    size_t n = sg_sketch_into(codes, len, k, w, hpc, *a, *m);
    if (n > *m) { /* once per size a thread's buffer grows to */
        *a = sg_realloc(*a, (*m = n + n / 4 + 64) * sizeof **a);
        sg_sketch_into(codes, len, k, w, hpc, *a, *m);
    }
    return n;
}

/* CLR: minimap2's -x ava-pb sketch. ONT: homopolymer-compressed 17-mers in
 * windows of 8 (minimap2's ava-ont takes uncompressed 15-mers; on pbsim's
 * reads of 88 to 95% those joined unique reads to arrays and missed 15% of
 * the implied overlaps, where these found CLR's arrays and overlaps in
 * two thirds of its time: bench/overlap_presets.sh). HiFi: errors are few,
 * homopolymers need no compression, and windows of 10 halve the index and
 * the hits. The identities are the own estimate's (minimizers shared in a
 * chain's span, as minimap2's dv); pbsim's CCS reads (98%) find 97% of
 * their implied overlaps at 0.95, all at 0.9. Short reads take the de
 * Bruijn graph. */
static const sg_read_preset_t presets[] = {
    {"hifi", "overlap", 19, 10, 0, 0.9, 2000},
    {"ont", "overlap", 17, 8, 1, 0.8, 2000},
    {"clr", "overlap", SG_OVL_K, SG_OVL_W, 1, 0.8, 2000},
    {"sr", "dbg", 0, 0, 0, 0, 0},
};

const sg_read_preset_t *sg_read_preset(const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (!strcmp(presets[i].name, name)) return &presets[i];
    return NULL;
}

void sg_ovl_opts_default(sg_ovl_opts_t *o, int n_threads, uint32_t min_overlap)
{
    *o = (sg_ovl_opts_t){.k = SG_OVL_K, .w = SG_OVL_W, .hpc = 1, .n_threads = n_threads > 0 ? n_threads : 1,
                         .min_overlap = min_overlap, .max_occ = 0, .rep_partners = 16};
}

/* ---- the index ---- */

#define PART_BITS SG_OVL_PART_BITS
#define N_PART SG_OVL_PARTS
/* bases of reads per block of work */
#define BLOCK_BASES (1u << 20)

typedef sg_mrec_t rec_t; /* hash without the partition bits; read; position << 1 | strand */

typedef struct {
    uint32_t rid, ps;
} ent_t;

typedef struct {
    uint32_t key, off; /* a distinct hash; its bucket: ent[off .. the next bucket's off) */
} bucket_t;

typedef struct {
    rec_t *rec; /* while building */
    size_t n_rec, m_rec;
    uint32_t n_key;
    bucket_t *bkt;  /* n_key of them, by hash, and an end */
    ent_t *ent;     /* each bucket's entries by read, then position */
    uint32_t *dir;  /* buckets whose hashes' top dbits are s: bkt[dir[s] .. dir[s + 1]) */
    int dbits;
} part_t;

typedef struct {
    const sg_readset_t *rs;
    sg_ovl_opts_t o;
    int hb;                 /* bits of a hash below the partition bits */
    uint32_t *block;        /* first read of each block of work, n_block + 1 */
    size_t n_block;
    part_t part[N_PART];
    sg_mrec_t *dev_rec;     /* a device's index, and where each partition's starts */
    size_t dev_part[N_PART + 1];
    uint32_t max_occ;
    /* a device's chains: those of read q are dev[dev_first[q] .. dev_first[q + 1]),
     * except for the repeat reads, marked in host, whose hits the host makes
     * (and the device chains, in reps; or the host, without chain_hits) */
    const sg_chain_rec_t *dev;
    size_t *dev_first;
    uint8_t *host;
    struct rep_store *reps; /* the host's reads when their hits were chained on the device too */
    sg_ovl_stats_t *st;
    sg_overlap_sink_t sink;
    void *sink_arg;
} ctx_t;

/* Blocks of about BLOCK_BASES of stored reads; with a device's chains, a
 * repeat read counts HOST_READ_WEIGHT times its bases: the host makes its
 * hits, which costs that much more than turning a device's chains into
 * overlaps (reads come in order of the genome from a simulator, so an
 * array's reads would fill a few blocks and hold the run up on a few
 * threads). */
#define HOST_READ_WEIGHT 64

static void make_blocks(ctx_t *cx)
{
    uint32_t n = sg_readset_n(cx->rs);
    size_t m = 16;
    free(cx->block);
    cx->block = sg_malloc(m * sizeof *cx->block);
    cx->n_block = 0;
    uint64_t acc = 0;
    cx->block[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (sg_readset_stored(cx->rs, i))
            acc += (uint64_t)sg_readset_len(cx->rs, i) * (cx->host && cx->host[i] ? HOST_READ_WEIGHT : 1);
        if (acc >= BLOCK_BASES || i + 1 == n) {
            if (cx->n_block + 2 > m) cx->block = sg_realloc(cx->block, (m *= 2) * sizeof *cx->block);
            cx->block[++cx->n_block] = i + 1;
            acc = 0;
        }
    }
}

/* The stored bases of block bi's reads (of the host's repeat reads only,
 * with host), for the progress line. */
static uint64_t block_bases(const ctx_t *cx, size_t bi, const uint8_t *host)
{
    uint64_t n = 0;
    for (uint32_t i = cx->block[bi]; i < cx->block[bi + 1]; i++)
        if (sg_readset_stored(cx->rs, i) && (!host || host[i])) n += sg_readset_len(cx->rs, i);
    return n;
}

/* A thread's buffers for sketching reads one after another. */
typedef struct {
    uint8_t *codes;
    size_t m_codes;
    sg_mini_t *mini;
    size_t m_mini;
} sketch_buf_t;

static size_t sketch_read(const ctx_t *cx, uint32_t i, sketch_buf_t *b)
{
    uint32_t len = sg_readset_len(cx->rs, i);
    if (len > b->m_codes) b->codes = sg_realloc(b->codes, b->m_codes = len);
    sg_readset_codes(cx->rs, i, b->codes);
    return sg_sketch(b->codes, len, cx->o.k, cx->o.w, cx->o.hpc, &b->mini, &b->m_mini);
}

/* The minimizers of a block of reads, as records in read order, grouped by
 * partition. */
typedef struct {
    rec_t *rec;
    size_t cnt[N_PART + 1]; /* partition p: rec[cnt[p] .. cnt[p + 1]) */
} block_recs_t;

static void free_block_recs(void *p)
{
    block_recs_t *b = p;
    free(b->rec);
    free(b);
}

static int collect_block(void *vctx, size_t bi, void **out)
{
    ctx_t *cx = vctx;
    sketch_buf_t b = {0};
    rec_t *tmp = NULL;
    uint8_t *pt = NULL;
    size_t n_tmp = 0, m_tmp = 0, n_all = 0;
    const uint64_t lo_mask = (1ull << cx->hb) - 1;
    for (uint32_t i = cx->block[bi]; i < cx->block[bi + 1]; i++) {
        if (!sg_readset_stored(cx->rs, i)) continue;
        size_t n = sketch_read(cx, i, &b);
        n_all += n;
        for (size_t j = 0; j < n; j++) {
            const sg_mini_t *mi = &b.mini[j];
            if (n_tmp == m_tmp) {
                m_tmp = m_tmp ? 2 * m_tmp : 4096;
                tmp = sg_realloc(tmp, m_tmp * sizeof *tmp);
                pt = sg_realloc(pt, m_tmp);
            }
            pt[n_tmp] = (uint8_t)(mi->h >> cx->hb);
            tmp[n_tmp++] = (rec_t){(uint32_t)(mi->h & lo_mask), i, mi->pos << 1 | mi->rev};
        }
    }
    block_recs_t *br = sg_calloc(1, sizeof *br);
    for (size_t j = 0; j < n_tmp; j++) br->cnt[pt[j] + 1]++;
    for (int p = 0; p < N_PART; p++) br->cnt[p + 1] += br->cnt[p];
    size_t fill[N_PART];
    memcpy(fill, br->cnt, sizeof fill);
    br->rec = sg_malloc((n_tmp + 1) * sizeof *br->rec);
    for (size_t j = 0; j < n_tmp; j++) br->rec[fill[pt[j]]++] = tmp[j];
    free(tmp);
    free(pt);
    free(b.codes);
    free(b.mini);
    __atomic_fetch_add(&cx->st->minimizers, n_all, __ATOMIC_RELAXED);
    sg_progress_add(block_bases(cx, bi, NULL));
    *out = br;
    return 0;
}

static int append_block(void *vctx, size_t bi, void *out)
{
    (void)bi;
    ctx_t *cx = vctx;
    const block_recs_t *br = out;
    for (int p = 0; p < N_PART; p++) {
        part_t *pa = &cx->part[p];
        size_t n = br->cnt[p + 1] - br->cnt[p];
        if (!n) continue;
        if (pa->n_rec + n > pa->m_rec) {
            pa->m_rec = (pa->n_rec + n) * 3 / 2 + 64;
            pa->rec = sg_realloc(pa->rec, pa->m_rec * sizeof *pa->rec);
        }
        memcpy(pa->rec + pa->n_rec, br->rec + br->cnt[p], n * sizeof *pa->rec);
        pa->n_rec += n;
    }
    return 0;
}

/* A partition's buckets from its records src[0..n), sorted by hash, then
 * read and position: those of two or more (a minimizer seen once, as most
 * are from the reads' errors, makes no hit), and the directory. */
static void make_buckets(const ctx_t *cx, part_t *pa, const rec_t *src, size_t n)
{
    uint32_t n_key = 0;
    size_t n_ent = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && src[j].hlo == src[i].hlo; j++) {}
        if (j - i >= 2) n_key++, n_ent += j - i;
    }
    pa->n_key = n_key;
    pa->bkt = sg_malloc((n_key + 1) * sizeof *pa->bkt);
    pa->ent = sg_malloc((n_ent + 1) * sizeof *pa->ent);
    n_key = 0;
    n_ent = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && src[j].hlo == src[i].hlo; j++) {}
        if (j - i < 2) continue;
        pa->bkt[n_key++] = (bucket_t){src[i].hlo, (uint32_t)n_ent};
        for (size_t x = i; x < j; x++) pa->ent[n_ent++] = (ent_t){src[x].rid, src[x].ps};
    }
    pa->bkt[n_key] = (bucket_t){UINT32_MAX, (uint32_t)n_ent};
    /* the directory: about one key per slot */
    int d = 1;
    while (d < cx->hb && (1u << d) < n_key) d++;
    pa->dbits = d;
    pa->dir = sg_malloc(((1u << d) + 1) * sizeof *pa->dir);
    for (uint32_t s = 0, i = 0; s <= (1u << d); s++) {
        while (i < n_key && (pa->bkt[i].key >> (cx->hb - d)) < s) i++;
        pa->dir[s] = i;
    }
}

/* Sort a partition's records by hash, stably (so each bucket stays in read
 * and position order), and make its buckets. */
static int sort_part(void *vctx, size_t p, void **out)
{
    (void)out;
    ctx_t *cx = vctx;
    part_t *pa = &cx->part[p];
    size_t n = pa->n_rec;
    rec_t *a = pa->rec, *tmp = sg_malloc((n + 1) * sizeof *tmp), *src = a, *dst = tmp;
    for (int shift = 0; shift < cx->hb; shift += 8) {
        size_t cnt[256] = {0};
        for (size_t i = 0; i < n; i++) cnt[(src[i].hlo >> shift) & 255]++;
        if (n && cnt[(src[0].hlo >> shift) & 255] == n) continue;
        for (size_t d = 0, sum = 0; d < 256; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[cnt[(src[i].hlo >> shift) & 255]++] = src[i];
        rec_t *t = src;
        src = dst;
        dst = t;
    }
    make_buckets(cx, pa, src, n);
    free(a);
    free(tmp);
    pa->rec = NULL;
    pa->n_rec = pa->m_rec = 0;
    return 0;
}

/* The buckets of partition p from a device's sorted minimizers. */
static int device_part(void *vctx, size_t p, void **out)
{
    (void)out;
    ctx_t *cx = vctx;
    make_buckets(cx, &cx->part[p], cx->dev_rec + cx->dev_part[p], cx->dev_part[p + 1] - cx->dev_part[p]);
    return 0;
}

/* Looking buckets up: the directory slot of a hash, then its bucket, then
 * its entries are three reads from random places of a large index; a read
 * looks its minimizers up LOOKUP_BATCH at a time, each step for the whole
 * batch, the memory of the next step prefetched. */
#define LOOKUP_BATCH 32

typedef struct {
    const part_t *pa;
    uint32_t lo, slot;
    const ent_t *e;
    uint32_t n;
} lookup_t;

static inline void lookup_slot(const ctx_t *cx, uint64_t h, lookup_t *l)
{
    l->pa = &cx->part[h >> cx->hb];
    l->lo = (uint32_t)(h & ((1ull << cx->hb) - 1));
    l->slot = l->lo >> (cx->hb - l->pa->dbits);
    __builtin_prefetch(l->pa->dir + l->slot);
}

static inline void lookup_range(lookup_t *l)
{
    l->slot = l->pa->dir[l->slot]; /* from now on: the first candidate bucket */
    __builtin_prefetch(l->pa->bkt + l->slot);
}

/* The bucket: its entries and how many (0: none). */
static inline void lookup_bucket(lookup_t *l)
{
    const bucket_t *b = l->pa->bkt + l->slot;
    while (b->key < l->lo) b++; /* the end bucket's key stops it */
    l->n = b->key == l->lo ? b[1].off - b->off : 0;
    l->e = l->pa->ent + b->off;
    if (l->n) __builtin_prefetch(l->e);
}

/* The limit on buckets paired in full: many times the typical number of
 * reads that share a minimizer (the coverage times the chance that a
 * k-mer is free of errors), which repeats exceed. */
#define MIN_MAX_OCC 32
#define MAX_OCC_FACTOR 8

uint32_t sg_ovl_max_occ(const uint64_t hist[SG_OVL_OCC_HIST])
{
    uint64_t total = 0;
    for (uint32_t n = 0; n < SG_OVL_OCC_HIST; n++) total += hist[n];
    /* the median over occurrences: what a minimizer of a read typically meets */
    uint64_t acc = 0;
    uint32_t med = 2;
    for (uint32_t n = 2; n < SG_OVL_OCC_HIST; n++)
        if ((acc += hist[n]) * 2 >= total) {
            med = n;
            break;
        }
    uint32_t m = MAX_OCC_FACTOR * med;
    return m > MIN_MAX_OCC ? m : MIN_MAX_OCC;
}

static uint32_t choose_max_occ(const ctx_t *cx)
{
    uint64_t hist[SG_OVL_OCC_HIST] = {0};
    for (int p = 0; p < N_PART; p++) {
        const part_t *pa = &cx->part[p];
        for (uint32_t i = 0; i < pa->n_key; i++) {
            uint32_t n = pa->bkt[i + 1].off - pa->bkt[i].off;
            hist[n < SG_OVL_OCC_HIST - 1 ? n : SG_OVL_OCC_HIST - 1] += n;
        }
    }
    return sg_ovl_max_occ(hist);
}

/* ---- overlaps ---- */

typedef struct {
    uint64_t key, val; /* src/scc/overlap/chain.h */
} hit_t;

typedef struct {
    const ent_t *e; /* the bucket */
    uint32_t n;
    uint32_t pos, rev; /* q's occurrence */
} rep_t;

typedef struct {
    sketch_buf_t sb;
    uint32_t *rep_before; /* q's minimizers from buckets above max_occ, before each */
    size_t m_rep_before;
    hit_t *hit, *tmp, *band; /* a band: key = the hit's val, val = its key (sorted by val) */
    size_t n_hit, m_hit, m_tmp, m_band;
    rep_t *rep;
    size_t n_rep, m_rep;
    uint32_t *cand, *qk, *tk;
    size_t m_cand, m_keep;
    int32_t *tail, *pred;
    uint32_t *wcand; /* a window's hits */
    uint64_t *wval;
    uint32_t *order, *start; /* a wide band's slices */
    uint8_t *used;
    size_t m_chain;
    sg_overlap_t *ov;
    size_t n_ov, m_ov;
    uint64_t hits, rep_reads;
} qbuf_t;

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

/* A hit of q's k-mer ending at qpos with t's ending at tp on t's strand rev. */
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

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
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
            (mix64((uint64_t)e[i].rid << 32 | pos) & (thin - 1)))
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
static int chain_overlap(const ctx_t *cx, uint32_t q, uint32_t t, uint32_t rev, const sg_chain_t *c, uint32_t n_rep,
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

static void add_overlap(qbuf_t *qb, const sg_overlap_t *o)
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
    if (chain_overlap(cx, q, t, rev, &c, qb->rep_before[hi] - qb->rep_before[lo], (uint32_t)(hi - lo), &o)) add_overlap(qb, &o);
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

/* q's hits (qb->hit) with the reads before it and its own other places;
 * its minimizers (qb->sb.mini) and how many of them, before each, are from
 * repeat buckets (qb->rep_before). @return how many minimizers */
static size_t read_hits(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    size_t n_mini = sketch_read(cx, q, &qb->sb);
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

/* The overlaps of q: its hits, sorted, chained band by band. */
static void query_read(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    const size_t n_mini = read_hits(cx, q, qb);
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

static void free_qbuf(qbuf_t *qb)
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

/* The device's chaining of its reads, on a thread of its own while the
 * host makes the buckets and the repeat reads' hits. */
typedef struct {
    sg_mindex_t *index;
    pthread_t tid;
    int started, r;
    uint32_t max_occ;
    uint64_t hits;
    sg_chain_rec_t *out;
    size_t n_out;
    double sec;
    char err[512];
} dev_chain_t;

static void *dev_chain_main(void *arg)
{
    dev_chain_t *dc = arg;
    double t0 = sg_realtime();
    dc->r = dc->index->chain(dc->index, &dc->out, &dc->n_out, dc->err, sizeof dc->err);
    dc->sec = sg_realtime() - t0;
    return NULL;
}

/* The plan (max_occ, the repeat reads in cx->host), then the thread. */
static int dev_chain_start(ctx_t *cx, dev_chain_t *dc, char *err, size_t errsz)
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
static int dev_chain_join(ctx_t *cx, dev_chain_t *dc, char *err, size_t errsz)
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

/* ---- the repeat reads' hits chained on a device ---- */

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

static void rep_store_free(rep_store_t *s)
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
        size_t n_mini = read_hits(cx, q, &qb);
        rep_block_add(b, q, &qb, n_mini);
    }
    __atomic_fetch_add(&cx->st->hits, qb.hits, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cx->st->repeat_reads, qb.rep_reads, __ATOMIC_RELAXED);
    sg_progress_add(block_bases(cx, bi, cx->host));
    free_qbuf(&qb);
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
static int repeat_reads(ctx_t *cx, dev_chain_t *dc, int nt, char *err, size_t errsz)
{
    int r = repeat_hits(cx, nt);
    char jerr[512] = "";
    int rj = dev_chain_join(cx, dc, jerr, sizeof jerr); /* always: the thread ends before anything is freed */
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
static void rep_read(const ctx_t *cx, uint32_t q, qbuf_t *qb)
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
        if (chain_overlap(cx, q, d->t, d->rev, &d->c, rb[hi] - rb[lo], hi - lo, &o)) add_overlap(qb, &o);
    }
}

/* The overlaps of q from a device's chains. */
static void device_read(const ctx_t *cx, uint32_t q, qbuf_t *qb)
{
    for (size_t i = cx->dev_first[q]; i < cx->dev_first[q + 1]; i++) {
        const sg_chain_rec_t *d = &cx->dev[i];
        sg_overlap_t o;
        if (chain_overlap(cx, q, d->t, d->rev, &d->c, 0, d->n_all, &o)) add_overlap(qb, &o);
    }
}

static int query_block(void *vctx, size_t bi, void **out)
{
    ctx_t *cx = vctx;
    qbuf_t qb = {0};
    for (uint32_t q = cx->block[bi]; q < cx->block[bi + 1]; q++) {
        if (!sg_readset_stored(cx->rs, q)) continue;
        if (cx->dev_first && !cx->host[q]) device_read(cx, q, &qb);
        else if (cx->reps) rep_read(cx, q, &qb);
        else query_read(cx, q, &qb);
    }
    __atomic_fetch_add(&cx->st->hits, qb.hits, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cx->st->repeat_reads, qb.rep_reads, __ATOMIC_RELAXED);
    sg_progress_add(block_bases(cx, bi, NULL));
    block_ovl_t *b = sg_malloc(sizeof *b);
    b->ov = qb.ov;
    b->n = qb.n_ov;
    qb.ov = NULL;
    free_qbuf(&qb);
    *out = b;
    return 0;
}

static int emit_block(void *vctx, size_t bi, void *out)
{
    (void)bi;
    ctx_t *cx = vctx;
    const block_ovl_t *b = out;
    cx->st->overlaps += b->n;
    return b->n ? cx->sink(cx->sink_arg, b->ov, b->n) : 0;
}

/* A device that failed in the chaining (code, why): with o->fallback, the
 * host chains every read from its own index (nothing went to the sink yet),
 * the reason in err and st->chain_fallback set for the caller to say; else
 * the failure, in err. @return 0 or code */
static int device_failed(ctx_t *cx, dev_chain_t *dc, const sg_ovl_opts_t *o, int code, const char *why, char *err,
                         size_t errsz)
{
    snprintf(err, errsz, "%s", why);
    if (code != SG_ERR_DEVICE || !o->fallback) return code;
    cx->st->chain_fallback = 1;
    free(dc->out);
    dc->out = NULL;
    free(cx->host);
    free(cx->dev_first);
    rep_store_free(cx->reps);
    cx->host = NULL;
    cx->dev_first = NULL;
    cx->dev = NULL;
    cx->reps = NULL;
    cx->st->hits = cx->st->repeat_reads = cx->st->device_reads = 0; /* the host's query counts them */
    make_blocks(cx);
    return 0;
}

int sg_overlaps_find(const sg_readset_t *rs, const sg_ovl_opts_t *o, sg_overlap_sink_t sink, void *arg,
                     sg_ovl_stats_t *st, char *err, size_t errsz)
{
    memset(st, 0, sizeof *st);
    ctx_t *cx = sg_calloc(1, sizeof *cx);
    cx->rs = rs;
    cx->o = *o;
    cx->hb = 2 * o->k - PART_BITS;
    cx->st = st;
    cx->sink = sink;
    cx->sink_arg = arg;
    int nt = o->n_threads > 0 ? o->n_threads : 1, r;
    double t0 = sg_realtime();
    uint64_t n_stored, bases, n_short, short_bases;
    sg_readset_totals(rs, &n_stored, &bases, &n_short, &short_bases);
    /* the device's sketch and sort say nothing until they are done */
    sg_progress_stage_bases(o->index ? "indexing the minimizers on the device" : "indexing the minimizers",
                            o->index ? 0 : bases);
    make_blocks(cx);
    dev_chain_t dc = {0};
    int on_device = 0; /* the device chains: its plan is made */
    if (o->index) {
        r = o->index->build(o->index, rs, o, &cx->dev_rec, cx->dev_part, &st->minimizers, err, errsz);
        st->index_device = r == 0;
        /* the device chains its reads while the host makes the buckets and the repeat reads' hits */
        if (r == 0 && o->index->chain_plan) {
            char why[512] = "";
            int rd = dev_chain_start(cx, &dc, why, sizeof why);
            on_device = rd == 0;
            if (rd < 0) r = device_failed(cx, &dc, o, rd, why, err, errsz);
        }
        sg_pfor_t parts = {.n = N_PART, .work = device_part, .ctx = cx};
        if (r == 0) r = sg_parallel_map(&parts, nt);
        free(cx->dev_rec);
        cx->dev_rec = NULL;
    } else {
        sg_pfor_t collect = {.n = cx->n_block, .work = collect_block, .collect = append_block, .free_out = free_block_recs, .ctx = cx};
        r = sg_parallel_map(&collect, nt);
        sg_pfor_t sort = {.n = N_PART, .work = sort_part, .ctx = cx};
        if (r == 0) r = sg_parallel_map(&sort, nt);
    }
    if (r == 0) {
        for (int p = 0; p < N_PART; p++) {
            st->buckets += cx->part[p].n_key;
            st->indexed += cx->part[p].bkt ? cx->part[p].bkt[cx->part[p].n_key].off : 0;
        }
        /* the device's choice when it chains: the same counts give the same */
        cx->max_occ = on_device ? dc.max_occ : o->max_occ ? o->max_occ : choose_max_occ(cx);
        st->max_occ = cx->max_occ;
        for (int p = 0; p < N_PART; p++)
            for (uint32_t i = 0; i < cx->part[p].n_key; i++)
                st->rep_buckets += cx->part[p].bkt[i + 1].off - cx->part[p].bkt[i].off > cx->max_occ;
    }
    st->index_s = sg_realtime() - t0;
    t0 = sg_realtime();
    if (on_device) { /* the thread always ends here, before anything is freed */
        char why[512] = "";
        uint64_t host_bases = 0;
        for (uint32_t i = 0; i < sg_readset_n(rs); i++)
            if (cx->host[i] && sg_readset_stored(rs, i)) host_bases += sg_readset_len(rs, i);
        sg_progress_stage_bases("the repeat reads' hits, beside the device's chaining", host_bases);
        make_blocks(cx); /* the repeat reads weigh more */
        int rd = r == 0 && o->index->chain_hits ? repeat_reads(cx, &dc, nt, why, sizeof why)
                                                : dev_chain_join(cx, &dc, why, sizeof why);
        if (r == 0 && rd < 0) r = device_failed(cx, &dc, o, rd, why, err, errsz);
    }
    sg_pfor_t query = {.n = cx->n_block, .work = query_block, .collect = emit_block, .free_out = free_block_ovl, .ctx = cx};
    double t1 = sg_realtime();
    sg_progress_stage_bases(cx->dev_first ? "overlaps from the device's chains" : "overlapping", bases);
    if (r == 0) r = sg_parallel_map(&query, nt);
    st->emit_s = sg_realtime() - t1;
    st->overlap_s = sg_realtime() - t0;
    for (int p = 0; p < N_PART; p++) {
        part_t *pa = &cx->part[p];
        free(pa->rec);
        free(pa->bkt);
        free(pa->ent);
        free(pa->dir);
    }
    free(cx->block);
    free(cx->host);
    free(cx->dev_first);
    rep_store_free(cx->reps);
    free(dc.out);
    free(cx);
    return r;
}
