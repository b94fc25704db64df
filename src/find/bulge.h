/* The one-gap aligner of find --dna-bulge / --rna-bulge, the same on the
 * host and on a CUDA device.
 *
 * A site is the window (5' PAM + guide + 3' PAM) aligned to the DNA with at
 * most one contiguous gap, never in the PAM:
 *   DNA bulge of size i: i extra DNA bases, a gap in the guide;
 *   RNA bulge of size i: i guide bases left unpaired, a gap in the DNA.
 * Mismatches are counted on the paired guide bases only. A gap is never at
 * the guide's PAM-distal end (that would be a shorter site without a bulge)
 * and may touch the PAM; a window without a PAM has no gap at either end.
 *
 * Everything is in text order (a minus-strand pattern is the reverse
 * complement of the window), and windows have at most 32 bases, so a
 * mismatch vector is one 32-bit word: bit k is set when pattern position k
 * is counted and mismatches the text base it is paired with.
 *
 * A variant (X, DNA 1..2, RNA 1..2) of a pattern is searched from the
 * anchor u, the start of the window whose PAM is the site's PAM. Its near
 * part (the PAM side of the gap) is paired with the window at u, its far
 * part with the window at u + far. With a cut c, the low part is pattern
 * positions [0, c) and the high part [c + skip, len): the low part is the
 * far one when the PAM is on the right, the near one when it is on the left.
 * The mismatches of a cut are popcount(low & below(c)) + popcount(high >>
 * (c + skip)); a site is a hit when its best cut has at most the limit.
 * Every position mismatching both windows is counted by every cut except
 * the skip unpaired ones, so popcount(near & far) - skip is a lower bound
 * that rejects nearly every window before any cut is tried. */
#ifndef SG_FIND_BULGE_H
#define SG_FIND_BULGE_H

#include <stdint.h>

#ifdef __CUDACC__
#define SG_BULGE_FN __host__ __device__ static inline
#else
#define SG_BULGE_FN static inline
#endif

SG_BULGE_FN int sg_bulge_popc(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

/* Largest bulge (--dna-bulge, --rna-bulge), and the variants of a window:
 * 0 X (no bulge), 1..SG_MAX_BULGE DNA bulges, then the RNA bulges. */
#define SG_MAX_BULGE 2
#define SG_VARIANTS (1 + 2 * SG_MAX_BULGE)
/* Longest window bulges are searched for (a mismatch vector is a word). */
#define SG_BULGE_MAX_WINDOW 32

enum { SG_BULGE_X, SG_BULGE_DNA, SG_BULGE_RNA };

SG_BULGE_FN int sg_variant_type(int v) { return v == 0 ? SG_BULGE_X : v <= SG_MAX_BULGE ? SG_BULGE_DNA : SG_BULGE_RNA; }
SG_BULGE_FN int sg_variant_size(int v) { return v <= SG_MAX_BULGE ? v : v - SG_MAX_BULGE; }
SG_BULGE_FN int sg_variant_of(int type, int size) { return type == SG_BULGE_X ? 0 : type == SG_BULGE_DNA ? size : SG_MAX_BULGE + size; }

/* One variant of one pattern. */
typedef struct {
    int8_t far;     /* the far part is paired with the window at anchor + far */
    int8_t start;   /* the site starts at anchor + start */
    int8_t delta;   /* its length less the window's: +size (DNA), -size (RNA) */
    uint8_t skip;   /* guide bases left unpaired: size (RNA), else 0 */
    uint8_t lo, hi; /* the cuts tried */
    uint8_t left;   /* the PAM is on the left in text order */
    uint8_t ok;     /* there is a cut (lo <= hi) */
} sg_gap_t;

/**
 * The geometry of variant v of a window whose counted positions (the guide)
 * are [b0, b1) in text order.
 * @param left     the PAM is on the left (before b0), else on the right or absent
 * @param has_pam  the window has PAM positions
 */
SG_BULGE_FN sg_gap_t sg_gap_make(int v, int b0, int b1, int left, int has_pam)
{
    sg_gap_t g = {0, 0, 0, 0, 0, 0, (uint8_t)left, 1};
    if (v == 0) return g; /* X: one cut, everything paired with the near window */
    int i = sg_variant_size(v), rna = sg_variant_type(v) == SG_BULGE_RNA;
    int lo, hi;
    g.delta = (int8_t)(rna ? -i : i);
    g.skip = (uint8_t)(rna ? i : 0);
    if (left) {
        /* PAM, low (near) part, gap, high (far) part: the far window moves by the site's extra length */
        g.far = (int8_t)(rna ? -i : i);
        lo = has_pam ? b0 : b0 + 1;
        hi = b1 - 1 - g.skip;
    } else {
        /* low (far) part, gap, high (near) part, PAM: the site starts where the far window does */
        g.far = g.start = (int8_t)(rna ? i : -i);
        lo = b0 + 1;
        hi = (has_pam ? b1 : b1 - 1) - g.skip;
    }
    g.ok = lo <= hi;
    g.lo = (uint8_t)(lo < 0 ? 0 : lo);
    g.hi = (uint8_t)(hi < 0 ? 0 : hi);
    return g;
}

/** Mismatches of cut c, from the low part's and the high part's vectors. */
SG_BULGE_FN int sg_gap_cost(const sg_gap_t *g, uint32_t low, uint32_t high, int c)
{
    const int s = c + g->skip;
    const uint32_t below = c >= 32 ? ~0u : (1u << c) - 1, above = s >= 32 ? 0u : high >> s;
    return sg_bulge_popc(low & below) + sg_bulge_popc(above);
}

/**
 * The best cut: fewest mismatches, and of those the gap farthest from the
 * PAM (the smallest cut when the PAM is on the right, the largest when it
 * is on the left).
 * @return its mismatches; the cut goes to *cut
 */
SG_BULGE_FN int sg_gap_best(const sg_gap_t *g, uint32_t low, uint32_t high, int *cut)
{
    int best = 64, at = g->lo;
    for (int c = g->lo; c <= g->hi; c++) {
        const int x = sg_gap_cost(g, low, high, c);
        if (x < best || (x == best && g->left)) {
            best = x;
            at = c;
        }
    }
    *cut = at;
    return best;
}

/** A lower bound of every cut's mismatches, from the near and far vectors. */
SG_BULGE_FN int sg_gap_bound(const sg_gap_t *g, uint32_t near, uint32_t far)
{
    return sg_bulge_popc(near & far) - g->skip;
}

#endif
