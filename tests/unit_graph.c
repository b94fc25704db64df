/* scc's pieces: Tarjan, least rotations, k-mer counting, unitigs, coverage. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "formats/seqio.h"
#include "scc/graph.h"
#include "scc/backend.h"
#include "scc/coverage.h"
#include "scc/repeats.h"
#include "unit.h"

/* ---- Tarjan against reachability ---- */

static void test_tarjan_random(void)
{
    for (int round = 0; round < 300; round++) {
        uint32_t n = 1 + unit_below(40);
        uint64_t m = unit_below(3 * n + 1);
        sg_edge_t *e = malloc((m + 1) * sizeof *e);
        for (uint64_t i = 0; i < m; i++) e[i] = (sg_edge_t){(uint32_t)unit_below(n), (uint32_t)unit_below(n), 0};
        sg_graph_t g = {.n = n, .n_vert = n};
        sg_graph_set_edges(&g, e, m);
        uint32_t *comp = malloc(n * sizeof *comp);
        sg_scc_tarjan(&g, comp);
        /* reach[i][j] by Floyd-Warshall on booleans */
        char reach[40][40] = {{0}};
        for (uint32_t v = 0; v < n; v++) {
            reach[v][v] = 1;
            for (uint64_t j = g.off[v]; j < g.off[v + 1]; j++) reach[v][g.adj[j]] = 1;
        }
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t j = 0; j < n; j++) reach[i][j] |= reach[i][k] && reach[k][j];
        int ok = 1;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++) ok &= (comp[i] == comp[j]) == (reach[i][j] && reach[j][i]);
        CHECK(ok, "round %d: %u vertices, %llu edges", round, n, (unsigned long long)m);
        free(comp);
        free(e);
        sg_graph_free(&g);
        if (!ok) break;
    }
}

static void test_tarjan_long_chain(void)
{
    /* ten million vertices in one cycle: no recursion, so no stack overflow */
    uint32_t n = 10000000;
    sg_edge_t *e = malloc((uint64_t)n * sizeof *e);
    for (uint32_t i = 0; i < n; i++) e[i] = (sg_edge_t){i, (i + 1) % n, 0};
    sg_graph_t g = {.n = n, .n_vert = n};
    sg_graph_set_edges(&g, e, n);
    uint32_t *comp = malloc((uint64_t)n * sizeof *comp);
    CHECK(sg_scc_tarjan(&g, comp) == 1, "one component");
    free(comp);
    free(e);
    sg_graph_free(&g);
}

/* ---- rotations ---- */

static char *rc(const char *s)
{
    size_t n = strlen(s);
    char *r = malloc(n + 1);
    for (size_t i = 0; i < n; i++) r[i] = "TGCA"[strchr("ACGT", s[n - 1 - i]) - "ACGT"];
    r[n] = 0;
    return r;
}

static void test_rotations(void)
{
    char s[64], best[64], cand[64];
    for (int round = 0; round < 2000; round++) {
        int n = 1 + unit_below(40);
        for (int i = 0; i < n; i++) s[i] = "ACGT"[unit_below(unit_below(2) ? 2 : 4)];
        s[n] = 0;
        /* brute force: every rotation of s and of its reverse complement */
        char *r = rc(s);
        best[0] = 0;
        for (int w = 0; w < 2; w++)
            for (int i = 0; i < n; i++) {
                const char *x = w ? r : s;
                memcpy(cand, x + i, n - i);
                memcpy(cand + n - i, x, i);
                cand[n] = 0;
                if (!best[0] || strcmp(cand, best) < 0) strcpy(best, cand);
            }
        uint64_t at = sg_least_rotation(s, n);
        memcpy(cand, s + at, n - at);
        memcpy(cand + n - at, s, at);
        cand[n] = 0;
        int least_ok = 1;
        for (int i = 0; i < n; i++) { /* no rotation of s is smaller */
            char other[64];
            memcpy(other, s + i, n - i);
            memcpy(other + n - i, s, i);
            other[n] = 0;
            least_ok &= strcmp(cand, other) <= 0;
        }
        char *u = sg_canonical_unit(s, n);
        CHECK(least_ok && !strcmp(u, best), "'%s': least rotation '%s', canonical '%s', want '%s'", s, cand, u, best);
        free(u);
        free(r);
        if (!least_ok) break;
    }
}

