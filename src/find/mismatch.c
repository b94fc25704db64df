/* The mismatch kernel (find_kernels.h: sg_mm_*).
 *
 * Patterns of one length whose PAMs agree (same positions, same base sets)
 * form a group. The text of a block becomes four bitmaps, one per base
 * (bit i: base i is A, C, G or T). A group's PAM is checked 64 starts at a
 * time by ANDing shifted bitmaps, so that windows without the PAM cost
 * about nothing; each window that passes is cut out of the bitmaps as four
 * bit planes W_A..W_T, and its mismatches against a pattern are
 *
 *     popcount(C & ~((W_A & G_A) | (W_C & G_C) | (W_G & G_G) | (W_T & G_T)))
 *
 * where G_b marks the counted positions whose base set holds b and C all
 * counted positions. Windows of up to 32 bases compare with 16 (AVX-512)
 * or 8 (AVX2) patterns per instruction; longer ones take 64-bit words.
 *
 * With bulges (src/find/bulge.h) the windows that pass are anchors: the planes
 * of the windows up to SG_MAX_BULGE bases beside each are cut out too, and
 * each variant's lower bound popcount(near & far) - skip costs one more AND
 * and popcount per pattern; the rare lane within it has its cuts tried. A
 * site's anchor may lie a few bases before the block (an RNA bulge next to
 * a 3' PAM) or after it (a DNA bulge), so the bitmaps have words in front,
 * and the sites, not the anchors, are what the block owns. */
#define _GNU_SOURCE
#include "core/chunk.h"
#include "find/kernels.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

/* Shifts of the windows beside an anchor: -SG_MAX_BULGE .. SG_MAX_BULGE. */
#define SLOTS (2 * SG_MAX_BULGE + 1)
#define SLOT(shift) ((shift) + SG_MAX_BULGE)

typedef struct {
    int len;             /* window length */
    int n_words;         /* 64-bit words of a window's planes */
    int n_pam;
    int *pam_pos;        /* PAM positions and their base sets */
    uint8_t *pam_set;
    int n_pat, n_pad;    /* patterns, and patterns rounded up to 16 */
    uint32_t *rank;      /* n_pad each */
    uint32_t *limit;     /* n_pad each: the limit, then the limit plus 1 and plus 2 (an RNA bulge's bound) */
    /* len <= 32: planes as 32-bit lanes, G_A, G_C, G_G, G_T, C, n_pad each */
    uint32_t *p32;
    /* len > 32: per pattern n_words x (G_A, G_C, G_G, G_T, C) */
    uint64_t *p64;
    int *pat;            /* the patterns' indices */
    /* bulges: the variants searched besides X, the geometry the patterns
     * share, their ranks (n_pad x SG_VARIANTS), the anchors [-back, n + ahead)
     * that reach the sites of a block, and the shifts (SLOT) compared */
    int n_var, var[SG_VARIANTS];
    sg_gap_t gap[SG_VARIANTS];
    uint32_t *vrank;
    int back, ahead;
    unsigned slots;
} mm_group_t;

/* Where a block's sites may lie: S bit p (from p = -64 on) is set where
 * position p is no text of the block (a separator, past its end, before it). */
typedef struct {
    const uint64_t *S;   /* the word of position 0; S[-1] is the one in front */
    int64_t n;           /* sites start in [0, n) */
    uint32_t base;
} site_ctx_t;

typedef struct batch batch_t;
typedef void (*cmp32_fn)(const mm_group_t *G, const batch_t *b, const site_ctx_t *x, sg_hits_t *out);

struct sg_mm {
    mm_group_t *group;
    int n_group;
    int reach;       /* bases past a block's last start that a group reads */
    cmp32_fn cmp32;  /* the widest comparison this CPU has */
    int lanes;       /* ... and the patterns it compares at once */
    int avx2;        /* bitmaps with AVX2 */
};

static cmp32_fn pick_cmp32(int *avx2, int *lanes);

/* Patterns share a group when they share the PAM (hence the anchors) and
 * the bulge variants searched with their geometry. */
