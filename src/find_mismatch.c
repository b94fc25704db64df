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
 * or 8 (AVX2) patterns per instruction; longer ones take 64-bit words. */
#define _GNU_SOURCE
#include "chunk.h"
#include "find_kernels.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int len;             /* window length */
    int n_words;         /* 64-bit words of a window's planes */
    int n_pam;
    int *pam_pos;        /* PAM positions and their base sets */
    uint8_t *pam_set;
    int n_pat, n_pad;    /* patterns, and patterns rounded up to 16 */
    uint32_t *rank;      /* n_pad each */
    uint32_t *limit;
    /* len <= 32: planes as 32-bit lanes, G_A, G_C, G_G, G_T, C, n_pad each */
    uint32_t *p32;
    /* len > 32: per pattern n_words x (G_A, G_C, G_G, G_T, C) */
    uint64_t *p64;
    int *pat;            /* the patterns' indices */
} mm_group_t;

typedef struct batch batch_t;
typedef void (*cmp32_fn)(const mm_group_t *G, const batch_t *b, uint32_t base, sg_hits_t *out);

struct sg_mm {
    mm_group_t *group;
    int n_group;
    int max_len;
    cmp32_fn cmp32;  /* the widest comparison this CPU has */
    int lanes;       /* ... and the patterns it compares at once */
    int avx2;        /* bitmaps with AVX2 */
};

static cmp32_fn pick_cmp32(int *avx2, int *lanes);

static int same_pam(const sg_pattern_t *a, const sg_pattern_t *b)
{
    if (a->len != b->len || !a->pam != !b->pam) return 0;
    for (int j = 0; a->pam && j < a->len; j++)
        if (a->pam[j] != b->pam[j] || (a->pam[j] && a->mask[j] != b->mask[j])) return 0;
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
        while (g < mm->n_group && !same_pam(first[g], p)) g++;
        if (g == mm->n_group) first[mm->n_group++] = p;
        gid[k] = g;
        mm->group[g].n_pat++;
        if (p->len > mm->max_len) mm->max_len = p->len;
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
        G->limit = sg_calloc(G->n_pad, sizeof *G->limit);
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
        G->limit[i] = (uint32_t)p->max_mm;
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
    *v = (sg_mm_group_view_t){G->len, G->n_pam, G->pam_pos, G->pam_set, G->n_pat, G->n_pad,
                              G->rank, G->limit, G->p32, G->pat};
}

/* 64 bits of bitmap P from bit off on. */
static inline uint64_t bits_at(const uint64_t *P, size_t off)
{
    size_t w = off >> 6;
    unsigned s = off & 63;
    return s ? P[w] >> s | P[w + 1] << (64 - s) : P[w];
}

/* ---- comparing windows with a group's patterns ----
 * A batch of windows (starts and planes) meets the patterns a vector at a
 * time: the pattern vectors stay in registers while the windows stream
 * past, and the loop is left only for a vector with a hit (rare). */

#define BATCH 512

struct batch {
    uint32_t start[BATCH];
    uint32_t w[BATCH][4]; /* W_A, W_C, W_G, W_T */
    int n;
};

static inline void emit_bits(const mm_group_t *G, int i, unsigned bits, uint64_t key, sg_hits_t *out)
{
    for (; bits; bits &= bits - 1) sg_hits_push(out, key | G->rank[i + __builtin_ctz(bits)]);
}

static void cmp32_scalar(const mm_group_t *G, const batch_t *b, uint32_t base, sg_hits_t *out)
{
    const int n = G->n_pad;
    const uint32_t *gA = G->p32, *gC = gA + n, *gG = gC + n, *gT = gG + n, *C = gT + n;
    for (int i = 0; i < G->n_pat; i++)
        for (int k = 0; k < b->n; k++) {
            const uint32_t *W = b->w[k];
            uint32_t match = (W[0] & gA[i]) | (W[1] & gC[i]) | (W[2] & gG[i]) | (W[3] & gT[i]);
            if ((uint32_t)__builtin_popcount(C[i] & ~match) <= G->limit[i])
                sg_hits_push(out, sg_hit_key(base + b->start[k], G->rank[i]));
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void cmp32_avx2(const mm_group_t *G, const batch_t *b, uint32_t base,
                                                       sg_hits_t *out)
{
    const int n = G->n_pad;
    const uint32_t *gA = G->p32, *gC = gA + n, *gG = gC + n, *gT = gG + n, *C = gT + n;
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i nib = _mm256_set1_epi8(0x0f), ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    for (int i = 0; i < G->n_pat; i += 8) {
#define LD(p) _mm256_loadu_si256((const __m256i *)((p) + i))
        const __m256i pA = LD(gA), pC = LD(gC), pG = LD(gG), pT = LD(gT), pN = LD(C), lim = LD(G->limit);
#undef LD
        for (int k = 0; k < b->n; k++) {
            const uint32_t *W = b->w[k];
            __m256i match = _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(_mm256_set1_epi32((int)W[0]), pA),
                                                            _mm256_and_si256(_mm256_set1_epi32((int)W[1]), pC)),
                                            _mm256_or_si256(_mm256_and_si256(_mm256_set1_epi32((int)W[2]), pG),
                                                            _mm256_and_si256(_mm256_set1_epi32((int)W[3]), pT)));
            __m256i x = _mm256_andnot_si256(match, pN);
            __m256i c8 = _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(x, nib)),
                                         _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib)));
            __m256i c32 = _mm256_madd_epi16(_mm256_maddubs_epi16(c8, ones8), ones16);
            unsigned over = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(c32, lim)));
            if (__builtin_expect(over != 0xffu, 0))
                emit_bits(G, i, ~over & 0xffu, sg_hit_key(base + b->start[k], 0), out);
        }
    }
}

