#define _GNU_SOURCE
#include "scc_period.h"
#include "dna.h"
#include "log.h"
#include "scc_repeats.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* a peak of the spectrum below this share of the highest is noise */
#define MIN_PEAK_SHARE 0.05
/* a period explains at least this share of the repeated k-mer pairs of a
 * tandem array, and no other peak (not a multiple or divisor) reaches this
 * share of its folded count */
#define TANDEM_SUPPORT 0.5
#define RIVAL_SHARE 0.3
/* and it has at least this many repeated k-mer pairs per base of its reads:
 * unique sequence has a few chance repeats at any distance, which a short
 * period's tolerance of 2% explains once they lie far enough apart */
#define TANDEM_PAIRS_PER_BASE 0.001
/* copies: within 15% of the period; at most this many, a few from each read */
#define MAX_COPIES 48
#define COPIES_PER_READ 8
#define CONSENSUS_ROUNDS 10

static const uint32_t KMASK = (1u << (2 * SG_PERIOD_K)) - 1;

/* Distances counted within 2% of a long one. */
static inline uint32_t tol(uint32_t d) { return d / 50; }

/* The last place of each k-mer in one read: open addressing, cleared per read. */
typedef struct {
    uint32_t *key, *pos; /* key: k-mer + 1, 0 empty */
    uint32_t mask;
} last_t;

static void last_reset(last_t *t, uint32_t len)
{
    uint32_t cap = 64;
    while (cap < 2 * len) cap *= 2;
    if (cap - 1 > t->mask) {
        t->key = sg_realloc(t->key, cap * sizeof *t->key);
        t->pos = sg_realloc(t->pos, cap * sizeof *t->pos);
        t->mask = cap - 1;
    }
    memset(t->key, 0, ((size_t)t->mask + 1) * sizeof *t->key);
}

/* The previous place of k-mer x, or UINT32_MAX; x's place becomes pos. */
static uint32_t last_swap(last_t *t, uint32_t x, uint32_t pos)
{
    uint32_t i = (uint32_t)sg_mix64(x) & t->mask;
    while (t->key[i] && t->key[i] != x + 1) i = (i + 1) & t->mask;
    uint32_t prev = t->key[i] ? t->pos[i] : UINT32_MAX;
    t->key[i] = x + 1;
    t->pos[i] = pos;
    return prev;
}

/* Calls f(arg, x, d) for every k-mer x of s at distance d <= SG_PERIOD_MAX after its previous place. */
static void repeated_kmers(const char *s, uint32_t len, last_t *t, void (*f)(void *, uint32_t, uint32_t), void *arg)
{
    last_reset(t, len);
    uint32_t x = 0;
    int run = 0;
    for (uint32_t i = 0; i < len; i++) {
        int c = sg_dna_code(s[i]);
        if (c < 0) {
            run = 0;
            continue;
        }
        x = ((x << 2) | (uint32_t)c) & KMASK;
        if (++run < SG_PERIOD_K) continue;
        uint32_t prev = last_swap(t, x, i);
        if (prev != UINT32_MAX && i - prev <= SG_PERIOD_MAX) f(arg, x, i - prev);
    }
}

static void count_distance(void *arg, uint32_t x, uint32_t d)
{
    (void)x;
    ((uint64_t *)arg)[d]++;
}

typedef struct {
    uint32_t period, *kmers;
    size_t n, m;
} anchor_votes_t;

static inline uint32_t kmer_rc(uint32_t x) { return (uint32_t)sg_kmer64_rc(x, SG_PERIOD_K); }