static int same_group(const sg_pattern_t *a, const sg_pattern_t *b)
{
    if (a->len != b->len || !a->pam != !b->pam) return 0;
    for (int j = 0; a->pam && j < a->len; j++)
        if (a->pam[j] != b->pam[j] || (a->pam[j] && a->mask[j] != b->mask[j])) return 0;
    for (int v = 1; v < SG_VARIANTS; v++) {
        int searched = a->vrank[v] != SG_NO_RANK;
        if (searched != (b->vrank[v] != SG_NO_RANK) || (searched && memcmp(&a->gap[v], &b->gap[v], sizeof a->gap[v])))
            return 0;
    }
    return 1;
}

/* Bit j of word w of plane b (of 5: bases A, C, G, T, then counted) for one pattern. */
static uint64_t plane_word(const sg_pattern_t *p, int b, int w)
{
    uint64_t x = 0;
    for (int j = 64 * w; j < p->len && j < 64 * (w + 1); j++) {
        int counted = !(p->pam && p->pam[j]);
        if (counted && (b == 4 || (p->mask[j] >> b & 1))) x |= 1ull << (j - 64 * w);
    }
    return x;
}

sg_mm_t *sg_mm_build(const sg_pattern_t *pat, const int *ids, int n_ids)
{
    sg_mm_t *mm = sg_calloc(1, sizeof *mm);
    int *gid = sg_malloc((n_ids + 1) * sizeof *gid);
    mm->group = sg_calloc(n_ids + 1, sizeof *mm->group);
    const sg_pattern_t **first = sg_malloc((n_ids + 1) * sizeof *first);
    for (int k = 0; k < n_ids; k++) {
        const sg_pattern_t *p = &pat[ids[k]];
        int g = 0;
        while (g < mm->n_group && !same_group(first[g], p)) g++;
        if (g == mm->n_group) first[mm->n_group++] = p;
        gid[k] = g;
        mm->group[g].n_pat++;
    }
    for (int g = 0; g < mm->n_group; g++) {
        mm_group_t *G = &mm->group[g];
        const sg_pattern_t *p = first[g];
        G->len = p->len;
        G->n_words = (p->len + 63) / 64;
        G->pam_pos = sg_malloc((p->len + 1) * sizeof *G->pam_pos);
        G->pam_set = sg_malloc(p->len + 1);
        for (int j = 0; p->pam && j < p->len; j++)
            if (p->pam[j]) {
                G->pam_pos[G->n_pam] = j;
                G->pam_set[G->n_pam++] = p->mask[j];
            }
        G->n_pad = (G->n_pat + 15) / 16 * 16;
        G->rank = sg_calloc(G->n_pad, sizeof *G->rank);
        G->pat = sg_calloc(G->n_pad, sizeof *G->pat);
        G->limit = sg_calloc((SG_MAX_BULGE + 1) * (size_t)G->n_pad, sizeof *G->limit);
        G->vrank = sg_malloc(SG_VARIANTS * (size_t)G->n_pad * sizeof *G->vrank);
        G->slots = 1u << SLOT(0);
        memcpy(G->gap, p->gap, sizeof G->gap);
        for (int v = 1; v < SG_VARIANTS; v++) {
            if (p->vrank[v] == SG_NO_RANK) continue;
            G->var[G->n_var++] = v;
            G->slots |= 1u << SLOT(p->gap[v].far);
            if (p->gap[v].start > G->back) G->back = p->gap[v].start;
            if (-p->gap[v].start > G->ahead) G->ahead = -p->gap[v].start;
        }
        /* a site reaches up to SG_MAX_BULGE bases past its window, and the windows beside an anchor one more */
        if (G->len + (G->n_var ? SG_MAX_BULGE + 1 : 0) > mm->reach) mm->reach = G->len + (G->n_var ? SG_MAX_BULGE + 1 : 0);
        if (G->len <= 32) {
            G->p32 = sg_calloc(5 * (size_t)G->n_pad, sizeof *G->p32);
            for (int i = G->n_pat; i < G->n_pad; i++) G->p32[4 * G->n_pad + i] = ~0u; /* padding never hits */
        } else {
            G->p64 = sg_calloc(5 * (size_t)G->n_words * G->n_pat, sizeof *G->p64);
        }
        G->n_pat = 0;
    }
    for (int k = 0; k < n_ids; k++) {
        const sg_pattern_t *p = &pat[ids[k]];
        mm_group_t *G = &mm->group[gid[k]];
        int i = G->n_pat++;
        G->rank[i] = p->rank;
        G->pat[i] = ids[k];
        for (int s = 0; s <= SG_MAX_BULGE; s++) G->limit[s * G->n_pad + i] = (uint32_t)(p->max_mm + s);
        memcpy(G->vrank + (size_t)i * SG_VARIANTS, p->vrank, sizeof p->vrank);
        for (int b = 0; b < 5; b++)
            for (int w = 0; w < G->n_words; w++) {
                if (G->p32) G->p32[b * G->n_pad + i] = (uint32_t)plane_word(p, b, w);
                else G->p64[((size_t)i * G->n_words + w) * 5 + b] = plane_word(p, b, w);
            }
    }
    free(first);
    free(gid);
    mm->cmp32 = pick_cmp32(&mm->avx2, &mm->lanes);
    return mm;
}

