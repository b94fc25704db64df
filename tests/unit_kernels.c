/* The CPU kernels against an independent brute-force scan, on random text
 * with invalid bases and lowercase, random IUPAC patterns of many lengths,
 * and matches that run past the end of the owned starts. */
#include <string.h>

#include "find/kernels.h"
#include "brute.h"
#include "unit.h"

static const char text_alphabet[] = "ACGTACGTACGTacgtacgtNnRY-\n";
static const char motif_alphabet[] = "ACGTACGTACGTACGTRYSWKMBDHVN";

static void random_text(char *t, size_t n)
{
    for (size_t i = 0; i < n; i++) t[i] = text_alphabet[unit_below(sizeof text_alphabet - 1)];
}

/* Hits of patterns ids at the starts 0..n-1 of the raw text. */
static void brute(const char *raw, size_t n, int skip_masked, const sg_motif_set_t *ms, const int *ids, int n_ids,
                  uint32_t base, sg_hits_t *out)
{
    for (int k = 0; k < n_ids; k++) {
        const sg_pattern_t *p = &ms->pat[ids[k]];
        char *letters = brute_letters(ms, p);
        for (size_t i = 0; i < n; i++)
            if (brute_match(letters, raw + i, skip_masked)) sg_hits_push(out, sg_hit_key(base + i, p->rank));
        free(letters);
    }
}

static int same_hits(sg_hits_t *a, sg_hits_t *b)
{
    sg_hits_sort(a);
    sg_hits_sort(b);
    return a->n == b->n && (a->n == 0 || !memcmp(a->a, b->a, a->n * sizeof *a->a));
}

static void test_encoding(void)
{
    uint8_t e[256], m[256];
    sg_encode_table(e, 0);
    sg_encode_table(m, 1);
    const char *b = "ACGT";
    for (int c = 0; c < 256; c++) {
        const char *at = (c & 0xdf) ? strchr(b, c & 0xdf) : NULL;
        int base = at ? (int)(at - b) : -1;
        if (base >= 0) {
            CHECK(e[c] == ((1 << base) | base << 4), "byte %d", c);
            CHECK(m[c] == (((c & 0x20) == 0) ? e[c] : SG_ENC_INVALID), "skip-masked byte %d", c);
        } else {
            CHECK(e[c] == SG_ENC_INVALID && m[c] == SG_ENC_INVALID, "byte %d never matches", c);
        }
    }
    /* bulk encoding (the SIMD path) of every byte value equals the table
     * (built byte by byte, the scalar path) */
    char raw[4099];
    uint8_t enc[4099];
    for (size_t i = 0; i < sizeof raw; i++) raw[i] = (char)(i < 256 ? i : (size_t)unit_below(256));
    for (int skip = 0; skip < 2; skip++) {
        sg_encode(skip, raw, sizeof raw, enc);
        int ok = 1;
        for (size_t i = 0; i < sizeof raw; i++) ok &= enc[i] == (skip ? m : e)[(unsigned char)raw[i]];
        CHECK(ok, "bulk encoding equals the table (skip-masked %d)", skip);
    }
}

