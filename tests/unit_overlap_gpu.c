/* The overlapper's minimizer index on a CUDA device against the host's: the
 * device's sorted, filtered records and partitions against a brute force
 * from the host's sketches (sg_sketch, every stored read, a stable sort,
 * runs of two or more), over reads with N and IUPAC runs, reads too short
 * to be stored, homopolymers, tandem arrays and empty sets; and the
 * overlaps found with either index and the device's chaining, byte for
 * byte, its failures falling back to the host's. Skipped without a
 * device, failed without one when SEQGPU_REQUIRE names cuda. */
#include <stdio.h>

#include "unit.h"

#ifdef SG_HAVE_CUDA
#include <stdlib.h>
#include <string.h>

#include "cuda/scc/backend.h"
#include "registry.h"
#include "core/log.h"
#include "scc/overlap/minimizer.h"
#include "overlap_fixture.h"

typedef struct {
    uint64_t h;
    uint32_t rid, ps;
} occ_t;

static int cmp_occ(const void *a, const void *b)
{
    const occ_t *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    if (x->rid != y->rid) return x->rid < y->rid ? -1 : 1;
    return x->ps < y->ps ? -1 : x->ps > y->ps;
}

static sg_mindex_t *device_index(void)
{
    char err[512] = "";
    sg_graph_opts_t go = {0};
    sg_mindex_t *x = NULL;
    int r = sg_mindex_cuda(&go, &x, err, sizeof err);
    CHECK(r == 0, "sg_mindex_cuda: %s", err);
    return r == 0 ? x : NULL;
}

/* The device's index of rs against the brute force; what says which set. */
static void check_index(const sg_readset_t *rs, const char *what)
{
    sg_mindex_t *x = device_index();
    if (!x) return;
    sg_ovl_opts_t o;
    sg_ovl_opts_default(&o, 2, 1000);
    const int hb = 2 * o.k - SG_OVL_PART_BITS;
    /* the brute force: every stored read's minimizers, sorted by hash, read, position */
    occ_t *all = NULL;
    size_t n = 0, m = 0;
    sg_mini_t *mini = NULL;
    size_t m_mini = 0;
    for (uint32_t i = 0; i < sg_readset_n(rs); i++) {
        if (!sg_readset_stored(rs, i)) continue;
        uint32_t len = sg_readset_len(rs, i);
        uint8_t *codes = malloc(len + 1);
        sg_readset_codes(rs, i, codes);
        size_t k = sg_sketch(codes, len, o.k, o.w, o.hpc, &mini, &m_mini);
        for (size_t j = 0; j < k; j++) {
            if (n == m) all = realloc(all, (m = m ? 2 * m : 1024) * sizeof *all);
            all[n++] = (occ_t){mini[j].h, i, mini[j].pos << 1 | mini[j].rev};
        }
        free(codes);
    }
    if (n) qsort(all, n, sizeof *all, cmp_occ);
    occ_t *kept = malloc((n + 1) * sizeof *kept);
    size_t n_kept = 0, want_part[SG_OVL_PARTS + 1] = {0};
    for (size_t i = 0; i < n; i++)
        if ((i > 0 && all[i - 1].h == all[i].h) || (i + 1 < n && all[i + 1].h == all[i].h)) {
            kept[n_kept++] = all[i];
            want_part[(all[i].h >> hb) + 1]++;
        }
    for (int p = 0; p < SG_OVL_PARTS; p++) want_part[p + 1] += want_part[p];
    sg_mrec_t *got = NULL;
    size_t part[SG_OVL_PARTS + 1];
    uint64_t sketched = 0;
    char err[512] = "";
    int r = x->build(x, rs, &o, &got, part, &sketched, err, sizeof err);
    CHECK(r == 0, "%s: build: %s", what, err);
    if (r == 0) {
        CHECK(sketched == n, "%s: %llu minimizers sketched, want %zu", what, (unsigned long long)sketched, n);
        CHECK(!memcmp(part, want_part, sizeof part), "%s: partitions differ (%zu kept, want %zu)", what,
              part[SG_OVL_PARTS], want_part[SG_OVL_PARTS]);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n_kept && i < part[SG_OVL_PARTS]; i++) {
            const uint32_t lo = (uint32_t)(kept[i].h & ((1ull << hb) - 1));
            if (got[i].hlo != lo || got[i].rid != kept[i].rid || got[i].ps != kept[i].ps) {
                if (!bad++) first = i;
            }
        }
        CHECK(!bad, "%s: %zu records differ, the first at %zu of %zu", what, bad, first, n_kept);
    }
    free(got);
    free(kept);
    free(all);
    free(mini);
    x->free(x);
}

