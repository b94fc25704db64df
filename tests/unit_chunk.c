/* The reader, parser and chunker at every block size: owned pieces put
 * every record back together exactly once, each overlap holds the bases that
 * follow, and the CPU backend over the chunks finds exactly the hits of an
 * independent brute-force scan of whole records, whatever the boundaries. */
#include <string.h>
#include <unistd.h>

#include "formats/seqio.h"
#include "registry.h"
#include "find/kernels.h"
#include "find/scan.h"
#include "brute.h"
#include "unit.h"

#define MAX_REC 12

typedef struct {
    char name[32];
    char *seq;
    size_t len;
} rec_t;

typedef struct {
    rec_t rec[MAX_REC];
    int n;
    char *text;
    size_t text_len;
} genome_t;

static void make_genome(genome_t *g, int fastq, const char *motif)
{
    static const char bases[] = "ACGTACGTacgtN";
    memset(g, 0, sizeof *g);
    g->n = 1 + unit_below(MAX_REC);
    size_t cap = 1 << 16;
    g->text = malloc(cap);
    size_t t = 0;
    int crlf = unit_below(3) == 0, width = 1 + unit_below(70);
    for (int r = 0; r < g->n; r++) {
        rec_t *rc = &g->rec[r];
        snprintf(rc->name, sizeof rc->name, "rec%d", r);
        rc->len = unit_below(4) == 0 ? unit_below(3) : unit_below(600);
        if (fastq && rc->len == 0) rc->len = 1;
        rc->seq = malloc(rc->len + 1);
        for (size_t i = 0; i < rc->len; i++) rc->seq[i] = bases[unit_below(sizeof bases - 1)];
        /* plant the motif often, so that hits fall on every kind of boundary */
        size_t ml = strlen(motif);
        for (int k = 0; rc->len >= ml && k < (int)rc->len / 20; k++) memcpy(rc->seq + unit_below(rc->len - ml + 1), motif, ml);
        rc->seq[rc->len] = 0;
        const char *eol = crlf ? "\r\n" : "\n";
        t += sprintf(g->text + t, "%c%s description words%s", fastq ? '@' : '>', rc->name, eol);
        if (fastq) {
            t += sprintf(g->text + t, "%s%s+%s", rc->seq, eol, eol);
            memset(g->text + t, 'I', rc->len);
            t += rc->len;
            t += sprintf(g->text + t, "%s", eol);
        } else {
            for (size_t i = 0; i < rc->len; i += width) {
                size_t w = rc->len - i < (size_t)width ? rc->len - i : (size_t)width;
                memcpy(g->text + t, rc->seq + i, w);
                t += w;
                t += sprintf(g->text + t, "%s", eol);
            }
        }
    }
    if (unit_below(3) == 0 && t && g->text[t - 1] == '\n') t -= 1 + (crlf != 0); /* no final newline */
    g->text_len = t;
}

static void free_genome(genome_t *g)
{
    for (int r = 0; r < g->n; r++) free(g->rec[r].seq);
    free(g->text);
}

typedef struct {
    sg_chunk_t **c;
    int n, m;
} chunks_t;

static void collect(void *arg, sg_chunk_t *c)
{
    chunks_t *cs = arg;
    if (cs->n == cs->m) {
        cs->m = cs->m ? 2 * cs->m : 16;
        cs->c = realloc(cs->c, cs->m * sizeof *cs->c);
    }
    cs->c[cs->n++] = c;
}

/* Read path with blocks of `block` bytes, chunk with the given overlap. */
static int read_chunks(const char *path, size_t block, size_t overlap, chunks_t *cs)
{
    char *paths[] = {(char *)path};
    sg_reader_t *rd = sg_reader_new(paths, 1, block, 1);
    sg_chunker_t ck;
    sg_chunker_init(&ck, overlap);
    sg_chunk_t *c;
    int r;
    while ((r = sg_reader_next(rd, &c)) > 0) {
        if (sg_parse_block(c) < 0) {
            fprintf(stderr, "  parse error: %s\n", c->err);
            sg_chunk_free(c);
            r = -1;
            break;
        }
        sg_chunker_push(&ck, c, collect, cs);
    }
    if (r == 0) sg_chunker_push(&ck, NULL, collect, cs);
    sg_chunker_free(&ck);
    sg_reader_free(rd);
    return r;
}

