/* find's MultiQC custom content: hits per motif, off-targets per guide. */
#include "find/multiqc.h"
#include "formats/json.h"

#include <string.h>

void sg_mqc_find(FILE *fp, const sg_motif_set_t *ms, const uint64_t *hits, int n_inputs, const char *sample)
{
    fputs("{\n  \"id\": \"seqgpu_find_hits\",\n", fp);
    fputs(sg_mqc_parent_json, fp);
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
        sg_mqc_cell(fp, ms->motif[m].name);
        fputc('\t', fp);
        sg_mqc_cell(fp, ms->motif[m].window);
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
