/* Deflate (RFC 1951) and gzip (RFC 1952) pieces for the parallel gzip
 * reader: see deflate.h. The decoding tables are two-level: a primary
 * table indexed by the next LBITS (DBITS) bits of the stream, and
 * sub-tables for the longer codes; each entry says what the code is and
 * how many bits it takes. */
#define _GNU_SOURCE
#include "formats/deflate.h"
#include "core/log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LBITS 10 /* literal/length codes: primary table bits */
#define DBITS 8  /* distance codes */
#define PBITS 7  /* code length codes: at most 7 bits, one level */
/* the primary tables and room for every sub-table a valid code needs
 * (zlib's enough: 1332 and 402 entries), with a margin */
#define LSIZE ((1 << LBITS) + 1024)
#define DSIZE ((1 << DBITS) + 512)
/* output symbols kept free at the end: the longest match, and the
 * overrun of copies made 8 symbols at a time */
#define SLACK (258 + 8)

/* A table entry: its value, kind, extra bits and the bits its code takes
 * (for a sub-table: the sub-table's offset, K_SUB, its index bits, and
 * the primary table's bits). */
enum { K_LIT, K_LEN, K_EOB, K_SUB, K_BAD };
#define ENTRY(val, kind, extra, len) ((uint32_t)(val) << 16 | (uint32_t)(kind) << 13 | (uint32_t)(extra) << 8 | (uint32_t)(len))
#define E_LEN(e) ((e) & 0xffu)
#define E_EXTRA(e) (((e) >> 8) & 0x1fu)
#define E_KIND(e) (((e) >> 13) & 7u)
#define E_VAL(e) ((e) >> 16)

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* the order in which a dynamic header gives the code length code's lengths */
static const uint8_t clen_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* entries of each symbol without the code's length */
static uint32_t lit_tmpl[288], dist_tmpl[32], clen_tmpl[19];
/* the fixed codes of BTYPE 1 */
static uint32_t fixed_lt[LSIZE], fixed_dt[DSIZE];
/* kraft[x]: 128 * sum 2^-l over the four 3-bit code lengths l > 0 in x (block finder) */
static uint16_t kraft[4096];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static int build(uint32_t *table, size_t size, int bits, const uint8_t *len, int n, const uint32_t *tmpl, int allow_one);