/* ---- k-mers ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
    char **k;
    size_t n, m;
} strs_t;

static void push(strs_t *v, const char *s, int k)
{
    if (v->n == v->m) v->k = realloc(v->k, (v->m = v->m ? 2 * v->m : 1024) * sizeof *v->k);
    v->k[v->n++] = strndup(s, k);
}

/* The canonical k-mers of seq (uppercase ACGT runs), brute force. */
static void brute_kmers(const char *seq, int k, strs_t *out)
{
    size_t n = strlen(seq);
    char *up = malloc(n + 1);
    for (size_t i = 0; i < n; i++) up[i] = (char)(seq[i] & ~0x20);
    for (size_t i = 0; i + k <= n; i++) {
        int ok = 1;
        for (int j = 0; j < k && ok; j++) ok = strchr("ACGT", up[i + j]) && up[i + j];
        if (!ok) continue;
        char *f = strndup(up + i, k), *r = rc(f);
        push(out, strcmp(f, r) < 0 ? f : r, k);
        free(f);
        free(r);
    }
    free(up);
}

typedef struct {
    sg_kmer_table_t *t;
} add_ctx_t;

static void add_chunk(void *arg, sg_chunk_t *c)
{
    sg_kmer_table_t *t = ((add_ctx_t *)arg)->t;
    CHECK(t->add(t, c) == 0, "add");
    sg_chunk_free(c);
}

/* The cpu k-mer table of a file's k-mers, with n_threads for the unitigs. */
static sg_kmer_table_t *count_file(const char *path, int k, size_t block, int n_threads)
{
    char *paths[] = {(char *)path};
    sg_reader_t *rd = sg_reader_new(paths, 1, block, 1);
    sg_chunker_t ck;
    sg_chunker_init(&ck, k - 1);
    add_ctx_t a;
    char err[256];
    const sg_kmer_opts_t ko = {.k = k, .n_threads = n_threads};
    CHECK(sg_kmer_table_cpu(&ko, &a.t, err, sizeof err) == 0, "%s", err);
    sg_chunk_t *c;
    while (sg_reader_next(rd, &c) > 0) {
        if (sg_parse_block(c) < 0) {
            sg_chunk_free(c);
            break;
        }
        sg_chunker_push(&ck, c, add_chunk, &a);
    }
    sg_chunker_push(&ck, NULL, add_chunk, &a);
    sg_chunker_free(&ck);
    sg_reader_free(rd);
    CHECK(a.t->finish(a.t) == 0, "finish: %s", a.t->err);
    return a.t;
}

/* A random sequence with repeats (so that counts vary), Ns and lowercase. */
static char *random_seq(size_t n)
{
    char *s = malloc(n + 1);
    char unit[40];
    for (int i = 0; i < 40; i++) unit[i] = "ACGT"[unit_below(4)];
    for (size_t i = 0; i < n; i++) {
        s[i] = unit_below(5) == 0 ? unit[i % 40] : "ACGTACGTacgtN"[unit_below(13)];
    }
    s[n] = 0;
    return s;
}

