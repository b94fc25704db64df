/* Hits of one chunk. A hit is one 64-bit key: the start in the chunk in the
 * high half, the pattern's rank (sg_pattern_t.rank) in the low half, so that
 * sorting the keys gives the output order (start, end, strand, motif) within
 * a chunk.
 *
 * A buffer may have a limit (max): the hits past it are counted, not kept,
 * so that a chunk dense with hits never holds more than max of them; its
 * reader then scans a shorter range (sg_scan_hits, src/find/scan.h). */
#ifndef SG_HITS_H
#define SG_HITS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *a;
    size_t n;   /* hits found: over max when there were more than it (only max of them kept) */
    size_t m;   /* room in a */
    size_t max; /* most kept (0: no limit) */
} sg_hits_t;

static inline uint64_t sg_hit_key(uint64_t pos, uint32_t rank) { return pos << 32 | rank; }
static inline uint32_t sg_hit_pos(uint64_t key) { return (uint32_t)(key >> 32); }
static inline uint32_t sg_hit_rank(uint64_t key) { return (uint32_t)key; }

/** Room for n hits: 0, or -1 (nothing changed) when n is over the limit. */
int sg_hits_grow(sg_hits_t *h, size_t n);
static inline void sg_hits_push(sg_hits_t *h, uint64_t key)
{
    if (h->n >= h->m && sg_hits_grow(h, h->n + 1) < 0) {
        h->n++; /* counted, not kept */
        return;
    }
    h->a[h->n++] = key;
}
/** More hits were found than the buffer keeps. */
static inline int sg_hits_over(const sg_hits_t *h) { return h->max && h->n > h->max; }
/** Sort in place (LSD radix sort over the bits in use). */
void sg_hits_sort(sg_hits_t *h);
void sg_hits_free(sg_hits_t *h);

#endif
