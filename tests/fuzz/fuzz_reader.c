/* libFuzzer: the FASTA/FASTQ reader, parser and chunker on any bytes, at a
 * few block sizes. The pieces must put each record together in order
 * (names, offsets, first and last pieces), and every block size must give
 * the same records, byte for byte, or the same failure. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "formats/seqio.h"
#include "scc/backend.h"
#include "fuzz_util.h"

typedef struct {
    char *name, *seq;
    size_t len, cap;
} rec_t;

typedef struct {
    rec_t *r;
    int n, m;
    int open; /* the last record still takes pieces */
    sg_kmer_table_t *kmers;
} sink_t;

static void take(void *arg, sg_chunk_t *c)
{
    sink_t *s = arg;
    for (int i = 0; i < c->n_seg; i++) {
        const sg_seg_t *g = &c->seg[i];
        const char *name = sg_chunk_name(c, g);
        if (g->off + g->len > c->len) fuzz_fail("a piece outside its chunk");
        if (g->first) {
            if (g->rid != s->n) fuzz_fail("record %lld starts, record %d expected", (long long)g->rid, s->n);
            if (s->n == s->m) s->r = realloc(s->r, (s->m = s->m ? 2 * s->m : 16) * sizeof *s->r);
            s->r[s->n++] = (rec_t){strdup(name), NULL, 0, 0};
        } else if (!s->open || g->rid != s->n - 1 || strcmp(name, s->r[s->n - 1].name)) {
            fuzz_fail("a piece of record %lld ('%s') that is not open", (long long)g->rid, name);
        }
        rec_t *r = &s->r[s->n - 1];
        if ((uint64_t)g->rec_off != r->len) fuzz_fail("record '%s': a piece at %lld after %zu bases", name, (long long)g->rec_off, r->len);
        if (r->len + g->len + 1 > r->cap) r->seq = realloc(r->seq, r->cap = 2 * (r->len + g->len) + 1);
        memcpy(r->seq + r->len, c->seq + g->off, g->len);
        r->len += g->len;
        s->open = !g->last;
    }
    if (c->len + c->ov >= 11 && s->kmers->add(s->kmers, c) < 0) fuzz_fail("the cpu k-mer table failed");
    sg_chunk_free(c);
}

static void sink_free(sink_t *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->r[i].name);
        free(s->r[i].seq);
    }
    free(s->r);
    s->kmers->free(s->kmers);
}

/* Read path in blocks of `block` bytes into s; whether it was read without error. */
static int read_all(const char *path, size_t block, sink_t *s)
{
    char *paths[] = {(char *)path};
    sg_reader_t *rd = sg_reader_new(paths, 1, block, 1);
    sg_chunker_t ck;
    sg_chunker_init(&ck, 10);
    sg_chunk_t *c;
    int r;
    while ((r = sg_reader_next(rd, &c)) > 0) {
        if (sg_parse_block(c) < 0) {
            sg_chunk_free(c);
            r = -1;
            break;
        }
        sg_chunker_push(&ck, c, take, s);
    }
    if (r == 0) {
        sg_chunker_push(&ck, NULL, take, s);
        if (s->open) fuzz_fail("the last record never ended");
    }
    sg_chunker_free(&ck);
    sg_reader_free(rd);
    return r == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0) return 0;
    static const size_t blocks[] = {1, 13, 4096};
    sink_t s[3];
    int ok[3];
    for (int b = 0; b < 3; b++) {
        memset(&s[b], 0, sizeof s[b]);
        const sg_kmer_opts_t ko = {.k = 11, .n_threads = 1};
        if (sg_kmer_table_cpu(&ko, &s[b].kmers, NULL, 0) < 0) fuzz_fail("no cpu k-mer table");
        ok[b] = read_all(path, blocks[b], &s[b]);
    }
    for (int b = 1; b < 3; b++) {
        if (ok[b] != ok[0]) fuzz_fail("blocks of %zu bytes: %s; of %zu: %s", blocks[0], ok[0] ? "read" : "an error",
                                      blocks[b], ok[b] ? "read" : "an error");
        if (!ok[0]) continue;
        if (s[b].n != s[0].n) fuzz_fail("blocks of %zu bytes: %d records; of %zu: %d", blocks[0], s[0].n, blocks[b], s[b].n);
        for (int i = 0; i < s[0].n; i++) {
            const rec_t *x = &s[0].r[i], *y = &s[b].r[i];
            if (strcmp(x->name, y->name) || x->len != y->len || (x->len && memcmp(x->seq, y->seq, x->len)))
                fuzz_fail("record %d: '%s' of %zu bases in blocks of %zu bytes; '%s' of %zu in blocks of %zu", i,
                          x->name, x->len, blocks[0], y->name, y->len, blocks[b]);
        }
    }
    for (int b = 0; b < 3; b++) sink_free(&s[b]);
    close(fd);
    return 0;
}