static void make_tables(void)
{
    for (int s = 0; s < 288; s++)
        lit_tmpl[s] = s < 256    ? ENTRY(s, K_LIT, 0, 0)
                      : s == 256 ? ENTRY(0, K_EOB, 0, 0)
                      : s < 286  ? ENTRY(len_base[s - 257], K_LEN, len_extra[s - 257], 0)
                                 : ENTRY(0, K_BAD, 0, 0);
    for (int s = 0; s < 32; s++) dist_tmpl[s] = s < 30 ? ENTRY(dist_base[s], K_LEN, dist_extra[s], 0) : ENTRY(0, K_BAD, 0, 0);
    for (int s = 0; s < 19; s++) clen_tmpl[s] = ENTRY(s, K_LIT, 0, 0);
    uint8_t len[288];
    for (int s = 0; s < 288; s++) len[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    int r = build(fixed_lt, LSIZE, LBITS, len, 288, lit_tmpl, 0);
    memset(len, 5, 32);
    r |= build(fixed_dt, DSIZE, DBITS, len, 32, dist_tmpl, 0);
    if (r) abort(); /* the fixed codes are complete */
    for (int x = 0; x < 4096; x++) {
        int k = 0;
        for (int f = 0; f < 4; f++) {
            int l = x >> (3 * f) & 7;
            k += l ? 1 << (7 - l) : 0;
        }
        kraft[x] = (uint16_t)k;
    }
}

static uint32_t reverse_bits(uint32_t code, int len)
{
    uint32_t r = 0;
    for (int i = 0; i < len; i++, code >>= 1) r = r << 1 | (code & 1);
    return r;
}

/* Fill table (size entries, a primary table of 2^bits) for the canonical
 * code of lengths len[0..n) (0: no code, at most 15). tmpl[s]: symbol s's
 * entry. An over-subscribed code is corrupt, and so is an incomplete one,
 * except (as zlib allows) a single code of length 1 when allow_one, or no
 * code at all (a table of invalid codes) when allow_one. */
static int build(uint32_t *table, size_t size, int bits, const uint8_t *len, int n, const uint32_t *tmpl, int allow_one)
{
    int count[16] = {0}, offs[16], rem[16];
    uint16_t sorted[288];
    for (int s = 0; s < n; s++) count[len[s]]++;
    count[0] = 0;
    int max = 15;
    while (max > 0 && !count[max]) max--;
    int left = 1;
    for (int l = 1; l <= 15; l++) {
        left = 2 * left - count[l];
        if (left < 0) return SG_DFL_CORRUPT;
    }
    if (left > 0 && !(allow_one && max <= 1)) return SG_DFL_CORRUPT;
    if (left > 0)
        for (size_t i = 0; i < (1u << bits); i++) table[i] = ENTRY(0, K_BAD, 0, bits);
    offs[1] = 0;
    for (int l = 1; l < 15; l++) offs[l + 1] = offs[l] + count[l];
    for (int s = 0; s < n; s++)
        if (len[s]) sorted[offs[len[s]]++] = (uint16_t)s;
    memcpy(rem, count, sizeof rem);
    const uint32_t mask = (1u << bits) - 1;
    uint32_t code = 0, next_free = 1u << bits, sub_off = 0, prefix = UINT32_MAX;
    int sub_bits = 0, idx = 0;
    for (int l = 1; l <= max; l++, code <<= 1) {
        for (int k = 0; k < count[l]; k++, idx++, code++, rem[l]--) {
            int s = sorted[idx];
            uint32_t r = reverse_bits(code, l);
            if (l <= bits) {
                for (uint32_t i = r; i <= mask; i += 1u << l) table[i] = tmpl[s] | (uint32_t)l;
                continue;
            }
            if ((r & mask) != prefix) { /* a new sub-table, as large as the codes under this prefix need */
                int sb = l - bits, ll = l, room = 1 << sb;
                while (ll < max) {
                    room -= rem[ll];
                    if (room <= 0) break;
                    ll++, sb++, room <<= 1;
                }
                if (next_free + (1u << sb) > size) return SG_DFL_CORRUPT; /* never for a valid code */
                prefix = r & mask;
                sub_off = next_free;
                sub_bits = sb;
                next_free += 1u << sb;
                table[prefix] = ENTRY(sub_off, K_SUB, sb, bits);
            }
            for (uint32_t i = r >> bits; i < (1u << sub_bits); i += 1u << (l - bits))
                table[sub_off + i] = tmpl[s] | (uint32_t)(l - bits);
        }
    }
    return 0;
}

/* ---- bits ---- */

/* A stream's bits, least significant first: buf holds cnt of them; its
 * bits above cnt are zero or the stream's next bits. Past the input's end
 * zero bytes come (over counts them), and a reader that goes a whole
 * buffer past it has read a truncated stream. */
typedef struct {
    const uint8_t *d, *p, *end;
    uint64_t buf;
    unsigned cnt;
    size_t over;
} br_t;

static inline uint64_t le64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x; /* x86 and arm64 Linux: little-endian */
}

static void br_init(br_t *b, const uint8_t *d, size_t n, uint64_t pos)
{
    b->d = d;
    b->end = d + n;
    b->p = d + (pos >> 3 < n ? pos >> 3 : n);
    b->buf = 0;
    b->cnt = 0;
    b->over = pos >> 3 > n ? (size_t)(pos >> 3) - n : 0;
    if (pos & 7) {
        b->buf = (b->p < b->end ? *b->p++ : (b->over++, 0)) >> (pos & 7);
        b->cnt = 8 - (pos & 7);
    }
}

static inline uint64_t br_pos(const br_t *b) { return ((uint64_t)(b->p - b->d) + b->over) * 8 - b->cnt; }

