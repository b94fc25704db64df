/* The overlapper's first stage, the sketch: the (w,k)-minimizers of each
 * stored read (src/scc/overlap/sketch.h, the same function as the device's
 * in cuda/scc/sketch.cu), block by block on all threads. In: the read set
 * and the blocks of the run (minimizer_int.h). Out: each minimizer as a
 * record (hash bits below the partition's, read, position << 1 | strand)
 * appended to its hash partition's records, in read order, for the index
 * (index.c); st->minimizers counts them. */
#define _GNU_SOURCE
#include "scc/overlap/minimizer_int.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "core/progress.h"

#include <stdlib.h>
#include <string.h>

size_t sg_sketch(const uint8_t *codes, uint32_t len, int k, int w, int hpc, sg_mini_t **a, size_t *m)
{
    size_t n = sg_sketch_into(codes, len, k, w, hpc, *a, *m);
    if (n > *m) { /* once per size a thread's buffer grows to */
        *a = sg_realloc(*a, (*m = n + n / 4 + 64) * sizeof **a);
        sg_sketch_into(codes, len, k, w, hpc, *a, *m);
    }
    return n;
}

/* Read i's minimizers into b->mini (its base codes through b->codes): how many. */
size_t sg_ovl_sketch_read(const ctx_t *cx, uint32_t i, sketch_buf_t *b)
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
        size_t n = sg_ovl_sketch_read(cx, i, &b);
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
    sg_progress_add(sg_ovl_block_bases(cx, bi, NULL));
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

/* Every block's minimizers, in block order, to the partitions' records. */
int sg_ovl_sketch_blocks(ctx_t *cx, int nt)
{
    sg_pfor_t collect = {.n = cx->n_block, .work = collect_block, .collect = append_block, .free_out = free_block_recs, .ctx = cx};
    return sg_parallel_map(&collect, nt);
}
