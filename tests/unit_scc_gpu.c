/* The GPU SCC pipeline against Tarjan: the same partition on graphs of many
 * shapes, under every virtual-warp and kt setting. Skipped when this build
 * has no CUDA or the machine no device; failed then when SEQGPU_REQUIRE
 * names cuda. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scc/graph.h"
#include "core/log.h"
#include "unit.h"

#ifdef SG_HAVE_CUDA
#include "registry.h"

typedef struct {
    sg_edge_t *e;
    uint64_t n, cap;
} edges_t;

static void add(edges_t *l, uint32_t a, uint32_t b)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->e = realloc(l->e, l->cap * sizeof *l->e);
    }
    l->e[l->n++] = (sg_edge_t){a, b, 0};
}

static uint32_t rnd(uint32_t n) { return (uint32_t)(unit_rand() % n); }

/* A random permutation of 0..n-1, so that structure is not in id order. */
static uint32_t *perm(uint32_t n)
{
    uint32_t *p = malloc(((size_t)n + 1) * sizeof *p);
    for (uint32_t i = 0; i < n; i++) p[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = rnd(i), t = p[i - 1];
        p[i - 1] = p[j], p[j] = t;
    }
    return p;
}

static int settings_i;

/* The cuda solver with settings s of kw, kv, kt. */
static sg_scc_solver_t *solver(int kw, int kv, int kt)
{
    sg_scc_solver_t *sv = NULL;
    char err[512] = "";
    const sg_scc_opts_t o = {.n_threads = 2, .kw = kw, .kv = kv, .kt = kt};
    CHECK(sg_scc_solver_open("cuda", &o, &sv, err, sizeof err) == 0, "cuda solver: %s", err);
    return sv;
}

/* GPU labels and Tarjan's components give the same partition. Every other
 * graph of an even number of vertices goes as an oriented graph of n / 2
 * nodes with k-mer counts, whose means break the first pivot's ties. */
static int same_partition(const char *name, uint32_t n, edges_t *l)
{
    static const int kw[] = {4, 1, 2, 8, 16, 32, 4}, kv[] = {2, 1, 3, 1, 4, 1, 8}, kt[] = {2, 1, 0, 3, 2, 1, 5};
    int s = settings_i++ % 7;
    sg_graph_t g = {.n = n, .n_vert = n};
    if (s & 1 && n % 2 == 0) {
        g.oriented = 1;
        g.n = n / 2;
        g.kmers = malloc(((size_t)g.n + 1) * sizeof *g.kmers);
        g.count_sum = malloc(((size_t)g.n + 1) * sizeof *g.count_sum);
        for (uint32_t i = 0; i < g.n; i++) g.kmers[i] = 1 + rnd(3), g.count_sum[i] = (double)(g.kmers[i] * rnd(8));
    }
    sg_graph_set_edges(&g, l->e, l->n);
    uint32_t *a = malloc(((size_t)n + 1) * sizeof *a), *b = malloc(((size_t)n + 1) * sizeof *b);
    sg_scc_tarjan(&g, a);
    uint32_t na = sg_scc_renumber(n, a), nb = 0;
    sg_scc_solver_t *sv = solver(kw[s], kv[s], kt[s]);
    int ok = sv && sv->solve(sv, &g, b, &nb) == 0;
    CHECK(ok, "%s: %s", name, sv ? sv->err : "no solver");
    if (ok) {
        uint32_t diff = 0; /* numbered by first vertex already: renumbering changes nothing */
        for (uint32_t v = 0; v < n; v++) diff += a[v] != b[v];
        CHECK(na == nb && diff == 0, "%s (kw %d kv %d kt %d): %u vs %u components, %u vertices differ", name, kw[s],
              kv[s], kt[s], na, nb, diff);
        ok = na == nb && diff == 0;
        if (getenv("SEQGPU_TEST_VERBOSE"))
            printf("# %s: %u vertices, %llu edges, %u components; %s\n", name, n, (unsigned long long)g.n_edges, na,
                   sv->summary);
    }
    if (sv) sv->free(sv);
    free(a);
    free(b);
    sg_graph_free(&g);
    l->n = 0;
    return ok;
}

