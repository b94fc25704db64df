/* scc -g overlap's pieces: the read set, minimizer sketches against a brute
 * force, overlaps of simulated reads against where the reads come from,
 * miniasm's classification, and the period and unit of tandem arrays. */
#include <math.h>
#include <string.h>

#include "scc/overlap/paf.h"
#include "core/dna.h"
#include "core/log.h"
#include "scc/overlap/minimizer.h"
#include "scc/overlap/overlap.h"
#include "scc/period.h"
#include "scc/overlap/readset.h"
#include "unit.h"
#include "overlap_fixture.h"

/* ---- the read set ---- */

static void test_readset(void)
{
    char *reads[40];
    for (int i = 0; i < 40; i++) {
        size_t n = unit_below(3) ? (size_t)unit_below(3000) : 0;
        reads[i] = random_seq(n);
        for (size_t j = 0; j < n; j++) {
            if (unit_below(200) == 0) reads[i][j] = "NnRy-"[unit_below(5)];
            else if (unit_below(5) == 0) reads[i][j] = (char)(reads[i][j] | 0x20);
        }
    }
    for (size_t piece = 7; piece < 100000; piece *= 13) {
        sg_readset_t *rs = make_readset(reads, 40, 500, piece);
        CHECK(sg_readset_n(rs) == 40, "%u reads", sg_readset_n(rs));
        for (uint32_t i = 0; i < 40; i++) {
            size_t n = strlen(reads[i]);
            char name[32];
            snprintf(name, sizeof name, "r%u", i);
            CHECK(sg_readset_len(rs, i) == n && !strcmp(sg_readset_name(rs, i), name) &&
                      sg_readset_find(rs, name, strlen(name)) == i && sg_readset_stored(rs, i) == (n >= 500),
                  "read %u (piece %zu)", i, piece);
            if (n < 500) continue;
            char *s = malloc(n + 1);
            sg_readset_spell(rs, i, s);
            int ok = 1;
            for (size_t j = 0; j < n; j++) {
                int c = sg_dna_code(reads[i][j]);
                ok &= s[j] == (c < 0 ? 'N' : sg_dna_letter(c));
            }
            CHECK(ok, "read %u spelled back (piece %zu)", i, piece);
            free(s);
        }
        CHECK(sg_readset_find(rs, "r40", 3) == -1 && sg_readset_find(rs, "r1x", 3) == -1, "absent names");
        sg_readset_free(rs);
    }
    for (int i = 0; i < 40; i++) free(reads[i]);
}

/* ---- sketches against a brute force ---- */

/* The minimizers by brute force: every window of w consecutive k-mers of a
 * stretch of A/C/G/T (homopolymer-compressed when hpc), its smallest hash,
 * the last on a tie, each once. Positions are those of the k-mer's last
 * base (the first of its run). */
static size_t brute_sketch(const char *s, int k, int w, int hpc, sg_mini_t *out)
{
    size_t n = strlen(s), m = 0;
    char *c = malloc(n + 1);
    uint32_t *pos = malloc((n + 1) * sizeof *pos);
    sg_mini_t *km = malloc((n + 1) * sizeof *km);
    for (size_t a = 0; a < n;) {
        while (a < n && !strchr("ACGT", s[a])) a++;
        size_t b = a, nc = 0;
        while (b < n && strchr("ACGT", s[b])) {
            if (!hpc || !nc || c[nc - 1] != s[b]) c[nc] = s[b], pos[nc++] = (uint32_t)b;
            b++;
        }
        size_t nk = 0;
        for (size_t e = k - 1; e < nc; e++) {
            char f[32], *r;
            memcpy(f, c + e + 1 - k, k);
            f[k] = 0;
            r = revcomp(f, k);
            int z = strcmp(r, f) < 0;
            const char *canon = z ? r : f;
            uint64_t x = 0;
            for (int i = 0; i < k; i++) x = x << 2 | (uint64_t)(strchr("ACGT", canon[i]) - "ACGT");
            km[nk++] = (sg_mini_t){sg_kmer64_hash(x) >> (64 - 2 * k), pos[e], (uint32_t)z};
            free(r);
        }
        size_t last = SIZE_MAX;
        for (size_t st = 0; st + w <= nk; st++) {
            size_t best = st;
            for (size_t j = st + 1; j < st + w; j++)
                if (km[j].h <= km[best].h) best = j;
            if (best != last) out[m++] = km[best], last = best;
        }
        a = b;
    }
    free(c);
    free(pos);
    free(km);
    return m;
}