/* Reads of random sequence and lengths, some with runs of N or IUPAC
 * letters, some homopolymer-rich, some too short to be stored. */
static void test_index_random(void)
{
    for (int round = 0; round < 4; round++) {
        int n = 20 + unit_below(60);
        char **reads = malloc(n * sizeof *reads);
        for (int i = 0; i < n; i++) {
            size_t len = unit_below(5) == 0 ? unit_below(900) : 1000 + unit_below(12000);
            reads[i] = random_seq(len);
            if (unit_below(3) == 0) /* homopolymers: runs of one base */
                for (size_t j = 0; j + 8 < len; j += 20 + unit_below(50)) memset(reads[i] + j, "ACGT"[unit_below(4)], 2 + unit_below(7));
            if (unit_below(3) == 0) /* N and IUPAC runs, at the ends too */
                for (int a = 0; a < 1 + unit_below(4) && len; a++) {
                    size_t at = unit_below(4) == 0 ? 0 : unit_below((int)len), l = 1 + unit_below(40);
                    for (size_t j = at; j < at + l && j < len; j++) reads[i][j] = "NRYnK"[unit_below(5)];
                }
            if (i > 0 && unit_below(2)) { /* a copy of an earlier read's stretch: shared minimizers */
                size_t pl = strlen(reads[i - 1]), l = pl < len ? pl : len;
                memcpy(reads[i], reads[i - 1], l / 2);
            }
        }
        sg_readset_t *rs = make_readset(reads, n, 1000, 1 << 14);
        char what[32];
        snprintf(what, sizeof what, "random round %d", round);
        check_index(rs, what);
        sg_readset_free(rs);
        for (int i = 0; i < n; i++) free(reads[i]);
        free(reads);
    }
}

/* A tandem array: large buckets, a read holding one minimizer many times. */
static void test_index_tandem(void)
{
    place_t pl[40];
    char *u = random_seq(60), *arr = tandem(u, 30000, 0.02);
    char **reads = simulate(arr, 30000, 40, 3000, 9000, 0.08, pl);
    sg_readset_t *rs = make_readset(reads, 40, 2000, 1 << 16);
    check_index(rs, "tandem array");
    sg_readset_free(rs);
    for (int i = 0; i < 40; i++) free(reads[i]);
    free(reads);
    free(arr);
    free(u);
}

/* No read stored (all too short), one read, and reads without A/C/G/T. */
static void test_index_empty(void)
{
    char *shorts[3] = {"ACGTACGTAC", "", "ACGTTTGCA"};
    sg_readset_t *rs = make_readset(shorts, 3, 1000, 1 << 10);
    check_index(rs, "no read stored");
    sg_readset_free(rs);
    char *one[1] = {random_seq(5000)};
    rs = make_readset(one, 1, 1000, 1 << 10);
    check_index(rs, "one read");
    sg_readset_free(rs);
    free(one[0]);
    char *ns[2] = {malloc(3001), malloc(2001)};
    memset(ns[0], 'N', 3000), ns[0][3000] = 0;
    memset(ns[1], 'R', 2000), ns[1][2000] = 0;
    rs = make_readset(ns, 2, 1000, 1 << 10);
    check_index(rs, "no A/C/G/T");
    sg_readset_free(rs);
    free(ns[0]);
    free(ns[1]);
}

