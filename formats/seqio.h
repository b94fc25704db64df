/* FASTA/FASTQ input. One reader thread pulls raw bytes through htslib
 * (plain, gzip or BGZF, files or stdin "-"; BGZF inflated on an htslib
 * thread pool) and cuts them into blocks at line (FASTA) or record (FASTQ)
 * boundaries; any number of threads then parse blocks in place into chunk
 * pieces, so parsing is not bound to one core. */
#ifndef SG_SEQIO_H
#define SG_SEQIO_H

#include <stddef.h>
#include <stdint.h>

#include "../src/chunk.h"

enum { SG_FMT_FASTA = 1, SG_FMT_FASTQ = 2 };

typedef struct sg_reader sg_reader_t;

/**
 * A reader over the inputs in order ("-" is standard input); each file is
 * opened when it is reached.
 * @param block      bytes per raw block (a block grows to hold one whole
 *                   header line or FASTQ record)
 * @param n_threads  threads for BGZF decompression
 */
sg_reader_t *sg_reader_new(char *const *paths, int n_paths, size_t block, int n_threads);

/**
 * The next raw block, for sg_parse_block().
 * @return 1 with *out set; 0 after the last file; SG_ERR_INPUT on an
 *         unreadable, empty or corrupt input (the message is printed)
 */
int sg_reader_next(sg_reader_t *r, sg_chunk_t **out) __attribute__((warn_unused_result));

/** Path of input file i as given. */
const char *sg_reader_path(const sg_reader_t *r, int i);
/** Bytes of (decompressed) input read so far. */
uint64_t sg_reader_bytes(const sg_reader_t *r);
void sg_reader_free(sg_reader_t *r);

/**
 * Parse a raw block in place: sequence bytes are packed to the front of
 * c->seq with the pieces listed in c->seg and names in c->names. Thread-safe.
 * @return 0, or SG_ERR_INPUT with c->err and c->err_seg set
 */
int sg_parse_block(sg_chunk_t *c) __attribute__((warn_unused_result));

#endif
