/* Plain gzip on all cores: the pieces of formats/deflate.h (gzip headers,
 * the block finder, decoding with an unknown window) and the parallel
 * reader of formats/pgzip.h against zlib, on streams built to defeat it:
 * chunk seams in stored, fixed-code and dynamic blocks, matches reaching
 * 32 KiB back, long runs of one base, random bytes, many members, and
 * damage of every kind. zlib is the reference: the same bytes when it
 * decodes a file, an error when it does not. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/deflate.h"
#include "formats/pgzip.h"
#include "core/log.h"
#include "deflate_writer.h"
#include "unit.h"

typedef struct {
    uint8_t *p;
    size_t n;
} buf_t;

static void fill_dna(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = i % 61 == 60 ? '\n' : "ACGTacgtNN"[unit_below(unit_below(20) ? 4 : 10)];
}

/* zlib as htslib reads gzip: members in a row, anything else after one an error. */
static int ref_gunzip(const uint8_t *gz, size_t n, buf_t *out)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    inflateInit2(&zs, 15 + 16);
    size_t cap = 4 * n + 4096;
    out->p = malloc(cap);
    out->n = 0;
    zs.next_in = (Bytef *)gz;
    zs.avail_in = (uInt)n;
    int r = Z_OK;
    while (zs.avail_in || r != Z_STREAM_END) {
        if (r == Z_STREAM_END) inflateReset(&zs);
        if (cap - out->n < 65536) out->p = realloc(out->p, cap *= 2);
        zs.next_out = out->p + out->n;
        zs.avail_out = (uInt)(cap - out->n);
        r = inflate(&zs, Z_NO_FLUSH);
        out->n = (size_t)(zs.next_out - out->p);
        if (r != Z_OK && r != Z_STREAM_END) break;
        if (r == Z_OK && !zs.avail_in && zs.avail_out) break; /* truncated */
    }
    inflateEnd(&zs);
    return r == Z_STREAM_END && !zs.avail_in ? 0 : -1;
}

/* data as gzip by zlib: level, strategy, and a flush of kind flush every `every` bytes (0: none). */
static void gz_zlib(const uint8_t *data, size_t n, int level, int strategy, size_t every, int flush, buf_t *gz)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, strategy);
    size_t cap = deflateBound(&zs, (uLong)n) + 1024 + (every ? 16 * (n / every + 1) : 0);
    gz->p = malloc(cap);
    zs.next_out = gz->p;
    zs.avail_out = (uInt)cap;
    for (size_t at = 0; at < n || at == 0;) {
        size_t m = every && n - at > every ? every : n - at;
        zs.next_in = (Bytef *)data + at;
        zs.avail_in = (uInt)m;
        at += m;
        deflate(&zs, at < n ? flush : Z_FINISH);
        if (at >= n) break;
    }
    gz->n = cap - zs.avail_out;
    deflateEnd(&zs);
}

static void append(buf_t *a, const buf_t *b)
{
    a->p = realloc(a->p, a->n + b->n + 1);
    memcpy(a->p + a->n, b->p, b->n);
    a->n += b->n;
}

/* The parallel reader on gz (as a file), in chunks of `chunk` bytes on
 * threads threads: 0 and its output, or -1. *used: it read in parallel. */
static int pgz_gunzip(const buf_t *gz, size_t chunk, int threads, buf_t *out, int *used)
{
    int fd = memfd_create("unit_gzip", 0);
    for (size_t at = 0; at < gz->n;) at += (size_t)write(fd, gz->p + at, gz->n - at);
    char path[64], cs[32];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    snprintf(cs, sizeof cs, "%zu", chunk);
    setenv("SEQGPU_GZIP_CHUNK", cs, 1);
    sg_pgz_t *g = sg_pgz_open(path, threads);
    unsetenv("SEQGPU_GZIP_CHUNK");
    close(fd);
    *used = g != NULL;
    out->p = NULL;
    out->n = 0;
    if (!g) return -1;
    size_t cap = 0;
    ssize_t r;
    do {
        if (cap - out->n < 65536) out->p = realloc(out->p, cap = 2 * cap + 65536);
        r = sg_pgz_read(g, out->p + out->n, unit_below(3) ? cap - out->n : 1 + (size_t)unit_below(100));
        if (r > 0) out->n += (size_t)r;
    } while (r > 0);
    if (r < 0) CHECK(strlen(sg_pgz_error(g)) > 0, "an error without a reason");
    sg_pgz_close(g);
    return r < 0 ? -1 : 0;
}