static int same_overlaps(const ovls_t *a, const ovls_t *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++) {
        const sg_overlap_t *x = &a->ov[i], *y = &b->ov[i];
        if (x->q != y->q || x->t != y->t || x->qs != y->qs || x->qe != y->qe || x->ts != y->ts || x->te != y->te ||
            x->anchors != y->anchors || x->rev != y->rev || x->identity != y->identity)
            return 0;
    }
    return 1;
}

/* What a set's repeat reads are: some (an array among unique sequence),
 * all (max_occ 1), none, or any (a set too small to say). */
enum { SOME, ALL, NONE, ANY };

/* The overlaps of rs with the device's index and chains are the host's,
 * field for field, and so are the counts; with max_occ (0: chosen) and the
 * device's chaining in batches of batch hits (NULL: as many as fit); at
 * least min_ov overlaps, and the repeat reads as reps says. */
static void overlaps_same(const sg_readset_t *rs, uint32_t max_occ, const char *batch, size_t min_ov, int reps,
                          const char *what)
{
    ovls_t cpu = {0}, gpu = {0};
    sg_ovl_stats_t sc, sd;
    sg_ovl_opts_t o;
    /* one hit a batch: one thread, few blocks in flight, so that the repeat reads' hits take many turns */
    sg_ovl_opts_default(&o, batch && !strcmp(batch, "1") ? 1 : 3, 2000);
    o.max_occ = max_occ;
    char err[512] = "";
    CHECK(sg_overlaps_find(rs, &o, collect, &cpu, &sc, err, sizeof err) == 0, "%s: cpu overlaps", what);
    if (batch) { /* (before the device's start-up thread, which reads the environment) */
        setenv("SEQGPU_CUDA_CHAIN_BATCH", batch, 1);
        setenv("SEQGPU_CUDA_CHAIN_ROOM", "16", 1); /* the chains' second pass */
    }
    o.index = device_index();
    if (o.index) {
        int r = sg_overlaps_find(rs, &o, collect, &gpu, &sd, err, sizeof err);
        CHECK(r == 0, "%s: cuda overlaps: %s", what, err);
        CHECK(cpu.n >= min_ov && same_overlaps(&cpu, &gpu), "%s: overlaps: %zu on the cpu, %zu with the device", what,
              cpu.n, gpu.n);
        CHECK(sc.minimizers == sd.minimizers && sc.indexed == sd.indexed && sc.buckets == sd.buckets &&
                  sc.max_occ == sd.max_occ && sc.rep_buckets == sd.rep_buckets && sc.hits == sd.hits &&
                  sc.repeat_reads == sd.repeat_reads,
              "%s: counts differ: minimizers %llu/%llu, indexed %llu/%llu, buckets %llu/%llu, hits %llu/%llu", what,
              (unsigned long long)sc.minimizers, (unsigned long long)sd.minimizers, (unsigned long long)sc.indexed,
              (unsigned long long)sd.indexed, (unsigned long long)sc.buckets, (unsigned long long)sd.buckets,
              (unsigned long long)sc.hits, (unsigned long long)sd.hits);
        /* every read chained on the device, the array's reads (a repeat bucket) from hits made on the host */
        uint64_t stored, bases, n_short, short_bases;
        sg_readset_totals(rs, &stored, &bases, &n_short, &short_bases);
        int reps_ok = reps == SOME ? sd.repeat_reads > 0 && sd.repeat_reads < stored / 2
                    : reps == ALL  ? sd.repeat_reads == stored
                    : reps == NONE ? sd.repeat_reads == 0
                                   : 1;
        CHECK(sc.device_reads == 0 && sd.device_reads == stored && reps_ok,
              "%s: %llu of %llu reads chained on the device, %llu repeat reads", what,
              (unsigned long long)sd.device_reads, (unsigned long long)stored, (unsigned long long)sd.repeat_reads);
        /* one hit a turn: the repeat reads' hits in more than one turn */
        CHECK(!batch || strcmp(batch, "1") || sd.repeat_reads < 2 || sd.repeat_turns > 1, "%s: %u turns of %llu repeat reads",
              what, sd.repeat_turns, (unsigned long long)sd.repeat_reads);
        o.index->free(o.index);
    }
    unsetenv("SEQGPU_CUDA_CHAIN_BATCH");
    unsetenv("SEQGPU_CUDA_CHAIN_ROOM");
    free(cpu.ov);
    free(gpu.ov);
}

