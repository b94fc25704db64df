/* A tiny deflate writer for the tests (shares no code with formats/): a
 * stream built block by block, so that a test puts stored, fixed-code and
 * (through zlib, with the stream's earlier bytes as its dictionary)
 * dynamic blocks where it wants them, with matches of any distance up to
 * 32768. The data written so far is kept, to check what a decoder makes. */
#ifndef SG_TEST_DEFLATE_WRITER_H
#define SG_TEST_DEFLATE_WRITER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct {
    uint8_t *buf; /* the deflate bits */
    size_t len, cap;
    uint64_t acc; /* bits not yet in buf */
    int nacc;
    uint8_t *data; /* what the stream decodes to */
    size_t n_data, cap_data;
} dw_t;

static void dw_byte(dw_t *w, uint8_t b)
{
    if (w->len == w->cap) w->buf = realloc(w->buf, w->cap = w->cap ? 2 * w->cap : 4096);
    w->buf[w->len++] = b;
}

static void dw_bits(dw_t *w, uint32_t v, int n)
{
    w->acc |= (uint64_t)v << w->nacc;
    w->nacc += n;
    while (w->nacc >= 8) {
        dw_byte(w, (uint8_t)w->acc);
        w->acc >>= 8;
        w->nacc -= 8;
    }
}

/* a Huffman code, most significant bit first */
static void dw_code(dw_t *w, uint32_t code, int n)
{
    for (int i = n - 1; i >= 0; i--) dw_bits(w, code >> i & 1, 1);
}

static void dw_align(dw_t *w)
{
    if (w->nacc) dw_bits(w, 0, 8 - w->nacc);
}

static void dw_data(dw_t *w, const uint8_t *p, size_t n)
{
    if (w->n_data + n > w->cap_data) w->data = realloc(w->data, w->cap_data = 2 * (w->n_data + n) + 4096);
    if (n) memmove(w->data + w->n_data, p, n);
    w->n_data += n;
}

/* fixed code of literal/length symbol s */
static void dw_fixed_sym(dw_t *w, int s)
{
    if (s < 144) dw_code(w, 0x30 + s, 8);
    else if (s < 256) dw_code(w, 0x190 + s - 144, 9);
    else if (s < 280) dw_code(w, s - 256, 7);
    else dw_code(w, 0xc0 + s - 280, 8);
}

static void dw_fixed_begin(dw_t *w, int final)
{
    dw_bits(w, final, 1);
    dw_bits(w, 1, 2);
}

static void dw_fixed_end(dw_t *w) { dw_fixed_sym(w, 256); }

static void dw_literal(dw_t *w, uint8_t b)
{
    dw_fixed_sym(w, b);
    dw_data(w, &b, 1);
}

/* a match of len (3..258) at distance dist (1..32768, within the data so far) */
static void dw_match(dw_t *w, int len, int dist)
{
    static const int lbase[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27,
                                  31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const int dbase[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                  1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const int dext[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    int l = 28;
    while (lbase[l] > len) l--;
    dw_fixed_sym(w, 257 + l);
    dw_bits(w, (uint32_t)(len - lbase[l]), lext[l]);
    int d = 29;
    while (dbase[d] > dist) d--;
    dw_code(w, (uint32_t)d, 5);
    dw_bits(w, (uint32_t)(dist - dbase[d]), dext[d]);
    for (int i = 0; i < len; i++) {
        uint8_t b = w->data[w->n_data - (size_t)dist];
        dw_data(w, &b, 1);
    }
}

/* a stored block of n bytes (n <= 65535) */
static void dw_stored(dw_t *w, const uint8_t *p, size_t n, int final)
{
    dw_bits(w, final, 1);
    dw_bits(w, 0, 2);
    dw_align(w);
    dw_bits(w, (uint32_t)n, 16);
    dw_bits(w, (uint32_t)~n & 0xffff, 16);
    for (size_t i = 0; i < n; i++) dw_byte(w, p[i]);
    dw_data(w, p, n);
}

/* n bytes as zlib's blocks (level, strategy), which may refer to the
 * stream's last 32 KiB; they end with an empty stored block (at a byte). */
static void dw_zlib(dw_t *w, const uint8_t *p, size_t n, int level, int strategy)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, level, Z_DEFLATED, -15, 8, strategy);
    size_t dict = w->n_data < 32768 ? w->n_data : 32768;
    if (dict) deflateSetDictionary(&zs, w->data + w->n_data - dict, (uInt)dict);
    if (w->nacc) dw_stored(w, NULL, 0, 0); /* zlib's bits start at a byte: an empty stored block gets there */
    size_t room = deflateBound(&zs, (uLong)n) + 64;
    uint8_t *out = malloc(room);
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)room;
    deflate(&zs, Z_SYNC_FLUSH);
    for (size_t i = 0; i < room - zs.avail_out; i++) dw_byte(w, out[i]);
    deflateEnd(&zs);
    free(out);
    dw_data(w, p, n);
}

/* an empty fixed final block, then the bits out */
static void dw_finish(dw_t *w)
{
    dw_fixed_begin(w, 1);
    dw_fixed_end(w);
    dw_align(w);
}

/* the stream as a gzip member (header with FNAME when name), appended to *gz */
static void dw_gzip(const dw_t *w, const char *name, uint8_t **gz, size_t *n)
{
    size_t nl = name ? strlen(name) + 1 : 0, add = 10 + nl + w->len + 8;
    *gz = realloc(*gz, *n + add);
    uint8_t *g = *gz + *n;
    const uint8_t hdr[10] = {0x1f, 0x8b, 8, name ? 8 : 0, 0, 0, 0, 0, 0, 3};
    memcpy(g, hdr, 10);
    if (name) memcpy(g + 10, name, nl);
    memcpy(g + 10 + nl, w->buf, w->len);
    uLong crc = crc32(0, w->data, (uInt)w->n_data);
    uint8_t *t = g + 10 + nl + w->len;
    for (int i = 0; i < 4; i++) t[i] = (uint8_t)(crc >> (8 * i)), t[4 + i] = (uint8_t)(w->n_data >> (8 * i));
    *n += add;
}

static void dw_free(dw_t *w)
{
    free(w->buf);
    free(w->data);
    memset(w, 0, sizeof *w);
}

#endif
