#define _GNU_SOURCE
#include "find/kernels.h"
#include "core/log.h"
#include "core/simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void sg_encode_table(uint8_t lut[256], int skip_masked)
{
    for (int c = 0; c < 256; c++) {
        char b = (char)c;
        sg_encode(skip_masked, &b, 1, &lut[c]);
    }
}

/* Arithmetic rather than a table lookup, so that the loop vectorises. */
static void encode_any(int skip_masked, const char *src, size_t n, uint8_t *dst)
{
    const unsigned char *s = (const unsigned char *)src;
    const uint8_t fold = skip_masked ? 0xff : 0xdf; /* 0xdf: lowercase to uppercase */
    for (size_t i = 0; i < n; i++) {
        uint8_t u = s[i] & fold;
        uint8_t a = u == 'A', c = u == 'C', g = u == 'G', t = u == 'T';
        uint8_t set = a | c << 1 | g << 2 | t << 3;
        uint8_t code = c | g << 1 | (uint8_t)(t * 3);
        dst[i] = set | code << 4 | (uint8_t)((set == 0) << 6);
    }
}

void sg_scan_sunday(const uint8_t *enc, size_t n, const sg_pattern_t *pat, const int *ids, int n_ids,
                    uint32_t base, sg_hits_t *out)
{
    for (int k = 0; k < n_ids; k++) {
        const sg_pattern_t *p = &pat[ids[k]];
        const uint8_t *m = p->mask;
        size_t len = p->len;
        /* Sunday's shift: after trying start i, look at the byte just past the
         * window and align its rightmost possible match in the pattern */
        uint32_t shift[16];
        for (int c = 0; c < 16; c++) shift[c] = (uint32_t)len + 1;
        for (size_t j = 0; j < len; j++)
            for (int c = 1; c < 16; c++)
                if (c & m[j]) shift[c] = (uint32_t)(len - j);
        for (size_t i = 0; i < n;) {
            size_t j = 0;
            while (j < len && (enc[i + j] & m[j])) j++;
            if (j == len) sg_hits_push(out, sg_hit_key(base + i, p->rank));
            i += shift[enc[i + len] & 15];
        }
    }
}

/* The vector kernel, once per instruction set (src/find/vector.h). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Two nibble lookups classify 32 bytes: A/C/G/T (either case) differ in the
 * low nibble (1, 3, 7, 4), and the high nibble (4 or 6 for A/C/G, 5 or 7 for
 * T; lowercase 6 and 7 drop out with --skip-masked) rules out the rest. */
__attribute__((target("avx2"))) static void encode_avx2(int skip_masked, const char *src, size_t n, uint8_t *dst)
{
    const __m256i lo_code = _mm256_setr_epi8(0, 0x01, 0, 0x12, 0x38, 0, 0, 0x24, 0, 0, 0, 0, 0, 0, 0, 0,
                                             0, 0x01, 0, 0x12, 0x38, 0, 0, 0x24, 0, 0, 0, 0, 0, 0, 0, 0);
    const char acg = 0x07, t = 0x08, lacg = skip_masked ? 0 : acg, lt = skip_masked ? 0 : t;
    const __m256i hi_ok = _mm256_setr_epi8(0, 0, 0, 0, acg, t, lacg, lt, 0, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 0, 0, acg, t, lacg, lt, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nib = _mm256_set1_epi8(0x0f), inv = _mm256_set1_epi8(SG_ENC_INVALID), zero = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i lo = _mm256_and_si256(x, nib), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nib);
        __m256i e = _mm256_shuffle_epi8(lo_code, lo);
        __m256i bad = _mm256_cmpeq_epi8(_mm256_and_si256(e, _mm256_shuffle_epi8(hi_ok, hi)), zero);
        e = _mm256_or_si256(_mm256_andnot_si256(bad, e), _mm256_and_si256(bad, inv));
        _mm256_storeu_si256((__m256i *)(dst + i), e);
    }
    encode_any(skip_masked, src + i, n - i, dst + i);
}

void sg_encode(int skip_masked, const char *src, size_t n, uint8_t *dst)
{
    if (__builtin_cpu_supports("avx2")) encode_avx2(skip_masked, src, n, dst);
    else encode_any(skip_masked, src, n, dst);
}

#define VEC_FN scan_vector_avx2
#define VEC_ATTR __attribute__((target("avx2")))
#define VEC_W 32
#define VEC_MASK(v) (uint32_t) _mm256_movemask_epi8((__m256i)(v))
#include "find/vector.h"
#undef VEC_FN
#undef VEC_ATTR
#undef VEC_W
#undef VEC_MASK