static void check_chunks(const genome_t *g, const chunks_t *cs, size_t overlap, size_t block)
{
    size_t *filled = calloc(g->n, sizeof *filled);
    char *seen = calloc(g->n, 1);
    int ok = 1;
    for (int i = 0; i < cs->n && ok; i++) {
        const sg_chunk_t *c = cs->c[i];
        ok &= c->id == (uint64_t)i;
        for (int s = 0; s < c->n_seg && ok; s++) {
            const sg_seg_t *sg = &c->seg[s];
            const rec_t *rc = &g->rec[sg->rid];
            ok &= sg->rid < g->n && !strcmp(sg_chunk_name(c, sg), rc->name);
            /* a block holding only a header gives its record an empty first piece */
            ok &= sg->rec_off == (int64_t)filled[sg->rid] && sg->first == !seen[sg->rid];
            seen[sg->rid] = 1;
            ok &= sg->rec_off + sg->len <= rc->len && !memcmp(c->seq + sg->off, rc->seq + sg->rec_off, sg->len);
            filled[sg->rid] += sg->len;
            ok &= sg->last == (filled[sg->rid] == rc->len);
            if (s + 1 < c->n_seg) ok &= sg->off + sg->len < c->len && c->seq[sg->off + sg->len] == SG_SEP;
            if (s + 1 == c->n_seg) {
                size_t rest = rc->len - filled[sg->rid], want = rest < overlap ? rest : overlap;
                ok &= c->ov == want && !memcmp(c->seq + c->len, rc->seq + filled[sg->rid], want);
            }
            if (!ok)
                fprintf(stderr, "  chunk %d piece %d (record %lld, off %lld len %llu first %d last %d; filled %zu of %zu; chunk len %zu ov %zu) is wrong\n",
                        i, s, (long long)sg->rid, (long long)sg->rec_off, (unsigned long long)sg->len, sg->first, sg->last,
                        filled[sg->rid], rc->len, c->len, c->ov);
        }
    }
    for (int r = 0; r < g->n && ok; r++) ok &= filled[r] == g->rec[r].len;
    CHECK(ok, "block %zu, overlap %zu: pieces do not rebuild the records", block, overlap);
    free(filled);
    free(seen);
}

/* What a reader of sg_scan_hits saw: it takes a random share of each batch
 * and stops at random, as find's formatter does when its text is full. */
typedef struct {
    const sg_chunk_t *c;
    sg_hits_t *out;
    uint64_t last; /* the last key taken, plus one */
    size_t upto;
    int bad;
} reader_t;

static int take_some(void *arg, const sg_hits_t *h, size_t upto, size_t *taken)
{
    reader_t *rd = arg;
    const sg_chunk_t *c = rd->c;
    if (upto > c->len) rd->bad = 1;
    rd->upto = upto;
    size_t n = unit_below(4) ? h->n : (size_t)unit_below((int)h->n + 1);
    for (size_t k = 0; k < n; k++) {
        uint32_t pos = sg_hit_pos(h->a[k]);
        if (h->a[k] < rd->last || pos >= upto) rd->bad = 1; /* in order, none twice, none past upto */
        rd->last = h->a[k] + 1;
        const sg_seg_t *s = &c->seg[sg_chunk_seg_at(c, pos)];
        /* record in the top bits, start in the middle, rank at the bottom */
        sg_hits_push(rd->out, (uint64_t)s->rid << 48 | (uint64_t)(s->rec_off + pos - s->off) << 16 | sg_hit_rank(h->a[k]));
    }
    *taken = n;
    return n == h->n && unit_below(3);
}

/* Hits of the CPU backend over the chunks, as record, start and rank: through
 * sg_scan_hits with a buffer of a few hits (windows scanned again shorter,
 * readers resumed mid-batch) or none. */
static void scan_chunks(sg_backend_t *be, const sg_motif_set_t *ms, const chunks_t *cs, sg_hits_t *out)
{
    size_t window = 0;
    for (int i = 0; i < cs->n; i++) {
        const sg_chunk_t *c = cs->c[i];
        sg_hits_t h = {.max = unit_below(2) ? (size_t)ms->n_pat + 1 + (size_t)unit_below(5) : (size_t)0};
        sg_scan_at_t at = {0};
        reader_t rd = {.c = c, .out = out};
        int r, calls = 0;
        while ((r = sg_scan_hits(be, c, &at, &h, &window, take_some, &rd)) == 1) calls++;
        CHECK(r == 0, "scanning chunk %d failed (%d)", i, r);
        CHECK(!rd.bad, "chunk %d: hits out of order, twice or past the batch's end", i);
        CHECK(rd.upto == c->len, "chunk %d: the last batch ends at %zu of %zu", i, rd.upto, c->len);
        sg_hits_free(&h);
    }
    sg_hits_sort(out);
}