void sg_mm_free(sg_mm_t *mm)
{
    if (!mm) return;
    for (int g = 0; g < mm->n_group; g++) {
        mm_group_t *G = &mm->group[g];
        free(G->pam_pos);
        free(G->pam_set);
        free(G->rank);
        free(G->pat);
        free(G->limit);
        free(G->vrank);
        free(G->p32);
        free(G->p64);
    }
    free(mm->group);
    free(mm);
}

int sg_mm_n_groups(const sg_mm_t *mm) { return mm->n_group; }

double sg_mm_pass_rate(const sg_mm_group_view_t *v)
{
    double f = 1;
    for (int k = 0; k < v->n_pam; k++) f *= __builtin_popcount(v->pam_set[k]) / 4.0;
    return f;
}

int sg_mm_vector_lanes(const sg_mm_t *mm) { return mm->lanes; }

void sg_mm_group(const sg_mm_t *mm, int g, sg_mm_group_view_t *v)
{
    const mm_group_t *G = &mm->group[g];
    *v = (sg_mm_group_view_t){G->len, G->n_pam, G->pam_pos, G->pam_set, G->n_pat, G->n_pad, G->rank, G->limit,
                              G->p32, G->pat, G->n_var, G->var, G->gap, G->vrank, G->back, G->ahead};
}

/* 64 bits of bitmap P from bit off on. */
static inline uint64_t bits_at(const uint64_t *P, size_t off)
{
    size_t w = off >> 6;
    unsigned s = off & 63;
    return s ? P[w] >> s | P[w + 1] << (64 - s) : P[w];
}

/* ---- comparing windows with a group's patterns ----
 * A batch of windows (anchors and planes) meets the patterns a vector at a
 * time: the pattern vectors stay in registers while the windows stream
 * past, and the loop is left only for a lane that may hit (rare). */

#define BATCH 512

struct batch {
    int32_t start[BATCH];         /* anchors */
    uint32_t w[SLOTS][BATCH][4];  /* W_A, W_C, W_G, W_T of the window at each shift from the anchor */
    int n;
};

/* Whether the site [t, t + len) is all text of the block. */
static int site_clear(const site_ctx_t *x, int64_t t, int len)
{
    const uint64_t *S = x->S - 1;
    for (int64_t p = t + 64, end = t + 64 + len; p < end; p += 64) {
        int bits = end - p < 64 ? (int)(end - p) : 64;
        uint64_t keep = bits == 64 ? ~0ull : (1ull << bits) - 1;
        if (bits_at(S, (size_t)p) & keep) return 0;
    }
    return 1;
}

static void emit_site(const site_ctx_t *x, int64_t t, int len, uint32_t rank, sg_hits_t *out)
{
    if (t >= 0 && t < x->n && site_clear(x, t, len)) sg_hits_push(out, sg_hit_key(x->base + (uint64_t)t, rank));
}

/* Pattern i's mismatch vector against the window planes W. */
static inline uint32_t mismatch_vector(const mm_group_t *G, int i, const uint32_t W[4])
{
    const int n = G->n_pad;
    const uint32_t *g = G->p32 + i;
    return g[4 * n] & ~((W[0] & g[0]) | (W[1] & g[n]) | (W[2] & g[2 * n]) | (W[3] & g[3 * n]));
}