#define VEC_FN scan_vector_sse2
#define VEC_ATTR
#define VEC_W 16
#define VEC_MASK(v) (uint32_t) _mm_movemask_epi8((__m128i)(v))
#include "find/vector.h"

void sg_scan_vector(const uint8_t *enc, size_t n, const sg_pattern_t *pat, const int *ids, int n_ids, uint32_t base,
                    sg_hits_t *out)
{
    if (__builtin_cpu_supports("avx2")) scan_vector_avx2(enc, n, pat, ids, n_ids, base, out);
    else scan_vector_sse2(enc, n, pat, ids, n_ids, base, out);
}
#else
static inline uint32_t lane_mask16(const uint8_t *v)
{
    uint32_t m = 0;
    for (int l = 0; l < 16; l++) m |= (uint32_t)(v[l] >> 7) << l;
    return m;
}
#define VEC_FN scan_vector_generic
#define VEC_ATTR
#define VEC_W 16
#define VEC_MASK(v) lane_mask16((const uint8_t *)&(v))
#include "find/vector.h"

void sg_scan_vector(const uint8_t *enc, size_t n, const sg_pattern_t *pat, const int *ids, int n_ids, uint32_t base,
                    sg_hits_t *out)
{
    scan_vector_generic(enc, n, pat, ids, n_ids, base, out);
}

void sg_encode(int skip_masked, const char *src, size_t n, uint8_t *dst)
{
    encode_any(skip_masked, src, n, dst);
}
#endif

/* ---- q-gram filter ---- */

typedef struct { /* laid out as three words: sg_qgram_view_t.ent */
    uint32_t key, pat, off;
} qentry_t;

struct sg_qgram {
    int q;
    int max_off;
    uint64_t *bits;      /* one bit per q-gram: some pattern is indexed by it */
    uint32_t *slot_key;  /* open-addressing table: q-gram -> its run in ent */
    uint32_t *slot_start, *slot_n;
    uint32_t slot_mask;
    qentry_t *ent;       /* sorted by key */
    size_t n_ent;
};

#define EMPTY_KEY UINT32_MAX


uint64_t sg_qgram_expansion(const sg_pattern_t *p, int q, int *offset)
{
    uint64_t best = 0;
    for (int o = 0; o + q <= p->len; o++) {
        uint64_t x = 1;
        for (int j = 0; j < q && x <= SG_QGRAM_MAX_EXPAND * 4ull; j++) x *= __builtin_popcount(p->mask[o + j]);
        if (!best || x < best) {
            best = x;
            if (offset) *offset = o;
        }
    }
    return best;
}

static int cmp_entry(const void *a, const void *b)
{
    const qentry_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->pat > y->pat) - (x->pat < y->pat);
}

sg_qgram_t *sg_qgram_build(const sg_pattern_t *pat, const int *ids, int n_ids, int q)
{
    sg_qgram_t *qg = sg_calloc(1, sizeof *qg);
    qg->q = q;
    size_t cap = 0;
    for (int k = 0; k < n_ids; k++) cap += sg_qgram_expansion(&pat[ids[k]], q, NULL);
    qg->ent = sg_malloc(cap * sizeof *qg->ent);
    for (int k = 0; k < n_ids; k++) {
        const sg_pattern_t *p = &pat[ids[k]];
        int o = 0;
        sg_qgram_expansion(p, q, &o);
        if (o > qg->max_off) qg->max_off = o;
        /* enumerate the window's expansions like an odometer over the base sets */
        int digit[32] = {0};
        for (;;) {
            uint32_t key = 0;
            for (int j = 0; j < q; j++) {
                uint8_t m = p->mask[o + j];
                int code = -1;
                for (int d = digit[j]; d >= 0; d--) { /* the digit[j]-th base in m */
                    code = __builtin_ctz(m);
                    m &= m - 1;
                }
                key = key << 2 | (uint32_t)code;
            }
            qg->ent[qg->n_ent++] = (qentry_t){key, (uint32_t)ids[k], (uint32_t)o};
            int j = q - 1;
            for (; j >= 0; j--) {
                if (++digit[j] < __builtin_popcount(p->mask[o + j])) break;
                digit[j] = 0;
            }
            if (j < 0) break;
        }
    }
    qsort(qg->ent, qg->n_ent, sizeof *qg->ent, cmp_entry);
    size_t n_keys = 0;
    for (size_t i = 0; i < qg->n_ent; i++) n_keys += !i || qg->ent[i].key != qg->ent[i - 1].key;
    size_t slots = 16;
    while (slots < 2 * n_keys) slots *= 2;
    qg->slot_mask = (uint32_t)(slots - 1);
    qg->slot_key = sg_malloc(slots * sizeof *qg->slot_key);
    qg->slot_start = sg_malloc(slots * sizeof *qg->slot_start);
    qg->slot_n = sg_malloc(slots * sizeof *qg->slot_n);
    memset(qg->slot_key, 0xff, slots * sizeof *qg->slot_key);
    size_t words = ((size_t)1 << (2 * q)) / 64 + 1;
    qg->bits = sg_calloc(words, sizeof *qg->bits);
    for (size_t i = 0; i < qg->n_ent;) {
        size_t e = i;
        while (e < qg->n_ent && qg->ent[e].key == qg->ent[i].key) e++;
        uint32_t key = qg->ent[i].key, h = sg_qgram_hash(key) & qg->slot_mask;
        while (qg->slot_key[h] != EMPTY_KEY) h = (h + 1) & qg->slot_mask;
        qg->slot_key[h] = key;
        qg->slot_start[h] = (uint32_t)i;
        qg->slot_n[h] = (uint32_t)(e - i);
        qg->bits[key >> 6] |= 1ull << (key & 63);
        i = e;
    }
    return qg;
}