static void test_kmer_counts(void)
{
    const int ks[] = {11, 31, 33, 63};
    char path[] = "/tmp/sg_unit_graphXXXXXX";
    int fd = mkstemp(path);
    close(fd);
    for (int ki = 0; ki < 4; ki++) {
        int k = ks[ki];
        char *s1 = random_seq(3000), *s2 = random_seq(500);
        FILE *fp = fopen(path, "w");
        fprintf(fp, ">a\n%s\n>b\n%s\n", s1, s2);
        fclose(fp);
        strs_t want = {0};
        brute_kmers(s1, k, &want);
        brute_kmers(s2, k, &want);
        if (want.n) qsort(want.k, want.n, sizeof *want.k, cmp_str);
        uint64_t distinct = 0, hist[64] = {0};
        for (size_t i = 0; i < want.n;) {
            size_t j = i;
            while (j < want.n && !strcmp(want.k[j], want.k[i])) j++;
            distinct++;
            hist[j - i < 63 ? j - i : 63]++;
            i = j;
        }
        for (size_t block = 7; block < 5000; block = block * 3 + 1) {
            sg_kmer_table_t *t = count_file(path, k, block, 1);
            uint64_t got[64];
            CHECK(t->histogram(t, got, 64) == 0, "histogram");
            CHECK(t->total(t) == want.n && t->distinct(t) == distinct && !memcmp(got, hist, sizeof got),
                  "k=%d block %zu: %llu k-mers (%llu distinct), want %zu (%llu)", k, block,
                  (unsigned long long)t->total(t), (unsigned long long)t->distinct(t), want.n,
                  (unsigned long long)distinct);
            t->free(t);
        }
        for (size_t i = 0; i < want.n; i++) free(want.k[i]);
        free(want.k);
        free(s1);
        free(s2);
    }
    unlink(path);
}

/* Every kept k-mer lies in exactly one unitig, once; links are exactly the
 * (k-1)-overlaps between unitig ends. */
static void test_unitigs(void)
{
    char path[] = "/tmp/sg_unit_graphXXXXXX";
    int fd = mkstemp(path);
    close(fd);
    for (int round = 0; round < 12; round++) {
        int k = round % 2 ? 33 : 11;
        char *s = random_seq(4000 + unit_below(4000));
        FILE *fp = fopen(path, "w");
        fprintf(fp, ">a\n%s\n", s);
        fclose(fp);
        sg_kmer_table_t *t = count_file(path, k, 1000, 1 + round % 3);
        uint32_t min = 1 + unit_below(3);
        CHECK(t->filter(t, min) == 0, "filter");
        uint64_t kept = t->distinct(t);
        sg_graph_t g;
        CHECK(t->unitigs(t, &g) == 0, "unitigs");
        /* the unitigs' k-mers, canonical, against the kept set */
        strs_t in_unitigs = {0};
        int links_ok = 1;
        for (uint32_t u = 0; u < g.n; u++) {
            char *seq = strndup(g.seq + g.seq_off[u], sg_graph_len(&g, u));
            brute_kmers(seq, k, &in_unitigs);
            free(seq);
        }
        if (in_unitigs.n) qsort(in_unitigs.k, in_unitigs.n, sizeof *in_unitigs.k, cmp_str);
        int unique = 1;
        for (size_t i = 1; i < in_unitigs.n; i++) unique &= strcmp(in_unitigs.k[i], in_unitigs.k[i - 1]) != 0;
        /* links: for every pair of oriented unitigs, a (k-1) overlap iff an edge */
        uint64_t brute_links = 0;
        for (uint32_t v = 0; v < g.n_vert && links_ok; v++) {
            char *a = strndup(g.seq + g.seq_off[v >> 1], sg_graph_len(&g, v >> 1));
            char *ao = v & 1 ? rc(a) : strdup(a);
            for (uint32_t w = 0; w < g.n_vert; w++) {
                char *b = strndup(g.seq + g.seq_off[w >> 1], sg_graph_len(&g, w >> 1));
                char *bo = w & 1 ? rc(b) : strdup(b);
                int overlap = !strncmp(ao + strlen(ao) - (k - 1), bo, k - 1);
                int edge = 0;
                for (uint64_t j = g.off[v]; j < g.off[v + 1]; j++) edge |= g.adj[j] == w;
                brute_links += overlap;
                links_ok &= overlap == edge;
                free(b);
                free(bo);
            }
            free(a);
            free(ao);
        }
        CHECK(in_unitigs.n == kept && unique, "round %d: %zu k-mers in unitigs, %llu kept, each once: %d", round,
              in_unitigs.n, (unsigned long long)kept, unique);
        CHECK(links_ok && brute_links == g.n_edges, "round %d: links %llu, brute force %llu", round,
              (unsigned long long)g.n_edges, (unsigned long long)brute_links);
        for (size_t i = 0; i < in_unitigs.n; i++) free(in_unitigs.k[i]);
        free(in_unitigs.k);
        sg_graph_free(&g);
        t->free(t);
        free(s);
    }
    unlink(path);
}