/* The lanes of window k and patterns i0.. that may hit, decided one by one:
 * no bulge when the window is within the limit, then each variant's best cut. */
static inline __attribute__((always_inline)) void finish_lanes(const mm_group_t *G, const batch_t *b, int k, int i0,
                                                               unsigned lanes, const site_ctx_t *x, sg_hits_t *out)
{
    const int32_t u = b->start[k];
    for (; lanes; lanes &= lanes - 1) {
        const int i = i0 + __builtin_ctz(lanes);
        const uint32_t near = mismatch_vector(G, i, b->w[SLOT(0)][k]), lim = G->limit[i];
        const uint32_t *rank = G->vrank + (size_t)i * SG_VARIANTS;
        if ((uint32_t)__builtin_popcount(near) <= lim) emit_site(x, u, G->len, rank[0], out);
        for (int q = 0; q < G->n_var; q++) {
            const int v = G->var[q];
            const sg_gap_t *g = &G->gap[v];
            const uint32_t far = mismatch_vector(G, i, b->w[SLOT(g->far)][k]);
            int cut;
            if (sg_gap_bound(g, near, far) > (int)lim) continue;
            if (sg_gap_best(g, g->left ? near : far, g->left ? far : near, &cut) <= (int)lim)
                emit_site(x, (int64_t)u + g->start, G->len + g->delta, rank[v], out);
        }
    }
}

/* ... once for any CPU, and once with POPCNT, which every CPU with AVX2 has
 * (the library call otherwise takes a tenth of a bulge search). */
static void finish(const mm_group_t *G, const batch_t *b, int k, int i0, unsigned lanes, const site_ctx_t *x,
                   sg_hits_t *out)
{
    finish_lanes(G, b, k, i0, lanes, x, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static void finish_popcnt(const mm_group_t *G, const batch_t *b, int k, int i0,
                                                            unsigned lanes, const site_ctx_t *x, sg_hits_t *out)
{
    finish_lanes(G, b, k, i0, lanes, x, out);
}
#endif

#define CMP_FN cmp32_scalar
#define CMP_ATTR
#define CMP_LANES 1
#define FINISH finish
#define vec_t uint32_t
#define V_LOAD(p) (*(p))
#define V_SET1(x) (x)
#define V_AND(a, b) ((a) & (b))
#define V_OR(a, b) ((a) | (b))
#define V_ANDNOT(a, b) (~(a) & (b))
#define V_LE(x, lim) ((unsigned)((uint32_t)__builtin_popcount(x) <= (lim)))
#include "find/mm_cmp.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The lanes whose popcount is at most lim: nibble lookups, then sums of
 * the bytes of each 32-bit lane. */
__attribute__((target("avx2"))) static inline unsigned le_avx2(__m256i x, __m256i lim)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i nib = _mm256_set1_epi8(0x0f), ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i c8 = _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(x, nib)),
                                 _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib)));
    __m256i c32 = _mm256_madd_epi16(_mm256_maddubs_epi16(c8, ones8), ones16);
    return ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(c32, lim))) & 0xffu;
}

#define CMP_FN cmp32_avx2
#define CMP_ATTR __attribute__((target("avx2,popcnt")))
#define CMP_LANES 8
#define FINISH finish_popcnt
#define vec_t __m256i
#define V_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define V_SET1(x) _mm256_set1_epi32((int)(x))
#define V_AND _mm256_and_si256
#define V_OR _mm256_or_si256
#define V_ANDNOT _mm256_andnot_si256
#define V_LE le_avx2
#include "find/mm_cmp.h"

#define CMP_FN cmp32_avx512
#define CMP_ATTR __attribute__((target("avx512f,avx512vpopcntdq,popcnt")))
#define CMP_LANES 16
#define FINISH finish_popcnt
#define vec_t __m512i
#define V_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define V_SET1(x) _mm512_set1_epi32((int)(x))
#define V_AND _mm512_and_si512
#define V_OR _mm512_or_si512
#define V_ANDNOT _mm512_andnot_si512
#define V_LE(x, lim) ((unsigned)_mm512_cmple_epu32_mask(_mm512_popcnt_epi32(x), (lim)))
#include "find/mm_cmp.h"

