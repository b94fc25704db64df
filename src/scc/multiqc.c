/* scc's MultiQC custom content: the k-mer spectrum, the repeats. */
#include "scc/multiqc.h"
#include "formats/json.h"
#include "formats/svg.h"
#include "scc/pictures.h"

#include <math.h>

/* The counts a linear plot of the spectrum is useful over: from the trough
 * after the error k-mers (whose count-1 spike would flatten the rest) to
 * twice the threshold, or four times the coverage, whichever is further,
 * and no further than the last count seen. */
static void spectrum_range(const sg_spectrum_t *sp, int *lo, int *hi)
{
    int last = sp->n - 2; /* the last bin, n - 1, holds the counts beyond */
    while (last > 1 && !sp->hist[last]) last--;
    *lo = !sp->graph && sp->cov.clear && sp->cov.trough > 1 ? sp->cov.trough : 1;
    double far = fmax(2.0 * sp->threshold, 4.0 * sp->cov.coverage);
    *hi = far < last ? (int)ceil(far) : last;
    if (*hi < *lo) *hi = *lo;
}


void sg_mqc_spectrum(FILE *fp, const char *sample, const sg_spectrum_t *sp)
{
    int lo, hi;
    spectrum_range(sp, &lo, &hi);
    fputs("{\n  \"id\": \"seqgpu_scc_spectrum\",\n", fp);
    fputs(sg_mqc_parent_json, fp);
    fprintf(fp, "  \"section_name\": \"scc: k-mer spectrum\",\n"
                "  \"description\": \"%s at each count (seqgpu scc), from the end of the error k-mers to twice the "
                "threshold: the single-copy peak and the repeats above it. Each sample's PREFIX.spectrum.svg draws all "
                "counts on log axes, with its coverage and threshold.\",\n"
                "  \"plot_type\": \"linegraph\",\n"
                "  \"pconfig\": {\"id\": \"seqgpu_scc_spectrum_plot\", \"title\": \"seqgpu scc: k-mer spectrum\", "
                "\"xlab\": \"%s\", \"ylab\": \"%s\", \"ymin\": 0, \"logswitch\": true, "
                "\"tt_label\": \"{point.x}: {point.y}\"},\n"
                "  \"data\": {\n    ",
            sp->graph ? "K-mers of the graph's segments" : "Distinct k-mers",
            sp->graph ? "mean k-mer count of a segment" : "k-mer count", sp->graph ? "k-mers" : "distinct k-mers");
    sg_json_str(fp, sample);
    fputs(": {", fp);
    for (int c = lo; c <= hi; c++) fprintf(fp, "%s\"%d\": %llu", c > lo ? ", " : "", c, (unsigned long long)sp->hist[c]);
    fputs("}\n  }\n}\n", fp);
}

void sg_mqc_repeats(FILE *fp, const char *sample, const sg_repeats_t *rp)
{
    /* the configuration as a YAML header of comment lines; the columns as PREFIX.repeats.tsv names them */
    const char *nodes, *bases, *coverage;
    sg_repeats_columns(rp->kind, &nodes, &bases, &coverage);
    const int reads = rp->kind == SG_REPEATS_READS, assembly = rp->kind == SG_REPEATS_ASSEMBLY;
    fprintf(fp,
            "# id: 'seqgpu_scc_repeats'\n"
            "# parent_id: 'seqgpu'\n# parent_name: 'seqgpu'\n"
            "# parent_description: 'Motif hits (seqgpu find) and k-mer spectra and cyclic repeats (seqgpu scc).'\n"
            "# section_name: 'scc: repeats'\n"
            "# description: 'The longest repeats of each sample (most bases in all copies; up to %d a sample, in the "
            "order of PREFIX.repeats.tsv, which has them all; PREFIX.repeats.svg draws them).'\n"
            "# plot_type: 'table'\n"
            "# pconfig:\n#     id: 'seqgpu_scc_repeats_table'\n#     title: 'seqgpu scc: repeats'\n"
            "#     namespace: 'seqgpu scc'\n"
            "# headers:\n"
            "#     sample: {title: 'sample', description: 'the scc run (its PREFIX)'}\n"
            "#     kind: {title: 'kind', description: 'tandem (one simple cycle) or complex'}\n"
            "#     length: {title: 'length (bp)', description: 'bases in all copies%s', format: '{:,.0f}', "
            "scale: 'Greens'}\n"
            "#     period: {title: 'period (bp)', description: 'the shortest cycle, in bases', format: '{:,.0f}', "
            "scale: 'Blues'}\n"
            "#     copies: {title: 'copies', description: '%s', format: '{:,.1f}', scale: 'Oranges'}\n"
            "#     %s: {title: '%s', description: '%s', format: '{:,.1f}', hidden: true}\n"
            "#     %s: {title: '%s', format: '{:,.0f}'}\n"
            "#     %s: {title: '%s', format: '{:,.0f}', hidden: true}\n",
            SG_PICTURE_REPEATS, assembly ? ", its loci summed" : "",
            reads ? "length / period" : assembly ? "its loci summed, each its length / period" : "mean k-mer count / coverage",
            coverage, reads ? "read coverage" : "mean count",
            reads ? "the read coverage of the run" : assembly ? "mean k-mer count (copies of a k-mer)" : "mean k-mer count",
            nodes, nodes, bases, reads ? "read bases" : "k-mers");
    if (assembly) fputs("#     loci: {title: 'loci', description: 'its loci in PREFIX.loci.bed', format: '{:,.0f}'}\n", fp);
    fprintf(fp,
            "#     unit: {title: 'unit', description: 'the repeat unit (cut at 40 bases; PREFIX.units.fa has it whole)'}\n"
            "repeat\tsample\tkind\tlength\tperiod\tcopies\t%s\t%s\t%s%s\tunit\n",
            coverage, nodes, bases, assembly ? "\tloci" : "");
    const uint32_t n = rp->n < SG_PICTURE_REPEATS ? rp->n : SG_PICTURE_REPEATS;
    char unit[200];
    for (uint32_t i = 0; i < n; i++) {
        const sg_repeat_t *r = &rp->r[i];
        sg_mqc_cell(fp, sample);
        fprintf(fp, " repeat%u\t", i + 1);
        sg_mqc_cell(fp, sample);
        fprintf(fp, "\t%s\t%.0f\t%llu\t%.2f\t%.2f\t%u\t%llu", r->tandem ? "tandem" : "complex", r->length,
                (unsigned long long)r->period, r->copies, r->mean_count, r->n_nodes, (unsigned long long)r->kmers);
        if (assembly) fprintf(fp, "\t%u", r->loci);
        fprintf(fp, "\t%s\n", r->unit[0] ? sg_svg_fit(r->unit, 40, unit, sizeof unit) : "*");
    }
}
