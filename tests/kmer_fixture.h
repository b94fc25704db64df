/* Inputs for the graph-build tests (unit_kmer_order.c, unit_kmer_gpu.c):
 * random genomes with planted tandem repeats, reads from them with errors,
 * N bases and lowercase, cut into chunks the way the pipeline hands them
 * over; a byte-for-byte comparison of two graphs; and a brute-force check
 * of a graph's k-mers and counts against the chunks. */
#ifndef SG_KMER_FIXTURE_H
#define SG_KMER_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/chunk.h"
#include "scc/graph.h"
#include "core/dna.h"
#include "unit.h"

typedef struct {
    sg_chunk_t **c;
    int n, m;
} chunks_t;

static void chunks_free(chunks_t *cs)
{
    for (int i = 0; i < cs->n; i++) sg_chunk_free(cs->c[i]);
    free(cs->c);
    memset(cs, 0, sizeof *cs);
}

/* A chunk owning the starts [0, len) of s, with ov more bases after them. */
static void chunks_push(chunks_t *cs, const char *s, size_t len, size_t ov)
{
    sg_chunk_t *c = sg_chunk_new(len + ov + 1);
    memcpy(c->seq, s, len + ov);
    c->len = len;
    c->ov = ov;
    if (cs->n == cs->m) cs->c = realloc(cs->c, (cs->m = cs->m ? 2 * cs->m : 64) * sizeof *cs->c);
    cs->c[cs->n++] = c;
}

/* One long record cut into chunks of piece bases, each with the k - 1 bases
 * after it as overlap (fewer at the end). */
static void chunks_cut(chunks_t *cs, const char *s, size_t n, size_t piece, int k)
{
    for (size_t a = 0; a < n; a += piece) {
        size_t len = n - a < piece ? n - a : piece, rest = n - a - len;
        chunks_push(cs, s + a, len, rest < (size_t)k - 1 ? rest : (size_t)k - 1);
    }
}


/* A random genome of n bases with tandem arrays (units of 1 to 60 bases,
 * 3 to 30 copies, some copies mutated) planted in it. */
static char *random_genome(size_t n)
{
    char *g = malloc(n + 1);
    for (size_t i = 0; i < n; i++) g[i] = "ACGT"[unit_below(4)];
    for (int r = 0; r < (int)(n / 1500) + 1; r++) {
        char unit[60];
        int len = 1 + unit_below(60), copies = 3 + unit_below(28);
        for (int i = 0; i < len; i++) unit[i] = "ACGT"[unit_below(4)];
        size_t at = (size_t)unit_below((int)n);
        for (int c = 0; c < copies; c++)
            for (int i = 0; i < len && at < n; i++, at++) g[at] = unit_below(200) ? unit[i] : "ACGT"[unit_below(4)];
    }
    g[n] = 0;
    return g;
}

/* n_reads reads of 40 to 150 bases from both strands of g, with 1% errors,
 * some N bases and lowercase runs, packed into chunks of about chunk_bases
 * (reads separated by SG_SEP, no overlap: every read ends in its chunk). */
static void random_reads(chunks_t *cs, const char *g, size_t n, int n_reads, size_t chunk_bases)
{
    char *buf = malloc(chunk_bases + 200);
    size_t at = 0;
    for (int r = 0; r < n_reads; r++) {
        size_t len = 40 + unit_below(111);
        if (len > n) len = n;
        size_t from = (size_t)unit_below((int)(n - len + 1));
        int rev = unit_below(2), lower = unit_below(8) == 0;
        for (size_t i = 0; i < len; i++) {
            char b = rev ? sg_base_complement(g[from + len - 1 - i]) : g[from + i];
            int x = unit_below(1000);
            if (x < 10) b = "ACGT"[unit_below(4)];
            else if (x < 12) b = 'N';
            if (lower && b != 'N') b = (char)(b | 0x20);
            buf[at++] = b;
        }
        buf[at++] = SG_SEP;
        if (at >= chunk_bases || r == n_reads - 1) {
            chunks_push(cs, buf, at, 0);
            at = 0;
        }
    }
    free(buf);
}

/* Whether two graphs are identical; the first difference goes to why. */
static int same_graph(const sg_graph_t *a, const sg_graph_t *b, char *why, size_t whysz)
{
#define DIFF(...) return snprintf(why, whysz, __VA_ARGS__), 0
    if (a->n != b->n || a->n_vert != b->n_vert || a->k != b->k || a->oriented != b->oriented)
        DIFF("%u vs %u unitigs (k %d vs %d)", a->n, b->n, a->k, b->k);
    for (uint32_t i = 0; i <= a->n; i++)
        if (a->seq_off[i] != b->seq_off[i]) DIFF("unitig %u starts at %llu vs %llu", i, (unsigned long long)a->seq_off[i], (unsigned long long)b->seq_off[i]);
    if (memcmp(a->seq, b->seq, a->seq_off[a->n])) DIFF("sequences differ");
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kmers[i] != b->kmers[i] || a->count_sum[i] != b->count_sum[i])
            DIFF("unitig %u: %llu k-mers, count sum %.0f vs %llu, %.0f", i, (unsigned long long)a->kmers[i], a->count_sum[i],
                 (unsigned long long)b->kmers[i], b->count_sum[i]);
    if (a->n_edges != b->n_edges) DIFF("%llu vs %llu edges", (unsigned long long)a->n_edges, (unsigned long long)b->n_edges);
    for (uint32_t v = 0; v <= a->n_vert; v++)
        if (a->off[v] != b->off[v]) DIFF("edges of vertex %u differ", v);
    for (uint64_t i = 0; i < a->n_edges; i++)
        if (a->adj[i] != b->adj[i] || a->ovl[i] != b->ovl[i]) DIFF("edge %llu differs", (unsigned long long)i);
    return 1;
