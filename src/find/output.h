/* find's output: each chunk's hits are formatted on a worker thread; one
 * writer prints the chunks in input order and checks every write. */
#ifndef SG_OUTPUT_H
#define SG_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include <htslib/kstring.h>

#include "core/chunk.h"
#include "find/hits.h"
#include "find/motif.h"
#include "find/score.h"
#include "formats/outfile.h"

/* SG_OUT_COUNT_FILE: -F count --by-file, the hits of each input file, written
 * when all are read (sg_writer_files()) */
typedef enum { SG_OUT_BED, SG_OUT_TSV, SG_OUT_COUNT, SG_OUT_CASOFFINDER, SG_OUT_CASOFFINDER3, SG_OUT_COUNT_FILE } sg_outfmt_t;

/** Parse "bed", "tsv", "count", "casoffinder" or "casoffinder3"; -1 if none. */
int sg_outfmt_parse(const char *s);

/* With PAMs or mismatches (sg_motif_set_t.approx) the BED score is the
 * number of mismatches, and tsv's matched column is upper case with the
 * mismatched bases in lower case, followed by a mismatches column. With
 * bulges, BED and tsv add the bulge type and size (and tsv the guide's row
 * of the alignment); scores add their columns. */
typedef struct {
    sg_outfmt_t fmt;
    const sg_motif_set_t *ms;
    uint32_t *rank_site;  /* pattern index << 3 | bulge variant, of each rank */
    uint8_t enc[256];     /* base set of each text byte (sg_encode_table), to count mismatches */
    int all_alignments;   /* every alignment of a site (tsv, casoffinder3), not the best only */
    int scores;           /* SG_SCORE_* columns to print */
    int tally;            /* tally each guide's sites for --guide-summary */
    int scored;           /* every motif can be scored (sg_score_applies) */
} sg_formatter_t;

/* Records whose hits the writer keeps one by one, for find --summary: a
 * few chromosomes or plasmids, not a read set. */
#define SG_SUMMARY_RECORDS 20

/* One chunk, formatted: at once, or in pieces when its hits or their text
 * are too many to hold (sg_format_hits). */
typedef struct {
    kstring_t text;       /* what is not written yet */
    int done;             /* every hit of the chunk formatted */
    int seg, row;         /* the piece being formatted; count: the next of its rows */
    uint64_t *cnt;        /* count: hits of each motif in that piece so far */
    int head_put;         /* the writer has taken head */
    uint64_t *per_pat;    /* hits of each pattern (motif and strand) in the chunk */
    /* hits of each motif in each piece of the chunk that belongs to one of
     * the first SG_SUMMARY_RECORDS records (pieces x n_motif), or NULL */
    uint64_t *first_recs;
    /* count format: counts of a first piece that continues a record, and of a
     * last piece whose record goes on; the writer adds them up across chunks */
    uint64_t *head, *tail;
    /* each motif's sites not handed to the writer yet, when the formatter
     * tallies them, and the bytes of their lists of scores */
    sg_guide_tally_t *tally;
    int n_tally;
    size_t tally_bytes;
} sg_chunk_text_t;

/** What a chunk holds for the writer: its text and its tallied sites. */
static inline size_t sg_chunk_text_held(const sg_chunk_text_t *o) { return o->text.l + o->tally_bytes; }

/** A formatter of format fmt for motif set ms; all_alignments, scores and
 * tally are set after it, before the first chunk. */
void sg_formatter_init(sg_formatter_t *f, sg_outfmt_t fmt, const sg_motif_set_t *ms, int skip_masked);
void sg_formatter_free(sg_formatter_t *f);

/**
 * Format the next sorted hits h of chunk c into o (thread-safe): every hit
 * of its starts below upto not formatted yet, and the pieces that end by
 * upto, until o holds budget bytes (sg_chunk_text_held).
 * @return 1 when all of h was formatted, 0 when o was full first
 *         (*taken hits formatted; the rest goes in the next call)
 */
int sg_format_hits(const sg_formatter_t *f, const sg_chunk_t *c, const sg_hits_t *h, uint64_t upto, size_t budget,
                   sg_chunk_text_t *o, size_t *taken);
void sg_chunk_text_free(sg_chunk_text_t *o);

typedef struct {
    sg_outfile_t *out;
    const sg_formatter_t *f;
    uint64_t *acc;        /* count format: the record that spans chunks */
    char *acc_name;
    /* hits so far: of each motif, of each pattern, of each motif in each
     * input file (file * n_motif + motif), and of each motif in each of the
     * first SG_SUMMARY_RECORDS records (record * n_motif + motif) */
    uint64_t *total, *total_pat, *file_total, *rec_total;
    char *rec_name[SG_SUMMARY_RECORDS];
    int n_files;
    sg_guide_tally_t *tally; /* each motif's sites, when the formatter tallies them */
} sg_writer_t;

/** Start writing to an open output (its owner closes it): the header line,
 * if the format has one and header is 1 (not for parts after the first); the hits
 * of n_files input files are tallied. */
int sg_writer_open(sg_writer_t *w, sg_outfile_t *out, const sg_formatter_t *f, int header, int n_files)
    __attribute__((warn_unused_result));
/** Print what is formatted of the next chunk, in input order (again, after more
 * of it is formatted, until o->done); its tallied sites go to the run's. */
int sg_writer_put(sg_writer_t *w, const sg_chunk_t *c, sg_chunk_text_t *o) __attribute__((warn_unused_result));
/** SG_OUT_COUNT_FILE: a row per input file (named as in inputs) and motif, after the last chunk. */
int sg_writer_files(sg_writer_t *w, char *const *inputs) __attribute__((warn_unused_result));
/** Free the writer's memory (the tallies stay readable until then). */
void sg_writer_free(sg_writer_t *w);

/**
 * find --summary: text tables of the hits of each motif and strand, and of
 * each record and motif when there are at most SG_SUMMARY_RECORDS records.
 * @param n_records  records read
 */
void sg_writer_summary(const sg_writer_t *w, int64_t n_records, FILE *fp);

#endif
