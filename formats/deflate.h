/* The pieces of a deflate decoder that no library offers, for the parallel
 * gzip reader (pgzip.h), after pugz (Kerbiriou and Chikhi 2019) and
 * rapidgzip (Knespel and Brunst 2023):
 *
 *   - a block finder: the first place at or after a bit offset where a
 *     deflate block can start (a dynamic Huffman block whose header is
 *     valid, the end of a stored block, a gzip member header), so that a
 *     thread can start decoding in the middle of a file;
 *   - a decoder that starts there without the 32 KiB window before it: its
 *     output is 16-bit symbols, a byte (0-255) or a marker (256 + i) for
 *     byte i of the unknown window, resolved once that window is known;
 *   - gzip member headers and trailers (RFC 1952).
 *
 * Everything is checked against the input's size: any bytes give a result
 * or an error, never a read out of bounds. Acceptance follows zlib's: a
 * stream zlib decodes is decoded, one it rejects is rejected. */
#ifndef SG_DEFLATE_H
#define SG_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/* Errors (negative). */
enum {
    SG_DFL_TRUNCATED = -1, /* the input ends inside a block, a header or a trailer */
    SG_DFL_CORRUPT = -2,   /* not deflate or gzip data: a bad block type, code, symbol or header */
    SG_DFL_FAR = -3        /* a distance reaching before the window */
};

#define SG_DFL_WINDOW 32768 /* bytes a distance may reach back */
#define SG_DFL_NONE UINT64_MAX

/**
 * The length of the gzip member header at d[0..n).
 * @return the header's length; SG_DFL_TRUNCATED when n ends inside it;
 *         SG_DFL_CORRUPT when it is no gzip header (a wrong magic, method
 *         or reserved flag, or a header CRC that does not match)
 */
long sg_dfl_gzip_header(const uint8_t *d, size_t n);

/**
 * The first candidate block start at a bit offset in [from, to) of
 * d[0..n): where a dynamic block with a valid header (not a final one)
 * starts, a stored block ends (its LEN and NLEN agree, and a valid block
 * header follows), or a gzip member header starts (at its first byte).
 * Fixed-code blocks are not found: any bits look like one.
 * @return the bit offset, or SG_DFL_NONE
 */
uint64_t sg_dfl_find(const uint8_t *d, size_t n, uint64_t from, uint64_t to);

/* A decoder of one stream of deflate blocks into 16-bit symbols. */
typedef struct sg_dfl sg_dfl_t;

/**
 * A decoder of d[0..n) from bit offset pos, a block start. known: the
 * window before pos is known to be empty (a member's first block): a
 * distance past the start is an error. Otherwise distances reaching up to
 * SG_DFL_WINDOW bytes before the start give markers. buf (cap symbols):
 * an output buffer for it to use and own, or NULL.
 */
sg_dfl_t *sg_dfl_new(const uint8_t *d, size_t n, uint64_t pos, int known, uint16_t *buf, size_t cap);
void sg_dfl_free(sg_dfl_t *z);

/**
 * Decode the next block, appending its symbols to the output.
 * @return 0 (a block that was not final), 1 (the final block: the position
 *         is then the byte after it, where the trailer starts), or an
 *         SG_DFL_* error
 */
int sg_dfl_block(sg_dfl_t *z);

/** The bit offset of the next block (or trailer, after the final block). */
uint64_t sg_dfl_pos(const sg_dfl_t *z);

/** Start a new member at byte offset byte (after its header): the window
 * before it is empty, and a distance reaching before it an error. */
void sg_dfl_member(sg_dfl_t *z, uint64_t byte);

/** How many bytes before the start its markers reach back (0: none). A
 * member's bytes before the start must be at least as many: a distance
 * past a member's start is an error (zlib's "too far back"). */
size_t sg_dfl_reach(const sg_dfl_t *z);

/** The symbols so far: *n of them. */
const uint16_t *sg_dfl_out(const sg_dfl_t *z, size_t *n);
/** Take the output (*n symbols, in a buffer of *cap, freed with free()):
 * then the decoder is only freed. */
uint16_t *sg_dfl_take(sg_dfl_t *z, size_t *n, size_t *cap);

/**
 * Whether the last SG_DFL_WINDOW symbols are all bytes, so that the
 * window of what follows is known without the one before the start.
 * Each symbol is looked at once over all calls.
 */
int sg_dfl_clean(sg_dfl_t *z);

/** The window of what follows (the decoder clean, sg_dfl_clean()): the
 * last SG_DFL_WINDOW bytes (fewer after a member start) to w.
 * @return how many */
size_t sg_dfl_window(const sg_dfl_t *z, uint8_t *w);

/** Resolve n symbols to bytes: symbol v < 256 is the byte v, a marker
 * 256 + i the byte window[i] (window: SG_DFL_WINDOW bytes). */
void sg_dfl_resolve(const uint16_t *s, size_t n, const uint8_t *window, uint8_t *out);

/** The little-endian 32-bit word at p. */
static inline uint32_t sg_dfl_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