/* Near the input's end, a byte at a time (by value, so that a caller's
 * reader stays in registers); a reader a whole buffer past the end has
 * over > 16. */
static br_t br_refill_slow(br_t b)
{
    while (b.cnt <= 56) {
        if (b.p < b.end) b.buf |= (uint64_t)*b.p++ << b.cnt;
        else if (++b.over > 16) break;
        b.cnt += 8;
    }
    return b;
}

/* At least 56 bits in the buffer (enough for a length and a distance with their extra bits). */
static inline int br_refill(br_t *b)
{
    if (__builtin_expect(b->end - b->p >= 8, 1)) {
        b->buf |= le64(b->p) << b->cnt;
        b->p += (63 - b->cnt) >> 3;
        b->cnt |= 56;
        return 0;
    }
    *b = br_refill_slow(*b);
    return b->over > 16 ? SG_DFL_TRUNCATED : 0;
}

static inline uint32_t br_take(br_t *b, unsigned n)
{
    uint32_t v = (uint32_t)(b->buf & ((1ull << n) - 1));
    b->buf >>= n;
    b->cnt -= n;
    return v;
}

/* The next symbol of a code's table (after a refill). */
static inline uint32_t br_decode(br_t *b, const uint32_t *t, unsigned bits)
{
    uint32_t e = t[b->buf & ((1u << bits) - 1)];
    if (E_KIND(e) == K_SUB) {
        b->buf >>= bits;
        b->cnt -= bits;
        e = t[E_VAL(e) + (b->buf & ((1u << E_EXTRA(e)) - 1))];
    }
    b->buf >>= E_LEN(e);
    b->cnt -= E_LEN(e);
    return e;
}

/* ---- block headers ---- */

/* A dynamic block's code tables, after its three header bits. */
static int read_dynamic(br_t *b, uint32_t *lt, uint32_t *dt)
{
    uint8_t len[320], clen[19] = {0};
    uint32_t ct[1 << PBITS];
    if (br_refill(b) < 0) return SG_DFL_TRUNCATED;
    int nlit = (int)br_take(b, 5) + 257, ndist = (int)br_take(b, 5) + 1, nclen = (int)br_take(b, 4) + 4;
    if (nlit > 286 || ndist > 30) return SG_DFL_CORRUPT;
    for (int i = 0; i < nclen; i++) {
        if (br_refill(b) < 0) return SG_DFL_TRUNCATED;
        clen[clen_order[i]] = (uint8_t)br_take(b, 3);
    }
    int r = build(ct, 1 << PBITS, PBITS, clen, 19, clen_tmpl, 0);
    if (r < 0) return r;
    for (int i = 0; i < nlit + ndist;) {
        if (br_refill(b) < 0) return SG_DFL_TRUNCATED;
        uint32_t e = br_decode(b, ct, PBITS);
        unsigned sym = E_VAL(e);
        if (sym < 16) {
            len[i++] = (uint8_t)sym;
            continue;
        }
        int rep, v = 0;
        if (sym == 16) {
            if (i == 0) return SG_DFL_CORRUPT; /* nothing to repeat */
            v = len[i - 1];
            rep = 3 + (int)br_take(b, 2);
        } else {
            rep = sym == 17 ? 3 + (int)br_take(b, 3) : 11 + (int)br_take(b, 7);
        }
        if (i + rep > nlit + ndist) return SG_DFL_CORRUPT;
        memset(len + i, v, rep);
        i += rep;
    }
    if (len[256] == 0) return SG_DFL_CORRUPT; /* no end-of-block code */
    if ((r = build(lt, LSIZE, LBITS, len, nlit, lit_tmpl, 1)) < 0) return r;
    return build(dt, DSIZE, DBITS, len + nlit, ndist, dist_tmpl, 1);
}

/* The header of the block at b: *type its BTYPE (0 stored, with *stored
 * its length and the reader at its first byte; 1 fixed; 2 dynamic, with
 * lt and dt filled), *final its BFINAL. */
