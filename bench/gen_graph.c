/* Large directed graphs for the SCC benchmarks, as "from to" lines:
 *
 *   gen_graph dbg GENOME.fa K     the uncompacted de Bruijn graph of a genome:
 *                                 a vertex per oriented k-mer (2i: canonical
 *                                 k-mer i as is, 2i+1: its reverse complement),
 *                                 an edge per pair of k-mers adjacent in the
 *                                 genome, with its reverse complement; k <= 31
 *   gen_graph powerlaw N [SEED]   N nodes, 3 edges per node: random sources,
 *                                 targets half uniform and half from a
 *                                 heavy-tailed (zeta 1.5-like) law over a random
 *                                 ranking: a giant SCC, hubs, many small SCCs
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dna.h"
#include "rng.h"

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "gen_graph: out of memory\n");
        exit(2);
    }
    return p;
}

/* canonical k-mer -> id, open addressing; key+1 stored so that 0 is empty */
typedef struct {
    uint64_t *key;
    uint32_t *id;
    uint64_t cap, n;
} table_t;

static uint32_t lookup(table_t *t, uint64_t x)
{
    uint64_t mask = t->cap - 1, i = sg_kmer64_hash(x) & mask;
    while (t->key[i] && t->key[i] != x + 1) i = (i + 1) & mask;
    if (!t->key[i]) {
        if (2 * (t->n + 1) > t->cap) {
            fprintf(stderr, "gen_graph: k-mer table full\n");
            exit(2);
        }
        t->key[i] = x + 1;
        t->id[i] = (uint32_t)t->n++;
    }
    return t->id[i];
}

static int dbg(const char *path, int k)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    table_t t = {0};
    t.cap = 1024;
    while (t.cap < 2 * (uint64_t)size + 2) t.cap *= 2;
    t.key = xmalloc(t.cap * sizeof *t.key);
    t.id = xmalloc(t.cap * sizeof *t.id);
    char line[1 << 16];
    uint64_t fwd = 0, rev = 0, prev_vert = 0;
    int run = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '>') {
            run = 0;
            continue;
        }
        for (char *p = line; *p && *p != '\n'; p++) {
            if (!sg_kmer64_roll(&fwd, &rev, &run, *p, k)) continue;
            uint64_t c = fwd < rev ? fwd : rev;
            uint64_t v = 2ull * lookup(&t, c) + (fwd != c);
            if (run > k) printf("%llu %llu\n%llu %llu\n", (unsigned long long)prev_vert, (unsigned long long)v,
                                (unsigned long long)(v ^ 1), (unsigned long long)(prev_vert ^ 1));
            prev_vert = v;
        }
    }
    fclose(fp);
    fprintf(stderr, "gen_graph: %llu k-mers, %llu vertices\n", (unsigned long long)t.n, 2ull * t.n);
    return 0;
}

static int powerlaw(uint64_t n, uint64_t seed)
{
    rng_state ^= sg_mix64(seed);
    uint32_t *rank = xmalloc(n * sizeof *rank);
    for (uint64_t i = 0; i < n; i++) rank[i] = (uint32_t)i;
    for (uint64_t i = n; i > 1; i--) {
        uint64_t j = rnd() % i;
        uint32_t x = rank[i - 1];
        rank[i - 1] = rank[j], rank[j] = x;
    }
    for (uint64_t e = 0; e < 3 * n; e++) {
        uint64_t a = rnd() % n, b;
        if (rnd() & 1) {
            b = rnd() % n;
        } else { /* P(X >= x) ~ x^-0.5 */
            double u = ((rnd() >> 11) + 1) * (1.0 / 9007199254740992.0);
            double x = floor(1.0 / (u * u));
            b = rank[x >= (double)n ? n - 1 : (uint64_t)x - 1];
        }
        printf("%llu %llu\n", (unsigned long long)a, (unsigned long long)b);
    }
    free(rank);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "dbg")) {
        int k = atoi(argv[3]);
        if (k < 3 || k > 31 || k % 2 == 0) {
            fprintf(stderr, "gen_graph: k must be odd, 3 to 31\n");
            return 1;
        }
        return dbg(argv[2], k);
    }
    if (argc >= 3 && !strcmp(argv[1], "powerlaw"))
        return powerlaw(strtoull(argv[2], NULL, 10), argc > 3 ? strtoull(argv[3], NULL, 10) : 1);
    fprintf(stderr, "usage: gen_graph dbg GENOME.fa K | gen_graph powerlaw N [SEED]\n");
    return 1;
}
