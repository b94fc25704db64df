#include "multiqc.h"
#include "json.h"
#include "svg.h"
#include "../src/log.h"
#include "../src/scc_pictures.h"

#include <stdlib.h>
#include <string.h>

/* What every file says of the section they share. */
static const char parent_json[] =
    "  \"parent_id\": \"seqgpu\",\n  \"parent_name\": \"seqgpu\",\n"
    "  \"parent_description\": \"Motif hits (seqgpu find) and k-mer spectra and cyclic repeats (seqgpu scc).\",\n";

/* An input's name in the report: its base name, or the path as given when
 * another input has the same base name. */
static const char *input_label(char *const *inputs, int n, int i)
{
    if (!strcmp(inputs[i], "-")) return "standard input";
    const char *s = strrchr(inputs[i], '/'), *base = s ? s + 1 : inputs[i];
    for (int j = 0; j < n; j++) {
        const char *t = strrchr(inputs[j], '/');
        if (j != i && !strcmp(t ? t + 1 : inputs[j], base)) return inputs[i];
    }
    return base;
}

void sg_mqc_find(FILE *fp, const sg_motif_set_t *ms, const uint64_t *hits, char *const *inputs, int n_inputs)
{
    fputs("{\n  \"id\": \"seqgpu_find_hits\",\n", fp);
    fputs(parent_json, fp);
    fputs("  \"section_name\": \"find: hits per motif\",\n"
          "  \"description\": \"Hits of each motif in each input, both strands together (seqgpu find).\",\n"
          "  \"plot_type\": \"bargraph\",\n"
          "  \"pconfig\": {\"id\": \"seqgpu_find_hits_plot\", \"title\": \"seqgpu find: hits per motif\", "
          "\"ylab\": \"hits\", \"cpswitch_counts_label\": \"hits\"},\n  \"data\": {",
          fp);
    for (int f = 0; f < n_inputs; f++) {
        fprintf(fp, "%s\n    ", f ? "," : "");
        sg_json_str(fp, input_label(inputs, n_inputs, f));
        fputs(": {", fp);
        /* motifs of one name (a file may repeat one) are one category */
        int first = 1;
        for (int m = 0; m < ms->n_motif; m++) {
            int seen = 0;
            uint64_t sum = 0;
            for (int j = 0; j < ms->n_motif && !seen; j++)
                if (!strcmp(ms->motif[j].name, ms->motif[m].name)) {
                    if (j < m) seen = 1;
                    else sum += hits[(size_t)f * ms->n_motif + j];
                }
            if (seen) continue;
            fputs(first ? "" : ", ", fp);
            sg_json_str(fp, ms->motif[m].name);
            fprintf(fp, ": %llu", (unsigned long long)sum);
            first = 0;
        }
        fputc('}', fp);
    }
    fputs("\n  }\n}\n", fp);
}

void sg_mqc_spectrum(FILE *fp, const char *sample, const sg_spectrum_t *sp)
{
    fputs("{\n  \"id\": \"seqgpu_scc_spectrum\",\n", fp);
    fputs(parent_json, fp);
    fprintf(fp, "  \"section_name\": \"scc: k-mer spectrum\",\n"
                "  \"description\": \"%s at each count, on log axes (seqgpu scc); each sample's "
                "PREFIX.spectrum.svg marks its coverage and threshold.\",\n"
                "  \"plot_type\": \"linegraph\",\n"
                "  \"pconfig\": {\"id\": \"seqgpu_scc_spectrum_plot\", \"title\": \"seqgpu scc: k-mer spectrum\", "
                "\"xlab\": \"%s\", \"ylab\": \"%s\", \"xLog\": true, \"yLog\": true, \"tt_label\": \"{point.x}: {point.y}\"},\n"
                "  \"data\": {\n    ",
            sp->graph ? "K-mers of the graph's segments" : "Distinct k-mers",
            sp->graph ? "mean k-mer count of a segment" : "k-mer count", sp->graph ? "k-mers" : "distinct k-mers");
    sg_json_str(fp, sample);
    fputs(": {", fp);
    int first = 1;
    for (int c = 1; c < sp->n - 1; c++) {
        if (!sp->hist[c]) continue; /* a log axis has no room for 0 */
        fprintf(fp, "%s\"%d\": %llu", first ? "" : ", ", c, (unsigned long long)sp->hist[c]);
        first = 0;
    }
    fputs("}\n  }\n}\n", fp);
}

/* A table cell: no tab or line break, and no '#' first (a comment line to MultiQC). */
static void put_cell(FILE *fp, const char *s)
{
    for (const char *p = s; *p; p++) fputc(*p == '\t' || *p == '\n' || *p == '\r' || (p == s && *p == '#') ? ' ' : *p, fp);
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
        put_cell(fp, sample);
        fprintf(fp, " repeat%u\t", i + 1);
        put_cell(fp, sample);
        fprintf(fp, "\t%s\t%.0f\t%llu\t%.2f\t%.2f\t%u\t%llu", r->tandem ? "tandem" : "complex", r->length,
                (unsigned long long)r->period, r->copies, r->mean_count, r->n_nodes, (unsigned long long)r->kmers);
        if (assembly) fprintf(fp, "\t%u", r->loci);
        fprintf(fp, "\t%s\n", r->unit[0] ? sg_svg_fit(r->unit, 40, unit, sizeof unit) : "*");
    }
}
