/* Cas-OFFinder 2.4 and 3 input files (find --cas-offinder):
 *
 *   /path/to/genome            a folder of FASTA files, or one file
 *   NNNNNNNNNNNNNNNNNNNNNRG [DB RB]   the pattern: N over the guide, then the PAM;
 *                              Cas-OFFinder 3's largest DNA and RNA bulges
 *   GGCCGACCTGTCGCTGACGCNNN 5 [id]    guides: N over the PAM, a mismatch limit, an optional id
 *
 * Every guide becomes a motif whose N positions are PAM positions with the
 * pattern's letters (sg_motif_add_guide). */
#ifndef SG_CASOFF_H
#define SG_CASOFF_H

#include <stddef.h>

#include "find/motif.h"

typedef struct {
    char **files; /* the genome's FASTA files, in name order */
    int n_files;
    int dna_bulge, rna_bulge; /* the pattern line's bulge sizes (0 without) */
} sg_casoff_t;

/**
 * Read a Cas-OFFinder input file: its guides go into ms, the genome's files
 * into co. A folder's regular files (not hidden) are taken in name order if
 * they hold FASTA, plain or gzip; others are skipped with a warning.
 * @return 0, or SG_ERR_INPUT with a message naming the file and line in err
 */
int sg_casoff_load(const char *path, sg_motif_set_t *ms, sg_casoff_t *co, char *err, size_t errsz)
    __attribute__((warn_unused_result));
void sg_casoff_free(sg_casoff_t *co);

#endif