static void test_sketch(void)
{
    static const int ks[] = {11, 15, 19}, ws[] = {1, 2, 5, 10};
    sg_mini_t *got = NULL, *want = malloc(20000 * sizeof *want);
    size_t m = 0;
    for (int round = 0; round < 200; round++) {
        size_t n = unit_below(3000);
        char *s = random_seq(n);
        for (size_t j = 0; j < n; j++) { /* homopolymers, repeats and breaks */
            if (unit_below(300) == 0) s[j] = 'N';
            else if (j && unit_below(4) == 0) s[j] = s[j - 1];
            else if (j > 20 && unit_below(50) == 0) s[j] = s[j - 1 - unit_below(20)];
        }
        uint8_t *codes = malloc(n + 1);
        for (size_t j = 0; j < n; j++) codes[j] = sg_dna_code(s[j]) < 0 ? 4 : (uint8_t)sg_dna_code(s[j]);
        int k = ks[round % 3], w = ws[round / 3 % 4], hpc = round / 12 % 2;
        size_t ng = sg_sketch(codes, (uint32_t)n, k, w, hpc, &got, &m), nw = brute_sketch(s, k, w, hpc, want);
        int ok = ng == nw;
        for (size_t i = 0; ok && i < ng; i++) ok = got[i].h == want[i].h && got[i].pos == want[i].pos && got[i].rev == want[i].rev;
        CHECK(ok, "round %d (k %d, w %d, hpc %d, %zu bases): %zu minimizers, want %zu", round, k, w, hpc, n, ng, nw);
        free(codes);
        free(s);
        if (!ok) break;
    }
    free(got);
    free(want);
}

/* ---- overlaps of simulated reads ---- */

/* Where an overlap's span on read r lies on the genome (reads without errors: exact). */
static void on_genome(const place_t *p, uint32_t s, uint32_t e, size_t *gs, size_t *ge)
{
    size_t len = p->end - p->start;
    *gs = p->rev ? p->start + (len - e) : p->start + s;
    *ge = p->rev ? p->start + (len - s) : p->start + e;
}

static void test_overlaps_exact(void)
{
    size_t glen = 60000;
    char *g = random_seq(glen);
    place_t pl[150];
    char **reads = simulate(g, glen, 150, 3000, 9000, 0, pl);
    sg_readset_t *rs = make_readset(reads, 150, 1000, 1 << 16);
    sg_ovl_opts_t o;
    sg_ovl_opts_default(&o, 2, 1000);
    ovls_t got = {0};
    sg_ovl_stats_t st;
    CHECK(sg_overlaps_find(rs, &o, collect, &got, &st, NULL, 0) == 0, "overlaps");
    /* every overlap is where the reads are: both spans the same stretch of the genome, on the right strands */
    int bad = 0;
    static uint8_t seen[150][150];
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < got.n; i++) {
        const sg_overlap_t *x = &got.ov[i];
        size_t a0, a1, b0, b1;
        on_genome(&pl[x->q], x->qs, x->qe, &a0, &a1);
        on_genome(&pl[x->t], x->ts, x->te, &b0, &b1);
        int ok = x->q > x->t && x->rev == (pl[x->q].rev != pl[x->t].rev) && labs((long)a0 - (long)b0) <= 30 &&
                 labs((long)a1 - (long)b1) <= 30 && x->identity > 0.99f;
        if (!ok && bad++ < 5)
            fprintf(stderr, "  overlap r%u %u-%u / r%u %u-%u %c: genome %zu-%zu / %zu-%zu, identity %.3f\n", x->q, x->qs,
                    x->qe, x->t, x->ts, x->te, x->rev ? '-' : '+', a0, a1, b0, b1, x->identity);
        seen[x->q][x->t] = 1;
    }
    CHECK(!bad, "%d of %zu overlaps are not where the reads are", bad, got.n);
    /* and every pair of reads that shares 1200 bases or more is found */
    int missed = 0, want = 0;
    for (int i = 0; i < 150; i++)
        for (int j = 0; j < i; j++) {
            size_t s = pl[i].start > pl[j].start ? pl[i].start : pl[j].start, e = pl[i].end < pl[j].end ? pl[i].end : pl[j].end;
            if (e < s + 1200) continue;
            want++;
            missed += !seen[i][j];
        }
    CHECK(want > 500 && !missed, "%d of %d overlapping pairs missed", missed, want);
    free(got.ov);
    sg_readset_free(rs);
    for (int i = 0; i < 150; i++) free(reads[i]);
    free(reads);
    free(g);
}