__attribute__((target("avx512f,avx512vpopcntdq"))) static void cmp32_avx512(const mm_group_t *G, const batch_t *b,
                                                                             uint32_t base, sg_hits_t *out)
{
    const int n = G->n_pad;
    const uint32_t *gA = G->p32, *gC = gA + n, *gG = gC + n, *gT = gG + n, *C = gT + n;
    for (int i = 0; i < G->n_pat; i += 16) {
#define LD(p) _mm512_loadu_si512((const void *)((p) + i))
        const __m512i pA = LD(gA), pC = LD(gC), pG = LD(gG), pT = LD(gT), pN = LD(C), lim = LD(G->limit);
#undef LD
        for (int k = 0; k < b->n; k++) {
            const uint32_t *W = b->w[k];
            __m512i match = _mm512_or_si512(_mm512_or_si512(_mm512_and_si512(_mm512_set1_epi32((int)W[0]), pA),
                                                            _mm512_and_si512(_mm512_set1_epi32((int)W[1]), pC)),
                                            _mm512_or_si512(_mm512_and_si512(_mm512_set1_epi32((int)W[2]), pG),
                                                            _mm512_and_si512(_mm512_set1_epi32((int)W[3]), pT)));
            unsigned hit = _mm512_cmple_epu32_mask(_mm512_popcnt_epi32(_mm512_andnot_si512(match, pN)), lim);
            if (__builtin_expect(hit != 0, 0)) emit_bits(G, i, hit, sg_hit_key(base + b->start[k], 0), out);
        }
    }
}

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

static void cmp64(const mm_group_t *G, const uint64_t *const P[5], size_t s, uint64_t key, sg_hits_t *out)
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
        if (mm <= G->limit[i]) sg_hits_push(out, key | G->rank[i]);
    }
}

/* Append to b the windows of the starts s0 + k for each bit k of pass: their
 * planes come out of lo and hi, the two words of each bitmap at s0. */
static void fill_any(batch_t *b, const uint64_t lo[4], const uint64_t hi[4], uint64_t pass, uint32_t s0, uint32_t keep)
{
    for (; pass; pass &= pass - 1) {
        unsigned k = (unsigned)__builtin_ctzll(pass);
        int i = b->n++;
        b->start[i] = s0 + k;
        for (int p = 0; p < 4; p++) b->w[i][p] = (uint32_t)(k ? lo[p] >> k | hi[p] << (64 - k) : lo[p]) & keep;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with the four planes in one vector: variable shifts (a count of
 * 64 gives 0, so k = 0 needs no case of its own), then the low halves. */
__attribute__((target("avx2"))) static void fill_avx2(batch_t *b, const uint64_t lo[4], const uint64_t hi[4],
                                                      uint64_t pass, uint32_t s0, uint32_t keep)
{
    const __m256i vlo = _mm256_loadu_si256((const __m256i *)lo), vhi = _mm256_loadu_si256((const __m256i *)hi);
    const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6), k64 = _mm256_set1_epi64x(64);
    const __m128i vkeep = _mm_set1_epi32((int)keep);
    for (; pass; pass &= pass - 1) {
        unsigned k = (unsigned)__builtin_ctzll(pass);
        int i = b->n++;
        b->start[i] = s0 + k;
        __m256i vk = _mm256_set1_epi64x(k);
        __m256i w = _mm256_or_si256(_mm256_srlv_epi64(vlo, vk), _mm256_sllv_epi64(vhi, _mm256_sub_epi64(k64, vk)));
        __m128i w32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(w, low_halves));
        _mm_storeu_si128((__m128i *)b->w[i], _mm_and_si128(w32, vkeep));
    }
}
#endif

/* Set bits [lo, hi) of bitmap win (of words words). */
static void mark(uint64_t *win, size_t words, size_t lo, size_t hi)
{
    if (hi > 64 * words) hi = 64 * words;
    for (; lo < hi && (lo & 63); lo++) win[lo >> 6] |= 1ull << (lo & 63);
    for (; lo + 64 <= hi; lo += 64) win[lo >> 6] = ~0ull;
    for (; lo < hi; lo++) win[lo >> 6] |= 1ull << (lo & 63);
}

