#include "find/align.h"
#include "core/dna.h"

#include <ctype.h>

/* Bit k: pattern position k is counted and mismatches the site base at
 * offset k + shift, for the positions [from, to) (those the cuts use; the
 * others are 0, so no byte outside the site is read). */
static uint32_t mismatches_at(const sg_pattern_t *p, const char *site, const uint8_t enc[256], int shift, int from,
                              int to)
{
    uint32_t m = 0;
    for (int k = from < 0 ? 0 : from; k < to && k < p->len; k++)
        if (!(p->pam && p->pam[k]) && !(enc[(unsigned char)site[k + shift]] & p->mask[k])) m |= 1u << k;
    return m;
}

int sg_site_align(const sg_pattern_t *p, int v, int lim, const char *site, const uint8_t enc[256], int all,
                  sg_aln_t *out)
{
    const sg_gap_t *g = &p->gap[v];
    if (v == 0 && p->len > 32) {
        /* a window too long for a vector has no bulge: count it base by base */
        int mm = 0;
        for (int k = 0; k < p->len; k++) mm += !(p->pam && p->pam[k]) && !(enc[(unsigned char)site[k]] & p->mask[k]);
        out[0] = (sg_aln_t){0, 0, mm};
        return mm <= lim;
    }
    /* the low part is paired from the site's start; the high part past the
     * extra DNA bases (+delta), or skipping the unpaired guide bases */
    const uint32_t low = mismatches_at(p, site, enc, 0, 0, g->hi);
    const uint32_t high = mismatches_at(p, site, enc, g->delta, g->lo + g->skip, p->len);
    if (!all) {
        int cut, mm = sg_gap_best(g, low, high, &cut);
        out[0] = (sg_aln_t){v, cut, mm};
        return mm <= lim;
    }
    /* in the guide's orientation, from its 5' end: the cuts of a minus-strand pattern backwards */
    int n = 0, back = p->strand == '-';
    for (int c = back ? g->hi : g->lo; back ? c >= g->lo : c <= g->hi; c += back ? -1 : 1) {
        int mm = sg_gap_cost(g, low, high, c);
        if (mm <= lim) out[n++] = (sg_aln_t){v, c, mm};
    }
    return n;
}

int sg_aln_rows(const sg_pattern_t *p, const sg_aln_t *a, const char *site, const uint8_t enc[256],
                const char *letters, int minus, char *rna, char *dna)
{
    const sg_gap_t *g = &p->gap[a->v];
    const int len = p->len, extra = g->delta > 0 ? g->delta : 0, cols = len + extra;
    /* columns in text order: the low part, then the extra DNA bases (DNA
     * bulge) or the unpaired guide bases (RNA bulge), then the high part */
    for (int j = 0, k = 0, t = 0; j < cols; j++) {
        int in_gap = j >= a->cut && j < a->cut + (extra ? extra : g->skip);
        int pos = in_gap && extra ? -1 : k++;      /* pattern position, or -1 over an extra DNA base */
        int off = in_gap && !extra ? -1 : t++;     /* site offset, or -1 under an unpaired guide base */
        char r = pos < 0 ? '-' : letters[minus ? len - 1 - pos : pos];
        char d = '-';
        if (off >= 0) {
            char c = site[off];
            int mismatch = pos >= 0 && !(p->pam && p->pam[pos]) && !(enc[(unsigned char)c] & p->mask[pos]);
            d = mismatch ? (char)tolower((unsigned char)c) : (char)toupper((unsigned char)c);
            if (minus) d = sg_base_complement(d);
        }
        rna[minus ? cols - 1 - j : j] = r;
        dna[minus ? cols - 1 - j : j] = d;
    }
    return cols;
}
