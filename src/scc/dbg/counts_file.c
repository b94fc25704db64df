#include "scc/dbg/counts_file.h"
#include "core/dna.h"
#include "core/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static const unsigned char MAGIC[8] = {'S', 'G', 'K', 'C', '\r', '\n', 0x1a, '\n'};
#define HEADER_BYTES 64
/* a pair's most bytes: a 126-bit varint and a 32-bit one */
#define PAIR_MAX (18 + 5)
#define RAW_MAX (SG_COUNTS_BLOCK * PAIR_MAX)
/* the largest histogram a file may declare */
#define BINS_MAX (1 << 20)
/* the most bytes and names of the inputs' names */
#define NAMES_MAX (1 << 20)
#define INPUTS_MAX 65536

typedef unsigned __int128 u128;

static void put32(unsigned char *p, uint32_t x)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(x >> 8 * i);
}

static void put64(unsigned char *p, uint64_t x)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(x >> 8 * i);
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t x = 0;
    for (int i = 3; i >= 0; i--) x = x << 8 | p[i];
    return x;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | p[i];
    return x;
}

static size_t put_varint(unsigned char *p, u128 x)
{
    size_t n = 0;
    while (x >= 0x80) {
        p[n++] = (unsigned char)(x | 0x80);
        x >>= 7;
    }
    p[n++] = (unsigned char)x;
    return n;
}

/* A varint of at most max_bits from p[*at..end); -1 when it runs past end or is too long. */
static int get_varint(const unsigned char *p, size_t end, size_t *at, int max_bits, u128 *x)
{
    u128 v = 0;
    for (int shift = 0; *at < end && shift < max_bits; shift += 7) {
        unsigned char b = p[(*at)++];
        v |= (u128)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (shift && !b) return -1; /* a longer spelling than needed */
            if (max_bits < 128 && v >> max_bits) return -1;
            *x = v;
            return 0;
        }
    }
    return -1;
}

static u128 kmer_at(const sg_kmer_counts_t *kc, uint64_t i)
{
    if (kc->k <= 31) return kc->kmer[i];
    return (u128)kc->kmer[2 * i] << 64 | kc->kmer[2 * i + 1];
}

static int write_all(FILE *fp, const char *name, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, fp) != n) {
        sg_error("cannot write to '%s': %s", name, strerror(errno ? errno : EIO));
        return SG_ERR_SYSTEM;
    }
    return 0;
}