/* win bit s: the window of len bases at s spans a separator (SG_SEP between
 * records) or runs past the text's n_raw bytes. Separators are few (one per
 * record), so each marks the len starts before it rather than the bitmaps
 * being shifted len times. */
static void windows_spanning(const char *raw, size_t n_raw, size_t words, int len, uint64_t *win)
{
    memset(win, 0, words * sizeof *win);
    size_t back = (size_t)len - 1;
    mark(win, words, n_raw > back ? n_raw - back : 0, 64 * words);
    for (const char *p = raw, *end = raw + n_raw; (p = memchr(p, SG_SEP, (size_t)(end - p))); p++) {
        size_t at = (size_t)(p - raw);
        mark(win, words, at > back ? at - back : 0, at + 1);
    }
}

/* pass[w] bit k: the start 64w + k has the group's PAM. Whole bitmaps are
 * shifted and ANDed, one PAM position at a time (loops that vectorise). */
static void pam_pass(const mm_group_t *G, const uint64_t *const P[5], size_t n_words, uint64_t *pass)
{
    for (size_t w = 0; w < n_words; w++) pass[w] = ~0ull;
    for (int k = 0; k < G->n_pam; k++) {
        const uint64_t *src[4];
        int ns = 0;
        uint8_t set = G->pam_set[k];
        if (set == 15) src[ns++] = P[4];
        else
            for (int b = 0; b < 4; b++)
                if (set >> b & 1) src[ns++] = P[b];
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

void sg_mm_scan(const sg_mm_t *mm, const uint8_t *enc, const char *raw, size_t n_raw, size_t n, uint32_t base,
                sg_hits_t *out)
{
    /* bitmaps over every byte a window of a start below n reads, plus a word
     * for bits_at; the fifth is any base (a PAM's N) */
    size_t span = (n + mm->max_len + 63) / 64 * 64, words = span / 64 + 1;
    uint64_t *store = sg_malloc(5 * words * sizeof *store), *P[5];
    for (int b = 0; b < 5; b++) {
        P[b] = store + b * words;
        P[b][words - 1] = 0;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (mm->avx2) bitmaps_avx2(enc, span, P);
    else
#endif
        bitmaps_any(enc, span, P);
    for (size_t w = 0; w + 1 < words; w++) P[4][w] = P[0][w] | P[1][w] | P[2][w] | P[3][w];
    const uint64_t *cP[5] = {P[0], P[1], P[2], P[3], P[4]};
    batch_t *batch = sg_malloc(sizeof *batch);
    size_t n_words = (n + 63) / 64;
    uint64_t *pass_w = sg_malloc((n_words + 1) * sizeof *pass_w);
    /* windows that span a separator: the same for every group of one length */
    uint64_t *sep_win = sg_malloc(words * sizeof *sep_win);
    int sep_len = 0;
    for (int g = 0; g < mm->n_group; g++) {
        const mm_group_t *G = &mm->group[g];
        const uint32_t keep = G->len >= 32 ? ~0u : (1u << G->len) - 1;
        batch->n = 0;
        pam_pass(G, cP, n_words, pass_w);
        if (G->len != sep_len) windows_spanning(raw, n_raw, words, sep_len = G->len, sep_win);
        for (size_t s0 = 0; s0 < n; s0 += 64) {
            uint64_t pass = pass_w[s0 >> 6] & ~sep_win[s0 >> 6] & (n - s0 >= 64 ? ~0ull : (1ull << (n - s0)) - 1);
            if (!G->p32) {
                for (; pass; pass &= pass - 1) {
                    size_t s = s0 + __builtin_ctzll(pass);
                    cmp64(G, cP, s, sg_hit_key(base + s, 0), out);
                }
                continue;
            }
            if (!pass) continue;
            /* the planes of the windows at s0 + k (k < 64, len <= 32) lie in two words of each bitmap */
            uint64_t lo[4], hi[4];
            for (int b = 0; b < 4; b++) {
                lo[b] = cP[b][s0 >> 6];
                hi[b] = cP[b][(s0 >> 6) + 1];
            }
            if (batch->n + 64 > BATCH) {
                mm->cmp32(G, batch, base, out);
                batch->n = 0;
            }
#if defined(__x86_64__) && defined(__GNUC__)
            if (mm->avx2) fill_avx2(batch, lo, hi, pass, (uint32_t)s0, keep);
            else
#endif
                fill_any(batch, lo, hi, pass, (uint32_t)s0, keep);
        }
        if (batch->n) mm->cmp32(G, batch, base, out);
    }
    free(sep_win);
    free(pass_w);
    free(batch);
    free(store);
}
