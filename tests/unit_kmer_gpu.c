/* The GPU graph build against the CPU one: counts, histograms and the whole
 * canonical graph, byte for byte, over random reads and genomes, many batch
 * sizes (so many batches and merges), several add threads, every key width;
 * counts against brute force on tiny inputs. Skipped without a device,
 * failed without one when SEQGPU_REQUIRE names cuda. */
#include <stdio.h>

#include "unit.h"

#ifdef SG_HAVE_CUDA
#include <pthread.h>
#include <string.h>

#include "registry.h"
#include "kmer_fixture.h"

#define BINS 64

typedef struct {
    sg_kmer_table_t *t;
    chunks_t *cs;
    int first, stride, rc;
} add_job_t;

static void *add_worker(void *arg)
{
    add_job_t *j = arg;
    for (int i = j->first; i < j->cs->n; i += j->stride)
        if (j->t->add(j->t, j->cs->c[i]) < 0) j->rc = -1;
    return NULL;
}

/* Add every chunk to t from n threads; 0 or -1. */
static int add_all(sg_kmer_table_t *t, chunks_t *cs, int n)
{
    pthread_t tid[8];
    add_job_t jobs[8];
    int rc = 0;
    for (int i = 0; i < n; i++) {
        jobs[i] = (add_job_t){t, cs, i, n, 0};
        pthread_create(&tid[i], NULL, add_worker, &jobs[i]);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(tid[i], NULL);
        rc |= jobs[i].rc;
    }
    return rc;
}

/* A table of backend name for k-mers of size k (unitigs on 2 threads); the
 * device's batches of batch bytes. */
static sg_kmer_table_t *table_new(const char *name, int k, size_t batch)
{
    char env[32], err[512] = "";
    snprintf(env, sizeof env, "%zu", batch);
    setenv("SEQGPU_CUDA_KMER_BATCH", env, 1);
    sg_kmer_table_t *t = NULL;
    const sg_kmer_opts_t o = {.k = k, .n_threads = 2};
    int r = sg_kmer_table_open(name, &o, &t, err, sizeof err);
    CHECK(r == 0, "%s table (k %d, batch %zu): %s", name, k, batch, err);
    unsetenv("SEQGPU_CUDA_KMER_BATCH");
    return r == 0 ? t : NULL;
}

/* The chunks through both builders: counts, histograms before and after the
 * threshold, and the graphs must all be the same. */
static int compare(chunks_t *cs, int k, size_t batch, uint32_t min, int threads, const char *what)
{
    sg_kmer_table_t *gpu = table_new("cuda", k, batch);
    if (!gpu) return 0;
    sg_kmer_table_t *cpu = table_new("cpu", k, batch);
    CHECK(add_all(cpu, cs, 1) == 0 && cpu->finish(cpu) == 0, "%s: cpu counting failed: %s", what, cpu->err);
    int ok = 1;
    CHECK(add_all(gpu, cs, threads) == 0 && gpu->finish(gpu) == 0, "%s: counting failed: %s", what, gpu->err);
    uint64_t hc[BINS], hg[BINS];
    for (int pass = 0; pass < 2; pass++) {
        CHECK(cpu->histogram(cpu, hc, BINS) == 0, "%s: cpu histogram failed", what);
        CHECK(gpu->histogram(gpu, hg, BINS) == 0, "%s: histogram failed", what);
        ok &= cpu->distinct(cpu) == gpu->distinct(gpu) && cpu->total(cpu) == gpu->total(gpu) &&
              !memcmp(hc, hg, sizeof hc);
        CHECK(ok, "%s, %s: distinct %llu vs %llu, total %llu vs %llu, histograms %s", what, pass ? "kept" : "all",
              (unsigned long long)cpu->distinct(cpu), (unsigned long long)gpu->distinct(gpu),
              (unsigned long long)cpu->total(cpu), (unsigned long long)gpu->total(gpu),
              memcmp(hc, hg, sizeof hc) ? "differ" : "agree");
        if (!pass) {
            CHECK(cpu->filter(cpu, min) == 0, "%s: cpu filter failed", what);
            CHECK(gpu->filter(gpu, min) == 0, "%s: filter failed", what);
        }
    }
    sg_graph_t a, b;
    CHECK(cpu->unitigs(cpu, &a) == 0, "%s: cpu unitigs failed", what);
    int r = gpu->unitigs(gpu, &b);
    CHECK(r == 0, "%s: unitigs failed: %s", what, gpu->err);
    if (r == 0) {
        char why[200] = "";
        int same = same_graph(&a, &b, why, sizeof why);
        CHECK(same, "%s, min %u: graphs differ: %s", what, min, why);
        ok &= same;
        sg_graph_free(&b);
    }
    sg_graph_free(&a);
    cpu->free(cpu);
    gpu->free(gpu);
    return ok;
}

static void test_reads_against_cpu(void)
{
    static const int ks[] = {11, 21, 31, 33, 47, 63};
    static const size_t batches[] = {100, 1000, 65536, 1 << 20};
    for (int round = 0; round < 24; round++) {
        const int k = ks[round % 6];
        size_t n = 5000 + unit_below(50000);
        char *genome = random_genome(n);
        chunks_t cs = {0};
        random_reads(&cs, genome, n, 500 + unit_below(5000), 200 + unit_below(8000));
        size_t batch = batches[unit_below(4)];
        if (batch < 2 * (size_t)k) batch = 2 * k;
        char what[96];
        snprintf(what, sizeof what, "round %d: reads, k %d, batch %zu", round, k, batch);
        int ok = compare(&cs, k, batch, 1 + unit_below(4), 1 + unit_below(4), what);
        chunks_free(&cs);
        free(genome);
        if (!ok) break;
    }
}