static void test_coverage(void)
{
    /* errors falling off from 1, then a Poisson-like peak at c */
    for (int c = 8; c <= 120; c += 7) {
        uint64_t hist[1001] = {0};
        for (int i = 1; i < 1000; i++) {
            double err = 1e6 * pow(0.3, i - 1);
            double peak = 5e4 * exp(-(i - c) * (double)(i - c) / (2.0 * c));
            hist[i] = (uint64_t)(err + peak);
        }
        sg_coverage_t cov;
        sg_coverage_estimate(hist, 1001, 31, &cov);
        /* the peak is symmetric: half a bin off is a wrong bin */
        CHECK(fabs(cov.coverage - c) < 0.5, "peak at %d: coverage %.2f (trough %d)", c, cov.coverage, cov.trough);
    }
    uint64_t flat[100] = {0, 1000, 10, 3, 1}; /* a genome: nearly every k-mer once */
    sg_coverage_t cov;
    sg_coverage_estimate(flat, 100, 31, &cov);
    CHECK(cov.coverage <= 3, "single-copy input: coverage %.2f", cov.coverage);
}

/* Histograms as reads and assemblies give them: what is an assembly, and
 * which peaks are no coverage. */
static void test_assembly(void)
{
    /* a bacterial genome (Klebsiella HS11286 at k = 31): its 7-8 rRNA operons make a small bump at 8 */
    uint64_t kp[100] = {0, 5542850, 13730, 6729, 1329, 520, 1648, 1948, 6186, 822, 285, 25, 10, 1};
    sg_coverage_t cov;
    sg_coverage_estimate(kp, 100, 31, &cov);
    CHECK(!cov.clear, "a genome's repeat bump taken for coverage %.1f", cov.coverage);
    CHECK(sg_coverage_assembly(kp, 100, &cov) == 1, "a genome not told as an assembly");
    /* an assembly half of whose k-mers are copies: pairs at 2, operons at 7 (a spike, no Poisson peak) */
    uint64_t dup[100] = {0, 156849, 26088, 1240, 378, 113, 828, 4120, 12, 35, 2};
    sg_coverage_estimate(dup, 100, 31, &cov);
    CHECK(!cov.clear, "seven copies at count 7 taken for coverage %.1f", cov.coverage);
    CHECK(sg_coverage_assembly(dup, 100, &cov) == 1, "a duplicated assembly not told as one");
    /* reads: errors falling off from 1 and a Poisson peak (30x at 1% errors; 6x of solid k-mers under 80% errors;
     * 1x, no peak) */
    const double lambda[] = {30, 6, 1}, err[] = {0.26, 0.8, 0.26};
    for (int r = 0; r < 3; r++) {
        uint64_t h[200] = {0};
        double g = 1e6, total = g * lambda[r] / (1 - err[r]), p = exp(-lambda[r]);
        for (int c = 1; c < 199; c++) {
            p *= lambda[r] / c;
            h[c] = (uint64_t)(g * p);
        }
        h[1] += (uint64_t)(err[r] * total * 0.95);
        h[2] += (uint64_t)(err[r] * total * 0.02);
        sg_coverage_estimate(h, 200, 31, &cov);
        /* (reads with 80% error k-mers look like one, and their peak says what they are) */
        CHECK(sg_coverage_assembly(h, 200, &cov) == (err[r] > 0.5 ? 2 : 0), "reads at %gx (%.0f%% error k-mers): %d",
              lambda[r], 100 * err[r], sg_coverage_assembly(h, 200, &cov));
        CHECK(cov.clear == (lambda[r] > 1), "reads at %gx: clear %d, coverage %.1f", lambda[r], cov.clear, cov.coverage);
    }
}

int main(void)
{
    RUN(test_tarjan_random);
    RUN(test_tarjan_long_chain);
    RUN(test_rotations);
    RUN(test_kmer_counts);
    RUN(test_unitigs);
    RUN(test_coverage);
    RUN(test_assembly);
    return UNIT_SUMMARY();
}