void sg_qgram_free(sg_qgram_t *qg)
{
    if (!qg) return;
    free(qg->bits);
    free(qg->slot_key);
    free(qg->slot_start);
    free(qg->slot_n);
    free(qg->ent);
    free(qg);
}

static void qgram_verify(const sg_qgram_t *qg, uint32_t key, size_t s, const uint8_t *enc, size_t n,
                         const sg_pattern_t *pat, uint32_t base, sg_hits_t *out)
{
    uint32_t h = sg_qgram_hash(key) & qg->slot_mask;
    while (qg->slot_key[h] != key) h = (h + 1) & qg->slot_mask;
    const qentry_t *e = qg->ent + qg->slot_start[h];
    for (uint32_t k = 0; k < qg->slot_n[h]; k++) {
        if (s < e[k].off || s - e[k].off >= n) continue;
        size_t start = s - e[k].off;
        const sg_pattern_t *p = &pat[e[k].pat];
        int j = 0;
        while (j < p->len && (enc[start + j] & p->mask[j])) j++;
        if (j == p->len) sg_hits_push(out, sg_hit_key(base + start, p->rank));
    }
}

SG_CLONES void sg_qgram_scan(const sg_qgram_t *qg, const uint8_t *enc, size_t n, const sg_pattern_t *pat,
                             uint32_t base, sg_hits_t *out)
{
    const int q = qg->q;
    const uint64_t kmask = ((uint64_t)1 << (2 * q)) - 1, qmask = ((uint64_t)1 << q) - 1;
    const uint64_t *bits = qg->bits;
    uint64_t key = 0, bad = ~(uint64_t)0;
    /* a pattern starting at i is found through its q-gram at i + off */
    size_t end = n + qg->max_off + q - 1;
    for (size_t i = 0; i < end; i++) {
        uint8_t e = enc[i];
        key = ((key << 2) | ((e >> 4) & 3)) & kmask;
        bad = (bad << 1) | (e >> 6);
        if (__builtin_expect(!(bad & qmask) && (bits[key >> 6] >> (key & 63) & 1), 0))
            qgram_verify(qg, (uint32_t)key, i + 1 - q, enc, n, pat, base, out);
    }
}

void sg_qgram_view(const sg_qgram_t *qg, sg_qgram_view_t *v)
{
    v->q = qg->q;
    v->max_off = qg->max_off;
    v->bits = qg->bits;
    v->n_bits_words = ((size_t)1 << (2 * qg->q)) / 64 + 1;
    v->slot_key = qg->slot_key;
    v->slot_start = qg->slot_start;
    v->slot_n = qg->slot_n;
    v->slot_mask = qg->slot_mask;
    v->ent = (const uint32_t *)qg->ent;
    v->n_ent = qg->n_ent;
}

/* ---- the planner ---- */

/* Cost per text base, in units of one q-gram pass, of a q-gram pass with q
 * plus the vector kernel for the patterns it cannot index (0.14 each: 0.03 s
 * per pattern against 0.2 s per pass in the timings of src/find/cpu.c); each
 * candidate costs about 10 bases of scanning. */