/* One long record in tiny chunks (k-mers across every chunk boundary). */
static void test_genome_tiny_chunks(void)
{
    static const int ks[] = {11, 21, 31, 33, 63};
    for (int round = 0; round < 10; round++) {
        const int k = ks[round % 5];
        size_t n = 2000 + unit_below(30000);
        char *genome = random_genome(n);
        chunks_t cs = {0};
        chunks_cut(&cs, genome, n, 1 + unit_below(200), k);
        char what[96];
        snprintf(what, sizeof what, "round %d: genome, k %d", round, k);
        int ok = compare(&cs, k, 64 + unit_below(5000), 1 + unit_below(2), 1 + unit_below(3), what);
        chunks_free(&cs);
        free(genome);
        if (!ok) break;
    }
}

/* Circles (branch-free cycles) and hairpins among linear unitigs. */
static void test_cycles_and_hairpins(void)
{
    for (int round = 0; round < 8; round++) {
        const int k = round & 1 ? 33 : 21;
        chunks_t cs = {0};
        char s[1200];
        for (int piece = 0; piece < 6; piece++) {
            size_t n = 100 + unit_below(400);
            for (size_t i = 0; i < n; i++) s[i] = "ACGT"[unit_below(4)];
            if (piece % 2) {
                memcpy(s + n, s, k - 1); /* a circle */
                chunks_cut(&cs, s, n + k - 1, 7 + unit_below(50), k);
            } else {
                for (size_t i = 0; i < n; i++) s[n + i] = sg_base_complement(s[n - 1 - i]); /* a hairpin */
                chunks_cut(&cs, s, 2 * n, 7 + unit_below(50), k);
            }
        }
        char what[64];
        snprintf(what, sizeof what, "round %d: cycles and hairpins, k %d", round, k);
        int ok = compare(&cs, k, 200 + unit_below(2000), 1, 2, what);
        chunks_free(&cs);
        if (!ok) break;
    }
}

/* Counts of a few hundred bases against brute force. */
static void test_brute_force(void)
{
    for (int round = 0; round < 20; round++) {
        const int k = round % 2 ? 11 : 33;
        char s[400];
        size_t n = 50 + unit_below(340);
        for (size_t i = 0; i < n; i++) s[i] = "ACGTacgtN"[unit_below(round % 3 ? 4 : 9)];
        chunks_t cs = {0};
        chunks_cut(&cs, s, n, 1 + unit_below(60), k);
        /* brute force: every window of k bases without N, as a canonical string */
        char (*all)[64] = malloc(n * sizeof *all);
        size_t m = 0;
        for (size_t i = 0; i + k <= n; i++) {
            char f[64], r[64];
            int ok = 1;
            for (int j = 0; j < k; j++) {
                f[j] = (char)(s[i + j] & ~0x20);
                ok &= f[j] != 'N';
                r[k - 1 - j] = sg_base_complement(f[j]);
            }
            if (!ok) continue;
            memcpy(all[m++], memcmp(f, r, k) < 0 ? f : r, k);
        }
        uint64_t distinct = 0, hist[BINS] = {0};
        for (size_t i = 0; i < m; i++) {
            size_t c = 0, seen = 0;
            for (size_t j = 0; j < m; j++) {
                c += !memcmp(all[i], all[j], k);
                seen += j < i && !memcmp(all[i], all[j], k);
            }
            if (!seen) {
                distinct++;
                hist[c < BINS - 1 ? c : BINS - 1]++;
            }
        }
        free(all);
        sg_kmer_table_t *gpu = table_new("cuda", k, 2 * k + unit_below(100));
        if (!gpu) break;
        uint64_t got[BINS];
        int r = add_all(gpu, &cs, 1 + unit_below(3));
        r |= gpu->finish(gpu);
        r |= gpu->histogram(gpu, got, BINS);
        CHECK(r == 0 && gpu->total(gpu) == m && gpu->distinct(gpu) == distinct && !memcmp(got, hist, sizeof got),
              "round %d, k %d: total %llu vs %zu, distinct %llu vs %llu", round, k,
              (unsigned long long)gpu->total(gpu), m, (unsigned long long)gpu->distinct(gpu),
              (unsigned long long)distinct);
        gpu->free(gpu);
        chunks_free(&cs);
    }
}

/* Nothing kept: an empty graph, not an error. */
static void test_empty(void)
{
    chunks_t cs = {0};
    chunks_push(&cs, "ACGTACGTTTGACCANNNNN", 20, 0);
    compare(&cs, 11, 100, 1000, 1, "nothing kept");
    chunks_free(&cs);
}
#endif

/* The tests, listed once for the CUDA build (run) and for a build without
 * CUDA (reported as skipped, or failed when SEQGPU_REQUIRE names cuda). */
#define TESTS(X)                                                                 \
    X(test_brute_force);                                                         \
    X(test_empty);                                                               \
    X(test_cycles_and_hairpins);                                                 \
    X(test_genome_tiny_chunks);                                                  \
    X(test_reads_against_cpu)

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