static void test_overlaps_errors(void)
{
    /* reads of 92% accuracy (random insertions, which homopolymer compression
     * cannot absorb: minimap2 finds 74% of these dovetails at 12%): the
     * dovetails of 2.5 kb and more are found, none that is not there */
    size_t glen = 100000;
    char *g = random_seq(glen);
    int n = 250;
    place_t *pl = malloc(n * sizeof *pl);
    char **reads = simulate(g, glen, n, 4000, 12000, 0.08, pl);
    sg_readset_t *rs = make_readset(reads, n, 2000, 1 << 20);
    sg_ovl_opts_t o;
    sg_ovl_opts_default(&o, 2, 2000);
    ovls_t got = {0};
    sg_ovl_stats_t st;
    CHECK(sg_overlaps_find(rs, &o, collect, &got, &st, NULL, 0) == 0, "overlaps");
    uint8_t *seen = calloc((size_t)n * n, 1);
    int wrong = 0, dove = 0;
    for (size_t i = 0; i < got.n; i++) {
        const sg_overlap_t *x = &got.ov[i];
        size_t s = pl[x->q].start > pl[x->t].start ? pl[x->q].start : pl[x->t].start;
        size_t e = pl[x->q].end < pl[x->t].end ? pl[x->q].end : pl[x->t].end;
        wrong += e < s + 1000 || x->rev != (pl[x->q].rev != pl[x->t].rev);
        uint32_t f, t, l;
        if (sg_overlap_classify(x, sg_readset_len(rs, x->q), sg_readset_len(rs, x->t), 2000, &f, &t, &l) == SG_OVL_DOVETAIL)
            seen[(size_t)x->q * n + x->t] = 1, dove++;
    }
    CHECK(!wrong, "%d of %zu overlaps join reads that do not overlap", wrong, got.n);
    int want = 0, found = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            const place_t *a = &pl[i], *b = &pl[j];
            size_t s = a->start > b->start ? a->start : b->start, e = a->end < b->end ? a->end : b->end;
            /* a clear dovetail: each read sticks out 1.5 kb beyond the other */
            if (e < s + 2500 || (a->start < b->start) != (a->end < b->end)) continue;
            if (labs((long)a->start - (long)b->start) < 1500 || labs((long)a->end - (long)b->end) < 1500) continue;
            want++;
            found += seen[(size_t)i * n + j];
        }
    CHECK(want > 300 && found >= 0.95 * want, "dovetails found: %d of %d", found, want);
    free(seen);
    free(got.ov);
    sg_readset_free(rs);
    for (int i = 0; i < n; i++) free(reads[i]);
    free(reads);
    free(pl);
    free(g);
}

