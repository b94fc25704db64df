/* Reads for the overlapper's tests (unit_overlap.c, unit_overlap_gpu.c):
 * random genomes, reads of them with PacBio-like errors, tandem arrays, a
 * read set made of them, and a sink that collects overlaps. Include after
 * unit.h. */
#ifndef SG_OVERLAP_FIXTURE_H
#define SG_OVERLAP_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "core/chunk.h"
#include "scc/overlap/overlap.h"
#include "scc/overlap/readset.h"

static char *revcomp(const char *s, size_t n)
{
    char *r = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        char c = s[n - 1 - i];
        r[i] = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : 'N';
    }
    r[n] = 0;
    return r;
}

static char *random_seq(size_t n)
{
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = "ACGT"[unit_below(4)];
    s[n] = 0;
    return s;
}

/* A copy of s[0..n) with errors at rate err (a tenth substitutions, 6
 * tenths insertions, 3 tenths deletions, as pbsim's CLR model). */
static char *with_errors(const char *s, size_t n, double err, size_t *out_len)
{
    char *r = malloc(2 * n + 16);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        double x = (double)(unit_rand() % 1000000) / 1e6;
        if (x < err * 0.1) r[m++] = "ACGT"[(strchr("ACGT", s[i]) - "ACGT" + 1 + unit_below(3)) % 4];
        else if (x < err * 0.7) r[m++] = "ACGT"[unit_below(4)], i--; /* an insertion before s[i] */
        else if (x >= err) r[m++] = s[i];
    }
    r[m] = 0;
    *out_len = m;
    return r;
}

/* A read set of reads[0..n) named r0, r1, ..., handed over in chunks of
 * piece bytes (a read split across chunks is put together). */
static sg_readset_t *make_readset(char **reads, int n, uint64_t min_len, size_t piece)
{
    sg_readset_t *rs = sg_readset_new(min_len);
    sg_chunk_t *c = NULL;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(reads[i]);
        char name[32];
        snprintf(name, sizeof name, "r%d", i);
        for (size_t a = 0; a < len || (a == 0 && len == 0); a += piece) {
            if (!c) c = sg_chunk_new(piece + 1);
            size_t take = len - a < piece ? len - a : piece;
            sg_chunk_reserve(c, take + 1);
            sg_seg_t *sg = sg_chunk_add_seg(c);
            sg->rid = i;
            sg->off = c->len;
            sg->len = take;
            sg->name = sg_chunk_add_name(c, name, strlen(name));
            memcpy(c->seq + c->len, reads[i] + a, take);
            c->len += take;
            if (c->len >= piece) {
                CHECK(sg_readset_add(rs, c) == 0, "add");
                sg_chunk_free(c);
                c = NULL;
            }
            if (!len) break;
        }
    }
    if (c) {
        CHECK(sg_readset_add(rs, c) == 0, "add");
        sg_chunk_free(c);
    }
    CHECK(sg_readset_finish(rs, NULL) == 0, "finish");
    return rs;
}

typedef struct {
    size_t start, end; /* on the genome */
    int rev;
} place_t;

typedef struct {
    sg_overlap_t *ov;
    size_t n, m;
} ovls_t;

static int collect(void *arg, const sg_overlap_t *ov, size_t n)
{
    ovls_t *o = arg;
    for (size_t i = 0; i < n; i++) {
        if (o->n == o->m) o->ov = realloc(o->ov, (o->m = o->m ? 2 * o->m : 256) * sizeof *o->ov);
        o->ov[o->n++] = ov[i];
    }
    return 0;
}

/* Reads from a random genome at random places and strands, with errors at rate err. */
static char **simulate(const char *genome, size_t glen, int n, size_t lmin, size_t lmax, double err, place_t *pl)
{
    char **reads = malloc(n * sizeof *reads);
    for (int i = 0; i < n; i++) {
        size_t len = lmin + unit_below((int)(lmax - lmin)), at = unit_below((int)(glen - len)), m;
        pl[i] = (place_t){at, at + len, unit_below(2)};
        char *f = with_errors(genome + at, len, err, &m);
        reads[i] = pl[i].rev ? revcomp(f, m) : strdup(f);
        free(f);
    }
    return reads;
}

/* A tandem array of n bases: unit u repeated, each copy diverged at rate div. */
static char *tandem(const char *u, size_t n, double div)
{
    size_t p = strlen(u), m = 0;
    char *s = malloc(n + p + 1);
    while (m < n) {
        size_t cl;
        char *c = with_errors(u, p, div, &cl);
        memcpy(s + m, c, cl < n + p - m ? cl : n + p - m);
        m += cl < n + p - m ? cl : n + p - m;
        free(c);
    }
    s[n] = 0;
    return s;
}

#endif