static void brute_genome(const genome_t *g, const sg_motif_set_t *ms, sg_hits_t *out)
{
    for (int p = 0; p < ms->n_pat; p++) {
        char *letters = brute_letters(ms, &ms->pat[p]);
        size_t len = strlen(letters);
        for (int r = 0; r < g->n; r++)
            for (size_t i = 0; i + len <= g->rec[r].len; i++)
                if (brute_match(letters, g->rec[r].seq + i, 0))
                    sg_hits_push(out, (uint64_t)r << 48 | (uint64_t)i << 16 | ms->pat[p].rank);
        free(letters);
    }
    sg_hits_sort(out);
}

static void free_chunks(chunks_t *cs)
{
    for (int i = 0; i < cs->n; i++) sg_chunk_free(cs->c[i]);
    free(cs->c);
    memset(cs, 0, sizeof *cs);
}

static void round_trip(int fastq, int n_genomes, int max_block)
{
    char path[] = "/tmp/sg_unit_chunkXXXXXX";
    int fd = mkstemp(path);
    close(fd);
    for (int gi = 0; gi < n_genomes; gi++) {
        static const char *motifs[] = {"ACGTTGCA", "GAATTC", "CCWGG", "A", "TTAGGGTTAGGGTTAGGG", "RYN"};
        const char *motif = motifs[unit_below(6)];
        genome_t g;
        make_genome(&g, fastq, motif);
        FILE *fp = fopen(path, "w");
        fwrite(g.text, 1, g.text_len, fp);
        fclose(fp);
        sg_motif_set_t ms = {0};
        char err[256] = "";
        sg_backend_t *be = NULL;
        int r = sg_motif_add(&ms, NULL, motif, err, sizeof err);
        CHECK(r == 0, "motif %s: %s", motif, err);
        /* and one with hits at most starts, on both strands: several hits a start */
        if (r == 0 && unit_below(2)) r = sg_motif_add(&ms, NULL, "YN", err, sizeof err);
        if (r == 0) {
            sg_motif_compile(&ms, SG_STRAND_BOTH);
            CHECK(brute_patterns_right(&ms, SG_STRAND_BOTH), "motif %s: wrong patterns", motif);
            sg_backend_opts_t bo = {.motifs = &ms, .kernel = "auto", .n_threads = 1};
            r = sg_backend_cpu(&bo, &be, err, sizeof err);
            CHECK(r == 0, "the cpu backend does not start: %s", err);
        }
        if (r < 0) {
            sg_motif_set_free(&ms);
            free_genome(&g);
            break;
        }
        sg_hits_t want = {0};
        brute_genome(&g, &ms, &want);
        for (int block = 1; block <= max_block; block += block < 80 ? 1 : 37) {
            chunks_t cs = {0};
            CHECK(read_chunks(path, block, ms.max_len - 1, &cs) == 0, "read at block %d", block);
            check_chunks(&g, &cs, ms.max_len - 1, block);
            sg_hits_t got = {0};
            scan_chunks(be, &ms, &cs, &got);
            CHECK(got.n == want.n && (!got.n || !memcmp(got.a, want.a, got.n * sizeof *got.a)),
                  "block %d motif %s: %zu hits, brute force %zu", block, motif, got.n, want.n);
            sg_hits_free(&got);
            free_chunks(&cs);
        }
        sg_hits_free(&want);
        be->free(be);
        sg_motif_set_free(&ms);
        free_genome(&g);
    }
    unlink(path);
}

static void test_fasta_every_block_size(void) { round_trip(0, 25, 400); }
static void test_fastq_every_block_size(void) { round_trip(1, 15, 400); }

static void test_large_blocks(void)
{
    round_trip(0, 10, 9000);
}

int main(void)
{
    RUN(test_fasta_every_block_size);
    RUN(test_fastq_every_block_size);
    RUN(test_large_blocks);
    return UNIT_SUMMARY();
}
