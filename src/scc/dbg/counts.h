/* scc's k-mers counted in hash parts (sg_kmer_part): one part of a run
 * written to a counts file (--part I/N --counts-out), and the N parts of a
 * run read back (--counts), which give the histogram, totals and counts of
 * one run, so that the graph and the report are the same, byte for byte.
 * The parts are read one after another: a run of more parts than the
 * open-file limit holds one open at a time. */
#ifndef SG_SCC_COUNTS_H
#define SG_SCC_COUNTS_H

#include <stdint.h>
#include <stdio.h>

#include "formats/seqio.h"
#include "scc/backend.h"
#include "scc/coverage.h" /* SG_HIST_BINS */


/* A counts file of a set, as its header said when the set was opened. */
typedef struct {
    const char *path;
    uint32_t part, min_count;
    uint64_t kmers, distinct, pairs;
} sg_counts_file_t;

/* The counts files of a run's parts: the histogram and totals of all the
 * k-mers, and the files to load the kept ones from. */
typedef struct {
    uint64_t hist[SG_HIST_BINS];
    uint64_t total, distinct;
    int k;
    uint32_t min_stored;           /* the files hold the k-mers seen at least this often */
    sg_counts_file_t *files;
    int n_files;
    char **inputs;                 /* the reads they counted (part 1's names) */
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
 * cpu, within o->max_bytes (through o->tmp_dir), and write it to out as a
 * counts file (src/scc/dbg/counts_file.h) holding the k-mers seen at least
 * o->min_count times (2 when it is not set).
 * @return 0 or a negative SG_ERR_* code (message printed)
 */
int sg_counts_part(const sg_graph_opts_t *o, sg_reader_t *rd, uint32_t part, uint32_t n_parts, FILE *out,
                   const char *name, sg_part_summary_t *sum) __attribute__((warn_unused_result));

/**
 * Check counts files, one per part of one run: the same k (o->k unless
 * k_given is 0, then theirs), the same N, every part once. s gets their
 * summed histogram and totals; no file stays open.
 * @return 0, or SG_ERR_INPUT with the message printed
 */
int sg_counts_open_set(char *const *paths, int n, int k_given, int k, sg_counts_set_t *s)
    __attribute__((warn_unused_result));

/**
 * Add the k-mers of s's files seen at least min times to t (a cpu table),
 * reading the files again one at a time.
 * @return 0, or SG_ERR_INPUT when min is below what the files hold or a
 *         file is corrupt or changed (message printed)
 */
int sg_counts_load(sg_counts_set_t *s, uint32_t min, sg_kmer_table_t *t) __attribute__((warn_unused_result));

void sg_counts_set_free(sg_counts_set_t *s);

#endif
