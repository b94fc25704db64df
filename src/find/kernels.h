/* CPU scanning kernels over encoded text.
 *
 * Text encoding, one byte per base:
 *   bits 0-3  base set (SG_BASE_A/C/G/T; 0 if the base never matches)
 *   bits 4-5  2-bit code (A 0, C 1, G 2, T 3)
 *   bit  6    SG_ENC_INVALID: the base never matches (N, IUPAC, gap, separator,
 *             or lowercase with --skip-masked)
 * A pattern position with base set m matches text byte e iff (e & m) != 0.
 *
 * Every kernel reports the starts in [0, n) of the listed patterns as hit
 * keys (start + base, rank) and needs enc readable, and padded with
 * SG_ENC_INVALID, up to n + max pattern length + SG_ENC_PAD. */
#ifndef SG_KERNELS_H
#define SG_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "find/hits.h"
#include "find/motif.h"

#define SG_ENC_INVALID 0x40
#define SG_ENC_PAD 128

/** Encode n raw bytes; lowercase never matches if skip_masked. */
void sg_encode(int skip_masked, const char *src, size_t n, uint8_t *dst);
/** The encoding of every byte value, for kernels that look bytes up. */
void sg_encode_table(uint8_t lut[256], int skip_masked);

/** Sunday's search, one pattern at a time: the reference kernel (it ports the GPU Sunday paper's algorithm). */
void sg_scan_sunday(const uint8_t *enc, size_t n, const sg_pattern_t *pat, const int *ids, int n_ids,
                    uint32_t base, sg_hits_t *out);

/** All patterns tried at 32 starts at once with byte-vector compares: fastest for a few patterns. */
void sg_scan_vector(const uint8_t *enc, size_t n, const sg_pattern_t *pat, const int *ids, int n_ids,
                    uint32_t base, sg_hits_t *out);

/* q-gram filter for many patterns: each pattern is indexed by the q-gram
 * at the offset where its IUPAC expansion is smallest; one rolling pass over
 * the text tests a bit per q-gram and verifies the few candidates. */
typedef struct sg_qgram sg_qgram_t;

/** Largest number of q-grams one pattern's window may expand to. */
#define SG_QGRAM_MAX_EXPAND 256

/** Number of q-grams the best window of pat expands to (0 if len < q). */
uint64_t sg_qgram_expansion(const sg_pattern_t *pat, int q, int *offset);

/**
 * Index the listed patterns (each must have sg_qgram_expansion() between 1
 * and SG_QGRAM_MAX_EXPAND) with q-grams of q bases, 1 <= q <= 13.
 */
sg_qgram_t *sg_qgram_build(const sg_pattern_t *pat, const int *ids, int n_ids, int q);
void sg_qgram_scan(const sg_qgram_t *qg, const uint8_t *enc, size_t n, const sg_pattern_t *pat,
                   uint32_t base, sg_hits_t *out);
void sg_qgram_free(sg_qgram_t *qg);

/* The index as flat arrays, for backends that copy it to a device. A window
 * whose key has its bit set in bits is looked up in the open-addressing
 * table slot_key (EMPTY: UINT32_MAX; probe h = sg_qgram_hash(key) & slot_mask,
 * then h + 1, ...), whose slot gives the run ent[slot_start .. + slot_n) of
 * (pattern, offset) entries; the pattern starts offset bases before the window. */
typedef struct {
    int q, max_off;
    const uint64_t *bits;
    size_t n_bits_words;
    const uint32_t *slot_key, *slot_start, *slot_n;
    uint32_t slot_mask;
    const uint32_t *ent;  /* 3 words per entry: key, pattern, offset */
    size_t n_ent;
} sg_qgram_view_t;

void sg_qgram_view(const sg_qgram_t *qg, sg_qgram_view_t *v);
static inline uint32_t sg_qgram_hash(uint32_t k) { return (k * 2654435761u) ^ (k >> 15); }

/* Mismatch search for patterns with max_mm > 0 or bulges (src/find/mismatch.c):
 * the PAM is checked on base bitmaps, 64 starts at a time, and each window
 * that passes is compared with all patterns of its PAM group by
 * AND-and-popcount on one-hot bit planes; with bulges, the windows a few
 * bases beside it too (src/find/bulge.h). */