static void test_self_overlap(void)
{
    /* reads inside an array overlap themselves at a multiple of the period:
     * a dovetail of a read with itself, on both strands */
    char *u = random_seq(500), *arr = tandem(u, 40000, 0.02);
    place_t pl[30];
    char **reads = simulate(arr, 40000, 30, 6000, 9000, 0.08, pl);
    sg_readset_t *rs = make_readset(reads, 30, 2000, 1 << 20);
    sg_ovl_opts_t o;
    sg_ovl_opts_default(&o, 2, 2000);
    ovls_t got = {0};
    sg_ovl_stats_t st;
    CHECK(sg_overlaps_find(rs, &o, collect, &got, &st, NULL, 0) == 0, "overlaps");
    uint8_t self[30] = {0};
    int off_period = 0;
    for (size_t i = 0; i < got.n; i++) {
        const sg_overlap_t *x = &got.ov[i];
        uint32_t f, t, l;
        if (x->q != x->t || x->rev) continue;
        if (sg_overlap_classify(x, sg_readset_len(rs, x->q), sg_readset_len(rs, x->q), 2000, &f, &t, &l) != SG_OVL_DOVETAIL || f != t)
            continue;
        self[x->q] = 1;
        /* the offset is a multiple of the period (reads stretched by their insertions up to 6%) */
        double off = (double)x->ts - x->qs, m = floor(off / 500 + 0.5);
        off_period += m < 1 || fabs(off - m * 500) > 0.06 * off + 30;
    }
    int n_self = 0;
    for (int i = 0; i < 30; i++) n_self += self[i];
    CHECK(n_self >= 27 && !off_period, "%d of 30 reads overlap themselves; %d at offsets off the period", n_self, off_period);
    free(got.ov);
    sg_readset_free(rs);
    for (int i = 0; i < 30; i++) free(reads[i]);
    free(reads);
    free(arr);
    free(u);
}

static void test_long_tandem(void)
{
    /* long reads inside a long array (ONT reads through a centromeric
     * satellite): every occurrence of a minimizer of the unit pairs with
     * every other, hits that grow with the square of the reads' length
     * (gigabytes for a few reads of hundreds of kb); the hits stay linear in
     * the minimizers, and every read still overlaps itself at a multiple of
     * the period and has dovetails with the others on both sides */
    enum { N = 3, LEN = 200000 };
    char *u = random_seq(171), *arr = tandem(u, 3 * LEN, 0.01);
    char *reads[N];
    for (int i = 0; i < N; i++) {
        size_t m;
        reads[i] = with_errors(arr + (size_t)i * LEN / 2, LEN, 0.05, &m);
    }
    sg_readset_t *rs = make_readset(reads, N, 2000, 1 << 20);
    sg_ovl_opts_t o;
    sg_ovl_opts_default(&o, 2, 2000);
    ovls_t got = {0};
    sg_ovl_stats_t st;
    CHECK(sg_overlaps_find(rs, &o, collect, &got, &st, NULL, 0) == 0, "overlaps");
    CHECK(st.hits <= 16 * st.minimizers + N * (1u << 20), "%llu hits from %llu minimizers",
          (unsigned long long)st.hits, (unsigned long long)st.minimizers);
    uint8_t self[N] = {0}, reach[2 * N][2 * N] = {{0}};
    int off_period = 0;
    for (size_t i = 0; i < got.n; i++) {
        const sg_overlap_t *x = &got.ov[i];
        uint32_t f, t, l;
        if (sg_overlap_classify(x, sg_readset_len(rs, x->q), sg_readset_len(rs, x->t), 2000, &f, &t, &l) != SG_OVL_DOVETAIL)
            continue;
        if (f == t) {
            self[x->q] = 1;
            double off = (double)x->ts - x->qs, m = floor(off / 171 + 0.5);
            off_period += !x->rev && (m < 1 || fabs(off - m * 171) > 0.06 * off + 30);
        } else { /* the edge and its complement */
            reach[f][t] = 1;
            reach[sg_vert_flip(t)][sg_vert_flip(f)] = 1;
        }
    }
    for (int k = 0; k < 2 * N; k++)
        for (int i = 0; i < 2 * N; i++)
            for (int j = 0; j < 2 * N; j++) reach[i][j] |= reach[i][k] && reach[k][j];
    /* the reads all lie on the array's forward strand: one cycle through them */
    int n_self = 0, n_both = 0;
    for (int i = 0; i < N; i++) {
        n_self += self[i];
        for (int j = i + 1; j < N; j++) n_both += reach[sg_vert(i, 0)][sg_vert(j, 0)] && reach[sg_vert(j, 0)][sg_vert(i, 0)];
    }
    CHECK(n_self == N && !off_period, "%d of %d reads overlap themselves; %d at offsets off the period", n_self, N, off_period);
    CHECK(n_both == N * (N - 1) / 2, "%d of %d pairs of reads in one cycle", n_both, N * (N - 1) / 2);
    free(got.ov);
    sg_readset_free(rs);
    for (int i = 0; i < N; i++) free(reads[i]);
    free(arr);
    free(u);
}

