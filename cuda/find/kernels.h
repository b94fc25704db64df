/* The find kernels' C interface: what one launch over one chunk needs, all
 * pointers on the device. Built by nvcc (cuda/find/kernels.cu), called from C
 * (cuda/find/backend.c). */
#ifndef SG_FIND_KERNELS_H
#define SG_FIND_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "find/bulge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes past the chunk's text that a launch may read: filled with a
 * non-base byte by the host. */
#define SG_DEV_PAD 256
/* With bulges, separator bytes before the window's text (64: the vector
 * kernel needs its text aligned), so that a site's anchor may lie before it. */
#define SG_DEV_FRONT 64

/* One pattern: its base sets are masks[off .. off + len), its PAM flags
 * pam[off .. off + len) (1: exact, never counted). */
typedef struct {
    uint32_t off, len, rank, max_mm;
} sg_dpat_t;

/* A PAM group of the mismatch kernel (sg_mm_group_view_t on the device):
 * windows of len <= 32 bases, the PAM positions pam_pos/pam_set[pam_off ..
 * + n_pam), the patterns' planes at planes[plane_off ..): G_A, G_C, G_G,
 * G_T, C, limit, rank, n_pad words each; with bulges (var_mask: bit v for
 * each variant v > 0 searched) the ranks of variants 1 .. SG_VARIANTS - 1
 * follow, and its geometry is gaps[group * SG_VARIANTS ..). */
typedef struct {
    uint32_t len, n_pam, pam_off, n_pat, n_pad, plane_off, var_mask;
} sg_dmm_group_t;

typedef struct {
    const uint8_t *text;       /* chunk bytes (owned starts, overlap, then SG_DEV_PAD pad bytes) */
    uint64_t n_start;          /* starts owned by the chunk */
    int skip_masked;
    const uint8_t *masks;      /* base sets of all patterns */
    const sg_dpat_t *pats;
    uint32_t masks_len;        /* bytes in masks (for the Sunday kernel's shared copy) */
    /* Sunday search on 64-byte thread segments, each with the m - 1 bytes after it */
    const uint32_t *sunday_ids;
    int n_sunday;
    /* one-hot base bitmaps, 64 starts per thread */
    const uint32_t *vector_ids;
    int n_vector;
    /* q-gram filter (see sg_qgram_view_t) */
    int q, max_off;
    const unsigned long long *qbits;
    size_t qbits_words;
    const uint32_t *slot_key, *slot_start, *slot_n;
    uint32_t slot_mask;
    const uint32_t *ent;
    /* mismatch search: PAM groups of windows up to 32 bases (bit planes), and
     * the patterns of longer windows one by one (mm_ids into pats) */
    const sg_dmm_group_t *mm_groups;
    int n_mm_groups;
    const uint8_t *mm_pam_pos, *mm_pam_set;
    const uint32_t *mm_planes;
    const uint8_t *pam;        /* PAM flags of all patterns, beside masks */
    const uint32_t *mm_ids;
    int n_mm_ids;
    uint64_t n_text;           /* bytes of text readable (owned starts, overlap, pad) */
    /* bulges: the mismatch groups' geometry, and the text from SG_DEV_FRONT
     * bytes before the window on (separators there), where the anchors
     * [0, n_anchor) lie and the sites owned start in [own_lo, own_hi) */
    int bulges;
    const sg_gap_t *mm_gaps;
    const uint8_t *btext;
    uint64_t n_btext, n_anchor, own_lo, own_hi;
    /* output: hit keys (start << 32 | rank) through an atomic counter; a
     * count over cap means the buffer was too small (nothing is written past it) */
    unsigned long long *hits;
    unsigned long long *n_hits;
    uint64_t cap;
} sg_dscan_t;

/* What the launches may use of the device. */
typedef struct {
    int n_sm;
    size_t smem_optin;  /* shared memory a block may have (static + dynamic) */
    size_t sunday_smem; /* largest dynamic shared memory of each kernel: set by sg_cuda_prepare */
    size_t qgram_smem;
} sg_dlimits_t;

/** Dynamic shared memory the Sunday kernel needs: its patterns and shift tables. */
static inline size_t sg_cuda_sunday_smem(uint32_t masks_len, int n_sunday)
{
    return ((masks_len + 15) & ~15u) + 32ull * n_sunday;
}

/**
 * Queue the kernels for one chunk on stream s (the counter must be zeroed
 * first). Returns cudaSuccess or the launch error.
 */
cudaError_t sg_cuda_scan(const sg_dscan_t *a, const sg_dlimits_t *lim, cudaStream_t s);

/** Raise the kernels' dynamic shared-memory limits to what the device allows
 * (once per device, current); fills lim->sunday_smem and lim->qgram_smem. */
cudaError_t sg_cuda_prepare(sg_dlimits_t *lim);

#ifdef __cplusplus
}
#endif

#endif