/* the parallel reader gives zlib's answer on gz at every chunk size and thread count */
static int same_as_zlib(const char *what, const buf_t *gz, const size_t *chunks, int n_chunks)
{
    buf_t want;
    int want_r = ref_gunzip(gz->p, gz->n, &want), bad = 0;
    for (int c = 0; c < n_chunks; c++)
        for (int threads = 2; threads <= 3; threads++) {
            buf_t got;
            int used, r = pgz_gunzip(gz, chunks[c], threads, &got, &used);
            if (!used) {
                CHECK(gz->n < 2 * chunks[c], "%s: not read in parallel (chunk %zu)", what, chunks[c]);
                continue;
            }
            int same = r == want_r && (r < 0 || (got.n == want.n && !memcmp(got.p, want.p, want.n)));
            CHECK(same, "%s, chunks of %zu, %d threads: %s (%zu bytes) where zlib gives %s (%zu bytes)", what, chunks[c],
                  threads, r ? "an error" : "success", got.n, want_r ? "an error" : "success", want.n);
            bad |= !same;
            free(got.p);
        }
    free(want.p);
    return bad;
}

static const size_t chunks_all[] = {64, 251, 1000, 4099, 30011, 200000};
#define N_CHUNKS (int)(sizeof chunks_all / sizeof *chunks_all)