/* The bit table of 4^q bits outgrows L2 from q = 11 on: a cost factor. */
static double qgram_table_miss(int q) { return q >= 11 ? 0.5 * (q - 10) : 0; }

static double qgram_cost(const sg_motif_set_t *ms, const int *ids, int n, int q, int *n_left)
{
    double expand = 0;
    int left = 0;
    for (int i = 0; i < n; i++) {
        uint64_t x = sg_qgram_expansion(&ms->pat[ids[i]], q, NULL);
        if (x >= 1 && x <= SG_QGRAM_MAX_EXPAND) expand += x;
        else left++;
    }
    *n_left = left;
    return 1.0 + qgram_table_miss(q) + 10.0 * expand / (double)(1ull << (2 * q)) + 0.14 * left;
}

int sg_plan_make(const sg_motif_set_t *ms, const char *kernel, int vector_max, sg_plan_t *p, char *err, size_t errsz)
{
    memset(p, 0, sizeof *p);
    if (strcmp(kernel, "auto") && strcmp(kernel, "sunday") && strcmp(kernel, "vector") && strcmp(kernel, "qgram")) {
        snprintf(err, errsz, "unknown kernel '%s' (%s)", kernel, SG_KERNELS);
        return SG_ERR_INPUT;
    }
    /* exact: the patterns without mismatches, in pattern order */
    int n = 0, *exact = sg_malloc((ms->n_pat + 1) * sizeof(int));
    p->approx = sg_malloc((ms->n_pat + 1) * sizeof(int));
    for (int i = 0; i < ms->n_pat; i++) {
        if (ms->pat[i].max_mm || sg_pattern_bulges(&ms->pat[i])) p->approx[p->n_approx++] = i;
        else exact[n++] = i;
    }
    if (p->n_approx) p->mm = sg_mm_build(ms->pat, p->approx, p->n_approx);
    p->sunday = sg_malloc((n + 1) * sizeof(int));
    p->vector = sg_malloc((n + 1) * sizeof(int));
    if (!strcmp(kernel, "sunday")) {
        for (int i = 0; i < n; i++) p->sunday[p->n_sunday++] = exact[i];
        free(exact);
        return 0;
    }
    if (!strcmp(kernel, "vector") || (!strcmp(kernel, "auto") && n <= vector_max)) {
        for (int i = 0; i < n; i++) p->vector[p->n_vector++] = exact[i];
        free(exact);
        return 0;
    }
    int best_q = 0, left;
    double best = 0.14 * n; /* everything on the vector kernel */
    for (int q = 4; q <= 12; q++) {
        double c = qgram_cost(ms, exact, n, q, &left);
        if (left < n && (!best_q || c < best)) {
            best = c;
            best_q = q;
        }
    }
    int *ids = sg_malloc((n + 1) * sizeof(int));
    for (int i = 0; i < n; i++) {
        uint64_t x = best_q ? sg_qgram_expansion(&ms->pat[exact[i]], best_q, NULL) : 0;
        if (x >= 1 && x <= SG_QGRAM_MAX_EXPAND) ids[p->n_qgram++] = exact[i];
        else p->vector[p->n_vector++] = exact[i];
    }
    if (p->n_qgram) {
        p->qgram = sg_qgram_build(ms->pat, ids, p->n_qgram, best_q);
        p->q = best_q;
    }
    free(ids);
    free(exact);
    return 0;
}

/* ---- costs, for the backend planner ----
 * Fitted to --stats figures (scan thread-seconds; kernel event seconds) on
 * the 16-core H200 host (Intel Xeon, AVX-512), 3.1 Gb bench/gen_genome.c
 * genome, 2026-11-30: bench/results/h200-2026-11-30-gpu.md. The 2-core VM
 * (AMD EPYC) runs the cpu kernels up to 2x faster per thread; the figures
 * are the GPU host's, as that is where the choice matters. Units: seconds
 * per 1e9 text bases. */
