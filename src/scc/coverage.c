/* The k-mer coverage of single-copy sequence, from the k-mer count
 * histogram. */
#include "scc/coverage.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Occurrences of k-mers seen within a factor SPAN of c: a peak of N
 * k-mers at coverage c holds about N c of them, on a log scale, so that
 * peaks a thousand fold apart compare (where bins of distinct k-mers would
 * put the errors of a repeat's copies above the single-copy peak, which
 * spreads over hundreds of bins at high depth). */
#define SPAN 1.25

/* The least share of the k-mer occurrences that the single-copy peak (its
 * window of SPAN) holds: reads of a genome that is 85% repeats hold about
 * 9% there at 30x with 1% errors. */
#define MIN_PEAK_SHARE 0.05
/* A peak whose highest bin holds more than this share of the counts within
 * a factor 1.5 of it is a spike, no coverage peak. */
#define SPIKE_SHARE 0.6

/* Mean of a Poisson(lambda) variable given lo <= x <= hi (the terms scaled
 * by the largest, which may be far below what a double holds). */
static double truncated_mean(double lambda, int lo, int hi)
{
    double top = -HUGE_VAL, w = 0, sum = 0;
    for (int c = lo; c <= hi; c++) top = fmax(top, c * log(lambda) - lgamma(c + 1.0));
    for (int c = lo; c <= hi; c++) {
        double p = exp(c * log(lambda) - lgamma(c + 1.0) - top);
        w += p;
        sum += p * c;
    }
    return sum / w;
}

void sg_coverage_estimate(const uint64_t *hist, int n, int k, sg_coverage_t *cov)
{
    *cov = (sg_coverage_t){.coverage = 1, .peak = 1};
    int top = n - 2; /* the last bin holds counts beyond the histogram */
    if (top < 2) return;
    double *pre = sg_calloc((size_t)top + 2, sizeof *pre), *w = sg_calloc((size_t)top + 2, sizeof *w);
    for (int c = 1; c <= top; c++) pre[c] = pre[c - 1] + (double)c * hist[c];
    for (int c = 1; c <= top; c++) {
        int lo = (int)ceil(c / SPAN), hi = (int)floor(c * SPAN);
        w[c] = pre[hi < top ? hi : top] - pre[lo - 1];
    }
    /* the error k-mers: their occurrences fall off from count 1 to the
     * first minimum (a rise there that is noise is no peak: see below) */
    int t = 1;
    while (t < top && hist[t] && (t + 1.0) * hist[t + 1] <= (double)t * hist[t]) t++;
    /* peaks: the most occurrences within a factor 1.5 either way */
    int *peak = sg_malloc(((size_t)top + 1) * sizeof *peak), n_peak = 0;
    for (int c = t + 1; c <= top; c++) {
        if (w[c] <= 0) continue;
        int lo = (int)ceil(c / 1.5), hi = (int)floor(c * 1.5), best = 1;
        for (int d = lo > t + 1 ? lo : t + 1; d <= hi && d <= top && best; d++)
            if (w[d] > w[c] || (w[d] == w[c] && d < c)) best = 0;
        if (best) peak[n_peak++] = c;
    }
    /* a peak the errors of a higher one explain is no sequence of its own:
     * the copies of a repeat seen at count C with one sequencing error (of
     * rate e, at most 1%) make k-mers at C e / 3, holding k e (1-e)^(k-1) of
     * its occurrences; the k-mers beyond the histogram (at least top times
     * each) are such a repeat at the rate that fits best */
    double top_w = 0, beyond = (double)hist[n - 1] * top;
    for (int i = 0; i < n_peak; i++) {
        double errors = 0, e;
        for (int j = i + 1; j < n_peak; j++)
            if ((e = 3.0 * peak[i] / peak[j]) <= 0.01) errors += k * e * pow(1 - e, k - 1) * w[peak[j]];
        if ((e = fmin(0.01, 3.0 * peak[i] / top)) > 0.001) errors += k * e * pow(1 - e, k - 1) * beyond;
        if (errors >= 0.4 * w[peak[i]]) peak[i] = 0;
        else if (w[peak[i]] > top_w) top_w = w[peak[i]];
    }
    /* single-copy sequence: the lowest peak, clearly above the errors (the
     * occurrences at the trough and a little below), the others being its
     * repeats (which may hold most of the genome) */
    double errors_w = pre[t] - pre[(int)ceil(t / SPAN) - 1];
    int c0 = 0;
    for (int i = 0; i < n_peak && !c0; i++)
        if (peak[i] && w[peak[i]] >= 0.01 * top_w && w[peak[i]] >= 2 * errors_w) c0 = peak[i];
    /* and a peak of single-copy sequence holds a share of all the k-mers:
     * one that holds a few in a hundred (a bacterial genome's rRNA operons
     * at 7 copies, an assembly's Alu family) is a repeat's, whose single
     * copies are hidden at count 1 */
    if (c0 && w[c0] < MIN_PEAK_SHARE * (pre[top] + beyond)) c0 = 0;
    /* and it is as wide as a Poisson of its count: copies of a repeat in
     * an assembly stand at one count (7 operons, 7 times each), where the
     * most of a coverage peak's bins holds under a third of it from 4 on */
    if (c0 >= 4) {
        double around = 0, most = 0;
        for (int c = (int)ceil(c0 / 1.5); c <= (int)floor(c0 * 1.5) && c <= top; c++) {
            around += (double)c * hist[c];
            most = fmax(most, (double)c * hist[c]);
        }
        if (most > SPIKE_SHARE * around) c0 = 0;
    }
    free(peak);
    free(pre);
    free(w);
    if (!c0) return;
    /* the Poisson mean that gives the mean count of the k-mers around the
     * peak, when those cut off on either side (errors, repeats) are missing */
    int lo = t + 1 > c0 / 2 ? t + 1 : c0 / 2, hi = (int)(c0 * 1.5) + 2;
    if (hi > top) hi = top;
    double nk = 0, sum = 0;
    for (int c = lo; c <= hi; c++) nk += hist[c], sum += (double)hist[c] * c;
    double mean = sum / nk, a = 0.01, b = 2.0 * hi;
    for (int it = 0; it < 60; it++) {
        double mid = (a + b) / 2;
        if (truncated_mean(mid, lo, hi) < mean) a = mid;
        else b = mid;
    }
    cov->coverage = (a + b) / 2;
    cov->trough = t;
    cov->peak = c0;
    cov->clear = 1;
}