static void test_gzip_header(void)
{
    static const uint8_t plain[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    CHECK(sg_dfl_gzip_header(plain, 10) == 10, "a plain header");
    CHECK(sg_dfl_gzip_header(plain, 9) == SG_DFL_TRUNCATED, "a short header");
    CHECK(sg_dfl_gzip_header(plain, 2) == SG_DFL_TRUNCATED, "two bytes of one");
    uint8_t h[64];
    memcpy(h, plain, 10);
    h[3] = 4 | 8 | 16; /* FEXTRA, FNAME, FCOMMENT */
    size_t n = 10;
    h[n++] = 3, h[n++] = 0, h[n++] = 'a', h[n++] = 'b', h[n++] = 'c';
    memcpy(h + n, "name", 5), n += 5;
    memcpy(h + n, "note", 5), n += 5;
    CHECK(sg_dfl_gzip_header(h, n) == (long)n, "extra, name and comment: %ld", sg_dfl_gzip_header(h, n));
    CHECK(sg_dfl_gzip_header(h, n - 1) == SG_DFL_TRUNCATED, "a comment cut short");
    h[3] |= 2; /* FHCRC */
    uLong crc = crc32(0, h, (uInt)n);
    h[n] = (uint8_t)crc, h[n + 1] = (uint8_t)(crc >> 8);
    CHECK(sg_dfl_gzip_header(h, n + 2) == (long)n + 2, "a header CRC");
    h[n] ^= 1;
    CHECK(sg_dfl_gzip_header(h, n + 2) == SG_DFL_CORRUPT, "a wrong header CRC");
    memcpy(h, plain, 10);
    h[3] = 0x20;
    CHECK(sg_dfl_gzip_header(h, 10) == SG_DFL_CORRUPT, "a reserved flag");
    h[3] = 0, h[2] = 7;
    CHECK(sg_dfl_gzip_header(h, 10) == SG_DFL_CORRUPT, "another method");
    h[2] = 8, h[1] = 0x8c;
    CHECK(sg_dfl_gzip_header(h, 10) == SG_DFL_CORRUPT, "another magic");
}

/* the blocks of a member (sequential decoding): each block's start bit, and the output before it */
typedef struct {
    uint64_t pos[4096];
    size_t out[4096];
    int n;
} blocks_t;

static void walk_blocks(const buf_t *gz, blocks_t *b)
{
    long h = sg_dfl_gzip_header(gz->p, gz->n);
    sg_dfl_t *z = sg_dfl_new(gz->p, gz->n, (uint64_t)h * 8, 1, NULL, 0);
    int r;
    b->n = 0;
    do {
        size_t n;
        sg_dfl_out(z, &n);
        if (b->n < 4096) b->pos[b->n] = sg_dfl_pos(z), b->out[b->n++] = n;
    } while ((r = sg_dfl_block(z)) == 0);
    CHECK(r == 1, "the member decodes to its end: %d", r);
    sg_dfl_free(z);
}

static unsigned bit_at(const buf_t *gz, uint64_t pos) { return gz->p[pos / 8] >> (pos % 8) & 1; }

/* n bases of DNA, as one member at a level, and its blocks */
static uint8_t *dna_member(size_t n, int level, buf_t *gz, blocks_t *b)
{
    uint8_t *dna = malloc(n);
    fill_dna(dna, n);
    gz_zlib(dna, n, level, Z_DEFAULT_STRATEGY, 0, Z_NO_FLUSH, gz);
    walk_blocks(gz, b);
    return dna;
}

static void test_block_finder(void)
{
    /* a dynamic block start is found exactly; no search skips over one */
    buf_t gz;
    blocks_t b;
    uint8_t *dna = dna_member(400000, 6, &gz, &b);
    CHECK(b.n > 4, "blocks: %d", b.n);
    int dynamic = 0;
    for (int i = 0; i < b.n; i++) {
        uint64_t p = b.pos[i];
        int is_dyn = !bit_at(&gz, p) && !bit_at(&gz, p + 1) && bit_at(&gz, p + 2);
        dynamic += is_dyn;
        if (is_dyn) CHECK(sg_dfl_find(gz.p, gz.n, p, p + 1) == p, "block %d at %llu not found", i, (unsigned long long)p);
        uint64_t from = i ? b.pos[i - 1] + 1 + unit_rand() % (p - b.pos[i - 1]) : p;
        uint64_t c = sg_dfl_find(gz.p, gz.n, from, (uint64_t)gz.n * 8);
        if (is_dyn) CHECK(c <= p, "a search from %llu passes block %d at %llu (gives %llu)", (unsigned long long)from, i,
                          (unsigned long long)p, (unsigned long long)c);
    }
    CHECK(dynamic > 2, "dynamic blocks: %d", dynamic);
    /* a member start, and a stored block's end */
    buf_t two = {0};
    append(&two, &gz);
    append(&two, &gz);
    uint64_t m = (uint64_t)gz.n * 8;
    CHECK(sg_dfl_find(two.p, two.n, m - 7, m + 64) == m, "the second member's header");
    free(two.p);
    dw_t w = {0};
    uint8_t rnd[3000];
    for (size_t i = 0; i < sizeof rnd; i++) rnd[i] = (uint8_t)unit_rand();
    dw_fixed_begin(&w, 0);
    for (int i = 0; i < 100; i++) dw_literal(&w, 'A');
    dw_fixed_end(&w);
    dw_stored(&w, rnd, sizeof rnd, 0);
    uint64_t end = (uint64_t)w.len * 8 + (uint64_t)w.nacc;
    dw_fixed_begin(&w, 0);
    for (int i = 0; i < 100; i++) dw_literal(&w, 'C');
    dw_fixed_end(&w);
    dw_finish(&w);
    CHECK(sg_dfl_find(w.buf, w.len, end - 9000, end + 1) == end, "the stored block's end %llu: %llu",
          (unsigned long long)end, (unsigned long long)sg_dfl_find(w.buf, w.len, end - 9000, end + 1));
    dw_free(&w);
    free(gz.p);
    free(dna);
}

static void test_unknown_window(void)
{
    /* from a block in the middle, without the window: markers, resolved to the right bytes */
    size_t n = 600000;
    buf_t gz;
    blocks_t b;
    uint8_t *dna = dna_member(n, 1, &gz, &b);
    int i = b.n / 2;
    CHECK(b.out[i] >= SG_DFL_WINDOW, "a block %d with a whole window before it", i);
    sg_dfl_t *z = sg_dfl_new(gz.p, gz.n, b.pos[i], 0, NULL, 0);
    int r;
    while ((r = sg_dfl_block(z)) == 0) {}
    CHECK(r == 1, "to the member's end: %d", r);
    size_t ns;
    const uint16_t *s = sg_dfl_out(z, &ns);
    CHECK(ns == n - b.out[i], "%zu symbols, %zu bytes after the block", ns, n - b.out[i]);
    int markers = 0;
    for (size_t k = 0; k < ns; k++) markers += s[k] > 255;
    CHECK(markers > 0, "no markers at all");
    uint8_t *res = malloc(ns + 1);
    sg_dfl_resolve(s, ns, dna + b.out[i] - SG_DFL_WINDOW, res);
    CHECK(ns == n - b.out[i] && !memcmp(res, dna + b.out[i], ns), "resolved bytes differ");
    /* a distance before the window is an error; so is one before a member's start */
    sg_dfl_free(z);
    z = sg_dfl_new(gz.p, gz.n, b.pos[i], 1, NULL, 0);
    CHECK(sg_dfl_block(z) == SG_DFL_FAR, "a distance before a known start");
    sg_dfl_free(z);
    free(res);
    free(gz.p);
    free(dna);
}

static void test_streams(void)
{
    size_t n = 150000;
    uint8_t *dna = malloc(n), *rnd = malloc(n), *run = malloc(4 * n);
    fill_dna(dna, n);
    for (size_t i = 0; i < n; i++) rnd[i] = (uint8_t)unit_rand();
    memset(run, 'A', 4 * n);
    struct {
        const char *what;
        const uint8_t *data;
        size_t n;
        int level, strategy, flush;
        size_t every;
    } s[] = {
        {"DNA, level 1", dna, n, 1, Z_DEFAULT_STRATEGY, Z_NO_FLUSH, 0},
        {"DNA, level 6", dna, n, 6, Z_DEFAULT_STRATEGY, Z_NO_FLUSH, 0},
        {"DNA, level 9", dna, n, 9, Z_DEFAULT_STRATEGY, Z_NO_FLUSH, 0},
        {"DNA, fixed codes", dna, n, 6, Z_FIXED, Z_NO_FLUSH, 0},
        {"DNA, Huffman only", dna, n, 6, Z_HUFFMAN_ONLY, Z_NO_FLUSH, 0},
        {"DNA, run lengths", dna, n, 6, Z_RLE, Z_NO_FLUSH, 0},
        {"DNA, stored", dna, n, 0, Z_DEFAULT_STRATEGY, Z_NO_FLUSH, 0},
        {"DNA, full flushes", dna, n, 6, Z_DEFAULT_STRATEGY, Z_FULL_FLUSH, 10007},
        {"DNA, sync flushes", dna, n, 1, Z_DEFAULT_STRATEGY, Z_SYNC_FLUSH, 3001},
        {"DNA, block flushes", dna, n, 6, Z_DEFAULT_STRATEGY, Z_BLOCK, 5003},
        {"random bytes", rnd, n, 6, Z_DEFAULT_STRATEGY, Z_NO_FLUSH, 0},
        {"one base", run, 4 * n, 9, Z_DEFAULT_STRATEGY, Z_NO_FLUSH, 0},
        {"one base, blocks", run, 4 * n, 1, Z_DEFAULT_STRATEGY, Z_FULL_FLUSH, 100000},
    };
    for (size_t k = 0; k < sizeof s / sizeof *s; k++) {
        buf_t gz;
        gz_zlib(s[k].data, s[k].n, s[k].level, s[k].strategy, s[k].every, s[k].flush, &gz);
        same_as_zlib(s[k].what, &gz, chunks_all, N_CHUNKS);
        free(gz.p);
    }
    free(dna);
    free(rnd);
    free(run);
}

/* A stream of every kind of block in turn, with matches at distances up to 32768. */
static void mixed_stream(dw_t *w, int blocks)
{
    uint8_t tmp[40000];
    for (int b = 0; b < blocks; b++) {
        int kind = unit_below(4), n = 1 + unit_below(30000);
        if (kind == 0) { /* zlib's dynamic blocks, which refer to what came before */
            fill_dna(tmp, (size_t)n);
            dw_zlib(w, tmp, (size_t)n, 1 + unit_below(9), Z_DEFAULT_STRATEGY);
        } else if (kind == 1) {
            for (int i = 0; i < n; i++) tmp[i] = (uint8_t)(unit_below(2) ? unit_rand() : 'G');
            dw_stored(w, tmp, (size_t)(unit_below(8) ? n : 0), 0);
        } else {
            dw_fixed_begin(w, 0);
            for (int i = 0; i < n / 4; i++) {
                size_t have = w->n_data;
                if (have >= 32768 && unit_below(3) == 0) dw_match(w, 3 + unit_below(256), 32768 - unit_below(3));
                else if (have > 300 && unit_below(2)) dw_match(w, 3 + unit_below(256), 1 + unit_below((int)(have < 32768 ? have : 32768)));
                else dw_literal(w, (uint8_t)"ACGT"[unit_below(4)]);
            }
            dw_fixed_end(w);
        }
    }
    dw_finish(w);
}

static void test_mixed_blocks(void)
{
    buf_t gz = {0};
    for (int m = 0; m < 3; m++) { /* members, one of them empty */
        dw_t w = {0};
        mixed_stream(&w, m == 1 ? 0 : 40);
        dw_gzip(&w, m == 2 ? "reads.fq" : NULL, &gz.p, &gz.n);
        dw_free(&w);
    }
    same_as_zlib("stored, fixed and dynamic blocks, three members", &gz, chunks_all, N_CHUNKS);
    free(gz.p);
}

static void test_members(void)
{
    /* many small members (pigz -i, cat of gzip files), and members with headers of every field */
    size_t n = 200000;
    uint8_t *dna = malloc(n);
    fill_dna(dna, n);
    buf_t all = {0};
    for (size_t at = 0; at < n;) {
        size_t m = 1 + (size_t)unit_below(20000);
        if (m > n - at) m = n - at;
        buf_t gz;
        gz_zlib(dna + at, m, 1 + unit_below(9), Z_DEFAULT_STRATEGY, 0, Z_NO_FLUSH, &gz);
        if (unit_below(3) == 0) { /* a name and a comment */
            buf_t h = {0};
            uint8_t hdr[10];
            memcpy(hdr, gz.p, 10);
            hdr[3] = 8 | 16;
            h.p = malloc(gz.n + 32);
            memcpy(h.p, hdr, 10);
            memcpy(h.p + 10, "chr1.fa\0note\0", 13);
            memcpy(h.p + 23, gz.p + 10, gz.n - 10);
            h.n = gz.n + 13;
            append(&all, &h);
            free(h.p);
        } else {
            append(&all, &gz);
        }
        free(gz.p);
        at += m;
    }
    same_as_zlib("many members", &all, chunks_all, N_CHUNKS);
    /* more threads than chunks: a thread a chunk (-t 512 on a small file) */
    int fd = memfd_create("unit_gzip", 0);
    for (size_t at = 0; at < all.n;) at += (size_t)write(fd, all.p + at, all.n - at);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    setenv("SEQGPU_GZIP_CHUNK", "30011", 1);
    sg_pgz_t *g = sg_pgz_open(path, 512);
    unsetenv("SEQGPU_GZIP_CHUNK");
    close(fd);
    sg_pgz_stats_t st;
    sg_pgz_stats(g, &st);
    CHECK(st.threads == (int)((all.n + 30010) / 30011), "%d threads for %zu chunks", st.threads, (all.n + 30010) / 30011);
    sg_pgz_close(g);
    free(all.p);
    free(dna);
}

/* A member of the deflate bits bits[0..n) (after a header when header),
 * with the trailer of data[0..len): a test makes either lie. */
static void member_of(buf_t *gz, const dw_t *bits, int header, const uint8_t *data, size_t len)
{
    static const uint8_t hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    uint8_t trailer[8];
    uLong crc = crc32(0, data, (uInt)len);
    for (int i = 0; i < 4; i++) trailer[i] = (uint8_t)(crc >> (8 * i)), trailer[4 + i] = (uint8_t)(len >> (8 * i));
    gz->p = realloc(gz->p, gz->n + 10 + bits->len + 8);
    if (header) memcpy(gz->p + gz->n, hdr, 10), gz->n += 10;
    memcpy(gz->p + gz->n, bits->buf, bits->len), gz->n += bits->len;
    memcpy(gz->p + gz->n, trailer, 8), gz->n += 8;
}

static void test_member_seams(void)
{
    /* Streams zlib rejects that a chunk seam at the right place made look
     * whole: each chunk decodes, and starts where the one before ends, but
     * not as the stream does there. */
    size_t n = 400000;
    uint8_t *dna = malloc(n);
    fill_dna(dna, n);
    dw_t w1 = {0}, w2 = {0};
    dw_zlib(&w1, dna, n / 4, 6, Z_DEFAULT_STRATEGY); /* ends between two blocks, at a byte */
    dw_zlib(&w2, dna + n / 4, n - n / 4, 6, Z_DEFAULT_STRATEGY);
    dw_finish(&w2);
    buf_t gz = {0};
    /* a whole member, then deflate blocks and a trailer without a header */
    dw_t whole = {0};
    dw_zlib(&whole, dna, n / 4, 6, Z_DEFAULT_STRATEGY);
    dw_finish(&whole);
    member_of(&gz, &whole, 1, whole.data, whole.n_data);
    size_t seam = gz.n;
    member_of(&gz, &w2, 0, w2.data, w2.n_data);
    same_as_zlib("a member, then blocks without a header", &gz, &seam, 1);
    /* a member cut between two blocks, then a member whose trailer covers both */
    gz.n = 0;
    memcpy(gz.p = realloc(gz.p, 10 + w1.len), "\x1f\x8b\x08\0\0\0\0\0\0\x03", 10);
    memcpy(gz.p + 10, w1.buf, w1.len);
    gz.n = seam = 10 + w1.len;
    uint8_t *both = malloc(n);
    memcpy(both, w1.data, w1.n_data);
    memcpy(both + w1.n_data, w2.data, w2.n_data);
    member_of(&gz, &w2, 1, both, n);
    same_as_zlib("a member cut between two blocks, then a member", &gz, &seam, 1);
    /* a member whose second block reaches before the member's start */
    gz.n = 0;
    member_of(&gz, &whole, 1, whole.data, whole.n_data);
    dw_t far = {0};
    dw_data(&far, whole.data + whole.n_data - 32768, 32768); /* what the match copies: the writer's data only */
    dw_stored(&far, dna, 100, 0);
    seam = gz.n + 10 + far.len;
    dw_fixed_begin(&far, 0);
    dw_match(&far, 200, 1000);
    dw_fixed_end(&far);
    dw_zlib(&far, dna + n / 4, n - n / 4, 6, Z_DEFAULT_STRATEGY);
    dw_finish(&far);
    member_of(&gz, &far, 1, far.data + 32768, far.n_data - 32768);
    same_as_zlib("a distance past its member's start", &gz, &seam, 1);
    free(both);
    free(gz.p);
    dw_free(&w1);
    dw_free(&w2);
    dw_free(&whole);
    dw_free(&far);
    free(dna);
}

#ifndef __SANITIZE_ADDRESS__ /* test_address_space's alone */
/* This process's address space, in bytes. */
static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmSize:", 7)) kb = strtoull(line + 7, NULL, 10);
    if (f) fclose(f);
    return kb << 10;
}
#endif