/* ---- classification ---- */

static void test_classify(void)
{
    uint32_t f = 9, t = 9, l = 0;
    /* q 10 kb, t 8 kb, same strand, q's last 3 kb over t's first 3 kb: q+ -> t+ */
    sg_overlap_t o = {.q = 3, .t = 5, .qs = 7000, .qe = 10000, .ts = 0, .te = 3000, .rev = 0};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_DOVETAIL && f == sg_vert(3, 0) &&
              t == sg_vert(5, 0) && l == 3000, "q+ -> t+: %u %u %u", f, t, l);
    /* the same with t on the other strand: t's last 3 kb, reversed */
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 7000, .qe = 10000, .ts = 5000, .te = 8000, .rev = 1};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_DOVETAIL && f == sg_vert(3, 0) &&
              t == sg_vert(5, 1), "q+ -> t-: %u %u", f, t);
    /* t first: t's last 3 kb over q's first 3 kb: t+ -> q+, written from q as q- -> t- */
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 0, .qe = 3000, .ts = 5000, .te = 8000, .rev = 0};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_DOVETAIL && f == sg_vert(3, 1) &&
              t == sg_vert(5, 1), "q- -> t-: %u %u", f, t);
    /* ends left unmatched, within 1000 bases: still a dovetail */
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 7300, .qe = 9800, .ts = 300, .te = 2800, .rev = 0};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_DOVETAIL, "hangs");
    /* hangs of 600 and 300 bases beside a match of 2.9 kb: less than 80% of the overlap, internal */
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 6500, .qe = 9400, .ts = 300, .te = 3100, .rev = 0};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_INTERNAL, "long hangs");
    /* containments, both ways */
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 100, .qe = 7900, .ts = 1000, .te = 8800, .rev = 0};
    CHECK(sg_overlap_classify(&o, 8000, 10000, 2000, &f, &t, &l) == SG_OVL_Q_CONTAINED, "q contained");
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 1000, .qe = 8800, .ts = 0, .te = 8000, .rev = 1};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_T_CONTAINED, "t contained");
    /* a shared repeat in the middle of both: internal */
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 4000, .qe = 7000, .ts = 2000, .te = 5000, .rev = 0};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_INTERNAL, "internal");
    /* a dovetail of 1.5 kb, shorter than the minimum */
    o = (sg_overlap_t){.q = 3, .t = 5, .qs = 8500, .qe = 10000, .ts = 0, .te = 1500, .rev = 0};
    CHECK(sg_overlap_classify(&o, 10000, 8000, 2000, &f, &t, &l) == SG_OVL_SHORT, "short");
    /* a read over itself, one period on: a loop */
    o = (sg_overlap_t){.q = 4, .t = 4, .qs = 0, .qe = 8000, .ts = 2000, .te = 10000, .rev = 0};
    CHECK(sg_overlap_classify(&o, 10000, 10000, 2000, &f, &t, &l) == SG_OVL_DOVETAIL && f == t && l == 8000, "self: %u %u", f, t);
}

/* ---- periods ---- */

