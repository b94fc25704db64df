#define _GNU_SOURCE
#include "formats/twobit.h"
#include "core/log.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIGNATURE 0x1A412743u

static uint32_t le32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t be32(const uint8_t *p) { return p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24; }

/* a 32-bit word in the file's byte order */
static uint32_t word(const sg_2bit_t *tb, const uint8_t *p) { return tb->swap ? be32(p) : le32(p); }

int sg_2bit_magic(const void *d, size_t n)
{
    return n >= 4 && (le32(d) == SIGNATURE || be32(d) == SIGNATURE);
}

int sg_2bit_file(const char *path)
{
    uint8_t b[4];
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, b, 4);
    close(fd);
    return n == 4 && sg_2bit_magic(b, 4);
}

/* The runs (starts, then sizes) of count at p: each within len bases, in order, none overlapping. */
static int check_runs(const sg_2bit_t *tb, const uint8_t *p, uint32_t count, uint32_t len)
{
    uint64_t end = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t start = word(tb, p + 4 * (size_t)i), size = word(tb, p + 4 * ((size_t)count + i));
        if (start < end || start + size > len) return -1;
        end = start + size;
    }
    return 0;
}

int sg_2bit_parse(const void *data, size_t n, sg_2bit_t *tb, char *err, size_t errsz)
{
    const uint8_t *d = data;
    memset(tb, 0, sizeof *tb);
    tb->map = d;
    tb->size = n;
    if (n < 16 || !sg_2bit_magic(d, n)) {
        snprintf(err, errsz, "too short for a .2bit header (%zu bytes)", n);
        if (n >= 16) snprintf(err, errsz, "not a .2bit file (no signature 0x1A412743)");
        return -1;
    }
    tb->swap = le32(d) != SIGNATURE;
    uint32_t version = word(tb, d + 4), count = word(tb, d + 8);
    if (version > 1) {
        snprintf(err, errsz, "a .2bit file of version %u (0 and 1 are read)", version);
        return -1;
    }
    size_t off_bytes = version ? 8 : 4;
    if (count > (n - 16) / (2 + off_bytes)) { /* an index entry takes at least a name's length, a byte and an offset */
        snprintf(err, errsz, "its header says %u records, more than a file of %zu bytes holds", count, n);
        return -1;
    }
    tb->rec = sg_calloc(count ? count : 1, sizeof *tb->rec);
    size_t pos = 16;
    for (uint32_t i = 0; i < count; i++, tb->n++) {
        sg_2bit_rec_t *r = &tb->rec[i];
        size_t nl = pos < n ? d[pos] : 0;
        if (pos + 1 + nl + off_bytes > n) {
            snprintf(err, errsz, "its index ends past the end of the file (record %u of %u)", i + 1, count);
            return -1;
        }
        if (!nl) {
            snprintf(err, errsz, "record %u has an empty name", i + 1);
            return -1;
        }
        /* one word, as faToTwoBit takes it from a FASTA header: a space, a
         * tab or a line end in it would break every output's columns */
        for (size_t k = 0; k < nl; k++)
            if (d[pos + 1 + k] <= ' ' || d[pos + 1 + k] == 0x7f) {
                snprintf(err, errsz, "record %u's name holds a space or a control character (byte 0x%02x at %zu of %zu)",
                         i + 1, d[pos + 1 + k], k + 1, nl);
                return -1;
            }
        r->name = sg_malloc(nl + 1);
        memcpy(r->name, d + pos + 1, nl);
        r->name[nl] = 0;
        pos += 1 + nl;
        uint64_t off = word(tb, d + pos);
        if (version) off = tb->swap ? off << 32 | word(tb, d + pos + 4) : off | (uint64_t)word(tb, d + pos + 4) << 32;
        pos += off_bytes;
        /* the record: its length, runs of N, masked runs, a reserved word, then the bases */
        const char *what = NULL;
        uint64_t at = off;
        if (at > n || n - at < 8) what = "its offset is past the end of the file";
        if (!what) {
            r->len = word(tb, d + at);
            r->n_n = word(tb, d + at + 4);
            at += 8;
            if ((n - at) / 8 < r->n_n || n - at - 8 * (uint64_t)r->n_n < 4) what = "its runs of N end past the end of the file";
        }
        if (!what) {
            r->n_run = d + at;
            at += 8 * (uint64_t)r->n_n;
            r->n_mask = word(tb, d + at);
            at += 4;
            if ((n - at) / 8 < r->n_mask || n - at - 8 * (uint64_t)r->n_mask < 4)
                what = "its masked runs end past the end of the file";
        }
        if (!what) {
            r->mask_run = d + at;
            at += 8 * (uint64_t)r->n_mask + 4;
            r->dna = d + at;
            if (n - at < ((uint64_t)r->len + 3) / 4) what = "its bases end past the end of the file";
        }
        if (!what && check_runs(tb, r->n_run, r->n_n, r->len) < 0) what = "its runs of N are out of order or past its end";
        if (!what && check_runs(tb, r->mask_run, r->n_mask, r->len) < 0)
            what = "its masked runs are out of order or past its end";
        if (what) {
            sg_name_buf_t nb;
            snprintf(err, errsz, "record %u ('%s'): %s", i + 1, sg_name_shown(r->name, &nb), what);
            tb->n++;
            return -1;
        }
        tb->bases += r->len;
    }
    return 0;
}