static void test_address_space(void)
{
    /* The reader's memory grows with what it holds, not with its limits
     * (a chunk may make 32 chunks of output): a file that compresses
     * little, read under a bound on the address space (ulimit -v, as
     * clusters set it) of the mapping and a few chunks. */
#ifndef __SANITIZE_ADDRESS__ /* its shadow memory takes terabytes of address space */
    size_t n = 24u << 20, chunk = 1u << 20;
    uint8_t *rnd = malloc(n);
    for (size_t i = 0; i < n; i += 8) {
        unsigned long long r = unit_rand();
        memcpy(rnd + i, &r, 8);
    }
    uLong crc = crc32(0, rnd, (uInt)n);
    buf_t gz;
    gz_zlib(rnd, n, 1, Z_DEFAULT_STRATEGY, 0, Z_NO_FLUSH, &gz);
    free(rnd);
    int fd = memfd_create("unit_gzip", 0);
    for (size_t at = 0; at < gz.n;) at += (size_t)write(fd, gz.p + at, gz.n - at);
    free(gz.p);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        mallopt(M_ARENA_MAX, 1); /* no 64 MiB arena a thread */
        char path[64], cs[32];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        snprintf(cs, sizeof cs, "%zu", chunk);
        setenv("SEQGPU_GZIP_CHUNK", cs, 1);
        static char buf[1 << 16];
        /* the mapping and 96 MiB (a chunk's limit is 32 MiB: reserved for each chunk in flight, the limits pass it) */
        struct rlimit rl = {vm_size() + n + (96u << 20), RLIM_INFINITY};
        rl.rlim_max = rl.rlim_cur;
        if (setrlimit(RLIMIT_AS, &rl) < 0) _exit(3);
        sg_pgz_t *g = sg_pgz_open(path, 2);
        if (!g) _exit(4);
        ssize_t r;
        size_t got = 0;
        uLong c = crc32(0, NULL, 0);
        while ((r = sg_pgz_read(g, buf, sizeof buf)) > 0) c = crc32(c, (const Bytef *)buf, (uInt)r), got += (size_t)r;
        _exit(r == 0 && got == n && c == crc ? 0 : 5);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    close(fd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "read under a bound on the address space: exit status %d",
          WIFEXITED(st) ? WEXITSTATUS(st) : -1);
#endif
}

