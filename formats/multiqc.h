/* MultiQC custom content: files named *_mqc.json and *_mqc.tsv, which
 * `multiqc .` (1.14 on) finds in a results folder and shows as one
 * "seqgpu" section: find's hits per motif and run (a bar graph) and its
 * off-targets per guide (a table, src/find/multiqc.h), scc's k-mer spectrum
 * (a line graph) and repeats (a table, src/scc/multiqc.h). Files of several
 * samples and runs merge into the same plots. Write errors are the
 * caller's to check. */
#ifndef SG_MULTIQC_H
#define SG_MULTIQC_H

#include <stdio.h>

/** find's sample: the name of --stats FILE less its folder, .gz/.bgz and .json. */
char *sg_mqc_run_name(const char *stats);

/**
 * Where a MultiQC file goes: beside --stats FILE, as FILE's folder + sample +
 * suffix, never compressed (MultiQC reads only plain files).
 * @return the path, or NULL when there is no FILE, or it is standard output
 *         (or another open descriptor: /dev/stdout, /dev/fd/N), a device or
 *         a FIFO (nothing to be beside)
 */
char *sg_mqc_beside(const char *stats, const char *sample, const char *suffix);

/** The lines of a JSON file that place it in the seqgpu section. */
extern const char sg_mqc_parent_json[];

/** A table cell: no tab or line break, and no '#' first (a comment line to MultiQC). */
void sg_mqc_cell(FILE *fp, const char *s);

#endif