void sg_2bit_free(sg_2bit_t *tb)
{
    for (int i = 0; i < tb->n; i++) free(tb->rec[i].name);
    free(tb->rec);
    memset(tb, 0, sizeof *tb);
}

/* The first of count runs at p that ends after base b. */
static uint32_t first_run_after(const sg_2bit_t *tb, const uint8_t *p, uint32_t count, uint32_t b)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)word(tb, p + 4 * (size_t)mid) + word(tb, p + 4 * ((size_t)count + mid)) > b) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* the four bases of each packed byte, as text */
static uint32_t unpack[256];
static pthread_once_t unpack_once = PTHREAD_ONCE_INIT;

static void make_unpack(void)
{
    static const char base[4] = {'T', 'C', 'A', 'G'};
    for (int x = 0; x < 256; x++) {
        char t[4] = {base[x >> 6], base[x >> 4 & 3], base[x >> 2 & 3], base[x & 3]};
        memcpy(&unpack[x], t, 4);
    }
}

void sg_2bit_text(const sg_2bit_t *tb, int ri, uint32_t b0, uint32_t b1, char *out)
{
    pthread_once(&unpack_once, make_unpack);
    const sg_2bit_rec_t *r = &tb->rec[ri];
    /* the bases: a byte's four at a time, with its partial bytes at either end */
    uint32_t i = b0;
    for (; i < b1 && (i & 3); i++) out[i - b0] = ((const char *)&unpack[r->dna[i / 4]])[i & 3];
    const uint8_t *dna = r->dna + i / 4;
    char *o = out + (i - b0);
    for (uint32_t k = 0, n = (b1 - i) / 4; k < n; k++) memcpy(o + 4 * k, &unpack[dna[k]], 4);
    for (i += (b1 - i) / 4 * 4; i < b1; i++) out[i - b0] = ((const char *)&unpack[r->dna[i / 4]])[i & 3];
    /* runs of N, then lower case where masked */
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t *p = pass ? r->mask_run : r->n_run;
        uint32_t count = pass ? r->n_mask : r->n_n;
        for (uint32_t k = first_run_after(tb, p, count, b0); k < count; k++) {
            uint64_t s = word(tb, p + 4 * (size_t)k), e = s + word(tb, p + 4 * ((size_t)count + k));
            if (s >= b1) break;
            if (s < b0) s = b0;
            if (e > b1) e = b1;
            char *q = out + (s - b0);
            size_t m = (size_t)(e - s);
            if (!pass) memset(q, 'N', m);
            else
                for (size_t j = 0; j < m; j++) q[j] |= 0x20;
        }
    }
}