int sg_counts_write(FILE *fp, const char *name, const sg_counts_header_t *h, const sg_kmer_counts_t *kc, int compress)
{
    unsigned char head[HEADER_BYTES] = {0};
    uint32_t n_hist = 0;
    for (int c = 0; c < h->bins; c++) n_hist += h->hist[c] != 0;
    memcpy(head, MAGIC, 8);
    put32(head + 8, SG_COUNTS_VERSION);
    put32(head + 12, (uint32_t)h->k);
    put32(head + 16, h->part);
    put32(head + 20, h->n_parts);
    put32(head + 24, h->min_count);
    put32(head + 28, (uint32_t)h->bins);
    put64(head + 32, h->kmers);
    put64(head + 40, h->distinct);
    put64(head + 48, kc->n);
    put32(head + 56, n_hist);
    put32(head + 60, (uint32_t)crc32(0, head, 60));
    if (write_all(fp, name, head, sizeof head) < 0) return SG_ERR_SYSTEM;
    unsigned char *hist = sg_malloc(12 * (size_t)n_hist + 4);
    size_t at = 0;
    for (int c = 0; c < h->bins; c++)
        if (h->hist[c]) {
            put32(hist + at, (uint32_t)c);
            put64(hist + at + 4, h->hist[c]);
            at += 12;
        }
    put32(hist + at, (uint32_t)crc32(0, hist, (uInt)at));
    int r = write_all(fp, name, hist, at + 4);
    free(hist);
    /* the inputs' names, each ended by a 0 byte */
    size_t names = 0;
    for (int i = 0; i < h->n_inputs; i++) names += strlen(h->inputs[i]) + 1;
    if (r == 0 && (names > NAMES_MAX || h->n_inputs > INPUTS_MAX)) {
        sg_error("cannot write '%s': the inputs' names take more than %d bytes", name, NAMES_MAX);
        r = SG_ERR_INPUT;
    }
    if (r == 0) {
        size_t body = names + 8 * (size_t)h->n_inputs; /* the names, then their sizes */
        unsigned char *nb = sg_malloc(body + 12);
        put32(nb, (uint32_t)names);
        put32(nb + 4, (uint32_t)h->n_inputs);
        size_t at_n = 8;
        for (int i = 0; i < h->n_inputs; i++) {
            size_t l = strlen(h->inputs[i]) + 1;
            memcpy(nb + at_n, h->inputs[i], l);
            at_n += l;
        }
        for (int i = 0; i < h->n_inputs; i++, at_n += 8) put64(nb + at_n, h->sizes ? h->sizes[i] : SG_COUNTS_SIZE_UNKNOWN);
        put32(nb + at_n, (uint32_t)crc32(0, nb + 8, (uInt)body));
        r = write_all(fp, name, nb, at_n + 4);
        free(nb);
    }
    unsigned char *raw = sg_malloc(RAW_MAX), *z = sg_malloc(compressBound(RAW_MAX) + 16);
    u128 prev = 0;
    for (uint64_t i = 0; i < kc->n && r == 0; i += SG_COUNTS_BLOCK) {
        uint64_t n = kc->n - i < SG_COUNTS_BLOCK ? kc->n - i : SG_COUNTS_BLOCK;
        /* the k-mers' steps, then the counts: apart, the counts deflate well */
        size_t len = 0;
        for (uint64_t j = i; j < i + n; j++) {
            u128 x = kmer_at(kc, j);
            len += put_varint(raw + len, x - prev);
            prev = x;
        }
        for (uint64_t j = i; j < i + n; j++) len += put_varint(raw + len, kc->count[j] - h->min_count);
        uLongf zlen = compressBound(len);
        const unsigned char *stored = raw;
        size_t stored_len = len;
        /* deflated only where that pays: a sixteenth smaller at least */
        if (compress && compress2(z + 16, &zlen, raw, len, 1) == Z_OK && zlen < len - len / 16) {
            stored = z + 16;
            stored_len = zlen;
        }
        unsigned char bh[16];
        put32(bh, (uint32_t)n);
        put32(bh + 4, (uint32_t)len);
        put32(bh + 8, (uint32_t)stored_len);
        put32(bh + 12, (uint32_t)crc32(0, raw, (uInt)len));
        r = write_all(fp, name, bh, 16);
        if (r == 0) r = write_all(fp, name, stored, stored_len);
    }
    free(raw);
    free(z);
    return r;
}

struct sg_counts_reader {
    BGZF *fp;
    char *name;
    sg_counts_header_t h;
    uint64_t read;      /* pairs read so far */
    u128 prev;          /* the last k-mer read */
    uint64_t *tally;    /* pairs read per count bin, for the histogram check */
    uint64_t below_min; /* occurrences of the k-mers seen less than min_count times (the histogram's) */
    u128 count_sum;     /* the pairs' counts so far */
    int done;           /* the end was checked */
    unsigned char *raw, *stored;
};

const sg_counts_header_t *sg_counts_header(const sg_counts_reader_t *r) { return &r->h; }

void sg_counts_close(sg_counts_reader_t *r)
{
    if (!r) return;
    if (r->fp) bgzf_close(r->fp);
    free(r->name);
    free(r->h.hist);
    for (int i = 0; i < r->h.n_inputs; i++) free(r->h.inputs[i]);
    free(r->h.inputs);
    free(r->h.sizes);
    free(r->tally);
    free(r->raw);
    free(r->stored);
    free(r);
}

