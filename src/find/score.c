#include "find/score.h"
#include "core/log.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CFD tables, Doench et al. 2016, Supplementary Table 19: the share of
 * cutting that remains with one mismatch, RNA bulge or DNA bulge at each
 * position, and with each PAM. Transcribed (nine decimals, as published) and
 * checked entry by entry against two transcriptions of the table: CRISPOR's
 * CFD_Scoring/mismatch_score.pkl and pam_scores.pkl (mismatches and PAMs; it
 * has no bulges) and the CFDscoRe R package's inst/extdata/penalties/ CSV files
 * (every entry, bulges included).
 *
 * cfd_mismatch[X][Y][pos - 1]: rX:dY,pos, guide base X (A, C, G, U) against
 * the target strand's base Y (A, C, G, T: the complement of the site's base)
 * at position pos (1 to 20 from the PAM-distal end); X:comp(X) is no
 * mismatch (1). cfd_dna_bulge[Y][pos - 2]: r-:dY,pos, an extra site base
 * whose complement is Y; cfd_rna_bulge[X][pos - 2]: rX:d-,pos, an unpaired
 * guide base X; pos 2 to 20. cfd_pam[a][b]: the PAM's second and third bases. */
static const double cfd_mismatch[4][4][20] = {
    {
        {
            1, 0.727272727, 0.705882353, 0.636363636, 0.363636364, 0.714285714, 0.4375, 0.428571429, 0.6,
            0.882352941, 0.307692308, 0.333333333, 0.3, 0.533333333, 0.2, 0, 0.133333333, 0.5, 0.538461538, 0.6},
        {
            1, 0.8, 0.611111111, 0.625, 0.72, 0.714285714, 0.705882353, 0.733333333, 0.666666667, 0.555555556,
            0.65, 0.722222222, 0.652173913, 0.466666667, 0.65, 0.192307692, 0.176470588, 0.4, 0.375, 0.764705882},
        {
            0.857142857, 0.785714286, 0.428571429, 0.352941176, 0.5, 0.454545455, 0.4375, 0.428571429, 0.571428571,
            0.333333333, 0.4, 0.263157895, 0.210526316, 0.214285714, 0.272727273, 0, 0.176470588, 0.19047619,
            0.206896552, 0.227272727},
        {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    },
    {
        {
            1, 0.909090909, 0.6875, 0.8, 0.636363636, 0.928571429, 0.8125, 0.875, 0.875, 0.941176471, 0.307692308,
            0.538461538, 0.7, 0.733333333, 0.066666667, 0.307692308, 0.466666667, 0.642857143, 0.461538462, 0.3},
        {
            0.913043478, 0.695652174, 0.5, 0.5, 0.6, 0.5, 0.470588235, 0.642857143, 0.619047619, 0.388888889, 0.25,
            0.444444444, 0.136363636, 0, 0.05, 0.153846154, 0.058823529, 0.133333333, 0.125, 0.058823529},
        {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {
            1, 0.727272727, 0.866666667, 0.842105263, 0.571428571, 0.928571429, 0.75, 0.65, 0.857142857,
            0.866666667, 0.75, 0.714285714, 0.384615385, 0.35, 0.222222222, 1, 0.466666667, 0.538461538,
            0.428571429, 0.5},
    },
    {
        {
            1, 0.636363636, 0.5, 0.363636364, 0.3, 0.666666667, 0.571428571, 0.625, 0.533333333, 0.8125,
            0.384615385, 0.384615385, 0.3, 0.266666667, 0.142857143, 0, 0.25, 0.666666667, 0.666666667, 0.7},
        {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {
            0.714285714, 0.692307692, 0.384615385, 0.529411765, 0.785714286, 0.681818182, 0.6875, 0.615384615,
            0.538461538, 0.4, 0.428571429, 0.529411765, 0.421052632, 0.428571429, 0.272727273, 0, 0.235294118,
            0.476190476, 0.448275862, 0.428571429},
        {
            0.9, 0.846153846, 0.75, 0.9, 0.866666667, 1, 1, 1, 0.642857143, 0.933333333, 1, 0.933333333,
            0.923076923, 0.75, 0.941176471, 1, 0.933333333, 0.692307692, 0.714285714, 0.9375},
    },
    {
        {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {
            0.956521739, 0.84, 0.5, 0.625, 0.64, 0.571428571, 0.588235294, 0.733333333, 0.619047619, 0.5, 0.4, 0.5,
            0.260869565, 0, 0.05, 0.346153846, 0.117647059, 0.333333333, 0.25, 0.176470588},
        {
            0.857142857, 0.857142857, 0.428571429, 0.647058824, 1, 0.909090909, 0.6875, 1, 0.923076923,
            0.533333333, 0.666666667, 0.947368421, 0.789473684, 0.285714286, 0.272727273, 0.666666667, 0.705882353,
            0.428571429, 0.275862069, 0.090909091},
        {
            1, 0.846153846, 0.714285714, 0.476190476, 0.5, 0.866666667, 0.875, 0.8, 0.928571429, 0.857142857, 0.75,
            0.8, 0.692307692, 0.619047619, 0.578947368, 0.909090909, 0.533333333, 0.666666667, 0.285714286, 0.5625},
    },
};
static const double cfd_dna_bulge[4][19] = {
    {
        0.692307692, 0.4375, 0.15, 0.133333333, 0.066666667, 0, 0, 0.142857143, 0.4, 0.3125, 0.071428571,
        0.076923077, 0.047619048, 0.052631579, 0, 0, 0.153846154, 0.142857143, 0.6},
    {
        0.714285714, 0.461538462, 0.176470588, 0.071428571, 0, 0, 0, 0, 0.133333333, 0.133333333, 0, 0, 0, 0, 0,
        0.058823529, 0.142857143, 0.035714286, 0.045454545},
    {
        0.96, 0.666666667, 0.375, 0.24, 0.142857143, 0.058823529, 0.133333333, 0.238095238, 0.333333333, 0.1,
        0.055555556, 0.043478261, 0, 0, 0, 0, 0.2, 0.4375, 0.529411765},
    {
        0.727272727, 0.6, 0.1, 0, 0.083333333, 0, 0.0625, 0.1875, 0.25, 0.076923077, 0.076923077, 0, 0, 0, 0, 0, 0,
        0.307692308, 0.6},
};
static const double cfd_rna_bulge[4][19] = {
    {
        0.969230769, 0.888888889, 0.580645161, 0.328125, 0.276923077, 0.430769231, 0.234375, 0.276923077,
        0.569230769, 0.276923077, 0.061538462, 0.03125, 0.046153846, 0.03125, 0.015384615, 0, 0, 0, 0.061538462},
    {
        0.96875, 0.933333333, 0.682539683, 0.365079365, 0.4375, 0.569230769, 0.123076923, 0.415384615, 0.615384615,
        0.169230769, 0.046875, 0, 0.046153846, 0, 0, 0, 0, 0, 0.03125},
    {
        0.921875, 0.822580645, 0.523076923, 0.296875, 0.390625, 0.492063492, 0.301587302, 0.328125, 0.587301587,
        0.25, 0.125, 0.046875, 0.063492063, 0, 0, 0, 0, 0.063492063, 0.09375},
    {
        0.953125, 0.921875, 0.65625, 0.215384615, 0.446153846, 0.553846154, 0.296875, 0.609375, 0.650793651,
        0.323076923, 0.030769231, 0, 0.061538462, 0, 0, 0, 0, 0, 0},
};
static const double cfd_pam[4][4] = {
    {0, 0, 0.259259259, 0},
    {0, 0, 0.107142857, 0},
    {0.069444444, 0.022222222, 1, 0.016129032},
    {0, 0, 0.038961039, 0},
};

/* The MIT weights of a mismatch at positions 1 to 20 (Hsu et al. 2013; the
 * "Matrix M" of CRISPOR's calcHitScore). */
static const double mit_weight[20] = {0, 0, 0.014, 0, 0, 0.395, 0.317, 0, 0.389, 0.079, 0.445, 0.508, 0.613,
                                      0.851, 0.732, 0.828, 0.615, 0.804, 0.685, 0.583};

/* CRISPOR (crispor.py): the off-targets of an NGG guide it counts, the
 * weight of those with NAG and NGA, and the MIT score they must exceed
 * (ALTPAMMINSCORE; its genome search, bwa and scripts/filterFaToBed, keeps
 * an alternative-PAM hit whose score is above it, not equal). */
#define ALT_PAM_WEIGHT 0.2
#define ALT_PAM_MIN_SCORE 1.0

int sg_score_parse(const char *s)
{
    if (!strcmp(s, "cfd")) return SG_SCORE_CFD;
    if (!strcmp(s, "mit")) return SG_SCORE_MIT;
    if (!strcmp(s, "cfd,mit") || !strcmp(s, "mit,cfd")) return SG_SCORE_CFD | SG_SCORE_MIT;
    return -1;
}

int sg_score_applies(const sg_motif_t *m, char *why, size_t whysz)
{
    int lead = 0, trail = 0;
    while (m->pam && lead < m->len && m->pam[lead]) lead++;
    while (m->pam && trail < m->len - lead && m->pam[m->len - 1 - trail]) trail++;
    int guide = m->len - lead - trail, acgt = 1;
    for (int j = lead; j < lead + guide; j++) acgt &= !!strchr("ACGT", toupper((unsigned char)m->window[j]));
    if (lead || trail != 3 || guide != 20 || !acgt) {
        sg_name_buf_t nb, nw;
        snprintf(why, whysz, "motif '%s' (window %s): CFD and MIT scores are defined for SpCas9 sites, a guide of 20 "
                 "A/C/G/T bases with a 3' PAM of 3 (NGG)", sg_name_shown(m->seq, &nb), sg_name_shown(m->window, &nw));
        return 0;
    }
    return 1;
}

/* 2-bit code of a base, either case; -1 for anything else. */
static int code(char c)
{
    switch (toupper((unsigned char)c)) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T':
    case 'U': return 3;
    default: return -1;
    }
}

double sg_cfd(const char *rna, const char *dna, int n, const char *pam2)
{
    int a = code(pam2[0]), b = code(pam2[1]);
    if (n < 20 || a < 0 || b < 0) return -1;
    rna += n - 20;
    dna += n - 20;
    double score = 1;
    for (int j = 0; j < 20; j++) {
        int r = rna[j] == '-' ? -2 : code(rna[j]), d = dna[j] == '-' ? -2 : code(dna[j]);
        if (r == -1 || d == -1) return -1;
        if (r == -2 || d == -2) {
            if (j > 0) score *= r == -2 ? cfd_dna_bulge[3 - d][j - 1] : cfd_rna_bulge[r][j - 1];
        } else if (r != d) {
            score *= cfd_mismatch[r][3 - d][j];
        }
    }
    return score * cfd_pam[a][b];
}

double sg_mit(const char *guide, const char *site)
{
    int n = 0, first = -1, last = -1;
    double s1 = 1;
    for (int j = 0; j < 20; j++) {
        if (toupper((unsigned char)guide[j]) == toupper((unsigned char)site[j])) continue;
        if (first < 0) first = j;
        last = j;
        n++;
        s1 *= 1 - mit_weight[j];
    }
    /* the mean distance between consecutive mismatches, and the special cases CRISPOR adds */
    double s2 = n < 2 ? 1 : 1.0 / ((19 - (double)(last - first) / (n - 1)) / 19.0 * 4 + 1);
    double s3 = n ? 1.0 / ((double)n * n) : 1;
    return s1 * s2 * s3 * 100;
}

/* Whether CRISPOR counts a site of an NGG guide with this PAM, and its MIT weight. */
static int crispor_counts(int type, double mit, const char *pam2, double *weight)
{
    int gg = toupper((unsigned char)pam2[0]) == 'G' && toupper((unsigned char)pam2[1]) == 'G';
    int alt = !gg && ((toupper((unsigned char)pam2[0]) == 'A' && toupper((unsigned char)pam2[1]) == 'G') ||
                      (toupper((unsigned char)pam2[0]) == 'G' && toupper((unsigned char)pam2[1]) == 'A'));
    *weight = gg ? 1 : ALT_PAM_WEIGHT;
    return type == SG_BULGE_X && mit >= 0 && (gg || (alt && mit > ALT_PAM_MIN_SCORE));
}

void sg_tally_site(sg_guide_tally_t *t, int type, int mm, double mit, double cfd, const char *pam2)
{
    t->sites[type][mm]++;
    double w;
    if (!crispor_counts(type, mit, pam2, &w)) return;
    if (t->n_hit == t->m_hit) {
        t->m_hit = t->m_hit ? 2 * t->m_hit : 16;
        t->hit = sg_realloc(t->hit, t->m_hit * sizeof *t->hit);
    }
    t->hit[t->n_hit++] = (sg_tally_hit_t){mit * w, cfd >= 0 ? cfd : 0, mm == 0};
}

void sg_tally_merge(sg_guide_tally_t *run, sg_guide_tally_t *chunk)
{
    for (int type = 0; type < 3; type++)
        for (int mm = 0; mm <= SG_MAX_MISMATCHES; mm++) run->sites[type][mm] += chunk->sites[type][mm];
    for (size_t i = 0; i < chunk->n_hit; i++) {
        const sg_tally_hit_t *h = &chunk->hit[i];
        /* the on-target is one of the hits CRISPOR finds: a perfect site next to a PAM it does not search is none */
        if (h->perfect && !run->on_target) {
            run->on_target = 1;
            continue;
        }
        run->counted++;
        run->mit_sum += h->mit;
        run->cfd_sum += h->cfd;
    }
    memset(chunk->sites, 0, sizeof chunk->sites);
    chunk->n_hit = 0;
}

void sg_tally_free(sg_guide_tally_t *t)
{
    free(t->hit);
    t->hit = NULL;
    t->n_hit = t->m_hit = 0;
}

int sg_specificity(double sum)
{
    return (int)nearbyint(100.0 / (100.0 + sum) * 100.0);
}