static void vote_anchor(void *arg, uint32_t x, uint32_t d)
{
    anchor_votes_t *v = arg;
    uint32_t p = v->period;
    if (d + tol(p) < p || d > p + tol(p)) return;
    if (v->n == v->m) v->kmers = sg_realloc(v->kmers, (v->m = v->m ? 2 * v->m : 1024) * sizeof *v->kmers);
    uint32_t r = kmer_rc(x);
    v->kmers[v->n++] = r < x ? r : x;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Counts of the spectrum within a distance's tolerance: from prefix sums. */
static inline uint64_t window(const uint64_t *pre, uint32_t d)
{
    uint32_t lo = d - tol(d), hi = d + tol(d) > SG_PERIOD_MAX ? SG_PERIOD_MAX : d + tol(d);
    return pre[hi] - pre[lo - 1];
}

/* Whether a and b (a < b) are near multiples: b within 6% and 2 bases of m
 * times a (a read's net insertions stretch a distance by up to 5%). */
static int multiple(uint32_t a, uint32_t b)
{
    uint32_t m = (b + a / 2) / a, off = b > m * a ? b - m * a : m * a - b;
    return m >= 1 && (uint64_t)off * 100 <= 6ull * b + 200;
}

/* The period of the spectrum hist[1 .. SG_PERIOD_MAX], its support, whether
 * a rival period competes, and the pairs counted in all. */
static uint32_t spectrum_period(const uint64_t *hist, double *support, int *rival, uint64_t *pairs)
{
    uint64_t *pre = sg_calloc(SG_PERIOD_MAX + 1, sizeof *pre);
    for (uint32_t d = 1; d <= SG_PERIOD_MAX; d++) pre[d] = pre[d - 1] + hist[d];
    uint64_t total = pre[SG_PERIOD_MAX], hmax = 0;
    *pairs = total;
    *support = 0;
    *rival = 0;
    for (uint32_t d = 1; d <= SG_PERIOD_MAX; d++)
        if (window(pre, d) > hmax) hmax = window(pre, d);
    /* the peaks, each with the counts at its multiples folded in */
    uint32_t *cand = NULL, n_cand = 0, m_cand = 0, best = 0;
    uint64_t *fold = NULL, fbest = 0;
    for (uint32_t d = 1; d <= SG_PERIOD_MAX / 2; d++) {
        uint64_t h = window(pre, d), left = d > 1 ? window(pre, d - 1) : 0;
        if (h < MIN_PEAK_SHARE * hmax || h <= left || h < window(pre, d + 1)) continue;
        uint64_t f = 0;
        for (uint32_t m = d; m <= SG_PERIOD_MAX; m += d) f += window(pre, m);
        if (n_cand == m_cand) {
            m_cand = m_cand ? 2 * m_cand : 64;
            cand = sg_realloc(cand, m_cand * sizeof *cand);
            fold = sg_realloc(fold, m_cand * sizeof *fold);
        }
        cand[n_cand] = d;
        fold[n_cand++] = f;
        if (f > fbest) best = d, fbest = f;
    }
    for (uint32_t i = 0; i < n_cand; i++)
        if (fold[i] >= RIVAL_SHARE * fbest && !multiple(cand[i] < best ? cand[i] : best, cand[i] < best ? best : cand[i]))
            *rival = 1;
    free(cand);
    free(fold);
    if (best && total) {
        uint64_t explained = 0;
        for (uint32_t x = 1; x <= SG_PERIOD_MAX; x++) {
            uint32_t m = (x + best / 2) / best;
            if (m >= 1 && (x > m * best ? x - m * best : m * best - x) <= tol(x)) explained += hist[x];
        }
        *support = (double)explained / total;
    }
    free(pre);
    return best;
}

static void revcomp(const char *s, uint32_t n, char *out)
{
    for (uint32_t i = 0; i < n; i++) {
        int c = sg_dna_code(s[n - 1 - i]);
        out[i] = c < 0 ? 'N' : sg_dna_letter(3 - c);
    }
}

/* Places (starts) of k-mer a in s. */
static uint32_t places(const char *s, uint32_t len, uint32_t a, uint32_t **at, size_t *m)
{
    uint32_t x = 0, n = 0;
    int run = 0;
    for (uint32_t i = 0; i < len; i++) {
        int c = sg_dna_code(s[i]);
        if (c < 0) {
            run = 0;
            continue;
        }
        x = ((x << 2) | (uint32_t)c) & KMASK;
        if (++run < SG_PERIOD_K || x != a) continue;
        if (n == *m) *at = sg_realloc(*at, (*m = *m ? 2 * *m : 64) * sizeof **at);
        (*at)[n++] = i + 1 - SG_PERIOD_K;
    }
    return n;
}

/* ---- the consensus of the copies ---- */

typedef struct {
    uint32_t base[5]; /* A, C, G, T, deleted */
} column_t;

typedef struct {
    uint32_t n, base[4]; /* copies with an insertion before the column, and its first base */
} gap_t;

/* Align copy c (n bases) to ref (m bases), both upper case, globally, in a
 * band around the diagonal (unit costs), and add its votes. */
static void align_vote(const char *c, uint32_t n, const char *ref, uint32_t m, column_t *col, gap_t *gap,
                       uint8_t *seen, uint8_t **tb, size_t *m_tb)
{
    /* the band: the difference of the lengths, and room for the drift of
     * the errors on the way (a random walk: a few percent at most) */
    const uint32_t w = (m > n ? m - n : n - m) + (m / 25 > 8 ? m / 25 : 8), width = 2 * w + 1;
    if ((size_t)(n + 1) * width > *m_tb) *tb = sg_realloc(*tb, *m_tb = (size_t)(n + 1) * width);
    uint32_t *prev = sg_malloc(width * sizeof *prev), *cur = sg_malloc(width * sizeof *cur);
    const uint32_t INF = UINT32_MAX / 2;
    /* row i covers ref columns j = centre(i) - w + o, o in [0, width) */
#define CENTRE(i) ((uint32_t)(((uint64_t)(i) * m + n / 2) / (n ? n : 1)))
    for (uint32_t i = 0; i <= n; i++) {
        int64_t lo = (int64_t)CENTRE(i) - w, plo = i ? (int64_t)CENTRE(i - 1) - w : 0;
        for (uint32_t o = 0; o < width; o++) {
            int64_t j = lo + o;
            uint32_t best = INF;
            uint8_t op = 0;
            if (j >= 0 && j <= m) {
                if (i == 0) {
                    best = (uint32_t)j, op = 2;
                } else {
                    int64_t pd = j - 1 - plo, pu = j - plo;
                    if (j >= 1 && pd >= 0 && pd < width && prev[pd] < INF)
                        best = prev[pd] + (c[i - 1] != ref[j - 1]), op = 0;
                    if (pu >= 0 && pu < width && prev[pu] + 1 < best) best = prev[pu] + 1, op = 1;
                    if (o > 0 && cur[o - 1] + 1 < best) best = cur[o - 1] + 1, op = 2;
                }
            }
            cur[o] = best;
            (*tb)[(size_t)i * width + o] = op;
        }
        uint32_t *t = prev;
        prev = cur;
        cur = t;
    }
    free(prev);
    free(cur);
    memset(seen, 0, m + 1);
    int64_t i = n, j = m;
    while (i > 0 || j > 0) {
        uint8_t op = (*tb)[(size_t)i * width + (uint32_t)(j - ((int64_t)CENTRE(i) - w))];
        if (op == 0) {
            int b = sg_dna_code(c[i - 1]);
            col[j - 1].base[b < 0 ? 4 : b]++;
            i--, j--;
        } else if (op == 1) { /* the copy has a base the reference lacks, before column j */
            int b = sg_dna_code(c[i - 1]);
            if (!seen[j] && b >= 0) gap[j].n++, gap[j].base[b]++;
            seen[j] = 1;
            i--;
        } else {
            col[j - 1].base[4]++;
            j--;
        }
    }
#undef CENTRE
}

static int argmax4(const uint32_t *v)
{
    int b = 0;
    for (int i = 1; i < 4; i++)
        if (v[i] > v[b]) b = i;
    return b;
}

/* The consensus of copies (each one period long, all from the same phase). */
static char *consensus(char **copy, const uint32_t *len, uint32_t n, uint32_t *out_len)
{
    uint32_t *order = sg_malloc(n * sizeof *order);
    for (uint32_t i = 0; i < n; i++) order[i] = len[i] << 8 | (i & 255); /* n <= MAX_COPIES < 256 */
    qsort(order, n, sizeof *order, cmp_u32);
    uint32_t med = order[n / 2] & 255;
    free(order);
    uint32_t m = len[med];
    char *ref = sg_malloc(m + 1);
    memcpy(ref, copy[med], m);
    uint8_t *tb = NULL;
    size_t m_tb = 0;
    for (int round = 0; round < CONSENSUS_ROUNDS && m; round++) {
        column_t *col = sg_calloc(m, sizeof *col);
        gap_t *gap = sg_calloc(m + 1, sizeof *gap);
        uint8_t *seen = sg_malloc(m + 1);
        for (uint32_t i = 0; i < n; i++) align_vote(copy[i], len[i], ref, m, col, gap, seen, &tb, &m_tb);
        char *next = sg_malloc(2 * (size_t)m + 2);
        uint32_t nm = 0;
        for (uint32_t j = 0; j <= m; j++) {
            if (2 * gap[j].n > n) next[nm++] = sg_dna_letter(argmax4(gap[j].base));
            if (j < m && 2 * col[j].base[4] <= n) next[nm++] = sg_dna_letter(argmax4(col[j].base));
        }
        int same = nm == m && !memcmp(next, ref, m);
        free(ref);
        free(col);
        free(gap);
        free(seen);
        ref = next;
        m = nm;
        if (same) break;
    }
    free(tb);
    ref[m] = 0;
    *out_len = m;
    return ref;
}

void sg_period_find(const char *const *seqs, const uint32_t *lens, uint32_t n, sg_period_t *out)
{
    memset(out, 0, sizeof *out);
    uint64_t *hist = sg_calloc(SG_PERIOD_MAX + 1, sizeof *hist), used = 0;
    last_t lt = {0};
    uint32_t n_used = 0;
    for (; n_used < n && used < SG_PERIOD_BASES; used += lens[n_used], n_used++)
        repeated_kmers(seqs[n_used], lens[n_used], &lt, count_distance, hist);
    int rival;
    uint64_t pairs;
    uint32_t p = spectrum_period(hist, &out->support, &rival, &pairs);
    free(hist);
    out->period = p;
    out->tandem = p && out->support >= TANDEM_SUPPORT && !rival && pairs >= TANDEM_PAIRS_PER_BASE * used;
    out->unit = NULL;
    if (p) {
        /* the anchor: the k-mer (either strand) seen most often one period after itself */
        anchor_votes_t v = {.period = p};
        for (uint32_t i = 0; i < n_used; i++) repeated_kmers(seqs[i], lens[i], &lt, vote_anchor, &v);
        uint32_t anchor = 0, best = 0;
        if (v.n) qsort(v.kmers, v.n, sizeof *v.kmers, cmp_u32);
        for (size_t i = 0, j; i < v.n; i = j) {
            for (j = i + 1; j < v.n && v.kmers[j] == v.kmers[i]; j++) {}
            if (j - i > best) best = (uint32_t)(j - i), anchor = v.kmers[i];
        }
        free(v.kmers);
        /* the copies: from one anchor to the next, on the anchor's strand */
        char *copy[MAX_COPIES], *rc = NULL;
        uint32_t clen[MAX_COPIES], nc = 0, *at = NULL, *rat = NULL, lo = p - p * 15 / 100, hi = p + p * 15 / 100;
        size_t m_at = 0, m_rat = 0;
        for (uint32_t i = 0; best && i < n_used && nc < MAX_COPIES; i++) {
            const char *s = seqs[i];
            uint32_t na = places(s, lens[i], anchor, &at, &m_at), nr = places(s, lens[i], kmer_rc(anchor), &rat, &m_rat);
            if (nr > na) {
                rc = sg_realloc(rc, lens[i] + 1);
                revcomp(s, lens[i], rc);
                s = rc;
                na = places(s, lens[i], anchor, &at, &m_at);
            }
            for (uint32_t j = 1, taken = 0; j < na && nc < MAX_COPIES && taken < COPIES_PER_READ; j++) {
                uint32_t d = at[j] - at[j - 1];
                if (d < lo || d > hi) continue;
                copy[nc] = sg_malloc(d);
                for (uint32_t x = 0; x < d; x++) copy[nc][x] = (char)toupper((unsigned char)s[at[j - 1] + x]);
                clen[nc++] = d;
                taken++;
            }
        }
        free(at);
        free(rat);
        free(rc);
        if (nc >= 3) {
            uint32_t cl;
            char *c = consensus(copy, clen, nc, &cl);
            if (cl) {
                out->unit = sg_canonical_unit(c, cl);
                out->period = cl;
                out->copies = nc;
            }
            free(c);
        }
        for (uint32_t i = 0; i < nc; i++) free(copy[i]);
    }
    free(lt.key);
    free(lt.pos);
    if (!out->unit) out->unit = sg_strdup("");
}

void sg_period_free(sg_period_t *p)
{
    free(p->unit);
    p->unit = NULL;
}