static int read_header(br_t *b, int *type, int *final, uint32_t *stored, uint32_t *lt, uint32_t *dt)
{
    if (br_refill(b) < 0) return SG_DFL_TRUNCATED;
    *final = (int)br_take(b, 1);
    *type = (int)br_take(b, 2);
    if (*type == 2) return read_dynamic(b, lt, dt);
    if (*type != 0) return *type == 1 ? 0 : SG_DFL_CORRUPT;
    /* stored: to the next byte, then LEN and its complement NLEN */
    uint64_t pos = (br_pos(b) + 7) & ~(uint64_t)7;
    size_t n = (size_t)(b->end - b->d);
    if (pos / 8 + 4 > n) return SG_DFL_TRUNCATED;
    const uint8_t *q = b->d + pos / 8;
    uint32_t len = q[0] | (uint32_t)q[1] << 8, nlen = q[2] | (uint32_t)q[3] << 8;
    if (len != (~nlen & 0xffff)) return SG_DFL_CORRUPT;
    br_init(b, b->d, n, pos + 32);
    *stored = len;
    return 0;
}

long sg_dfl_gzip_header(const uint8_t *d, size_t n)
{
    static const uint8_t magic[3] = {0x1f, 0x8b, 8};
    for (size_t i = 0; i < 3; i++) {
        if (i == n) return SG_DFL_TRUNCATED;
        if (d[i] != magic[i]) return SG_DFL_CORRUPT;
    }
    if (n < 10) return SG_DFL_TRUNCATED;
    int flg = d[3];
    if (flg & 0xe0) return SG_DFL_CORRUPT; /* reserved flags */
    size_t pos = 10;
    if (flg & 4) { /* FEXTRA */
        if (pos + 2 > n) return SG_DFL_TRUNCATED;
        pos += 2 + (d[pos] | (size_t)d[pos + 1] << 8);
        if (pos > n) return SG_DFL_TRUNCATED;
    }
    for (int f = 8; f <= 16; f += 8) /* FNAME, FCOMMENT: zero-terminated */
        if (flg & f) {
            const uint8_t *z = memchr(d + pos, 0, n - pos);
            if (!z) return SG_DFL_TRUNCATED;
            pos = (size_t)(z - d) + 1;
        }
    if (flg & 2) { /* FHCRC: the low half of the header's CRC32 */
        if (pos + 2 > n) return SG_DFL_TRUNCATED;
        uLong crc = crc32(0, d, (uInt)pos);
        if ((crc & 0xffff) != (d[pos] | (uLong)d[pos + 1] << 8)) return SG_DFL_CORRUPT;
        pos += 2;
    }
    return (long)pos;
}

/* ---- the block finder ---- */

/* 64 bits of d[0..n) from bit pos on (zeros past the end). */
static uint64_t bits_at(const uint8_t *d, size_t n, uint64_t pos)
{
    size_t i = (size_t)(pos >> 3);
    uint64_t lo = 0, hi = 0;
    if (i + 16 <= n) {
        lo = le64(d + i);
        hi = le64(d + i + 8);
    } else {
        uint8_t tmp[16] = {0};
        if (i < n) memcpy(tmp, d + i, n - i < 16 ? n - i : 16);
        lo = le64(tmp);
        hi = le64(tmp + 8);
    }
    unsigned s = pos & 7;
    return s ? lo >> s | hi << (64 - s) : lo;
}

/* Whether a valid block header that is not final, of a dynamic block,
 * starts at bit pos: the cheap filters first (its code length code must
 * be complete), then the whole header. */
static int dynamic_at(const uint8_t *d, size_t n, uint64_t pos, uint32_t *lt, uint32_t *dt)
{
    uint64_t h = bits_at(d, n, pos);
    int nclen = (int)(h >> 13 & 15) + 4;
    uint64_t v = bits_at(d, n, pos + 17) & ((1ull << (3 * nclen)) - 1);
    if (kraft[v & 4095] + kraft[v >> 12 & 4095] + kraft[v >> 24 & 4095] + kraft[v >> 36 & 4095] + kraft[v >> 48 & 511] != 128)
        return 0;
    br_t b;
    br_init(&b, d, n, pos + 3);
    return read_dynamic(&b, lt, dt) == 0;
}

