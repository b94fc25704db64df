/* The own overlapper's state, shared by its stages (src/scc/overlap/:
 * sketch.c, index.c, hits.c, chain.c, chain_device.c, and minimizer.c,
 * which runs them in turn: sg_overlaps_find). Internal: only those files
 * include it; the overlapper's interface is src/scc/overlap/minimizer.h.
 *
 * The run is cut into blocks of reads (cx->block), each a unit of work of
 * the core loops (sg_parallel_map): the sketch's blocks give the index's
 * partitions their records, the index's partitions are sorted into
 * buckets, and the overlaps' blocks look each read's minimizers up, make
 * its hits and chain them (or take a device's chains), in read order to the
 * sink. */
#ifndef SG_SCC_MINIMIZER_INT_H
#define SG_SCC_MINIMIZER_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "scc/overlap/minimizer.h"

/* ---- the run and its index (index.c makes it) ---- */

#define PART_BITS SG_OVL_PART_BITS
#define N_PART SG_OVL_PARTS

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

/* A thread's buffers for sketching reads one after another. */
typedef struct {
    uint8_t *codes;
    size_t m_codes;
    sg_mini_t *mini;
    size_t m_mini;
} sketch_buf_t;

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

/* ---- a read's query: its hits (hits.c) and their chains (chain.c) ---- */

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

/* ---- a device's chains (chain_device.c) ---- */

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

/* ---- what the stages give one another ---- */

/** The stored bases of block bi's reads (of the host's repeat reads only,
 * with host), for the progress line (minimizer.c). */
uint64_t sg_ovl_block_bases(const ctx_t *cx, size_t bi, const uint8_t *host);

/* sketch.c: read i's minimizers into b (how many); every block's
 * minimizers appended to the partitions' records (cx->part[p].rec). */
size_t sg_ovl_sketch_read(const ctx_t *cx, uint32_t i, sketch_buf_t *b);
int sg_ovl_sketch_blocks(ctx_t *cx, int nt);

/* index.c: the partitions' buckets, from their records (the host's index)
 * or from a device's sorted minimizers (cx->dev_rec); max_occ from them. */
int sg_ovl_sort_parts(ctx_t *cx, int nt);
int sg_ovl_device_parts(ctx_t *cx, int nt);
uint32_t sg_ovl_choose_max_occ(const ctx_t *cx);

/* hits.c: read q's hits into qb (how many minimizers it has); qb's memory. */
size_t sg_ovl_read_hits(const ctx_t *cx, uint32_t q, qbuf_t *qb);
void sg_ovl_free_qbuf(qbuf_t *qb);

/* chain.c: a chain as an overlap, when it is one; an overlap to qb; every
 * block's overlaps, in read order to the sink. */
int sg_ovl_chain_overlap(const ctx_t *cx, uint32_t q, uint32_t t, uint32_t rev, const sg_chain_t *c, uint32_t n_rep,
                         uint32_t n_all, sg_overlap_t *out);
void sg_ovl_add_overlap(qbuf_t *qb, const sg_overlap_t *o);
int sg_ovl_overlaps(ctx_t *cx, int nt);

/* chain_device.c: the device's chaining thread; the repeat reads' turns;
 * the overlaps of a read from the device's chains (a repeat read's, or
 * another's); the repeat reads' store. */
int sg_ovl_dev_chain_start(ctx_t *cx, dev_chain_t *dc, char *err, size_t errsz);
int sg_ovl_dev_chain_join(ctx_t *cx, dev_chain_t *dc, char *err, size_t errsz);
int sg_ovl_repeat_reads(ctx_t *cx, dev_chain_t *dc, int nt, char *err, size_t errsz);
void sg_ovl_rep_read(const ctx_t *cx, uint32_t q, qbuf_t *qb);
void sg_ovl_device_read(const ctx_t *cx, uint32_t q, qbuf_t *qb);
void sg_ovl_rep_store_free(struct rep_store *s);

#endif