static int bad(sg_counts_reader_t *r, const char *what)
{
    sg_error("'%s' is not a valid seqgpu k-mer counts file: %s", r->name, what);
    return SG_ERR_INPUT;
}

/* Up to n bytes; -1 on a read error (message printed). */
static ssize_t read_some(sg_counts_reader_t *r, void *p, size_t n)
{
    ssize_t got = bgzf_read(r->fp, p, n);
    if (got < 0)
        sg_error("cannot read '%s': %s", r->name,
                 bgzf_compression(r->fp) ? "truncated or corrupt compressed data" : strerror(errno ? errno : EIO));
    return got;
}

/* n bytes, or an error that says the file is cut short. */
static int read_exact(sg_counts_reader_t *r, void *p, size_t n)
{
    ssize_t got = read_some(r, p, n);
    if (got < 0) return SG_ERR_INPUT;
    return (size_t)got == n ? 0 : bad(r, "it is truncated");
}

/* The inputs' names: their bytes and number, the names each ended by a 0
 * byte, and the checksum of the names. */
static int read_inputs(sg_counts_reader_t *r)
{
    unsigned char nh[8];
    if (read_exact(r, nh, 8) < 0) return SG_ERR_INPUT;
    uint32_t len = get32(nh), n = get32(nh + 4);
    if (len > NAMES_MAX || n > INPUTS_MAX || n > len) return bad(r, "its list of inputs is out of range");
    size_t body = (size_t)len + 8 * (size_t)n; /* the names, then their sizes */
    unsigned char *b = sg_malloc(body + 4);
    int ret = read_exact(r, b, body + 4);
    if (ret == 0 && get32(b + body) != (uint32_t)crc32(0, b, (uInt)body))
        ret = bad(r, "its list of inputs is corrupt (checksum)");
    uint32_t ends = 0;
    for (uint32_t i = 0; i < len && ret == 0; i++) ends += b[i] == 0;
    /* n names, none empty: n 0 bytes, the last one last, none first or doubled */
    for (uint32_t i = 0; i < len && ret == 0; i++)
        if (b[i] == 0 && (i == 0 || b[i - 1] == 0)) ends = UINT32_MAX;
    if (ret == 0 && (ends != n || (len && b[len - 1] != 0))) ret = bad(r, "its list of inputs does not add up");
    if (ret == 0) {
        r->h.inputs = sg_calloc((size_t)n + 1, sizeof *r->h.inputs);
        for (uint32_t i = 0, at = 0; i < n; i++) {
            r->h.inputs[i] = sg_strdup((const char *)b + at);
            at += (uint32_t)strlen(r->h.inputs[i]) + 1;
        }
        r->h.sizes = sg_malloc(((size_t)n + 1) * sizeof *r->h.sizes);
        for (uint32_t i = 0; i < n; i++) r->h.sizes[i] = get64(b + len + 8 * (size_t)i);
        r->h.n_inputs = (int)n;
    }
    free(b);
    return ret;
}

