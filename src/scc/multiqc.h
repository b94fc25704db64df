/* scc's MultiQC custom content (formats/multiqc.h). */
#ifndef SG_SCC_MULTIQC_H
#define SG_SCC_MULTIQC_H

#include <stdio.h>

#include "formats/multiqc.h"
#include "scc/coverage.h"
#include "scc/repeats.h"

/** scc: the spectrum of one sample, over the counts that a linear plot shows
 * (MultiQC's flat report draws linear axes): from the trough after the
 * error k-mers to twice the threshold or four times the coverage. */
void sg_mqc_spectrum(FILE *fp, const char *sample, const sg_spectrum_t *sp);

/** scc: the repeats of one sample with the most copies (SG_PICTURE_REPEATS of them), a row each. */
void sg_mqc_repeats(FILE *fp, const char *sample, const sg_repeats_t *rp);

#endif
