/* Chunks: the unit every backend scans. A chunk holds pieces of one or more
 * records back to back (separated by SG_SEP), followed by the first
 * (longest motif - 1) bases of the next chunk's first piece when that piece
 * continues the chunk's last record: redundant overlap, as GPU Sunday search
 * gives each text segment the m - 1 bytes after it. A chunk owns the start
 * positions [0, len); a hit starting in the overlap belongs to the next
 * chunk, so no hit is lost or doubled at a boundary. */
#ifndef SG_CHUNK_H
#define SG_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#define SG_SEP '\n' /* between pieces; never a base, so no match spans it */

/* One piece of a record inside a chunk. */
typedef struct {
    int64_t rid;      /* record number over all inputs, from 0 */
    int64_t rec_off;  /* record coordinate of the piece's first base */
    uint64_t off;     /* where the piece starts in chunk->seq */
    uint64_t len;     /* its bases */
    uint32_t name;    /* offset of the record name in chunk->names */
    uint8_t first;    /* the piece begins its record */
    uint8_t last;     /* the piece ends its record */
} sg_seg_t;

typedef struct sg_chunk {
    uint64_t id;      /* place in the output order, from 0 */
    char *seq;        /* pieces and separators, then the overlap */
    size_t len;       /* bytes whose start positions this chunk owns */
    size_t ov;        /* overlap bytes after len */
    size_t cap;
    sg_seg_t *seg;
    int n_seg, m_seg;
    char *names;      /* NUL-terminated record names */
    size_t names_len, names_cap;

    /* set by the reader, used by the parser and the chunker */
    const char *src;  /* raw bytes of a mapped file (len of them), or NULL: raw bytes are in seq */
    int file;         /* index of the input file */
    int fmt;          /* SG_FMT_* of that file */
    int midline;      /* FASTA: the raw block starts inside a sequence line */
    int file_end;     /* last block of its file */
    int tail;         /* the bases after a part of the input (find --part): overlap for the chunk before, never owned */
    void *packed;     /* a .2bit block: the stretches of records the parser unpacks (seqio.c), or NULL */
    char *err;        /* parse error message (without the record), or NULL */
    int err_seg;      /* record of the block the error is in (segment index, or n_seg if not added yet) */

    /* what a command's later steps attach (find: the formatted hits), freed with the chunk */
    void *out;
    void (*out_free)(void *out);
} sg_chunk_t;

/** A chunk with room for cap bytes of sequence. */
sg_chunk_t *sg_chunk_new(size_t cap);
void sg_chunk_free(sg_chunk_t *c);
/** Make room for n more bytes after len + ov. */
void sg_chunk_reserve(sg_chunk_t *c, size_t n);
/** Append a piece; returns it. Its name is added with sg_chunk_add_name(). */
sg_seg_t *sg_chunk_add_seg(sg_chunk_t *c);
/** Store a record name (n bytes of s) and return its offset. */
uint32_t sg_chunk_add_name(sg_chunk_t *c, const char *s, size_t n);
static inline const char *sg_chunk_name(const sg_chunk_t *c, const sg_seg_t *s) { return c->names + s->name; }

/* The chunker takes parsed blocks in input order, numbers the records,
 * carries record names across blocks, and completes each chunk's overlap
 * from the blocks after it before handing it on. */
typedef struct {
    size_t overlap;      /* longest motif - 1 */
    int64_t n_rec;       /* records started so far */
    int file;            /* the input file of the last block pushed */
    int64_t file_rec0;   /* records started before that file: messages number records per file */
    int64_t rec_pos;     /* bases of the current record so far */
    char *name;          /* current record's name */
    sg_chunk_t *pending; /* the chunk whose overlap is not yet complete */
    uint64_t n_out;      /* chunks handed on */
} sg_chunker_t;

typedef void (*sg_chunk_out_fn)(void *arg, sg_chunk_t *c);

void sg_chunker_init(sg_chunker_t *ck, size_t overlap);
/**
 * Start inside a record (a part of the input, find --part): the first block
 * continues record rid (over all inputs, from 0; file_rid0: the first of its
 * file, input file) named name, at its base rec_pos.
 */
void sg_chunker_resume(sg_chunker_t *ck, int file, int64_t rid, int64_t file_rid0, const char *name, int64_t rec_pos);
/**
 * Take the next parsed block (NULL at the end of all input). Completed chunks
 * go to out, in order; a block too small to complete the pending chunk's
 * overlap is merged into it.
 */
void sg_chunker_push(sg_chunker_t *ck, sg_chunk_t *c, sg_chunk_out_fn out, void *arg);
void sg_chunker_free(sg_chunker_t *ck);
/**
 * Record number in its file (from 1) and name (NULL if unknown) of the
 * record at segment index seg of a parsed block not pushed yet: for error
 * messages.
 */
void sg_chunker_locate(const sg_chunker_t *ck, const sg_chunk_t *c, int seg, int64_t *recno, const char **name);

/** Index of the segment holding byte position pos (pos < c->len). */
int sg_chunk_seg_at(const sg_chunk_t *c, uint64_t pos);

#endif