/* A gzip member header at byte i. */
static int member_at(const uint8_t *d, size_t n, size_t i) { return sg_dfl_gzip_header(d + i, n - i) > 0; }

/* The first dynamic block or member start at a bit offset in [from, to),
 * 64 offsets at a time: a bit mask of those whose first 13 bits can be a
 * header (BFINAL 0, BTYPE 2, HLIT and HDIST below 30) or that are a byte
 * with the gzip magic. */
static uint64_t find_dynamic(const uint8_t *d, size_t n, uint64_t from, uint64_t to, uint32_t *lt, uint32_t *dt)
{
    for (uint64_t q = from; q < to; q += 64) {
        uint64_t lo = bits_at(d, n, q), hi = bits_at(d, n, q + 64), w[13];
        w[0] = lo;
        for (int k = 1; k < 13; k++) w[k] = lo >> k | hi << (64 - k);
        uint64_t dyn = ~w[0] & ~w[1] & w[2] & ~(w[4] & w[5] & w[6] & w[7]) & ~(w[9] & w[10] & w[11] & w[12]), mem = 0;
        for (uint64_t b = (q + 7) & ~(uint64_t)7; b < q + 64 && b / 8 + 1 < n; b += 8)
            if (d[b / 8] == 0x1f && d[b / 8 + 1] == 0x8b) mem |= 1ull << (b - q);
        uint64_t m = dyn | mem;
        if (to - q < 64) m &= (1ull << (to - q)) - 1;
        for (; m; m &= m - 1) {
            unsigned k = (unsigned)__builtin_ctzll(m);
            if ((mem >> k & 1) && member_at(d, n, (size_t)((q + k) / 8))) return q + k;
            if ((dyn >> k & 1) && dynamic_at(d, n, q + k, lt, dt)) return q + k;
        }
    }
    return SG_DFL_NONE;
}

/* A block header that can follow a stored block ending at byte i. */
static int header_at(const uint8_t *d, size_t n, size_t i, uint32_t *lt, uint32_t *dt)
{
    if (i >= n) return 0;
    int type = d[i] >> 1 & 3;
    if (type == 3) return 0;
    br_t b;
    br_init(&b, d, n, (uint64_t)i * 8);
    int t, final;
    uint32_t len;
    return read_header(&b, &t, &final, &len, lt, dt) == 0;
}

/* The first end of a stored block in [from, to): a block whose header
 * (three zero bits just before its LEN, the padding zero as zlib writes
 * it) and LEN/NLEN agree, followed by a valid block header. Its LEN may be
 * up to 65535 bytes before from. */
static uint64_t find_stored_end(const uint8_t *d, size_t n, uint64_t from, uint64_t to, uint32_t *lt, uint32_t *dt)
{
    uint64_t best = SG_DFL_NONE;
    size_t b = from / 8 > 65539 ? (size_t)(from / 8) - 65539 : 1;
    for (; b + 4 <= n && (uint64_t)b * 8 < to && (uint64_t)b * 8 < best; b++) {
        if ((d[b] ^ d[b + 2]) != 0xff || (d[b + 1] ^ d[b + 3]) != 0xff || d[b - 1] >> 5) continue;
        size_t end = b + 4 + (d[b] | (size_t)d[b + 1] << 8);
        uint64_t at = (uint64_t)end * 8;
        if (end > n || at < from || at >= to || at >= best) continue;
        if (header_at(d, n, end, lt, dt)) best = at;
    }
    return best;
}