#undef DIFF
}

/* ---- brute force: canonical k-mers as strings, sorted and counted ---- */

typedef struct {
    char s[64]; /* the canonical k-mer, upper case, NUL-padded */
    uint32_t count;
    int used;
} bkmer_t;

static inline int bkmer_cmp(const void *a, const void *b) { return strcmp(((const bkmer_t *)a)->s, ((const bkmer_t *)b)->s); }

/* The canonical form of the k bases at s (upper case ACGT only) into out;
 * the reverse complement by its own table, not the code under test. */
static inline void brute_canonical(const char *s, int k, char *out)
{
    char f[64], r[64];
    for (int j = 0; j < k; j++) {
        f[j] = (char)(s[j] & ~0x20);
        r[k - 1 - j] = "TGCA"[strchr("ACGT", f[j]) - "ACGT"];
    }
    f[k] = r[k] = 0;
    strcpy(out, strcmp(f, r) <= 0 ? f : r);
}

/* Every k-mer starting at an owned base of a chunk (windows of A/C/G/T in
 * either case, none across a separator), counted; *n distinct, sorted. */
static inline bkmer_t *brute_count(const chunks_t *cs, int k, size_t *n)
{
    size_t m = 0, cap = 1024;
    bkmer_t *all = malloc(cap * sizeof *all);
    for (int i = 0; i < cs->n; i++) {
        const sg_chunk_t *c = cs->c[i];
        for (size_t a = 0; a < c->len && a + k <= c->len + c->ov; a++) {
            int ok = 1;
            for (int j = 0; j < k && ok; j++) ok = c->seq[a + j] && strchr("ACGTacgt", c->seq[a + j]) != NULL;
            if (!ok) continue;
            if (m == cap) all = realloc(all, (cap *= 2) * sizeof *all);
            memset(&all[m], 0, sizeof *all);
            brute_canonical(c->seq + a, k, all[m++].s);
        }
    }
    if (m) qsort(all, m, sizeof *all, bkmer_cmp);
    size_t d = 0;
    for (size_t i = 0; i < m; i++) {
        if (d && !strcmp(all[d - 1].s, all[i].s)) {
            all[d - 1].count++;
            continue;
        }
        all[d] = all[i];
        all[d++].count = 1;
    }
    *n = d;
    return all;
}

/* Whether g's unitigs hold each k-mer of the chunks seen >= min times exactly
 * once, and nothing else, with each unitig's k-mer number and count sum
 * right; the first difference goes to why. */
static inline int brute_graph_right(const chunks_t *cs, int k, uint32_t min, const sg_graph_t *g, char *why, size_t whysz)
{
    size_t n;
    bkmer_t *want = brute_count(cs, k, &n);
    bkmer_t key;
    int ok = 1;
    for (uint32_t u = 0; u < g->n && ok; u++) {
        const char *seq = g->seq + g->seq_off[u];
        uint64_t len = sg_graph_len(g, u), windows = len >= (uint64_t)k ? len - k + 1 : 0;
        double sum = 0;
        for (uint64_t j = 0; j < windows && ok; j++) {
            brute_canonical(seq + j, k, key.s);
            bkmer_t *x = n ? bsearch(&key, want, n, sizeof *want, bkmer_cmp) : NULL;
            if (!x || x->count < min || x->used) {
                snprintf(why, whysz, "unitig %u holds %s, %s", u, key.s,
                         !x ? "never seen" : x->used ? "a second time" : "seen too few times");
                ok = 0;
            } else {
                x->used = 1;
                sum += x->count;
            }
        }
        if (ok && (g->kmers[u] != windows || g->count_sum[u] != sum)) {
            snprintf(why, whysz, "unitig %u: %llu k-mers, count sum %.0f; brute force %llu, %.0f", u,
                     (unsigned long long)g->kmers[u], g->count_sum[u], (unsigned long long)windows, sum);
            ok = 0;
        }
    }
    for (size_t i = 0; i < n && ok; i++)
        if (want[i].count >= min && !want[i].used) {
            snprintf(why, whysz, "%s, seen %u times, is in no unitig", want[i].s, want[i].count);
            ok = 0;
        }
    free(want);
    return ok;
}

#endif