/* s with a block of 50 random bases after every 600: its overlaps with
 * reads without drift 8% in diagonal, wider than a chaining window. */
static char *stretched(const char *s)
{
    size_t n = strlen(s), m = 0;
    char *out = malloc(n + n / 12 + 64), *blk = random_seq(50);
    for (size_t i = 0; i < n; i++) {
        out[m++] = s[i];
        if (i % 600 == 599) memcpy(out + m, blk, 50), m += 50;
    }
    out[m] = 0;
    free(blk);
    return out;
}

/* A chaining step that fails (SEQGPU_CUDA_CHAIN_FAULT): with fallback the
 * host chains every read, the same overlaps; without, SG_ERR_DEVICE and
 * nothing handed to the sink. */
static void chain_faults(const sg_readset_t *rs)
{
    ovls_t cpu = {0};
    sg_ovl_stats_t sc;
    sg_ovl_opts_t o;
    sg_ovl_opts_default(&o, 1, 2000); /* one thread: few blocks in flight, so many turns of one hit each */
    char err[512] = "";
    CHECK(sg_overlaps_find(rs, &o, collect, &cpu, &sc, err, sizeof err) == 0, "cpu overlaps");
    /* the last: the second turn of the repeat reads' hits fails, after a turn's chains are kept */
    const char *steps[] = {"plan", "run", "hits", "hits:2"};
    for (int i = 0; i < 4; i++)
        for (int fb = 0; fb < 2; fb++) {
            ovls_t gpu = {0};
            sg_ovl_stats_t sd;
            /* (before the device's start-up thread, which reads the environment) */
            setenv("SEQGPU_CUDA_CHAIN_FAULT", steps[i], 1);
            if (i == 3) setenv("SEQGPU_CUDA_CHAIN_BATCH", "1", 1);
            o.index = device_index();
            if (!o.index) {
                unsetenv("SEQGPU_CUDA_CHAIN_FAULT");
                unsetenv("SEQGPU_CUDA_CHAIN_BATCH");
                break;
            }
            o.fallback = fb;
            int r = sg_overlaps_find(rs, &o, collect, &gpu, &sd, err, sizeof err);
            if (fb)
                CHECK(r == 0 && sd.chain_fallback && strstr(err, "SEQGPU_CUDA_CHAIN_FAULT") && same_overlaps(&cpu, &gpu) &&
                          sd.device_reads == 0 && sd.hits == sc.hits && sd.repeat_reads == sc.repeat_reads,
                      "fault in %s, fallback: %d (%s), %zu overlaps of %zu", steps[i], r, err, gpu.n, cpu.n);
            else
                CHECK(r == SG_ERR_DEVICE && !sd.chain_fallback && gpu.n == 0 && strstr(err, "SEQGPU_CUDA_CHAIN_FAULT") &&
                          (i < 3 || sd.repeat_turns >= 2),
                      "fault in %s: %d (%s), %zu overlaps handed on, %u turns", steps[i], r, err, gpu.n, sd.repeat_turns);
            unsetenv("SEQGPU_CUDA_CHAIN_FAULT");
            unsetenv("SEQGPU_CUDA_CHAIN_BATCH");
            o.index->free(o.index);
            free(gpu.ov);
        }
    free(cpu.ov);
}