static void random_round(int n_motifs, int max_len, int kernel_q)
{
    sg_motif_set_t ms = {0};
    char err[256], m[64];
    for (int k = 0; k < n_motifs; k++) {
        int len = 1 + unit_below(max_len);
        for (int j = 0; j < len; j++) m[j] = motif_alphabet[unit_below(sizeof motif_alphabet - 1)];
        m[len] = 0;
        int r = sg_motif_add(&ms, NULL, m, err, sizeof err);
        CHECK(r == 0, "motif %s: %s", m, err);
        if (r < 0) {
            sg_motif_set_free(&ms);
            return;
        }
    }
    sg_motif_compile(&ms, SG_STRAND_BOTH);
    CHECK(brute_patterns_right(&ms, SG_STRAND_BOTH), "wrong patterns for %d motifs", n_motifs);
    size_t n = 1 + unit_below(5000), room = n + ms.max_len + SG_ENC_PAD;
    char *raw = malloc(room);
    uint8_t *enc = malloc(room);
    random_text(raw, n + ms.max_len);
    raw[n + ms.max_len] = 0; /* where the brute force stops: the kernels see invalid padding */
    int skip = unit_below(2);
    sg_encode(skip, raw, n + ms.max_len, enc);
    memset(enc + n + ms.max_len, SG_ENC_INVALID, SG_ENC_PAD);
    int *ids = malloc(ms.n_pat * sizeof *ids);
    for (int i = 0; i < ms.n_pat; i++) ids[i] = i;
    uint32_t base = (uint32_t)unit_below(1000);
    sg_hits_t want = {0}, got = {0};
    brute(raw, n, skip, &ms, ids, ms.n_pat, base, &want);

    sg_scan_sunday(enc, n, ms.pat, ids, ms.n_pat, base, &got);
    CHECK(same_hits(&want, &got), "sunday: %zu hits, want %zu (%d motifs)", got.n, want.n, n_motifs);
    got.n = 0;
    sg_scan_vector(enc, n, ms.pat, ids, ms.n_pat, base, &got);
    CHECK(same_hits(&want, &got), "vector: %zu hits, want %zu (%d motifs)", got.n, want.n, n_motifs);

    /* q-gram: the indexable patterns through the filter, the rest brute force */
    int *qi = malloc(ms.n_pat * sizeof *qi), n_q = 0, *rest = malloc(ms.n_pat * sizeof *rest), n_rest = 0;
    for (int i = 0; i < ms.n_pat; i++) {
        uint64_t x = sg_qgram_expansion(&ms.pat[i], kernel_q, NULL);
        if (x >= 1 && x <= SG_QGRAM_MAX_EXPAND) qi[n_q++] = i;
        else rest[n_rest++] = i;
    }
    got.n = 0;
    if (n_q) {
        sg_qgram_t *qg = sg_qgram_build(ms.pat, qi, n_q, kernel_q);
        sg_qgram_scan(qg, enc, n, ms.pat, base, &got);
        sg_qgram_free(qg);
    }
    brute(raw, n, skip, &ms, rest, n_rest, base, &got);
    CHECK(same_hits(&want, &got), "qgram q=%d: %zu hits, want %zu (%d indexed)", kernel_q, got.n, want.n, n_q);
    free(qi);
    free(rest);
    sg_hits_free(&want);
    sg_hits_free(&got);
    free(ids);
    free(raw);
    free(enc);
    sg_motif_set_free(&ms);
}

static void test_random_few(void)
{
    for (int r = 0; r < 300; r++) random_round(1 + unit_below(4), 12, 1 + unit_below(6));
}

static void test_random_many(void)
{
    for (int r = 0; r < 60; r++) random_round(20 + unit_below(200), 30, 4 + unit_below(9));
}

static void test_long_patterns(void)
{
    for (int r = 0; r < 30; r++) random_round(1 + unit_below(10), 60, 8 + unit_below(5));
}

static void test_hit_sort(void)
{
    sg_hits_t h = {0};
    for (int r = 0; r < 20; r++) {
        h.n = 0;
        size_t n = unit_below(5000);
        for (size_t i = 0; i < n; i++) sg_hits_push(&h, sg_hit_key(unit_below(1 << 20), unit_below(300)));
        sg_hits_sort(&h);
        int ok = 1;
        for (size_t i = 1; i < h.n; i++) ok &= h.a[i - 1] <= h.a[i];
        CHECK(ok, "sorted (%zu keys)", n);
    }
    sg_hits_free(&h);
}

int main(void)
{
    RUN(test_encoding);
    RUN(test_random_few);
    RUN(test_random_many);
    RUN(test_long_patterns);
    RUN(test_hit_sort);
    return UNIT_SUMMARY();
}
