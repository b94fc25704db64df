#include "formats/multiqc.h"
#include "formats/json.h"
#include "formats/outfile.h"
#include "formats/svg.h"
#include "core/log.h"
#include "scc/pictures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What every file says of the section they share. */
static const char parent_json[] =
    "  \"parent_id\": \"seqgpu\",\n  \"parent_name\": \"seqgpu\",\n"
    "  \"parent_description\": \"Motif hits (seqgpu find) and k-mer spectra and cyclic repeats (seqgpu scc).\",\n";

char *sg_mqc_run_name(const char *stats)
{
    const char *slash = strrchr(stats, '/');
    char *name = sg_strdup(slash ? slash + 1 : stats);
    size_t n = strlen(name);
    if (sg_outfile_compressed(name)) n = (size_t)(strrchr(name, '.') - name);
    if (n > 5 && !strncmp(name + n - 5, ".json", 5)) n -= 5;
    name[n] = 0;
    return name;
}

char *sg_mqc_beside(const char *stats, const char *sample, const char *suffix)
{
    struct stat st;
    if (!stats || sg_outfile_fd(stats) >= 0 || (stat(stats, &st) == 0 && !S_ISREG(st.st_mode))) return NULL;
    const char *slash = strrchr(stats, '/');
    int dir = slash ? (int)(slash - stats + 1) : 0;
    size_t n = (size_t)dir + strlen(sample) + strlen(suffix) + 1;
    char *p = sg_malloc(n);
    snprintf(p, n, "%.*s%s%s", dir, stats, sample, suffix);
    return p;
}

void sg_mqc_find(FILE *fp, const sg_motif_set_t *ms, const uint64_t *hits, int n_inputs, const char *sample)
{
    fputs("{\n  \"id\": \"seqgpu_find_hits\",\n", fp);
    fputs(parent_json, fp);
    fputs("  \"section_name\": \"find: hits per motif\",\n"
          "  \"description\": \"Hits of each motif in each run, both strands and all its inputs together (seqgpu find; "
          "the sample is the --stats file's name).\",\n"
          "  \"plot_type\": \"bargraph\",\n"
          "  \"pconfig\": {\"id\": \"seqgpu_find_hits_plot\", \"title\": \"seqgpu find: hits per motif\", "
          "\"ylab\": \"hits\", \"cpswitch_counts_label\": \"hits\"},\n  \"data\": {\n    ",
          fp);
    sg_json_str(fp, sample);
    fputs(": {", fp);
    /* motifs of one name (a file may repeat one) are one category */
    int first = 1;
    for (int m = 0; m < ms->n_motif; m++) {
        int seen = 0;
        uint64_t sum = 0;
        for (int j = 0; j < ms->n_motif && !seen; j++)
            if (!strcmp(ms->motif[j].name, ms->motif[m].name)) {
                if (j < m) seen = 1;
                else
                    for (int f = 0; f < n_inputs; f++) sum += hits[(size_t)f * ms->n_motif + j];
            }
        if (seen) continue;
        fputs(first ? "" : ", ", fp);
        sg_json_str(fp, ms->motif[m].name);
        fprintf(fp, ": %llu", (unsigned long long)sum);
        first = 0;
    }
    fputs("}\n  }\n}\n", fp);
}

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

/* A table cell: no tab or line break, and no '#' first (a comment line to MultiQC). */
static void put_cell(FILE *fp, const char *s)
{
    for (const char *p = s; *p; p++) fputc(*p == '\t' || *p == '\n' || *p == '\r' || (p == s && *p == '#') ? ' ' : *p, fp);
}