static void test_period(void)
{
    static const int periods[] = {6, 13, 42, 171, 360, 1000, 2000};
    for (size_t pi = 0; pi < sizeof periods / sizeof *periods; pi++) {
        int p = periods[pi];
        char *u;
        do { /* a primitive unit: not a power of a shorter one */
            u = random_seq(p);
            int prim = 1;
            for (int d = 1; d < p && prim; d++)
                if (p % d == 0) {
                    int same = 1;
                    for (int i = d; i < p && same; i++) same = u[i] == u[i - d];
                    prim = !same;
                }
            if (prim) break;
            free(u);
        } while (1);
        char *arr = tandem(u, 60000, 0.02);
        place_t pl[40];
        char **reads = simulate(arr, 60000, 40, 5000, 12000, 0.1, pl);
        uint32_t lens[40];
        for (int i = 0; i < 40; i++) lens[i] = (uint32_t)strlen(reads[i]);
        sg_period_t per;
        sg_period_find((const char *const *)reads, lens, 40, &per);
        char *want = sg_canonical_unit(u, p);
        /* short units come back exactly; long ones within 1% */
        int ok = per.tandem && (p <= 171 ? per.period == (uint32_t)p && !strcmp(per.unit, want)
                                          : fabs((double)per.period - p) <= 0.01 * p);
        CHECK(ok, "period %d: got %u (%s, support %.2f, %u copies), unit %.30s, want %.30s", p, per.period,
              per.tandem ? "tandem" : "complex", per.support, per.copies, per.unit, want);
        sg_period_free(&per);
        free(want);
        for (int i = 0; i < 40; i++) free(reads[i]);
        free(reads);
        free(arr);
        free(u);
    }
    /* reads of unique sequence: no period (their few chance repeats lie at
     * any distance: once a short period's tolerance covered them all); nor
     * in sequence as a genome's is, with homopolymers up to 20 bases,
     * microsatellites of 20 to 60 bases and a diverged 300-base family
     * with its poly-A tail (period 1 divides every distance; one of 18
     * bases was called an array of 14,728 copies) */
    char *family = random_seq(300);
    for (int trial = 0; trial < 30; trial++) {
        char *reads[14];
        uint32_t lens[14];
        for (int i = 0; i < 14; i++) {
            char *r = reads[i] = random_seq(lens[i] = 10000);
            for (uint32_t at = unit_below(400); trial % 2 && at + 400 < lens[i]; at += 300 + unit_below(700)) {
                int what = unit_below(3), n = 13 + unit_below(8);
                if (what == 0) memset(r + at, "ACGT"[unit_below(4)], n); /* a homopolymer */
                else if (what == 1) {                                     /* a microsatellite */
                    int u = 2 + unit_below(3), len = 20 + unit_below(41);
                    for (int j = u; j < len; j++) r[at + j] = r[at + j - u];
                } else { /* the family, 12% diverged, and its tail */
                    size_t m;
                    char *c = with_errors(family, 300, 0.12, &m);
                    memcpy(r + at, c, m < 300 ? m : 300);
                    memset(r + at + 300, 'A', 20);
                    free(c);
                }
            }
            if (trial % 3 == 2) { /* as reads of 97% */
                size_t m;
                char *e = with_errors(r, lens[i], 0.03, &m);
                free(r);
                reads[i] = e;
                lens[i] = (uint32_t)m;
            }
        }
        sg_period_t per;
        sg_period_find((const char *const *)reads, lens, 14, &per);
        CHECK(!per.tandem && !per.period && !per.unit[0], "unique sequence, trial %d: %s, period %u, unit %.20s, support %.2f, share %.3f",
              trial, per.tandem ? "tandem" : "complex", per.period, per.unit, per.support, per.share);
        sg_period_free(&per);
        for (int i = 0; i < 14; i++) free(reads[i]);
    }
    free(family);
    /* an array of period 40 in such reads, 4 kb of each: found; and where it lies */
    char *u40 = random_seq(40);
    for (int trial = 0; trial < 5; trial++) {
        char *reads[14];
        uint32_t lens[14];
        for (int i = 0; i < 14; i++) {
            char *r = reads[i] = random_seq(lens[i] = 10000);
            for (uint32_t at = 100; at + 100 < lens[i]; at += 700) memset(r + at, 'A', 18);
            char *arr = tandem(u40, 4000, 0.02);
            memcpy(r + 3000, arr, 4000);
            free(arr);
        }
        sg_period_t per;
        sg_period_find((const char *const *)reads, lens, 14, &per);
        CHECK(per.period == 40 && !per.tandem && per.share > 0.35 && per.share < 0.45,
              "a 4 kb array of period 40 in reads of 10 kb, trial %d: %s, period %u, share %.3f", trial,
              per.tandem ? "tandem" : "complex", per.period, per.share);
        sg_period_extent_t e;
        sg_period_extent(reads[0], lens[0], 40, &e);
        CHECK(e.start >= 2900 && e.start <= 3100 && e.end >= 6900 && e.end <= 7100 && e.longest >= 3800,
              "the array at 3000-7000: %u-%u, longest %u", e.start, e.end, e.longest);
        sg_period_free(&per);
        for (int i = 0; i < 14; i++) free(reads[i]);
    }
    free(u40);
}

