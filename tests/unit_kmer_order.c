/* The CPU graph build's canonical form: the same graph, byte for byte,
 * whatever the order chunks come in, their size, and the thread counts, and
 * holding exactly the k-mers and counts of a brute-force count;
 * unitigs read from their smaller end and numbered by first k-mer; cycles
 * start at their smallest canonical k-mer; hairpins end unitigs. */
#include <pthread.h>
#include <string.h>

#include "scc/backend.h"
#include "kmer_fixture.h"

typedef struct {
    sg_kmer_table_t *t;
    chunks_t *cs;
    int first, stride;
} add_job_t;

static void *add_worker(void *arg)
{
    add_job_t *j = arg;
    for (int i = j->first; i < j->cs->n; i += j->stride) CHECK(j->t->add(j->t, j->cs->c[i]) == 0, "add");
    return NULL;
}

/* The graph of the chunks' k-mers seen >= min times, the chunks added from n_add threads. */
static void build(chunks_t *cs, int k, uint32_t min, int n_add, int n_unitig_threads, sg_graph_t *g)
{
    sg_kmer_table_t *t;
    char err[256];
    const sg_kmer_opts_t ko = {.k = k, .n_threads = n_unitig_threads};
    CHECK(sg_kmer_table_cpu(&ko, &t, err, sizeof err) == 0, "%s", err);
    pthread_t tid[8];
    add_job_t jobs[8];
    for (int i = 0; i < n_add; i++) {
        jobs[i] = (add_job_t){t, cs, i, n_add};
        pthread_create(&tid[i], NULL, add_worker, &jobs[i]);
    }
    for (int i = 0; i < n_add; i++) pthread_join(tid[i], NULL);
    CHECK(t->finish(t) == 0 && t->filter(t, min) == 0 && t->unitigs(t, g) == 0, "finish, filter, unitigs");
    t->free(t);
}

static void shuffle(chunks_t *cs)
{
    for (int i = cs->n - 1; i > 0; i--) {
        int j = unit_below(i + 1);
        sg_chunk_t *c = cs->c[i];
        cs->c[i] = cs->c[j];
        cs->c[j] = c;
    }
}

static void rc_str(const char *s, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) out[i] = sg_base_complement(s[n - 1 - i]);
}

/* Linear unitigs read from the end with the smaller first k-mer; unitigs in
 * the order of their first k-mers. */
static int canonical_order(const sg_graph_t *g)
{
    const int k = g->k;
    char r[64];
    for (uint32_t u = 0; u < g->n; u++) {
        const char *s = g->seq + g->seq_off[u];
        uint64_t len = sg_graph_len(g, u);
        rc_str(s + len - k, k, r);
        int cycle = 0;
        for (uint64_t e = g->off[2 * u]; e < g->off[2 * u + 1]; e++) cycle |= g->adj[e] == 2 * u;
        if (!cycle && memcmp(s, r, k) > 0) return 0;
        if (u && memcmp(g->seq + g->seq_off[u - 1], s, k) >= 0) return 0;
    }
    return 1;
}

static void test_same_graph_any_order(void)
{
    static const int ks[] = {11, 21, 31, 33, 47, 63};
    for (int round = 0; round < 12; round++) {
        int k = ks[round % 6];
        size_t n = 3000 + unit_below(20000);
        char *genome = random_genome(n);
        chunks_t reads = {0}, cut = {0};
        random_reads(&reads, genome, n, 300 + unit_below(2000), 500 + unit_below(4000));
        chunks_cut(&cut, genome, n, 50 + unit_below(3000), k);
        for (int input = 0; input < 2; input++) {
            chunks_t *cs = input ? &cut : &reads;
            uint32_t min = 1 + unit_below(3);
            sg_graph_t a, b;
            build(cs, k, min, 1, 1, &a);
            shuffle(cs);
            build(cs, k, min, 1 + unit_below(8), 1 + unit_below(4), &b);
            char why[200] = "";
            CHECK(same_graph(&a, &b, why, sizeof why), "round %d, k %d, %s, min %u: %s", round, k,
                  input ? "one record" : "reads", min, why);
            CHECK(brute_graph_right(cs, k, min, &a, why, sizeof why), "round %d, k %d, %s, min %u: %s", round, k,
                  input ? "one record" : "reads", min, why);
            CHECK(canonical_order(&a), "round %d, k %d: unitigs not in canonical form", round, k);
            sg_graph_free(&a);
            sg_graph_free(&b);
        }
        chunks_free(&reads);
        chunks_free(&cut);
        free(genome);
    }
}

