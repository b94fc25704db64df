/* FASTA/FASTQ input. One reader thread pulls raw bytes through htslib
 * (plain, gzip or BGZF, files or stdin "-"; BGZF inflated on an htslib
 * thread pool) and cuts them into blocks at line (FASTA) or record (FASTQ)
 * boundaries; any number of threads then parse blocks in place into chunk
 * pieces, so parsing is not bound to one core. */
#ifndef SG_SEQIO_H
#define SG_SEQIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/chunk.h"

enum { SG_FMT_FASTA = 1, SG_FMT_FASTQ = 2, SG_FMT_GFA = 3, SG_FMT_2BIT = 4 };

typedef struct sg_reader sg_reader_t;

/**
 * Refuse an input named twice that can be read only once: standard input
 * ("-", /dev/stdin) or the same pipe, FIFO or device (files given twice are
 * read twice). For every input of a run, motif files included.
 * @return 0, or SG_ERR_INPUT with the message printed
 */
int sg_inputs_check(char *const *paths, int n) __attribute__((warn_unused_result));

/** Can the input be read a second time (a regular file, not standard input or a pipe)? */
int sg_input_rereadable(const char *path);

/**
 * A reader over the inputs in order ("-" is standard input); each file is
 * opened when it is reached.
 * @param block      bytes per raw block (a block grows to hold one whole
 *                   header line or FASTQ record)
 * @param n_threads  threads for BGZF decompression
 */
sg_reader_t *sg_reader_new(char *const *paths, int n_paths, size_t block, int n_threads);

/* A part of the inputs (find --part): the bytes from offset beg of input
 * `first` (a base inside a record) to offset end of input `last`, then those
 * up to tail_end as overlap only (sg_chunk_t.tail). Inputs before first and
 * after last are not read. Offsets are uncompressed; a BGZF input seeks
 * through its .gzi. */
typedef struct {
    int first, last;
    uint64_t beg, end, tail_end;
    char *const *gzi; /* per input: its .gzi, or NULL for a plain file */
} sg_reader_part_t;

/** Read only a part of the inputs (before the first sg_reader_next()). */
void sg_reader_set_part(sg_reader_t *r, const sg_reader_part_t *p);

/**
 * The next raw block, for sg_parse_block(). An input without records (an
 * empty file, nothing on standard input) is passed over with a warning.
 * @return 1 with *out set; 0 after the last file; SG_ERR_INPUT on an
 *         unreadable or corrupt input (the message is printed)
 */
int sg_reader_next(sg_reader_t *r, sg_chunk_t **out) __attribute__((warn_unused_result));

/**
 * Open the first input with records and tell its format from its first
 * bytes, before any is consumed (they come back from sg_reader_next()), so
 * that a pipe is read once. A GFA graph is accepted there (and only there):
 * its blocks are whole lines, for sg_gfa_parse().
 * @return SG_FMT_*, 0 when no input has records, or SG_ERR_INPUT (message printed)
 */
int sg_reader_format(sg_reader_t *r) __attribute__((warn_unused_result));

/** Path of input file i as given. */
const char *sg_reader_path(const sg_reader_t *r, int i);
/** Bytes of (decompressed) input read so far. */
uint64_t sg_reader_bytes(const sg_reader_t *r);
/** Bytes of the input files as stored (compressed, for compressed files)
 * read so far: progress against their sizes on disk. Not thread-safe: from
 * the thread that calls sg_reader_next(). */
uint64_t sg_reader_pos(const sg_reader_t *r);
void sg_reader_free(sg_reader_t *r);

/* What the inputs were and how they were read (the read stage of --stats). */
enum {
    SG_READ_PLAIN = 1,     /* uncompressed */
    SG_READ_GZIP_MT = 2,   /* plain gzip, inflated on all threads (pgzip.h) */
    SG_READ_GZIP_1 = 4,    /* ... on one thread (a pipe, a small file, one thread) */
    SG_READ_BGZF_MT = 8,   /* BGZF on htslib's threads */
    SG_READ_BGZF_1 = 16,   /* ... on one thread */
    SG_READ_2BIT = 32      /* UCSC .2bit */
};
typedef struct {
    uint64_t bytes_in, bytes_out; /* as stored, and as text */
    int threads;                  /* the most threads that inflated an input */
    double seconds;               /* their CPU seconds */
    int seconds_unknown;          /* some inflating was on htslib's threads, which do not say */
    uint64_t chunks, in_order;    /* plain gzip on all threads: pieces inflated apart, and of them redone in order */
    unsigned kinds;               /* SG_READ_* bits */
} sg_read_stats_t;

/** The read stage of every reader of the run so far (added as each file is closed). */
void sg_read_stats(sg_read_stats_t *st);
/** ... as a --stats member: the line "  \"read\": {...},". */
void sg_read_stats_json(FILE *fp);

/**
 * The start of a text input, s[0..n) (its first line at least, or all of
 * it): an error when it is in a compression htslib cannot read (bzip2, xz,
 * zstd, ...); *bom: the bytes of a UTF-8 byte-order mark to skip, or 0.
 * @return 0, or SG_ERR_INPUT with the end of a message in err, to follow
 *         "'FILE' is ": "bzip2-compressed, which seqgpu cannot read ..."
 */
int sg_text_start(const char *s, size_t n, size_t *bom, char *err, size_t errsz) __attribute__((warn_unused_result));

/**
 * Parse a raw block in place (a GFA block is only made the chunk's own): sequence bytes are packed to the front of
 * c->seq with the pieces listed in c->seg and names in c->names. Thread-safe.
 * @return 0, or SG_ERR_INPUT with c->err and c->err_seg set
 */
int sg_parse_block(sg_chunk_t *c) __attribute__((warn_unused_result));

#endif