/* SEQGPU_CPU_SIMD=none, avx2 or avx512 caps the instruction set (tests
 * compare the paths); another value is said once and ignored. */
static cmp32_fn pick_cmp32(int *avx2, int *lanes)
{
    const char *cap = getenv("SEQGPU_CPU_SIMD");
    int none = cap && !strcmp(cap, "none"), only_avx2 = cap && !strcmp(cap, "avx2");
    if (cap && !none && !only_avx2 && strcmp(cap, "avx512")) {
        static int warned;
        if (!warned++) sg_warn("SEQGPU_CPU_SIMD='%s' is none of none, avx2, avx512: ignored", cap);
    }
    *avx2 = !none && __builtin_cpu_supports("avx2");
    if (!none && !only_avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) {
        *lanes = 16;
        return cmp32_avx512;
    }
    *lanes = *avx2 ? 8 : 1;
    return *avx2 ? cmp32_avx2 : cmp32_scalar;
}

/* Four base bitmaps of n bytes: bit b of each byte's base set, 32 bytes at a time. */
__attribute__((target("avx2"))) static void bitmaps_avx2(const uint8_t *enc, size_t n, uint64_t *P[5])
{
    for (size_t i = 0; i < n; i += 64) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(enc + i));
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(enc + i + 32));
        /* shifting 16-bit lanes left by 7 - b brings bit b of both bytes to their tops */
#define PLANE(b)                                                                                      \
    P[b][i >> 6] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(x0, 7 - (b))) |                  \
                   (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(x1, 7 - (b))) << 32
        PLANE(0);
        PLANE(1);
        PLANE(2);
        PLANE(3);
#undef PLANE
    }
}
#else
static cmp32_fn pick_cmp32(int *avx2, int *lanes)
{
    *avx2 = 0;
    *lanes = 1;
    return cmp32_scalar;
}
#endif

static void bitmaps_any(const uint8_t *enc, size_t n, uint64_t *P[5])
{
    for (size_t i = 0; i < n; i += 64) {
        uint64_t w[4] = {0, 0, 0, 0};
        for (int k = 0; k < 64; k++)
            for (int b = 0; b < 4; b++) w[b] |= (uint64_t)(enc[i + k] >> b & 1) << k;
        for (int b = 0; b < 4; b++) P[b][i >> 6] = w[b];
    }
}

static void cmp64(const mm_group_t *G, const uint64_t *const P[5], size_t s, const site_ctx_t *x, sg_hits_t *out)
{
    uint64_t W[64][4];
    for (int w = 0; w < G->n_words; w++) {
        int bits = G->len - 64 * w;
        uint64_t keep = bits >= 64 ? ~0ull : (1ull << bits) - 1;
        for (int b = 0; b < 4; b++) W[w][b] = bits_at(P[b], s + 64 * (size_t)w) & keep;
    }
    for (int i = 0; i < G->n_pat; i++) {
        const uint64_t *g = G->p64 + (size_t)i * G->n_words * 5;
        uint32_t mm = 0;
        for (int w = 0; w < G->n_words && mm <= G->limit[i]; w++, g += 5) {
            uint64_t match = (W[w][0] & g[0]) | (W[w][1] & g[1]) | (W[w][2] & g[2]) | (W[w][3] & g[3]);
            mm += (uint32_t)__builtin_popcountll(g[4] & ~match);
        }
        if (mm <= G->limit[i]) emit_site(x, (int64_t)s, G->len, G->rank[i], out);
    }
}

/* The planes of the windows at s0 + k for each bit k of pass, into w[0],
 * w[1], ...: they come out of lo and hi, the two words of each bitmap at s0. */