void sg_mqc_guides(FILE *fp, const sg_motif_set_t *ms, const sg_guide_tally_t *t, int scored)
{
    static const char *const type[3] = {"X", "DNA", "RNA"};
    const int searched[3] = {1, ms->dna_bulge > 0, ms->rna_bulge > 0};
    int max_mm = 0;
    for (int m = 0; m < ms->n_motif; m++)
        if (ms->motif[m].max_mm > max_mm) max_mm = ms->motif[m].max_mm;
    fputs("# id: 'seqgpu_find_guides'\n"
          "# parent_id: 'seqgpu'\n# parent_name: 'seqgpu'\n"
          "# parent_description: 'Motif hits (seqgpu find) and k-mer spectra and cyclic repeats (seqgpu scc).'\n"
          "# section_name: 'find: off-targets per guide'\n"
          "# description: 'The sites of each guide by bulge type (X none, DNA, RNA) and mismatches, and the guide "
          "specificities as CRISPOR gives them: 100 x 100 / (100 + the MIT or CFD scores of its off-targets), "
          "rounded (seqgpu find --guide-summary).'\n"
          "# plot_type: 'table'\n"
          "# pconfig:\n#     id: 'seqgpu_find_guides_table'\n#     title: 'seqgpu find: off-targets per guide'\n"
          "#     namespace: 'seqgpu find'\n"
          "# headers:\n"
          "#     sequence: {title: 'guide', description: 'the guide and its PAM'}\n"
          "#     sites: {title: 'sites', description: 'all its sites, the on-target included', format: '{:,.0f}'}\n"
          "#     mit_specificity: {title: 'MIT specificity', min: 0, max: 100, scale: 'RdYlGn', format: '{:,.0f}'}\n"
          "#     cfd_specificity: {title: 'CFD specificity', min: 0, max: 100, scale: 'RdYlGn', format: '{:,.0f}'}\n"
          "#     offtargets: {title: 'scored off-targets', description: 'the sites in the sums: CRISPOR counts "
          "mismatch-only sites with NGG, or NAG or NGA and an MIT score above 1, but the on-target', "
          "format: '{:,.0f}'}\n"
          "#     mit_sum: {title: 'MIT sum', hidden: true}\n#     cfd_sum: {title: 'CFD sum', hidden: true}\n"
          "guide\tsequence\tsites", fp);
    for (int k = 0; k < 3; k++)
        for (int mm = 0; searched[k] && mm <= max_mm; mm++) fprintf(fp, "\t%s_%dmm", type[k], mm);
    fputs("\tmit_specificity\tcfd_specificity\tofftargets\tmit_sum\tcfd_sum\n", fp);
    for (int m = 0; m < ms->n_motif; m++) {
        uint64_t all = 0;
        for (int k = 0; k < 3; k++)
            for (int mm = 0; mm <= SG_MAX_MISMATCHES; mm++) all += t[m].sites[k][mm];
        put_cell(fp, ms->motif[m].name);
        fputc('\t', fp);
        put_cell(fp, ms->motif[m].window);
        fprintf(fp, "\t%llu", (unsigned long long)all);
        for (int k = 0; k < 3; k++)
            for (int mm = 0; searched[k] && mm <= max_mm; mm++) fprintf(fp, "\t%llu", (unsigned long long)t[m].sites[k][mm]);
        if (scored)
            fprintf(fp, "\t%d\t%d\t%llu\t%.6f\t%.6f\n", sg_specificity(t[m].mit_sum), sg_specificity(t[m].cfd_sum),
                    (unsigned long long)t[m].counted, t[m].mit_sum, t[m].cfd_sum);
        else
            fputs("\tNA\tNA\tNA\tNA\tNA\n", fp);
    }
}

void sg_mqc_spectrum(FILE *fp, const char *sample, const sg_spectrum_t *sp)
{
    int lo, hi;
    spectrum_range(sp, &lo, &hi);
    fputs("{\n  \"id\": \"seqgpu_scc_spectrum\",\n", fp);
    fputs(parent_json, fp);
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
        put_cell(fp, sample);
        fprintf(fp, " repeat%u\t", i + 1);
        put_cell(fp, sample);
        fprintf(fp, "\t%s\t%.0f\t%llu\t%.2f\t%.2f\t%u\t%llu", r->tandem ? "tandem" : "complex", r->length,
                (unsigned long long)r->period, r->copies, r->mean_count, r->n_nodes, (unsigned long long)r->kmers);
        if (assembly) fprintf(fp, "\t%u", r->loci);
        fprintf(fp, "\t%s\n", r->unit[0] ? sg_svg_fit(r->unit, 40, unit, sizeof unit) : "*");
    }
}