uint64_t sg_dfl_find(const uint8_t *d, size_t n, uint64_t from, uint64_t to)
{
    /* the trial tables are the thread's own, never the heap's: a file cut
     * while it is mapped leaves this function by the SIGBUS guard's jump
     * (mapguard.h), and memory taken here would be lost */
    static _Thread_local uint32_t tables[LSIZE + DSIZE];
    pthread_once(&tables_once, make_tables);
    uint32_t *lt = tables, *dt = tables + LSIZE;
    if (to > (uint64_t)n * 8) to = (uint64_t)n * 8;
    uint64_t best = from < to ? find_dynamic(d, n, from, to, lt, dt) : SG_DFL_NONE;
    uint64_t s = find_stored_end(d, n, from, best < to ? best : to, lt, dt);
    return s < best ? s : best;
}

/* ---- the decoder ---- */

struct sg_dfl {
    br_t b;
    uint16_t *out;
    size_t len, cap;
    size_t base;      /* the output's first symbol of the current member (known) */
    int known;        /* nothing before base: a distance past it is an error */
    size_t checked;   /* symbols looked at for markers (sg_dfl_clean) */
    size_t dirty_end; /* ... and where the last marker among them ends (0: the unknown window before the start) */
    size_t reach;     /* how far before the start the markers reach */
    uint32_t lt[LSIZE], dt[DSIZE];
};

sg_dfl_t *sg_dfl_new(const uint8_t *d, size_t n, uint64_t pos, int known, uint16_t *buf, size_t cap)
{
    pthread_once(&tables_once, make_tables);
    sg_dfl_t *z = sg_malloc(sizeof *z);
    br_init(&z->b, d, n, pos);
    z->cap = buf && cap >= (1 << 16) ? cap : 1 << 16;
    z->out = buf && cap >= (1 << 16) ? buf : sg_realloc(buf, z->cap * sizeof *z->out);
    z->len = z->base = z->checked = z->dirty_end = z->reach = 0;
    z->known = known;
    return z;
}

void sg_dfl_free(sg_dfl_t *z)
{
    if (!z) return;
    free(z->out);
    free(z);
}

uint64_t sg_dfl_pos(const sg_dfl_t *z) { return br_pos(&z->b); }

size_t sg_dfl_reach(const sg_dfl_t *z) { return z->reach; }

void sg_dfl_member(sg_dfl_t *z, uint64_t byte)
{
    br_init(&z->b, z->b.d, (size_t)(z->b.end - z->b.d), byte * 8);
    z->known = 1;
    z->base = z->len;
}

const uint16_t *sg_dfl_out(const sg_dfl_t *z, size_t *n)
{
    *n = z->len;
    return z->out;
}

uint16_t *sg_dfl_take(sg_dfl_t *z, size_t *n, size_t *cap)
{
    uint16_t *o = z->out;
    *n = z->len;
    *cap = z->cap;
    z->out = NULL;
    z->len = z->cap = 0;
    return o;
}

static void grow(sg_dfl_t *z, size_t more)
{
    if (z->cap - z->len >= more) return;
    z->cap = z->cap * 2 > z->len + more ? z->cap * 2 : z->len + more;
    z->out = sg_realloc(z->out, z->cap * sizeof *z->out);
}

int sg_dfl_clean(sg_dfl_t *z)
{
    if (z->known) return 1;
    /* from the end back: the last marker is all that matters, four symbols at a time */
    for (size_t i = z->len; i > z->checked;) {
        uint64_t w;
        if (i - z->checked >= 4 && (memcpy(&w, z->out + i - 4, 8), !(w & 0xff00ff00ff00ff00ull))) {
            i -= 4;
            continue;
        }
        if (z->out[i - 1] > 255) {
            z->dirty_end = i;
            break;
        }
        i--;
    }
    z->checked = z->len;
    return z->len - z->dirty_end >= SG_DFL_WINDOW;
}

size_t sg_dfl_window(const sg_dfl_t *z, uint8_t *w)
{
    size_t n = z->len - (z->known ? z->base : 0);
    if (n > SG_DFL_WINDOW) n = SG_DFL_WINDOW;
    const uint16_t *s = z->out + z->len - n;
    for (size_t i = 0; i < n; i++) w[i] = (uint8_t)s[i];
    return n;
}