static void planes_any(uint32_t (*w)[4], const uint64_t lo[4], const uint64_t hi[4], uint64_t pass, uint32_t keep)
{
    for (; pass; pass &= pass - 1, w++) {
        unsigned k = (unsigned)__builtin_ctzll(pass);
        for (int p = 0; p < 4; p++) (*w)[p] = (uint32_t)(k ? lo[p] >> k | hi[p] << (64 - k) : lo[p]) & keep;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with the four planes in one vector: variable shifts (a count of
 * 64 gives 0, so k = 0 needs no case of its own), then the low halves. */
__attribute__((target("avx2"))) static void planes_avx2(uint32_t (*w)[4], const uint64_t lo[4], const uint64_t hi[4],
                                                        uint64_t pass, uint32_t keep)
{
    const __m256i vlo = _mm256_loadu_si256((const __m256i *)lo), vhi = _mm256_loadu_si256((const __m256i *)hi);
    const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6), k64 = _mm256_set1_epi64x(64);
    const __m128i vkeep = _mm_set1_epi32((int)keep);
    for (; pass; pass &= pass - 1, w++) {
        unsigned k = (unsigned)__builtin_ctzll(pass);
        __m256i vk = _mm256_set1_epi64x(k);
        __m256i x = _mm256_or_si256(_mm256_srlv_epi64(vlo, vk), _mm256_sllv_epi64(vhi, _mm256_sub_epi64(k64, vk)));
        __m128i x32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, low_halves));
        _mm_storeu_si128((__m128i *)*w, _mm_and_si128(x32, vkeep));
    }
}
#endif

/* Append to b the windows of the anchors s0 + k for each bit k of pass, at
 * every shift the group compares (bitmaps P have two words in front of
 * position 0: an anchor from -64 on may be a block's, shifted left). */
static void fill(const sg_mm_t *mm, const mm_group_t *G, batch_t *b, const uint64_t *const P[5], int64_t s0,
                 uint64_t pass, uint32_t keep)
{
    const int from = b->n;
    for (uint64_t x = pass; x; x &= x - 1) b->start[b->n++] = (int32_t)(s0 + __builtin_ctzll(x));
    for (int s = -SG_MAX_BULGE; s <= SG_MAX_BULGE; s++) {
        if (!(G->slots >> SLOT(s) & 1)) continue;
        uint64_t lo[4], hi[4];
        for (int p = 0; p < 4; p++) {
            lo[p] = bits_at(P[p] - 2, (size_t)(s0 + s + 128));
            hi[p] = bits_at(P[p] - 2, (size_t)(s0 + s + 192));
        }
#if defined(__x86_64__) && defined(__GNUC__)
        if (mm->avx2) planes_avx2(b->w[SLOT(s)] + from, lo, hi, pass, s ? ~0u : keep);
        else
#endif
            planes_any(b->w[SLOT(s)] + from, lo, hi, pass, s ? ~0u : keep);
    }
}

/* Set bits [lo, hi) of bitmap S (of words words). */
static void mark(uint64_t *S, size_t words, size_t lo, size_t hi)
{
    if (hi > 64 * words) hi = 64 * words;
    for (; lo < hi && (lo & 63); lo++) S[lo >> 6] |= 1ull << (lo & 63);
    for (; lo + 64 <= hi; lo += 64) S[lo >> 6] = ~0ull;
    for (; lo < hi; lo++) S[lo >> 6] |= 1ull << (lo & 63);
}

/* The bits of the positions that are no text of the block: the separators
 * (SG_SEP between records, few: one per record), and all from the text's
 * n_raw bytes on. */
static void no_text(const char *raw, size_t n_raw, size_t words, uint64_t *S)
{
    memset(S, 0, words * sizeof *S);
    mark(S, words, n_raw, 64 * words);
    for (const char *p = raw, *end = raw + n_raw; (p = memchr(p, SG_SEP, (size_t)(end - p))); p++) {
        size_t at = (size_t)(p - raw);
        mark(S, words, at, at + 1);
    }
}

/* pass[j] bit k: the anchor 64 (w0 + j) + k has the group's PAM, for
 * n_words words. Whole bitmaps are shifted and ANDed, one PAM position at
 * a time (loops that vectorise); P[b][w0] must be a word of the bitmap. */