static int read_header(sg_counts_reader_t *r, int bins)
{
    unsigned char head[HEADER_BYTES];
    ssize_t got = read_some(r, head, sizeof head);
    if (got < 0) return SG_ERR_INPUT;
    if (got < 8 || memcmp(head, MAGIC, 8)) {
        sg_error("'%s' is not a seqgpu k-mer counts file (scc --part I/N --counts-out writes them)", r->name);
        return SG_ERR_INPUT;
    }
    if ((size_t)got < sizeof head) return bad(r, "it is truncated");
    uint32_t version = get32(head + 8);
    if (version != SG_COUNTS_VERSION) {
        sg_error("'%s' is a k-mer counts file of version %u; this seqgpu reads version %d: count the part again "
                 "with this version", r->name, version, SG_COUNTS_VERSION);
        return SG_ERR_INPUT;
    }
    if (get32(head + 60) != (uint32_t)crc32(0, head, 60)) return bad(r, "its header is corrupt (checksum)");
    sg_counts_header_t *h = &r->h;
    uint32_t k = get32(head + 12);
    h->part = get32(head + 16);
    h->n_parts = get32(head + 20);
    h->min_count = get32(head + 24);
    uint32_t file_bins = get32(head + 28);
    h->kmers = get64(head + 32);
    h->distinct = get64(head + 40);
    h->pairs = get64(head + 48);
    uint32_t n_hist = get32(head + 56);
    if (k < SG_K_MIN || k > SG_K_MAX || k % 2 == 0) return bad(r, "its k is not an odd number from 11 to 63");
    h->k = (int)k;
    if (!h->n_parts || !h->part || h->part > h->n_parts) return bad(r, "its part is not one of 1..N");
    if (file_bins < 3 || file_bins > BINS_MAX) return bad(r, "its histogram length is out of range");
    if (h->min_count < 1 || h->min_count >= file_bins) return bad(r, "its lowest stored count is out of range");
    if ((int)file_bins != bins) {
        sg_error("'%s' has a histogram of %u bins; this seqgpu sums %d: count the part again with this version",
                 r->name, file_bins, bins);
        return SG_ERR_INPUT;
    }
    if (n_hist > file_bins) return bad(r, "it declares more histogram bins than it has");
    if (h->kmers < h->distinct) return bad(r, "it has fewer k-mers than distinct ones");
    h->bins = bins;
    h->hist = sg_calloc(bins, sizeof *h->hist);
    unsigned char *hist = sg_malloc(12 * (size_t)n_hist + 4);
    int ret = read_exact(r, hist, 12 * (size_t)n_hist + 4);
    if (ret == 0 && get32(hist + 12 * (size_t)n_hist) != (uint32_t)crc32(0, hist, 12 * n_hist))
        ret = bad(r, "its histogram is corrupt (checksum)");
    /* the bins ascend, each seen once and not empty; they add up to the
     * distinct k-mers, their stored part to the pairs */
    uint64_t distinct = 0, stored = 0;
    int64_t last = -1;
    for (uint32_t i = 0; i < n_hist && ret == 0; i++) {
        uint32_t c = get32(hist + 12 * i);
        uint64_t v = get64(hist + 12 * i + 4);
        if ((int64_t)c <= last || c >= file_bins || c == 0 || v == 0 || v > h->distinct - distinct) {
            ret = bad(r, "its histogram does not add up");
            break;
        }
        last = c;
        h->hist[c] = v;
        distinct += v;
        if (c >= h->min_count) stored += v;
    }
    free(hist);
    if (ret == 0 && (distinct != h->distinct || stored != h->pairs)) ret = bad(r, "its histogram does not add up");
    /* the k-mer occurrences are the histogram's, exactly but for its last bin, whose counts are 65536 to 2^32-1
     * each; the pairs' counts make them exact at the end (check_end) */
    u128 below = 0, known = 0, top = h->hist[bins - 1];
    for (int c = 1; c < bins - 1; c++) {
        known += (u128)c * h->hist[c];
        if (c < (int)h->min_count) below += (u128)c * h->hist[c];
    }
    if (ret == 0 && (h->kmers < known + top * (u128)(bins - 1) || h->kmers > known + top * (u128)UINT32_MAX))
        ret = bad(r, "its k-mer total does not add up with its histogram");
    r->below_min = (uint64_t)below;
    return ret == 0 ? read_inputs(r) : ret;
}

int sg_counts_open(BGZF *fp, const char *name, int bins, sg_counts_reader_t **out)
{
    sg_counts_reader_t *r = sg_calloc(1, sizeof *r);
    r->fp = fp;
    r->name = sg_strdup(name);
    int ret = read_header(r, bins);
    if (ret < 0) {
        sg_counts_close(r);
        *out = NULL;
        return ret;
    }
    r->tally = sg_calloc(bins, sizeof *r->tally);
    r->raw = sg_malloc(RAW_MAX);
    r->stored = sg_malloc(RAW_MAX);
    *out = r;
    return 0;
}