static void test_small_shapes(void)
{
    edges_t l = {0};
    same_partition("empty graph", 0, &l);
    same_partition("one vertex", 1, &l);
    add(&l, 0, 0);
    same_partition("one self-loop", 1, &l);
    add(&l, 0, 1), add(&l, 1, 0);
    same_partition("a 2-cycle", 2, &l);
    add(&l, 0, 1), add(&l, 1, 0), add(&l, 2, 0), add(&l, 1, 3);
    same_partition("a 2-cycle with a tail each way", 4, &l);
    add(&l, 0, 1), add(&l, 1, 2), add(&l, 2, 0), add(&l, 1, 1), add(&l, 3, 3);
    same_partition("a triangle, self-loops", 4, &l);
    for (uint32_t i = 0; i < 10; i++) add(&l, i, 9 - i);
    same_partition("pairs of opposite vertices", 10, &l);
    free(l.e);
}

static void test_random_graphs(void)
{
    edges_t l = {0};
    char name[96];
    for (int round = 0; round < 400; round++) {
        uint32_t n = 1 + rnd(round < 300 ? 60 : 5000);
        double deg = (rnd(40) + 1) / 10.0; /* 0.1 .. 4 edges per vertex */
        uint64_t m = (uint64_t)(n * deg);
        for (uint64_t i = 0; i < m; i++) add(&l, rnd(n), rnd(n));
        snprintf(name, sizeof name, "random graph %d (%u vertices, %llu edges)", round, n, (unsigned long long)m);
        if (!same_partition(name, n, &l)) break;
    }
    free(l.e);
}

/* Long chains and cycles: what the contraction is for. */
static void test_chains_and_cycles(void)
{
    edges_t l = {0};
    const uint32_t n = 2000000, n3 = n - n % 3;
    uint32_t *p = perm(n);
    for (uint32_t i = 0; i + 1 < n; i++) add(&l, p[i], p[i + 1]);
    same_partition("a path of 2M vertices", n, &l);
    for (uint32_t i = 0; i < n; i++) add(&l, p[i], p[(i + 1) % n]);
    same_partition("a cycle of 2M vertices", n, &l);
    free(p);
    p = perm(n3);
    for (uint32_t i = 0; i < n3; i++) add(&l, p[i], p[i % 3 == 2 ? i - 2 : i + 1]);
    same_partition("666666 3-cycles", n3, &l);
    free(p);
    /* a cycle with long tails in and out, and a chain between two cycles */
    const uint32_t nj = 901001;
    p = perm(nj);
    for (uint32_t i = 0; i < 1000; i++) add(&l, p[i], p[(i + 1) % 1000]);
    for (uint32_t i = 1000; i < 500000; i++) add(&l, p[i], p[i + 1]);
    add(&l, p[500000], p[0]);
    add(&l, p[10], p[500001]);
    for (uint32_t i = 500001; i < 900000; i++) add(&l, p[i], p[i + 1]);
    for (uint32_t i = 900000; i < 901000; i++) add(&l, p[i], p[i + 1]);
    add(&l, p[901000], p[900000]);
    same_partition("cycles joined by long chains", nj, &l);
    for (uint32_t i = 0; i < 1000; i++) add(&l, p[i], p[(i + 1) % 1000]);
    for (uint32_t i = 1000; i < 900000; i++) add(&l, p[i], p[i + 1]);
    add(&l, p[10], p[1000]);
    add(&l, p[900000], p[10]); /* one SCC of 900001 vertices, and a lone tail vertex */
    same_partition("a cycle closed by a long chain", nj, &l);
    free(p);
    /* chains as the only links between two hubs (0 and 1), both ways: one SCC */
    for (uint32_t c = 0; c < 100; c++) {
        uint32_t base = 2 + c * 1000;
        add(&l, c & 1, base);
        for (uint32_t i = 0; i < 999; i++) add(&l, base + i, base + i + 1);
        add(&l, base + 999, 1 - (c & 1));
    }
    same_partition("chains between two hubs", 2 + 100 * 1000, &l);
    free(l.e);
}