static void test_damage(void)
{
    size_t n = 120000;
    uint8_t *dna = malloc(n);
    fill_dna(dna, n);
    buf_t gz = {0}, part;
    gz_zlib(dna, n / 2, 6, Z_DEFAULT_STRATEGY, 0, Z_NO_FLUSH, &part);
    append(&gz, &part);
    free(part.p);
    gz_zlib(dna + n / 2, n - n / 2, 1, Z_DEFAULT_STRATEGY, 0, Z_NO_FLUSH, &part);
    size_t second = gz.n;
    append(&gz, &part);
    free(part.p);
    static const size_t chunks[] = {97, 1000, 7001};
    buf_t d = {malloc(gz.n + 64), 0};
    int bad = 0;
    char what[96];
    /* cut short anywhere, the trailers most of all */
    for (int i = 0; i < 28 && !bad; i++) {
        d.n = i < 14 ? gz.n - 1 - (size_t)i : 1 + unit_rand() % (gz.n - 1);
        memcpy(d.p, gz.p, d.n);
        snprintf(what, sizeof what, "cut to %zu of %zu bytes", d.n, gz.n);
        bad |= same_as_zlib(what, &d, chunks, 3);
    }
    /* a CRC or a length that does not match, in either member */
    const size_t trailers[] = {second - 8, second - 4, gz.n - 8, gz.n - 4};
    for (int i = 0; i < 4 && !bad; i++) {
        memcpy(d.p, gz.p, d.n = gz.n);
        d.p[trailers[i] + (size_t)unit_below(4)] ^= (uint8_t)(1 + unit_below(255));
        snprintf(what, sizeof what, "a trailer changed at %zu", trailers[i]);
        bad |= same_as_zlib(what, &d, chunks, 3);
    }
    /* a flipped bit anywhere; trailing garbage and zeros */
    for (int i = 0; i < 32 && !bad; i++) {
        memcpy(d.p, gz.p, d.n = gz.n);
        size_t at = unit_rand() % gz.n;
        d.p[at] ^= (uint8_t)(1 << unit_below(8));
        snprintf(what, sizeof what, "a bit flipped at byte %zu", at);
        bad |= same_as_zlib(what, &d, chunks, 3);
    }
    memcpy(d.p, gz.p, d.n = gz.n);
    memcpy(d.p + d.n, "garbage", 7), d.n += 7;
    bad |= same_as_zlib("trailing garbage", &d, chunks, 3);
    memset(d.p + gz.n, 0, 40), d.n = gz.n + 40;
    bad |= same_as_zlib("trailing zeros", &d, chunks, 3);
    free(d.p);
    free(gz.p);
    free(dna);
}

int main(void)
{
    sg_log_init("unit_gzip", 1);
    /* SEQGPU_TEST_SEED: other random streams (a stress run: docs/testing.md) */
    if (getenv("SEQGPU_TEST_SEED")) unit_rng ^= strtoull(getenv("SEQGPU_TEST_SEED"), NULL, 10) * 0x9e3779b97f4a7c15ull;
    RUN(test_gzip_header);
    RUN(test_block_finder);
    RUN(test_unknown_window);
    unit_needs("isal", sg_pgz_available() ? NULL : "this seqgpu was built without ISA-L (plain gzip on one thread)");
    RUN(test_streams);
    RUN(test_mixed_blocks);
    RUN(test_members);
    RUN(test_member_seams);
    RUN(test_damage);
    RUN(test_address_space);
    return UNIT_SUMMARY();
}