#define COST_SUNDAY 6.0        /* per pattern */
#define COST_VECTOR 0.26       /* per pattern (one 8-mer, both strands: 0.53) */
#define COST_QGRAM_PASS 2.6    /* the rolling pass (1000 20-mers: 2.83) */
#define COST_QGRAM_CAND 117    /* per unit of q-grams indexed / 4^q (1000 IUPAC 18-mers: 12.7) */
#define COST_MM_GROUP 1.2      /* a PAM group: bitmaps and the PAM check */
#define COST_MM_WINDOW 1.5     /* per window that passes, cut out of the bitmaps */
#define COST_MM_VECTOR 2.1     /* per window and vector of patterns (10 guides: 2.88; 1000: 19.0) */
#define COST_MM_LONG 1.2       /* per window and pattern of more than 32 bases */
#define GPU_EXACT 0.0011       /* per pattern of the bitmap kernel (one 8-mer: 442 GB/s of text) */
#define GPU_QGRAM_PASS 0.0165  /* the q-gram kernel's pass */
#define GPU_QGRAM_CAND 1.07    /* ... per unit of q-grams indexed / 4^q */
#define GPU_MM_GROUP 0.0034    /* a PAM group of the mismatch kernel (10 guides: 0.021 s) */
#define GPU_MM_PAIR 1.25e-12   /* per window-pattern pair (1000 guides, <= 4 mismatches: 0.50 s) */
#define GPU_MM_LONG 1.2e-11    /* ... of a pattern of more than 32 bases (one thread per window) */
/* Each bulge variant searched (src/find/bulge.h) multiplies a window's work by
 * 1 + this: on the cpu measured on the 2-core VM (10 guides + NGG, 100 Mb,
 * bulges 1/1: 2.2x the scan of none); on the GPU estimated from the
 * instructions per window-pattern pair (13 without a variant, 16 more for
 * each), to be refitted on the H200 host. */
#define COST_MM_BULGE 2.5
#define GPU_MM_BULGE 1.2

/* q-grams indexed / 4^q, and the bit table's misses past L2 */
static void qgram_load(const sg_qgram_t *qg, double *cand, double *miss)
{
    sg_qgram_view_t v;
    sg_qgram_view(qg, &v);
    *cand = (double)v.n_ent / (double)(1ull << (2 * v.q));
    *miss = qgram_table_miss(v.q);
}

double sg_plan_cpu_cost(const sg_plan_t *p)
{
    double c = COST_SUNDAY * p->n_sunday + COST_VECTOR * p->n_vector, cand, miss;
    if (p->qgram) {
        qgram_load(p->qgram, &cand, &miss);
        c += COST_QGRAM_PASS * (1 + miss) + COST_QGRAM_CAND * cand;
    }
    for (int g = 0; p->mm && g < sg_mm_n_groups(p->mm); g++) {
        sg_mm_group_view_t v;
        sg_mm_group(p->mm, g, &v);
        double f = sg_mm_pass_rate(&v), lanes = sg_mm_vector_lanes(p->mm), bulges = 1 + COST_MM_BULGE * v.n_var;
        c += COST_MM_GROUP + f * COST_MM_WINDOW * bulges;
        if (v.p32) c += f * COST_MM_VECTOR * ((v.n_pat + lanes - 1) / lanes) * bulges;
        else c += f * COST_MM_LONG * v.n_pat;
    }
    return c;
}

double sg_plan_gpu_cost(const sg_plan_t *p)
{
    double c = GPU_EXACT * (p->n_vector + p->n_sunday), cand, miss;
    if (p->qgram) {
        qgram_load(p->qgram, &cand, &miss);
        c += GPU_QGRAM_PASS + GPU_QGRAM_CAND * cand;
    }
    for (int g = 0; p->mm && g < sg_mm_n_groups(p->mm); g++) {
        sg_mm_group_view_t v;
        sg_mm_group(p->mm, g, &v);
        c += GPU_MM_GROUP + 1e9 * sg_mm_pass_rate(&v) * v.n_pat * (v.p32 ? GPU_MM_PAIR : GPU_MM_LONG) *
                                (1 + GPU_MM_BULGE * v.n_var);
    }
    return c;
}

void sg_plan_describe(const sg_plan_t *p, char *buf, size_t n)
{
    int k = 0;
    buf[0] = 0;
    if (p->n_sunday) k += snprintf(buf + k, n - k, " sunday x%d", p->n_sunday);
    if (p->n_vector && k < (int)n) k += snprintf(buf + k, n - k, " vector x%d", p->n_vector);
    if (p->qgram && k < (int)n) k += snprintf(buf + k, n - k, " qgram(q=%d) x%d", p->q, p->n_qgram);
    if (p->n_approx && k < (int)n) snprintf(buf + k, n - k, " mismatch x%d", p->n_approx);
    if (buf[0] == ' ') memmove(buf, buf + 1, strlen(buf));
}

void sg_plan_free(sg_plan_t *p)
{
    free(p->sunday);
    free(p->vector);
    free(p->approx);
    sg_qgram_free(p->qgram);
    sg_mm_free(p->mm);
    memset(p, 0, sizeof *p);
}