static void pam_pass(const mm_group_t *G, const uint64_t *const P[5], long w0, size_t n_words, uint64_t *pass)
{
    for (size_t w = 0; w < n_words; w++) pass[w] = ~0ull;
    for (int k = 0; k < G->n_pam; k++) {
        const uint64_t *src[4];
        int ns = 0;
        uint8_t set = G->pam_set[k];
        if (set == 15) src[ns++] = P[4] + w0;
        else
            for (int b = 0; b < 4; b++)
                if (set >> b & 1) src[ns++] = P[b] + w0;
        size_t q = (size_t)G->pam_pos[k] >> 6;
        unsigned r = (unsigned)G->pam_pos[k] & 63;
        if (ns == 1) {
            const uint64_t *x = src[0] + q;
            if (r == 0)
                for (size_t w = 0; w < n_words; w++) pass[w] &= x[w];
            else
                for (size_t w = 0; w < n_words; w++) pass[w] &= x[w] >> r | x[w + 1] << (64 - r);
        } else {
            for (size_t w = 0; w < n_words; w++) {
                uint64_t in = 0;
                for (int i = 0; i < ns; i++) in |= r ? src[i][q + w] >> r | src[i][q + w + 1] << (64 - r) : src[i][q + w];
                pass[w] &= in;
            }
        }
    }
}

/* Bits [lo, hi) of the 64 from s0 on, as a mask (positions may be negative). */
static uint64_t range_bits(int64_t s0, int64_t lo, int64_t hi)
{
    uint64_t m = ~0ull;
    if (lo > s0) m = lo - s0 >= 64 ? 0 : m << (lo - s0);
    if (hi < s0 + 64) m &= hi <= s0 ? 0 : (1ull << (hi - s0)) - 1;
    return m;
}

void sg_mm_scan(const sg_mm_t *mm, const uint8_t *enc, const char *raw, size_t n_raw, size_t n, uint32_t base,
                sg_hits_t *out)
{
    /* bitmaps over every byte a window of an anchor reads, two words in
     * front (no base), and words for bits_at past the end; the fifth is any
     * base (a PAM's N) */
    size_t span = (n + mm->reach + 63) / 64 * 64, words = span / 64 + 4;
    uint64_t *store = sg_calloc(6 * words, sizeof *store), *P[5];
    for (int b = 0; b < 5; b++) P[b] = store + b * words + 2;
#if defined(__x86_64__) && defined(__GNUC__)
    if (mm->avx2) bitmaps_avx2(enc, span, P);
    else
#endif
        bitmaps_any(enc, span, P);
    for (size_t w = 0; w < span / 64; w++) P[4][w] = P[0][w] | P[1][w] | P[2][w] | P[3][w];
    const uint64_t *cP[5] = {P[0], P[1], P[2], P[3], P[4]};
    /* the positions that are no text: in front, separators, past the end */
    uint64_t *S = store + 5 * words + 1;
    S[-1] = ~0ull;
    no_text(raw, n_raw, words - 2, S);
    const site_ctx_t x = {S, (int64_t)n, base};
    batch_t *batch = sg_malloc(sizeof *batch);
    uint64_t *pass_w = sg_malloc(((n + SG_MAX_BULGE + 63) / 64 + 3) * sizeof *pass_w);
    for (int g = 0; g < mm->n_group; g++) {
        const mm_group_t *G = &mm->group[g];
        const uint32_t keep = G->len >= 32 ? ~0u : (1u << G->len) - 1;
        /* the anchors whose sites the block owns: words w0 .. w1 */
        const int64_t a_lo = -G->back, a_hi = (int64_t)n + G->ahead;
        const long w0 = a_lo < 0 ? -1 : 0, w1 = (long)((a_hi + 63) / 64);
        batch->n = 0;
        pam_pass(G, cP, w0, (size_t)(w1 - w0), pass_w);
        for (long w = w0; w < w1; w++) {
            const int64_t s0 = 64 * (int64_t)w;
            uint64_t pass = pass_w[w - w0] & range_bits(s0, a_lo, a_hi);
            if (!G->p32) {
                for (; pass; pass &= pass - 1) cmp64(G, cP, (size_t)(s0 + __builtin_ctzll(pass)), &x, out);
                continue;
            }
            if (!pass) continue;
            if (batch->n + 64 > BATCH) {
                mm->cmp32(G, batch, &x, out);
                batch->n = 0;
            }
            fill(mm, G, batch, cP, s0, pass, keep);
        }
        if (batch->n) mm->cmp32(G, batch, &x, out);
    }
    free(pass_w);
    free(batch);
    free(store);
}
