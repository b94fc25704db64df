/* The pieces of an assembly's loci: the identity between a tandem array's
 * copies (banded) against a full edit distance, the distance spectrum
 * against a scan back from every k-mer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scc/loci.h"
#include "unit.h"

static const char ACGT[] = "ACGT";

/* A tandem array of c copies of a random unit of p bases, each copy with
 * substitutions at rate sub and at most one 1-base insertion or deletion
 * in all; its length in *n. */
static char *array_of(int p, int c, double sub, int indel, uint64_t *n)
{
    char *u = malloc((size_t)p), *s = malloc((size_t)p * c + 2);
    for (int i = 0; i < p; i++) u[i] = ACGT[unit_below(4)];
    uint64_t at = 0;
    int where = indel ? unit_below(p * c) : -1;
    for (int j = 0; j < c; j++)
        for (int i = 0; i < p; i++) {
            int here = j * p + i == where;
            if (here && unit_below(2)) continue; /* a deletion */
            s[at++] = unit_below(1000) < sub * 1000 ? ACGT[unit_below(4)] : u[i];
            if (here) s[at++] = ACGT[unit_below(4)]; /* or an insertion */
        }
    s[at] = 0;
    free(u);
    *n = at;
    return s;
}

/* The edit distance of a[0..n) and b[0..m), every cell. */
static uint64_t edit_distance(const char *a, uint64_t n, const char *b, uint64_t m)
{
    uint64_t *row = malloc((m + 1) * sizeof *row);
    for (uint64_t j = 0; j <= m; j++) row[j] = j;
    for (uint64_t i = 1; i <= n; i++) {
        uint64_t diag = row[0];
        row[0] = i;
        for (uint64_t j = 1; j <= m; j++) {
            uint64_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    uint64_t d = row[m];
    free(row);
    return d;
}

static void test_copy_identity(void)
{
    for (int round = 0; round < 300; round++) {
        int p = 1 + unit_below(60), c = 2 + unit_below(7);
        uint64_t n;
        char *s = array_of(p, c, unit_below(3) * 0.02, unit_below(2), &n);
        double got = sg_copy_identity(s, n, (uint64_t)p);
        if (n < 2 * (uint64_t)p) {
            CHECK(got == -1, "round %d: %llu bases, period %d: %.4f for under two copies", round, (unsigned long long)n,
                  p, got);
        } else {
            /* one indel shifts the alignment a base and back: inside any band */
            double want = 1 - (double)edit_distance(s, n - p, s + p, n - p) / (double)(n - p);
            CHECK(fabs(got - fmax(want, 0)) < 1e-12, "round %d: period %d, %d copies, %llu bases: %.6f, edit distance %.6f",
                  round, p, c, (unsigned long long)n, got, want);
        }
        free(s);
    }
    /* a perfect array; a unit alone */
    CHECK(sg_copy_identity("ACGACGACGACG", 12, 3) == 1, "a perfect array");
    CHECK(sg_copy_identity("ACGTTGCA", 8, 5) == -1, "under two copies");
    CHECK(sg_copy_identity("ACGT", 4, 0) == -1, "no period");
}

static void test_distance_spectrum(void)
{
    const int k = SG_SPECTRUM_K;
    for (int round = 0; round < 100; round++) {
        uint64_t n = 1 + (uint64_t)unit_below(3000);
        char *s = malloc(n + 1);
        /* repeats at a few distances, N runs, lower case */
        for (uint64_t i = 0; i < n; i++) {
            int x = unit_below(100);
            s[i] = x < 2 ? 'N' : i >= 40 && x < 60 ? s[i - (x < 30 ? 7 : 40)] : "ACGTacgt"[unit_below(8)];
        }
        s[n] = 0;
        uint64_t *got = calloc(SG_SPECTRUM_MAX + 1, sizeof *got), *want = calloc(SG_SPECTRUM_MAX + 1, sizeof *want);
        sg_distance_spectrum(s, n, got);
        /* every k-mer of A/C/G/T (either case) against the nearest earlier one */
        for (uint64_t i = 0; i + k <= n; i++) {
            int ok = 1;
            for (int j = 0; j < k; j++) ok &= strchr("ACGTacgt", s[i + j]) != NULL;
            if (!ok) continue;
            for (uint64_t j = i; j-- > 0;) {
                int same = 1;
                for (int t = 0; t < k && same; t++) same = strchr("ACGTacgt", s[j + t]) && (s[j + t] | 0x20) == (s[i + t] | 0x20);
                if (same) {
                    if (i - j <= SG_SPECTRUM_MAX) want[i - j]++;
                    break;
                }
            }
        }
        CHECK(!memcmp(got, want, (SG_SPECTRUM_MAX + 1) * sizeof *got), "round %d: %llu bases", round,
              (unsigned long long)n);
        free(got);
        free(want);
        free(s);
    }
}

int main(void)
{
    RUN(test_copy_identity);
    RUN(test_distance_spectrum);
    return UNIT_SUMMARY();
}