/* One giant SCC with random chords, many small SCCs in a DAG, comb shapes. */
static void test_large_shapes(void)
{
    edges_t l = {0};
    const uint32_t n = 1000000;
    uint32_t *p = perm(n);
    for (uint32_t i = 0; i < n; i++) add(&l, p[i], p[(i + 1) % n]);
    for (uint32_t i = 0; i < n; i++) add(&l, rnd(n), rnd(n));
    same_partition("one giant SCC", n, &l);
    /* SCCs of 1..8 vertices (cycles with chords), linked forward only */
    uint32_t at = 0;
    while (at < n - 8) {
        uint32_t s = 1 + rnd(8);
        for (uint32_t i = 0; i < s; i++) add(&l, p[at + i], p[at + (i + 1) % s]);
        if (s > 2) add(&l, p[at], p[at + s / 2]);
        if (at) add(&l, p[at - 1 - rnd(at < 100 ? at : 100)], p[at]);
        at += s;
    }
    same_partition("small SCCs in a DAG", n, &l);
    /* a comb: a path whose every vertex has an extra source leaf, and a cycle at its end */
    for (uint32_t i = 0; i + 2 < n / 2; i++) add(&l, p[i], p[i + 1]), add(&l, p[n / 2 + i], p[i]);
    add(&l, p[n / 2 - 2], p[n / 2 - 1]);
    add(&l, p[n / 2 - 1], p[n / 2 - 3]);
    same_partition("a comb", n, &l);
    /* a power-law graph (Chung-Lu weights): a giant SCC, hubs of high degree, many trivial SCCs */
    for (uint32_t i = 0; i < 4 * n; i++) {
        /* sample two endpoints ~ weight by inverting the cumulative of 1/x */
        double u1 = (double)unit_rand() / 18446744073709551616.0, u2 = (double)unit_rand() / 18446744073709551616.0;
        uint32_t a = (uint32_t)(0.5 * (exp(u1 * log(2.0 * n + 1)) - 1)), b = (uint32_t)(0.5 * (exp(u2 * log(2.0 * n + 1)) - 1));
        add(&l, p[a < n ? a : n - 1], p[b < n ? b : n - 1]);
    }
    same_partition("a power-law graph", n, &l);
    free(p);
    free(l.e);
}

/* Oriented graphs: every edge with its reverse complement. */
static void test_oriented(void)
{
    edges_t l = {0};
    for (int round = 0; round < 50; round++) {
        uint32_t nodes = 1 + rnd(2000), n = 2 * nodes;
        uint64_t m = rnd(3 * nodes);
        for (uint64_t i = 0; i < m; i++) {
            uint32_t a = sg_vert(rnd(nodes), rnd(2)), b = sg_vert(rnd(nodes), rnd(2));
            add(&l, a, b), add(&l, sg_vert_flip(b), sg_vert_flip(a));
        }
        char name[64];
        snprintf(name, sizeof name, "oriented graph %d", round);
        if (!same_partition(name, n, &l)) break;
    }
    free(l.e);
}

/* Dense blocks: most vertices have over 1024 edges both ways, so one search
 * level meets more heavy vertices than there are vertices. */
static void test_dense_blocks(void)
{
    edges_t l = {0};
    const uint32_t b = 1100, n = 3 * b;
    for (uint32_t blk = 0; blk < 3; blk++)
        for (uint32_t i = 0; i < b; i++)
            for (uint32_t j = 0; j < b; j++)
                if (i != j) add(&l, blk * b + i, blk * b + j);
    for (uint32_t i = 0; i < b; i++)
        for (uint32_t j = 0; j < b; j++) add(&l, i, b + j); /* A -> B: three SCCs */
    add(&l, 2 * b, 0);                                      /* C -> A */
    same_partition("three dense blocks", n, &l);
    free(l.e);
}

static void test_memory_error(void)
{
    edges_t l = {0};
    for (uint32_t i = 0; i < 1000; i++) add(&l, i, (i + 1) % 1000);
    sg_graph_t g = {.n = 1000, .n_vert = 1000};
    sg_graph_set_edges(&g, l.e, l.n);
    uint32_t *b = malloc(1000 * sizeof *b), nb;
    sg_scc_solver_t *sv = solver(4, 2, 2);
    setenv("SEQGPU_CUDA_MEM_LIMIT", "1000", 1);
    int rc = sv ? sv->solve(sv, &g, b, &nb) : 0;
    unsetenv("SEQGPU_CUDA_MEM_LIMIT");
    CHECK(rc == SG_ERR_DEVICE && strstr(sv->err, "device memory"), "too little memory: rc %d, '%s'", rc, sv ? sv->err : "");
    if (sv) sv->free(sv);
    free(b);
    free(l.e);
    sg_graph_free(&g);
}
#endif

/* The tests, listed once for the CUDA build (run) and for a build without
 * CUDA (reported as skipped, or failed when SEQGPU_REQUIRE names cuda). */
#define TESTS(X)                                                                 \
    X(test_small_shapes);                                                        \
    X(test_random_graphs);                                                       \
    X(test_oriented);                                                            \
    X(test_chains_and_cycles);                                                   \
    X(test_large_shapes);                                                        \
    X(test_dense_blocks);                                                        \
    X(test_memory_error)

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