static void test_overlaps_same(void)
{
    const size_t glen = 300000;
    char *g = random_seq(glen), *u = random_seq(171), *arr = tandem(u, 40000, 0.02);
    memcpy(g + 100000, arr, 40000); /* an array inside unique sequence */
    enum { N = 300 };
    place_t pl[N];
    char **reads = simulate(g, glen, N, 2000, 12000, 0.1, pl);
    sg_readset_t *rs = make_readset(reads, N, 2000, 1 << 20);
    overlaps_same(rs, 0, NULL, 1000, SOME, "default");
    /* batches of a few reads each, and one read a batch (the repeat reads' hits in as many turns) */
    overlaps_same(rs, 0, "30000", 1000, SOME, "batches of 30000 hits");
    overlaps_same(rs, 0, "1", 1000, SOME, "one read a batch");
    /* no bucket above max_occ: only reads holding a minimizer more than 16 times (the array's) are repeat reads */
    overlaps_same(rs, 1u << 30, NULL, 1000, SOME, "max_occ 2^30");
    /* every bucket above max_occ: every read a repeat read, its hits made on the host */
    overlaps_same(rs, 1, NULL, 10, ALL, "max_occ 1");
    chain_faults(rs);
    sg_readset_free(rs);
    /* a quarter of the reads; the reads of another genome without the array: no repeat read; one read; none stored */
    rs = make_readset(reads, N / 4, 2000, 1 << 20);
    overlaps_same(rs, 0, NULL, 100, ANY, "a quarter of the reads");
    sg_readset_free(rs);
    {
        char *g2 = random_seq(200000), **r2 = simulate(g2, 200000, 100, 2000, 12000, 0.1, pl);
        rs = make_readset(r2, 100, 2000, 1 << 20);
        overlaps_same(rs, 0, NULL, 20, NONE, "unique sequence");
        sg_readset_free(rs);
        for (int i = 0; i < 100; i++) free(r2[i]);
        free(r2);
        free(g2);
    }
    rs = make_readset(reads, 1, 2000, 1 << 20);
    overlaps_same(rs, 0, NULL, 0, ANY, "one read");
    sg_readset_free(rs);
    rs = make_readset(reads, N, 1u << 20, 1 << 20);
    overlaps_same(rs, 0, NULL, 0, NONE, "no read stored");
    sg_readset_free(rs);
    /* every third read stretched: wide bands */
    for (int i = 0; i < N; i += 3) {
        char *s = stretched(reads[i]);
        free(reads[i]);
        reads[i] = s;
    }
    rs = make_readset(reads, N, 2000, 1 << 20);
    overlaps_same(rs, 0, NULL, 1000, SOME, "stretched reads");
    sg_readset_free(rs);
    for (int i = 0; i < N; i++) free(reads[i]);
    free(reads);
    free(arr);
    free(u);
    free(g);
}

/* Too little device memory is an error that says so, and the next build works. */
static void test_memory_limit(void)
{
    char *reads[4];
    for (int i = 0; i < 4; i++) reads[i] = random_seq(20000);
    sg_readset_t *rs = make_readset(reads, 4, 1000, 1 << 16);
    sg_mindex_t *x = device_index();
    if (x) {
        sg_ovl_opts_t o;
        sg_ovl_opts_default(&o, 2, 1000);
        sg_mrec_t *got = NULL;
        size_t part[SG_OVL_PARTS + 1];
        uint64_t sketched;
        char err[512] = "";
        setenv("SEQGPU_CUDA_MEM_LIMIT", "64K", 1);
        int r = x->build(x, rs, &o, &got, part, &sketched, err, sizeof err);
        unsetenv("SEQGPU_CUDA_MEM_LIMIT");
        CHECK(r == SG_ERR_DEVICE && strstr(err, "device memory") && !got, "64K of device memory: %d, %s", r, err);
        r = x->build(x, rs, &o, &got, part, &sketched, err, sizeof err);
        CHECK(r == 0 && sketched > 0, "after the limit: %d, %s", r, err);
        free(got);
        x->free(x);
    }
    sg_readset_free(rs);
    for (int i = 0; i < 4; i++) free(reads[i]);
}
#endif

#define TESTS(X)                                                                 \
    X(test_index_random);                                                        \
    X(test_index_tandem);                                                        \
    X(test_index_empty);                                                         \
    X(test_overlaps_same);                                                       \
    X(test_memory_limit)

int main(void)
{
#ifdef SG_HAVE_CUDA
    unit_needs("cuda", unit_cuda_absent());
    TESTS(RUN);
#else
    (void)unit_failed_checks; /* no CHECK in this build */
    unit_needs("cuda", "this build has no CUDA");
    TESTS(NOT_RUN);
#endif
    return UNIT_SUMMARY();
}
