#define _GNU_SOURCE
#include "scc/period.h"
#include "core/dna.h"
#include "core/log.h"
#include "scc/repeats.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a peak of the spectrum below this share of the highest is noise; the
 * peaks with the most pairs at their multiples tried as periods */
#define MIN_PEAK_SHARE 0.05
#define PERIOD_CANDIDATES 8
#define CANDIDATE_FOLD 0.1
#define DIVISOR_SHARE 0.5
/* the bases of reads whose stretches decide between candidates */
#define SHARE_BASES (1u << 18)
/* a period at all: its stretches (below) cover this share of the reads,
 * and the reads hold this many repeated k-mer pairs */
#define MIN_PERIODIC_SHARE 0.2
#define MIN_PERIOD_PAIRS 32
/* a tandem array: its stretches cover half the reads or more, the period
 * explains at least this share of the repeated k-mer pairs, no other peak
 * (not a multiple or divisor) reaches RIVAL_SHARE of its folded count, and
 * there are this many pairs per base of its reads */
#define TANDEM_SHARE 0.5
#define TANDEM_SUPPORT 0.5
#define RIVAL_SHARE 0.3
#define TANDEM_PAIRS_PER_BASE 0.001
/* copies: within 15% of the period; at most this many, a few from each read */
#define MAX_COPIES 48
#define COPIES_PER_READ 8
#define CONSENSUS_ROUNDS 10

/* Distances counted within 2% of a long one. */
static inline uint32_t tol(uint32_t d) { return d / 50; }

/* The last place of each k-mer in one sequence: open addressing, cleared per sequence. */
static void last_reset(sg_kmer_last_t *t, uint32_t len)
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
static uint32_t last_swap(sg_kmer_last_t *t, uint32_t x, uint32_t pos)
{
    uint32_t i = (uint32_t)sg_mix64(x) & t->mask;
    while (t->key[i] && t->key[i] != x + 1) i = (i + 1) & t->mask;
    uint32_t prev = t->key[i] ? t->pos[i] : UINT32_MAX;
    t->key[i] = x + 1;
    t->pos[i] = pos;
    return prev;
}

void sg_repeated_kmers(const char *s, uint32_t len, uint32_t max_d, sg_kmer_last_t *t,
                       void (*f)(void *, uint32_t, uint32_t, uint32_t), void *arg)
{
    last_reset(t, len);
    uint64_t x = 0, r = 0; /* the k-mer (24 bits) and its reverse complement, which goes unused */
    int run = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (!sg_kmer64_roll(&x, &r, &run, s[i], SG_PERIOD_K)) continue; /* a base not A/C/G/T starts again */
        uint32_t prev = last_swap(t, (uint32_t)x, i);
        if (prev != UINT32_MAX && i - prev <= max_d) f(arg, (uint32_t)x, i, i - prev);
    }
}

void sg_kmer_last_free(sg_kmer_last_t *t)
{
    free(t->key);
    free(t->pos);
    memset(t, 0, sizeof *t);
}

void sg_count_distance(void *arg, uint32_t x, uint32_t i, uint32_t d)
{
    (void)x, (void)i;
    ((uint64_t *)arg)[d]++;
}

typedef struct {
    uint32_t period, *kmers;
    size_t n, m;
} anchor_votes_t;

static inline uint32_t kmer_rc(uint32_t x) { return (uint32_t)sg_kmer64_rc(x, SG_PERIOD_K); }