/* The symbols of a Huffman-coded block, to its end-of-block code. */
static int decode_huff(sg_dfl_t *z, const uint32_t *lt, const uint32_t *dt)
{
    br_t b = z->b; /* in registers */
    uint16_t *o = z->out + z->len, *lim = z->out + z->cap - SLACK;
    int ret;
    for (;;) {
        if (__builtin_expect(o > lim, 0)) {
            z->len = (size_t)(o - z->out);
            grow(z, SLACK + (1 << 16));
            o = z->out + z->len;
            lim = z->out + z->cap - SLACK;
        }
        if ((ret = br_refill(&b)) < 0) break;
        uint32_t e = br_decode(&b, lt, LBITS);
        if (E_KIND(e) == K_LIT) {
            *o++ = (uint16_t)E_VAL(e);
            continue;
        }
        if (E_KIND(e) != K_LEN) {
            ret = E_KIND(e) == K_EOB ? 0 : SG_DFL_CORRUPT;
            break;
        }
        size_t length = E_VAL(e) + br_take(&b, E_EXTRA(e));
        e = br_decode(&b, dt, DBITS);
        if (E_KIND(e) != K_LEN) {
            ret = SG_DFL_CORRUPT;
            break;
        }
        size_t dist = E_VAL(e) + br_take(&b, E_EXTRA(e)), at = (size_t)(o - z->out);
        if (dist > at - z->base) {
            if (z->known || dist > at + SG_DFL_WINDOW) {
                ret = SG_DFL_FAR;
                break;
            }
            /* before the start: markers for the unknown window's bytes */
            size_t w = SG_DFL_WINDOW + at - dist, n = dist - at < length ? dist - at : length;
            if (dist - at > z->reach) z->reach = dist - at;
            for (size_t i = 0; i < n; i++) *o++ = (uint16_t)(256 + w + i);
            length -= n;
            if (!length) continue;
        }
        const uint16_t *s = o - dist;
        if (dist >= 8) {
            /* 8 symbols at a time: each read is of symbols already written */
            uint16_t *e8 = o + length;
            for (; o < e8; o += 8, s += 8) memcpy(o, s, 16);
            o = e8;
        } else {
            for (size_t i = 0; i < length; i++) o[i] = s[i];
            o += length;
        }
    }
    z->b = b;
    z->len = (size_t)(o - z->out);
    return ret;
}

int sg_dfl_block(sg_dfl_t *z)
{
    int type, final, r;
    uint32_t stored;
    if ((r = read_header(&z->b, &type, &final, &stored, z->lt, z->dt)) < 0) return r;
    if (type == 0) {
        size_t left = (size_t)(z->b.end - z->b.p);
        if (stored > left) return SG_DFL_TRUNCATED;
        grow(z, stored + SLACK);
        for (uint32_t i = 0; i < stored; i++) z->out[z->len + i] = z->b.p[i];
        z->len += stored;
        z->b.p += stored;
    } else {
        r = type == 1 ? decode_huff(z, fixed_lt, fixed_dt) : decode_huff(z, z->lt, z->dt);
        if (r < 0) return r;
        if (br_pos(&z->b) > (uint64_t)(z->b.end - z->b.d) * 8) return SG_DFL_TRUNCATED;
    }
    if (!final) return 0;
    /* the trailer starts at the next byte */
    uint64_t pos = (br_pos(&z->b) + 7) & ~(uint64_t)7;
    br_init(&z->b, z->b.d, (size_t)(z->b.end - z->b.d), pos);
    return 1;
}

void sg_dfl_resolve(const uint16_t *s, size_t n, const uint8_t *window, uint8_t *out)
{
    /* a table of all 256 + 32768 symbols: no branch on what each one is */
    uint8_t *lut = sg_malloc(256 + SG_DFL_WINDOW);
    for (int i = 0; i < 256; i++) lut[i] = (uint8_t)i;
    memcpy(lut + 256, window, SG_DFL_WINDOW);
    for (size_t i = 0; i < n; i++) out[i] = lut[s[i]];
    free(lut);
}
