/* Plain gzip (one member or many, not BGZF) inflated on all cores, in the
 * reader's order, with bounded memory: the method of pugz (Kerbiriou and
 * Chikhi 2019) and rapidgzip (Knespel and Brunst 2023). docs/design.md
 * ("Plain gzip on all cores") says how, and why it is exact. */
#ifndef SG_PGZIP_H
#define SG_PGZIP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct sg_pgz sg_pgz_t;

/* What the read stage did, for --stats. */
typedef struct {
    int threads;          /* inflate threads */
    double seconds;       /* their CPU seconds, summed */
    uint64_t chunks;      /* chunks of the file inflated apart and taken */
    uint64_t in_order;    /* times the reader's thread inflated in order (after a chunk whose start was not
                           * found, or was a false one) */
} sg_pgz_stats_t;

/** Whether this seqgpu inflates plain gzip on several threads (built with ISA-L). */
int sg_pgz_available(void);

/**
 * A parallel reader of the gzip file path (a regular file), when it is
 * worth it: NULL (nothing printed) when threads < 2, the file is smaller
 * than two chunks, or this build has no ISA-L; the caller then reads it on
 * one thread. The environment's SEQGPU_GZIP_CHUNK (bytes) sets the chunk
 * size (tests put chunk seams everywhere).
 */
sg_pgz_t *sg_pgz_open(const char *path, int threads);

/**
 * Up to n bytes of the decompressed stream into buf.
 * @return the bytes read (0 at its end), or -1 for a truncated or corrupt
 *         file (the reason in sg_pgz_error())
 */
ssize_t sg_pgz_read(sg_pgz_t *g, void *buf, size_t n);

/** Why the last sg_pgz_read() failed. */
const char *sg_pgz_error(const sg_pgz_t *g);

/** Compressed bytes behind what was read so far (progress). */
uint64_t sg_pgz_pos(const sg_pgz_t *g);

void sg_pgz_stats(const sg_pgz_t *g, sg_pgz_stats_t *st);
void sg_pgz_close(sg_pgz_t *g);

#endif