/* The smallest canonical k-mer of a circular sequence s of n bases (s holds n + k - 1). */
static void smallest_canonical(const char *s, size_t n, int k, char *out)
{
    char f[64], r[64];
    for (size_t i = 0; i < n; i++) {
        memcpy(f, s + i, k);
        rc_str(f, k, r);
        const char *c = memcmp(f, r, k) < 0 ? f : r;
        if (i == 0 || memcmp(c, out, k) < 0) memcpy(out, c, k);
    }
}

static void test_cycles_rotated(void)
{
    static const int ks[] = {21, 31, 45, 63};
    for (int round = 0; round < 8; round++) {
        const int k = ks[round % 4];
        const size_t n = 200 + unit_below(400);
        char *s = malloc(n + k), *t = malloc(n + k), *r = malloc(n + k);
        for (size_t i = 0; i < n; i++) s[i] = "ACGT"[unit_below(4)];
        memcpy(s + n, s, k - 1);
        char want[64];
        smallest_canonical(s, n, k, want);
        sg_graph_t first = {0};
        for (int v = 0; v < 6; v++) {
            /* the circle from another base, on either strand */
            size_t rot = (size_t)unit_below((int)n);
            for (size_t i = 0; i < n + k - 1; i++) t[i] = s[(rot + i) % n];
            if (v & 1) {
                rc_str(t, n + k - 1, r);
                memcpy(t, r, n + k - 1);
            }
            chunks_t cs = {0};
            chunks_cut(&cs, t, n + k - 1, 20 + unit_below(100), k);
            sg_graph_t g;
            build(&cs, k, 1, 2, 2, &g);
            CHECK(g.n == 1 && sg_graph_len(&g, 0) == n + k - 1 && g.kmers[0] == n, "k %d: %u unitigs", k, g.n);
            CHECK(g.n == 1 && !memcmp(g.seq, want, k), "k %d: the cycle does not start at its smallest k-mer", k);
            CHECK(g.n_edges == 2 && g.adj[0] == 0 && g.adj[1] == 1, "k %d: a cycle links to itself", k);
            if (!v) first = g;
            else {
                char why[200] = "";
                CHECK(same_graph(&first, &g, why, sizeof why), "k %d, rotation %zu: %s", k, rot, why);
                sg_graph_free(&g);
            }
            chunks_free(&cs);
        }
        sg_graph_free(&first);
        free(s);
        free(t);
        free(r);
    }
}

/* A sequence followed by its reverse complement: one path that ends where
 * it meets its own reverse complement, with a link from its end to the
 * flip of that end, however the input is cut. */
static void test_hairpin(void)
{
    for (int round = 0; round < 8; round++) {
        const int k = round & 1 ? 31 : 21;
        const size_t n = 100 + unit_below(200);
        char *s = malloc(2 * n);
        for (size_t i = 0; i < n; i++) s[i] = "ACGT"[unit_below(4)];
        rc_str(s, n, s + n);
        sg_graph_t a, b;
        chunks_t cs = {0};
        chunks_cut(&cs, s, 2 * n, 2 * n, k);
        build(&cs, k, 1, 1, 1, &a);
        chunks_free(&cs);
        chunks_cut(&cs, s, 2 * n, 5 + unit_below(40), k);
        shuffle(&cs);
        build(&cs, k, 1, 3, 2, &b);
        chunks_free(&cs);
        char why[200] = "";
        CHECK(same_graph(&a, &b, why, sizeof why), "k %d: %s", k, why);
        CHECK(a.n == 1 && a.kmers[0] == n - (k - 1) / 2, "k %d: %u unitigs", k, a.n);
        int hairpin = 0;
        for (uint64_t e = 0; e < a.n_edges; e++) hairpin |= a.adj[e] == (a.off[1] > e ? 1u : 0u);
        CHECK(a.n == 1 && hairpin, "k %d: no link from the path's end to its flip", k);
        sg_graph_free(&a);
        sg_graph_free(&b);
        free(s);
    }
}

int main(void)
{
    RUN(test_same_graph_any_order);
    RUN(test_cycles_rotated);
    RUN(test_hairpin);
    return UNIT_SUMMARY();
}
