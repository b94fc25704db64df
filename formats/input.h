/* The first three steps of every pipeline over FASTA/FASTQ input: read (one
 * thread), parse (all threads), chunk (in order). Their items are chunks. */
#ifndef SG_INPUT_H
#define SG_INPUT_H

#include "formats/seqio.h"
#include "core/chunk.h"
#include "core/pipeline.h"

typedef struct {
    sg_reader_t *reader;
    sg_chunker_t chunker;
    sg_emit_t *emit; /* the chunk step's, while it runs */
} sg_input_t;

/**
 * @param reader   the inputs (sg_reader_new()), freed with in
 * @param overlap  bases each chunk carries from the next (longest pattern - 1)
 */
void sg_input_init(sg_input_t *in, sg_reader_t *reader, size_t overlap);
void sg_input_free(sg_input_t *in);

/* Steps for sg_pipeline_run: ctx must point to a struct whose first member
 * is the sg_input_t. The read step reports its position to progress.h. */
int sg_input_read(void *ctx, void *item, sg_emit_t *emit);
int sg_input_parse(void *ctx, void *item, sg_emit_t *emit);
int sg_input_chunk(void *ctx, void *item, sg_emit_t *emit);

/** Bases to expect from the inputs, for planning: the sizes of the
 * regular files, times 3 for compressed ones and 4 for .2bit; -1 when one
 * is unknown (stdin). */
double sg_input_bases(char *const *paths, int n_paths);

/** Bytes the inputs take as stored (their file sizes), the total that
 * sg_reader_pos() counts towards; 0 when one is not a regular file (stdin). */
uint64_t sg_input_stored_bytes(char *const *paths, int n_paths);

/** free_item for pipelines whose items are chunks. */
void sg_input_free_chunk(void *ctx, void *item);

#endif
