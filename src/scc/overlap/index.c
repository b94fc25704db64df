/* The overlapper's index: every minimizer seen twice or more, bucketed by
 * its hash. In: each hash partition's records (sketch.c; or a device's
 * sorted minimizers, cx->dev_rec, from cuda/scc/sketch.cu). Out: each
 * partition's buckets (a distinct hash, its entries by read and position)
 * and a directory into them, which a read's query looks its minimizers up
 * in (minimizer_int.h's lookups, hits.c); the limit on buckets paired in
 * full (max_occ) from the buckets' sizes. */
#define _GNU_SOURCE
#include "scc/overlap/minimizer_int.h"
#include "core/log.h"
#include "core/pipeline.h"

#include <stdlib.h>
#include <string.h>

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

/* The limit from the buckets' sizes in the index. */
uint32_t sg_ovl_choose_max_occ(const ctx_t *cx)
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

/* Every partition's buckets from its records, sorted on all threads. */
int sg_ovl_sort_parts(ctx_t *cx, int nt)
{
    sg_pfor_t sort = {.n = N_PART, .work = sort_part, .ctx = cx};
    return sg_parallel_map(&sort, nt);
}

/* Every partition's buckets from a device's sorted minimizers. */
int sg_ovl_device_parts(ctx_t *cx, int nt)
{
    sg_pfor_t parts = {.n = N_PART, .work = device_part, .ctx = cx};
    return sg_parallel_map(&parts, nt);
}
