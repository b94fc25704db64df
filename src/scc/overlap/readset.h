/* The reads of an overlap run (seqgpu scc -g overlap), held in memory for
 * the whole run: names (looked up by PAF lines and written in the outputs),
 * lengths, and the bases 2 bits each, with the places of bytes that are not
 * A/C/G/T (N, IUPAC codes) kept aside. Reads shorter than a minimum keep
 * their name and length but no bases: no overlap of theirs can be long
 * enough. */
#ifndef SG_SCC_READSET_H
#define SG_SCC_READSET_H

#include <stddef.h>
#include <stdint.h>

#include "formats/seqio.h"
#include "core/chunk.h"

/* The longest read held: positions are 30-bit numbers (diagonals fit 31 bits). */
#define SG_READ_MAX_LEN 0x3fffffffu

typedef struct sg_readset sg_readset_t;

/** An empty set; reads shorter than min_len are kept without their bases. */
sg_readset_t *sg_readset_new(uint64_t min_len);
void sg_readset_free(sg_readset_t *rs);

/**
 * Take the pieces of chunk c (from the input steps, in input order, with no
 * overlap): a read split across chunks is put together.
 * @return 0, or SG_ERR_INPUT (message printed) for a read longer than
 *         SG_READ_MAX_LEN
 */
int sg_readset_add(sg_readset_t *rs, const sg_chunk_t *c) __attribute__((warn_unused_result));

/**
 * After the last chunk: index the names.
 * @param rd  the reader the chunks came from, for a message (NULL: none)
 * @return 0, or SG_ERR_INPUT (message printed, naming the files and each
 *         read's record in its file) when two reads share a name (they
 *         would be one segment in GFA, and PAF could not tell them apart)
 */
int sg_readset_finish(sg_readset_t *rs, const sg_reader_t *rd) __attribute__((warn_unused_result));

/** Reads, stored or not. */
uint32_t sg_readset_n(const sg_readset_t *rs);
/** Bases of read i. */
uint32_t sg_readset_len(const sg_readset_t *rs, uint32_t i);
/** Whether read i has its bases (it is at least the minimum length). */
int sg_readset_stored(const sg_readset_t *rs, uint32_t i);
const char *sg_readset_name(const sg_readset_t *rs, uint32_t i);
/** The read of that name (n bytes of name), or -1. */
int64_t sg_readset_find(const sg_readset_t *rs, const char *name, size_t n);

/** Read i's bases as codes 0-3 (A, C, G, T), 4 for any other byte, into
 * out (sg_readset_len() of them); read i must be stored. */
void sg_readset_codes(const sg_readset_t *rs, uint32_t i, uint8_t *out);
/** Read i's bases as letters (upper case; N for any other byte), NUL-terminated. */
void sg_readset_spell(const sg_readset_t *rs, uint32_t i, char *out);

/* The stored reads' bases as one stream, for a device to unpack. */
typedef struct {
    uint64_t at;  /* the first base of a run of bytes that are not A/C/G/T, in the stream */
    uint32_t len;
} sg_readset_amb_t;

typedef struct {
    const uint8_t *packed;     /* 4 bases a byte, the first in the low bits; n_bases of them */
    uint64_t n_bases;
    const uint64_t *base;      /* read i's first base in the stream (a stored read's) */
    const uint32_t *len;       /* read i's length */
    const sg_readset_amb_t *amb; /* the runs of other bytes (code 4), in order */
    uint64_t n_amb;
} sg_readset_stream_t;

void sg_readset_stream(const sg_readset_t *rs, sg_readset_stream_t *s);

/** Totals: reads and bases stored, and reads and bases too short to be. */
void sg_readset_totals(const sg_readset_t *rs, uint64_t *n_stored, uint64_t *bases_stored, uint64_t *n_short,
                       uint64_t *bases_short);

#endif