int sg_coverage_assembly(const uint64_t *hist, int n, const sg_coverage_t *cov)
{
    double all = 0;
    for (int c = 1; c < n; c++) all += (double)c * hist[c];
    if (n <= 2 || all <= 0) return 0;
    const double once = hist[1] / all, twice = hist[1] ? (double)hist[2] / (double)hist[1] : 1;
    if (!cov->clear && once >= 0.3 && twice <= 0.2) return 1;
    return once >= 0.5 && twice <= 0.1 ? 2 : 0;
}

typedef struct {
    double mean, weight;
} mean_t;

static int cmp_mean(const void *a, const void *b)
{
    double x = ((const mean_t *)a)->mean, y = ((const mean_t *)b)->mean;
    return (x > y) - (x < y);
}

/* Coverage of a GFA graph: the k-mer-weighted median of its segments' mean counts. */
double sg_coverage_of_graph(const sg_graph_t *g)
{
    mean_t *m = sg_malloc((g->n + 1) * sizeof *m);
    double total = 0, half = 0, cov = 1;
    for (uint32_t i = 0; i < g->n; i++) {
        m[i].mean = g->kmers[i] ? g->count_sum[i] / g->kmers[i] : 0;
        m[i].weight = (double)g->kmers[i];
        total += m[i].weight;
    }
    qsort(m, g->n, sizeof *m, cmp_mean);
    for (uint32_t i = 0; i < g->n; i++) {
        half += m[i].weight;
        if (half >= total / 2) {
            cov = m[i].mean > 0 ? m[i].mean : 1;
            break;
        }
    }
    free(m);
    return cov;
}

void sg_spectrum_of_graph(const sg_graph_t *g, uint64_t *hist, int n, sg_spectrum_t *sp)
{
    memset(hist, 0, (size_t)n * sizeof *hist);
    *sp = (sg_spectrum_t){.hist = hist, .n = n, .k = g->k, .graph = 1};
    double total = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        double mean = g->kmers[i] ? g->count_sum[i] / g->kmers[i] : 0; /* depths are finite, 0 or more */
        hist[mean < n - 1 ? (int)lround(mean) : n - 1] += g->kmers[i];
        sp->distinct += g->kmers[i];
        total += g->count_sum[i];
    }
    sp->total = total + 0.5 < 0x1p64 ? (uint64_t)(total + 0.5) : UINT64_MAX;
    sp->kept = sp->distinct;
    /* a median, not a peak: no peak to mark */
    sp->cov = (sg_coverage_t){.coverage = sg_coverage_of_graph(g), .clear = 1};
}