/* sg_paf_write's lines are printf's, byte for byte: random overlaps, and
 * identities whose divergence lies on a rounding tie of %.4f and near it. */
static void test_paf_write(void)
{
    char *reads[2] = {random_seq(5000), random_seq(7000)};
    sg_readset_t *rs = make_readset(reads, 2, 1, 1 << 16);
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
    for (int i = 0; i < 200000; i++) {
        sg_overlap_t o = {.q = (uint32_t)(i & 1), .t = (uint32_t)(~i & 1), .rev = (uint8_t)(i % 3 == 0),
                          .anchors = (uint32_t)rand()};
        o.qs = (uint32_t)(rand() % 4000), o.qe = o.qs + (uint32_t)(rand() % 1000);
        o.ts = (uint32_t)(rand() % 4000), o.te = o.ts + (uint32_t)(rand() % 1000);
        if (i % 4 == 0) o.identity = (float)rand() / (float)RAND_MAX;
        else if (i % 4 == 1) o.identity = 1 - (float)(rand() % 20001) / 20000; /* ties of the fourth decimal */
        else if (i % 4 == 2) o.identity = nextafterf(1 - (float)(rand() % 20001) / 20000, i & 8 ? 0.0f : 2.0f);
        else o.identity = (float)(i % 5 == 0);
        if (o.identity > 1) o.identity = 1;
        sg_paf_write(fa, rs, &o);
        uint32_t span = o.qe - o.qs > o.te - o.ts ? o.qe - o.qs : o.te - o.ts;
        fprintf(fb, "%s\t%u\t%u\t%u\t%c\t%s\t%u\t%u\t%u\t%.0f\t%u\t255\ttp:A:S\tcm:i:%u\tdv:f:%.4f\n",
                sg_readset_name(rs, o.q), sg_readset_len(rs, o.q), o.qs, o.qe, o.rev ? '-' : '+', sg_readset_name(rs, o.t),
                sg_readset_len(rs, o.t), o.ts, o.te, floor(o.identity * span + 0.5), span, o.anchors, 1 - o.identity);
    }
    fclose(fa);
    fclose(fb);
    size_t at = 0;
    while (at < na && at < nb && a[at] == b[at]) at++;
    CHECK(na == nb && at == na, "sg_paf_write differs from printf at byte %zu: '%.80s' against '%.80s'", at, a + at, b + at);
    free(a);
    free(b);
    sg_readset_free(rs);
    free(reads[0]);
    free(reads[1]);
}

int main(void)
{
    sg_log_init("unit_overlap", 2);
    RUN(test_paf_write);
    RUN(test_readset);
    RUN(test_sketch);
    RUN(test_overlaps_exact);
    RUN(test_overlaps_errors);
    RUN(test_self_overlap);
    RUN(test_classify);
    RUN(test_period);
    RUN(test_long_tandem);
    return UNIT_SUMMARY();
}