typedef struct sg_mm sg_mm_t;

sg_mm_t *sg_mm_build(const sg_pattern_t *pat, const int *ids, int n_ids);
/**
 * Hits of the indexed patterns whose sites start in [0, n), as the other
 * kernels; a bulge site's key has its variant's rank (sg_pattern_t.vrank).
 * A mismatch is not a failure, so a site must also not span a separator
 * (SG_SEP in raw, the n_raw bytes enc was made from) nor run past the text's
 * end (raw byte n_raw on).
 */
void sg_mm_scan(const sg_mm_t *mm, const uint8_t *enc, const char *raw, size_t n_raw, size_t n, uint32_t base,
                sg_hits_t *out);
void sg_mm_free(sg_mm_t *mm);

/* A PAM group as flat arrays, for backends that copy it to a device. */
typedef struct {
    int len;                 /* window length */
    int n_pam;
    const int *pam_pos;      /* PAM positions and their base sets */
    const uint8_t *pam_set;
    int n_pat, n_pad;        /* patterns, and the length of each array below (a multiple of 16) */
    const uint32_t *rank, *limit;
    /* len <= 32: bit planes G_A, G_C, G_G, G_T, C (counted positions), n_pad words each;
     * NULL for longer windows */
    const uint32_t *p32;
    const int *pat;          /* len > 32: the patterns' indices (sg_motif_set_t.pat) */
    /* bulges: the variants searched besides X (indices into gap), the
     * group's geometry, each pattern's variant ranks (n_pad x SG_VARIANTS),
     * and the anchors (PAM windows) that reach the sites: [-back, n + ahead) */
    int n_var;
    const int *var;
    const sg_gap_t *gap;
    const uint32_t *vrank;
    int back, ahead;
} sg_mm_group_view_t;

int sg_mm_n_groups(const sg_mm_t *mm);
void sg_mm_group(const sg_mm_t *mm, int g, sg_mm_group_view_t *v);
/** The share of windows of random sequence that pass a group's PAM. */
double sg_mm_pass_rate(const sg_mm_group_view_t *v);
/** Patterns compared per instruction on this CPU (16 AVX-512, 8 AVX2, 1). */
int sg_mm_vector_lanes(const sg_mm_t *mm);

/* Which kernel scans which patterns: the planner every backend uses. */
typedef struct {
    int *sunday, n_sunday;  /* pattern indices for the Sunday kernel */
    int *vector, n_vector;  /* ... for the vector kernel */
    sg_qgram_t *qgram;      /* ... indexed for the q-gram kernel (or NULL) */
    int q, n_qgram;
    int *approx, n_approx;  /* patterns that allow mismatches or bulges: always the mismatch kernel */
    sg_mm_t *mm;            /* ... indexed for it (or NULL) */
} sg_plan_t;

/** Kernel names every backend takes for --kernel. */
#define SG_KERNELS "auto, sunday, vector, qgram"

/**
 * Plan the kernels for a compiled motif set. Patterns that allow mismatches
 * go to the mismatch kernel; of the exact ones (PAMs included), "sunday" and
 * "vector" take every pattern; "qgram" indexes every pattern it can and
 * leaves the rest to the vector kernel; "auto" is "vector" up to vector_max
 * patterns, else "qgram".
 * @return 0, or SG_ERR_INPUT for an unknown kernel name (message in err)
 */
int sg_plan_make(const sg_motif_set_t *ms, const char *kernel, int vector_max, sg_plan_t *plan, char *err,
                 size_t errsz) __attribute__((warn_unused_result));
/* What a plan costs, for the backend planner (registry.c): thread-seconds
 * per 1e9 text bases of the cpu kernels, and device-seconds per 1e9 bases
 * of the cuda kernels of the same work on one GPU (calibrated in src/find/kernels.c). */
double sg_plan_cpu_cost(const sg_plan_t *plan);
double sg_plan_gpu_cost(const sg_plan_t *plan);

/** "sunday x2 vector x1 qgram(q=10) x200" */
void sg_plan_describe(const sg_plan_t *plan, char *buf, size_t n);
void sg_plan_free(sg_plan_t *plan);

#endif
