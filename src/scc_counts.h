/* scc's k-mers counted in hash parts (sg_kmer_part): one part of a run
 * written to a counts file (--part I/N --counts-out), the N parts of a run
 * read back (--counts), and a run whose k-mer table outgrows --max-memory
 * counted part by part over several passes of the reads, each part through
 * a counts file in a temporary folder, as KMC and bcalm spill to disk. The
 * parts together give the histogram, totals and counts of one pass, so the
 * graph and the report are the same, byte for byte. */
#ifndef SG_SCC_COUNTS_H
#define SG_SCC_COUNTS_H

#include <stdint.h>
#include <stdio.h>

#include "../formats/seqio.h"
#include "scc_backend.h"
#include "scc_coverage.h" /* SG_HIST_BINS */


/* What counting gave: the histogram and totals of all the k-mers, and,
 * when they were counted in parts, the counts files to load the kept ones
 * from (else the table holds them all). */
typedef struct {
    uint64_t hist[SG_HIST_BINS];
    uint64_t total, distinct;
    int k;
    uint32_t min_stored;           /* the files hold the k-mers seen at least this often */
    struct sg_counts_reader **files;
    int n_files;
    uint64_t stored_bytes;         /* bytes of the counts files */
    int passes;                    /* passes over the reads (0: counts files given) */
    char **inputs;                 /* counts files given: the reads they counted (part 1's names) */
    int n_inputs;
} sg_counts_set_t;

/** Count the k-mers of rd (freed here) into t (of k-mers of k bases), then
 * finish it; all threads. Errors of the input are printed. */
int sg_count_reads(sg_kmer_table_t *t, sg_reader_t *rd, int k, int n_threads) __attribute__((warn_unused_result));

/* the most parts a run's k-mers can be cut into (--part) */
#define SG_MAX_PARTS 65536

/* A part's figures, for --stats. */
typedef struct {
    uint64_t kmers, distinct, stored;
    uint32_t min_stored;
} sg_part_summary_t;

/**
 * Count part `part` (1..n_parts) of the k-mers of rd (freed here) on the
 * cpu, and write it to out as a counts file (formats/counts.h) holding the
 * k-mers seen at least o->min_count times (2 when it is not set).
 * @return 0 or a negative SG_ERR_* code (message printed)
 */
int sg_counts_part(const sg_graph_opts_t *o, sg_reader_t *rd, uint32_t part, uint32_t n_parts, FILE *out,
                   const char *name, sg_part_summary_t *sum) __attribute__((warn_unused_result));

/**
 * Open counts files, one per part of one run: the same k (o->k unless
 * k_given is 0, then theirs), the same N, every part once. s gets their
 * summed histogram and totals.
 * @return 0, or SG_ERR_INPUT with the message printed
 */
int sg_counts_open_set(char *const *paths, int n, int k_given, int k, sg_counts_set_t *s)
    __attribute__((warn_unused_result));

/**
 * Count the k-mers of rd (freed here) in table t, a cpu table opened with
 * a byte limit. When the table did not narrow, it holds them all and s
 * only their histogram and totals; else the part it kept and the rest,
 * counted in more passes over o->inputs, go to counts files in o->tmp_dir
 * (removed however the run ends), t is emptied and s lists the files.
 * @return 0 or a negative SG_ERR_* code (message printed)
 */
int sg_count_bounded(const sg_graph_opts_t *o, sg_kmer_table_t *t, sg_reader_t *rd, sg_counts_set_t *s)
    __attribute__((warn_unused_result));

/**
 * Add the k-mers of s's files seen at least min times to t (a cpu table).
 * @return 0, or SG_ERR_INPUT when min is below what the files hold or a
 *         file is corrupt (message printed)
 */
int sg_counts_load(sg_counts_set_t *s, uint32_t min, sg_kmer_table_t *t) __attribute__((warn_unused_result));

void sg_counts_set_free(sg_counts_set_t *s);

#endif