/* After the last pair: nothing more in the file, and the counts read are
 * the histogram's. */
static int check_end(sg_counts_reader_t *r)
{
    ssize_t more = read_some(r, r->raw, 1);
    if (more < 0) return SG_ERR_INPUT;
    if (more) return bad(r, "it has bytes after its last k-mer");
    for (int c = (int)r->h.min_count; c < r->h.bins; c++)
        if (r->tally[c] != r->h.hist[c]) return bad(r, "its k-mer counts differ from its histogram");
    if (r->below_min + r->count_sum != r->h.kmers) return bad(r, "its k-mer total differs from its k-mers' counts");
    return 0;
}

int sg_counts_next(sg_counts_reader_t *r, sg_kmer_counts_t *kc)
{
    const sg_counts_header_t *h = &r->h;
    if (!kc->kmer) {
        kc->kmer = sg_malloc(2 * SG_COUNTS_BLOCK * sizeof *kc->kmer);
        kc->count = sg_malloc(SG_COUNTS_BLOCK * sizeof *kc->count);
    }
    kc->k = h->k;
    kc->n = 0;
    if (r->read == h->pairs) {
        if (r->done) return 0;
        r->done = 1;
        return check_end(r);
    }
    unsigned char bh[16];
    if (read_exact(r, bh, 16) < 0) return SG_ERR_INPUT;
    uint32_t n = get32(bh), len = get32(bh + 4), stored = get32(bh + 8), crc = get32(bh + 12);
    if (n == 0 || n > SG_COUNTS_BLOCK || n > h->pairs - r->read) return bad(r, "a block holds more k-mers than declared");
    if (len < 2 * n || len > (uint32_t)n * PAIR_MAX || stored == 0 || stored > len)
        return bad(r, "a block's length is out of range");
    if (read_exact(r, stored < len ? r->stored : r->raw, stored) < 0) return SG_ERR_INPUT;
    if (stored < len) {
        uLongf out = len;
        if (uncompress(r->raw, &out, r->stored, stored) != Z_OK || out != len)
            return bad(r, "a block does not inflate (corrupt data)");
    }
    if ((uint32_t)crc32(0, r->raw, len) != crc) return bad(r, "a block is corrupt (checksum)");
    const int k = h->k, words = k > 31 ? 2 : 1;
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        u128 delta;
        if (get_varint(r->raw, len, &at, 2 * k, &delta) < 0) return bad(r, "a block's k-mers do not decode");
        u128 x = r->prev + delta;
        if ((r->read || i) && delta == 0) return bad(r, "its k-mers are not in increasing order");
        if (x >> (2 * k)) return bad(r, "a k-mer is out of range");
        uint64_t hash = k > 31 ? sg_kmer128_hash(x) : sg_kmer64_hash((uint64_t)x);
        if (sg_kmer_part(hash, h->n_parts) != h->part - 1) return bad(r, "a k-mer is not of the file's part");
        if (words == 2) kc->kmer[2 * i] = (uint64_t)(x >> 64);
        kc->kmer[words * i + words - 1] = (uint64_t)x;
        r->prev = x;
    }
    for (uint32_t i = 0; i < n; i++) {
        u128 count;
        if (get_varint(r->raw, len, &at, 32, &count) < 0) return bad(r, "a block's counts do not decode");
        count += h->min_count;
        if (count > UINT32_MAX) return bad(r, "a count is out of range");
        kc->count[i] = (uint32_t)count;
        r->count_sum += count;
        r->tally[count < (u128)h->bins - 1 ? (int)count : h->bins - 1]++;
    }
    if (at != len) return bad(r, "a block has bytes after its k-mers");
    r->read += n;
    kc->n = n;
    return (int)n;
}
