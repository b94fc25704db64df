/* A chunk's hits in sorted batches of bounded size, whatever their density.
 * The backend scans a window of starts into a buffer with a limit; a window
 * that finds more hits than the limit is scanned again shorter, and a sparse
 * one lets the next grow, so that memory follows the buffer, not the hits.
 * A reader that takes only part of a batch (its output is full) resumes
 * later at the first hit it left, in the same order. */
#ifndef SG_FIND_SCAN_H
#define SG_FIND_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "find/backend.h"

/* Where a chunk's scan has got to. */
typedef struct {
    size_t pos;    /* the next start to scan */
    uint64_t skip; /* hits at pos with keys below it were taken already */
} sg_scan_at_t;

/**
 * Takes the sorted hits h, every hit of the chunk's starts below upto not
 * taken yet.
 * @return 1 when it took them all and wants more, 0 when it stopped after
 *         *taken of them (the next call starts with the hit after them)
 */
typedef int (*sg_hits_fn)(void *arg, const sg_hits_t *h, size_t upto, size_t *taken);

/**
 * Scan chunk c from at on with backend be, handing the hits to fn in order,
 * in batches of at most buf->max (which must exceed the ranks' number, the
 * patterns' and their bulge variants': one start's hits fit), until fn
 * stops or the chunk ends; fn is called with upto == c->len last (also with
 * no hits).
 * @param window  starts per scan call, shared by the threads (0: a whole chunk)
 * @return 1 when fn stopped (at: where to go on), 0 at the chunk's end, or a
 *         backend's negative code
 */
int sg_scan_hits(sg_backend_t *be, const sg_chunk_t *c, sg_scan_at_t *at, sg_hits_t *buf, size_t *window,
                 sg_hits_fn fn, void *arg) __attribute__((warn_unused_result));

#endif