static void vote_anchor(void *arg, uint32_t x, uint32_t i, uint32_t d)
{
    (void)i;
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

/* Where a distance x counts as a multiple of period p: within a share of
 * x, or of the drift of a read's insertions and deletions between two
 * copies (a random walk: sqrt(x / 8) is its standard deviation at 12.5% of
 * them), and under a quarter period (so that the windows of p's multiples
 * never overlap, and a short period is not credited with every distance).
 * The spectrum counts within 2% or a deviation: its peaks are the reads'
 * own distances. A read's stretches are looked for within 6% or two
 * deviations: a read's net insertions stretch its distances (by 4.5% in
 * pbsim's CLR reads of 85%) and spread them, and the period they are
 * looked for at may be the consensus's, in the genome's bases. */
typedef struct {
    uint32_t pct;  /* of the distance */
    double spread; /* deviations of the drift */
} tol_t;
static const tol_t SPECTRUM_TOL = {2, 1}, STRETCH_TOL = {6, 2};

static inline uint32_t tol_of(uint32_t x, uint32_t p, tol_t tl)
{
    uint32_t t = x * tl.pct / 100, w = (uint32_t)(tl.spread * sqrt(x / 8.0));
    if (t < w) t = w;
    if (t < 1) t = 1;
    return t < p / 4 ? t : p / 4;
}

/* The multiple of p nearest x, or 0 when x is not within tol_of(x, p, tl) of one. */
static inline uint32_t multiple_of(uint32_t x, uint32_t p, tol_t tl)
{
    uint32_t m = (x + p / 2) / p, off = x > m * p ? x - m * p : m * p - x;
    return m >= 1 && off <= tol_of(x, p, tl) ? m : 0;
}

typedef struct {
    uint32_t d;
    uint64_t fold; /* the pairs at d's multiples */
} cand_t;

static int cmp_cand(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;
    if (x->fold != y->fold) return x->fold < y->fold ? 1 : -1;
    return (x->d > y->d) - (x->d < y->d);
}

/* The peaks of the spectrum hist[1 .. SG_PERIOD_MAX], each with the counts
 * at its multiples folded in, most first, into *out. @return how many */
static uint32_t spectrum_peaks(const uint64_t *hist, cand_t **out)
{
    uint64_t *pre = sg_calloc(SG_PERIOD_MAX + 1, sizeof *pre), hmax = 0;
    for (uint32_t d = 1; d <= SG_PERIOD_MAX; d++) pre[d] = pre[d - 1] + hist[d];
    for (uint32_t d = 1; d <= SG_PERIOD_MAX; d++)
        if (window(pre, d) > hmax) hmax = window(pre, d);
    cand_t *c = NULL;
    uint32_t n = 0, m = 0;
    for (uint32_t d = 1; d <= SG_PERIOD_MAX / 2; d++) {
        uint64_t h = window(pre, d), left = d > 1 ? window(pre, d - 1) : 0;
        if (!h || h < MIN_PEAK_SHARE * hmax || h <= left || h < window(pre, d + 1)) continue;
        uint64_t f = 0;
        for (uint32_t x = d; x <= SG_PERIOD_MAX; x += d) {
            uint32_t t = tol_of(x, d, SPECTRUM_TOL), hi = x + t > SG_PERIOD_MAX ? SG_PERIOD_MAX : x + t;
            f += pre[hi] - pre[x - t - 1];
        }
        if (n == m) c = sg_realloc(c, (m = m ? 2 * m : 64) * sizeof *c);
        c[n++] = (cand_t){d, f};
    }
    free(pre);
    if (n) qsort(c, n, sizeof *c, cmp_cand);
    *out = c;
    return n;
}

/* ---- where reads repeat themselves one period on ---- */

/* A stretch: k-mers whose previous places lie one, two or three periods
 * back (within STRETCH_TOL), none further than max(a period, 50) bases from the
 * next, over two periods or more, STRETCH_MIN_PAIRS of them or more and
 * one per STRETCH_BASES_PER_PAIR bases. A read inside an array is one such
 * stretch end to end, at any accuracy the overlapper takes (a read of 85%
 * has a pair every 70 bases of a 2 kb period's array, of 5% diverged
 * copies); unique sequence has none at its chance repeats, nor at the
 * copies of an interspersed family that fall a few periods apart, and a
 * homopolymer of 18 bases is 18 bases of period 1. */
#define STRETCH_MULTIPLES 3
#define STRETCH_MIN_PAIRS 4
#define STRETCH_BASES_PER_PAIR 500

typedef struct {
    uint32_t p;
    uint8_t *at; /* per base of the read: a k-mer of a pair starts there */
    size_t m;
} marks_t;

static void mark_pair(void *arg, uint32_t x, uint32_t i, uint32_t d)
{
    (void)x;
    marks_t *mk = arg;
    uint32_t m = multiple_of(d, mk->p, STRETCH_TOL);
    if (!m || m > STRETCH_MULTIPLES) return;
    mk->at[i + 1 - SG_PERIOD_K - d] = mk->at[i + 1 - SG_PERIOD_K] = 1;
}

/* The stretches of s (len bases) periodic at p, into *e. */
static void stretches(const char *s, uint32_t len, uint32_t p, sg_kmer_last_t *t, marks_t *mk, sg_period_extent_t *e)
{
    memset(e, 0, sizeof *e);
    if (len > mk->m) mk->at = sg_realloc(mk->at, mk->m = len);
    memset(mk->at, 0, len);
    mk->p = p;
    sg_repeated_kmers(s, len, SG_PERIOD_MAX, t, mark_pair, mk);
    const uint32_t gap = p > 50 ? p : 50;
    for (uint32_t i = 0, j; i < len; i = j) {
        if (!mk->at[i]) {
            j = i + 1;
            continue;
        }
        /* marks (k-mer starts), each within gap bases of the previous k-mer's end */
        uint32_t end = i + SG_PERIOD_K, marks = 1;
        for (j = i + 1; j < len && j <= end + gap; j++)
            if (mk->at[j]) marks++, end = j + SG_PERIOD_K;
        uint64_t span = end - i;
        if (marks < 2 * STRETCH_MIN_PAIRS || marks * (STRETCH_BASES_PER_PAIR / 2) < span || span < 2 * (uint64_t)p + SG_PERIOD_K)
            continue;
        if (!e->bases) e->start = i;
        e->end = end;
        e->bases += span;
        if (span > e->longest) e->longest = (uint32_t)span;
    }
}

void sg_period_extent(const char *s, uint32_t len, uint32_t period, sg_period_extent_t *out)
{
    sg_kmer_last_t t = {0};
    marks_t mk = {0};
    if (period) stretches(s, len, period, &t, &mk, out);
    else memset(out, 0, sizeof *out);
    sg_kmer_last_free(&t);
    free(mk.at);
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
    uint64_t x = 0, r = 0; /* as sg_repeated_kmers */
    uint32_t n = 0;
    int run = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (!sg_kmer64_roll(&x, &r, &run, s[i], SG_PERIOD_K) || x != a) continue;
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
    sg_kmer_last_t lt = {0};
    uint32_t n_used = 0;
    for (; n_used < n && used < SG_PERIOD_BASES; used += lens[n_used], n_used++)
        sg_repeated_kmers(seqs[n_used], lens[n_used], SG_PERIOD_MAX, &lt, sg_count_distance, hist);
    uint64_t pairs = 0;
    for (uint32_t d = 1; d <= SG_PERIOD_MAX; d++) pairs += hist[d];
    /* the period: of the peaks with the most pairs at their multiples, the
     * one whose stretches cover the most of the reads (a divisor, 1 above
     * all, has every multiple of the true period among its own; a
     * homopolymer's period 1 covers a few bases) */
    cand_t *cand;
    uint32_t n_cand = spectrum_peaks(hist, &cand), p = 0, best = UINT32_MAX;
    uint64_t fold = 0;
    double share[PERIOD_CANDIDATES];
    marks_t mk = {0};
    for (uint32_t c = 0; c < n_cand && c < PERIOD_CANDIDATES; c++) {
        uint64_t cover = 0, seen = 0;
        share[c] = 0;
        if (cand[c].fold < CANDIDATE_FOLD * cand[0].fold) continue;
        for (uint32_t i = 0; i < n_used && seen < SHARE_BASES; seen += lens[i], i++) {
            sg_period_extent_t e;
            stretches(seqs[i], lens[i], cand[c].d, &lt, &mk, &e);
            cover += e.bases;
        }
        share[c] = seen ? (double)cover / seen : 0;
        if (share[c] > out->share) out->share = share[c], best = c;
    }
    /* a divisor whose stretches cover half as much is the period, its
     * multiple a stretch of the reads' drift (its windows are wider) */
    for (uint32_t c = 0; best != UINT32_MAX && c < n_cand && c < PERIOD_CANDIDATES; c++)
        if (cand[c].d < cand[best].d && share[c] >= DIVISOR_SHARE * share[best] && multiple(cand[c].d, cand[best].d))
            best = c, out->share = share[c];
    if (best != UINT32_MAX) p = cand[best].d, fold = cand[best].fold;
    free(mk.at);
    int rival = 0;
    for (uint32_t c = 0; p && c < n_cand; c++)
        if (cand[c].fold >= RIVAL_SHARE * fold && cand[c].d != p &&
            !multiple(cand[c].d < p ? cand[c].d : p, cand[c].d < p ? p : cand[c].d))
            rival = 1;
    free(cand);
    if (out->share < MIN_PERIODIC_SHARE || pairs < MIN_PERIOD_PAIRS) p = 0; /* no period: not an array */
    if (p) {
        uint64_t explained = 0;
        for (uint32_t x = 1; x <= SG_PERIOD_MAX; x++)
            if (multiple_of(x, p, SPECTRUM_TOL)) explained += hist[x];
        out->support = (double)explained / pairs;
    }
    free(hist);
    out->period = p;
    out->tandem = p && out->share >= TANDEM_SHARE && out->support >= TANDEM_SUPPORT && !rival &&
                  pairs >= TANDEM_PAIRS_PER_BASE * used;
    out->unit = NULL;
    if (p) {
        /* the anchor: the k-mer (either strand) seen most often one period after itself */
        anchor_votes_t v = {.period = p};
        for (uint32_t i = 0; i < n_used; i++) sg_repeated_kmers(seqs[i], lens[i], SG_PERIOD_MAX, &lt, vote_anchor, &v);
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
    sg_kmer_last_free(&lt);
    if (!out->unit) out->unit = sg_strdup("");
}

void sg_period_free(sg_period_t *p)
{
    free(p->unit);
    p->unit = NULL;
}
