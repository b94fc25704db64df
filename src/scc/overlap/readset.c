#define _GNU_SOURCE
#include "scc/overlap/readset.h"
#include "core/dna.h"
#include "core/log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/khash.h>

KHASH_MAP_INIT_STR(rname, uint32_t)

typedef sg_readset_amb_t amb_run_t;

struct sg_readset {
    uint64_t min_len;
    uint32_t n, m;
    uint32_t *len;
    uint64_t *base;       /* first base of each read in packed (stored reads) */
    uint64_t *amb_off;    /* runs of read i: amb[amb_off[i] .. amb_off[i + 1]) */
    uint64_t *name_off;   /* into names */
    char *names;
    uint64_t names_len, names_cap;
    uint8_t *packed;      /* 4 bases a byte, the first in the low bits */
    uint64_t n_bases, cap_bases;
    amb_run_t *amb;
    uint64_t n_amb, m_amb;
    /* the read being put together from pieces */
    int64_t cur;          /* its record number, -1 before the first */
    char *buf;
    uint64_t buf_len, buf_cap;
    khash_t(rname) *index;
    uint64_t short_n, short_bases;
    /* the first read of each input file, for messages */
    uint32_t *file_first;
    int n_files;
};

sg_readset_t *sg_readset_new(uint64_t min_len)
{
    sg_readset_t *rs = sg_calloc(1, sizeof *rs);
    rs->min_len = min_len;
    rs->cur = -1;
    rs->amb_off = sg_calloc(1, sizeof *rs->amb_off);
    return rs;
}

void sg_readset_free(sg_readset_t *rs)
{
    if (!rs) return;
    if (rs->index) kh_destroy(rname, rs->index);
    free(rs->len);
    free(rs->base);
    free(rs->amb_off);
    free(rs->name_off);
    free(rs->names);
    free(rs->packed);
    free(rs->amb);
    free(rs->buf);
    free(rs->file_first);
    free(rs);
}

/* A byte's 2-bit code, 4 for any byte that is not A/C/G/T (either case). */
static uint8_t code_of[256];

static void code_init(void)
{
    for (int c = 0; c < 256; c++) code_of[c] = (uint8_t)(sg_dna_code(c) < 0 ? 4 : sg_dna_code(c));
}

/* Base at (code b, 4: not A/C/G/T) of read i into packed, the byte cleared
 * at its first base; a base that is not A/C/G/T is stored as A and joins
 * the read's runs of them. */
static inline void put_base(sg_readset_t *rs, uint32_t i, uint64_t at, int b)
{
    if (at % 4 == 0) rs->packed[at / 4] = 0;
    if (b > 3) {
        if (rs->n_amb && rs->amb[rs->n_amb - 1].at + rs->amb[rs->n_amb - 1].len == at && rs->n_amb > rs->amb_off[i]) {
            rs->amb[rs->n_amb - 1].len++;
        } else {
            if (rs->n_amb == rs->m_amb) rs->amb = sg_realloc(rs->amb, (rs->m_amb = rs->m_amb ? 2 * rs->m_amb : 64) * sizeof *rs->amb);
            rs->amb[rs->n_amb++] = (amb_run_t){at, 1};
        }
        b = 0;
    }
    rs->packed[at / 4] |= (uint8_t)(b << (2 * (at % 4)));
}

/* The read put together in buf becomes read n (its name is in already).
 * Four bases at a time where they are all A/C/G/T: the only step of the
 * reading that runs on one thread. */
static void commit(sg_readset_t *rs)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, code_init);
    uint32_t i = rs->n;
    uint64_t len = rs->buf_len;
    rs->len[i] = (uint32_t)len;
    rs->base[i] = rs->n_bases;
    if (len >= rs->min_len) {
        if (rs->n_bases + len > rs->cap_bases) {
            rs->cap_bases = (rs->n_bases + len) * 3 / 2 + 1024;
            rs->packed = sg_realloc(rs->packed, (rs->cap_bases + 3) / 4);
        }
        const uint8_t *s = (const uint8_t *)rs->buf;
        uint64_t j = 0, at = rs->n_bases;
        for (; j < len && (at + j) % 4; j++) put_base(rs, i, at + j, code_of[s[j]]);
        for (; j + 4 <= len; j += 4) {
            const uint32_t c0 = code_of[s[j]], c1 = code_of[s[j + 1]], c2 = code_of[s[j + 2]], c3 = code_of[s[j + 3]];
            if ((c0 | c1 | c2 | c3) & 4) {
                put_base(rs, i, at + j, (int)c0);
                put_base(rs, i, at + j + 1, (int)c1);
                put_base(rs, i, at + j + 2, (int)c2);
                put_base(rs, i, at + j + 3, (int)c3);
            } else {
                rs->packed[(at + j) / 4] = (uint8_t)(c0 | c1 << 2 | c2 << 4 | c3 << 6);
            }
        }
        for (; j < len; j++) put_base(rs, i, at + j, code_of[s[j]]);
        rs->n_bases += len;
    } else {
        rs->short_n++;
        rs->short_bases += len;
    }
    rs->amb_off[i + 1] = rs->n_amb;
    rs->n++;
    rs->buf_len = 0;
}

static void add_name(sg_readset_t *rs, const char *name)
{
    size_t n = strlen(name) + 1;
    if (rs->names_len + n > rs->names_cap) rs->names = sg_realloc(rs->names, rs->names_cap = (rs->names_len + n) * 2 + 256);
    memcpy(rs->names + rs->names_len, name, n);
    rs->name_off[rs->n] = rs->names_len;
    rs->names_len += n;
}

int sg_readset_add(sg_readset_t *rs, const sg_chunk_t *c)
{
    for (int s = 0; s < c->n_seg; s++) {
        const sg_seg_t *sg = &c->seg[s];
        if (sg->rid != rs->cur) {
            if (rs->cur >= 0) commit(rs);
            if (rs->n + 1 >= rs->m) {
                rs->m = rs->m ? 2 * rs->m : 1024;
                rs->len = sg_realloc(rs->len, rs->m * sizeof *rs->len);
                rs->base = sg_realloc(rs->base, rs->m * sizeof *rs->base);
                rs->amb_off = sg_realloc(rs->amb_off, (rs->m + 1) * sizeof *rs->amb_off);
                rs->name_off = sg_realloc(rs->name_off, rs->m * sizeof *rs->name_off);
            }
            add_name(rs, sg_chunk_name(c, sg));
            rs->cur = sg->rid;
            while (rs->n_files <= c->file) {
                rs->file_first = sg_realloc(rs->file_first, (rs->n_files + 1) * sizeof *rs->file_first);
                rs->file_first[rs->n_files++] = rs->n;
            }
        }
        if (rs->buf_len + sg->len > SG_READ_MAX_LEN) {
            sg_name_buf_t nb;
            sg_error("read '%s' is longer than %u bases", sg_name_shown(sg_chunk_name(c, sg), &nb), SG_READ_MAX_LEN);
            return SG_ERR_INPUT;
        }
        if (!sg->len) continue;
        if (rs->buf_len + sg->len > rs->buf_cap) rs->buf = sg_realloc(rs->buf, rs->buf_cap = (rs->buf_len + sg->len) * 2);
        memcpy(rs->buf + rs->buf_len, c->seq + sg->off, sg->len);
        rs->buf_len += sg->len;
    }
    return 0;
}

/* The input file of read i, and its record number in that file (from 1). */
static int read_file(const sg_readset_t *rs, uint32_t i, uint32_t *recno)
{
    int f = rs->n_files - 1;
    while (f > 0 && rs->file_first[f] > i) f--;
    *recno = i - rs->file_first[f] + 1;
    return f;
}

int sg_readset_finish(sg_readset_t *rs, const sg_reader_t *rd)
{
    if (rs->cur >= 0) commit(rs);
    rs->cur = -1;
    free(rs->buf);
    rs->buf = NULL;
    rs->buf_cap = 0;
    rs->index = kh_init(rname);
    kh_resize(rname, rs->index, rs->n + 1);
    for (uint32_t i = 0; i < rs->n; i++) {
        int absent;
        khint_t it = kh_put(rname, rs->index, rs->names + rs->name_off[i], &absent);
        if (!absent) {
            uint32_t r0, r1;
            int f0 = read_file(rs, kh_val(rs->index, it), &r0), f1 = read_file(rs, i, &r1);
            sg_name_buf_t nb;
            const char *name = sg_name_shown(rs->names + rs->name_off[i], &nb);
            if (!rd)
                sg_error("two reads are named '%s' (records %u and %u)", name, kh_val(rs->index, it) + 1, i + 1);
            else if (f0 == f1)
                sg_error("'%s': two reads are named '%s' (records %u and %u): read names must be unique for -g overlap",
                         sg_reader_path(rd, f0), name, r0, r1);
            else
                sg_error("two reads are named '%s' (record %u of '%s' and record %u of '%s'): read names must be unique "
                         "for -g overlap", name, r0, sg_reader_path(rd, f0), r1, sg_reader_path(rd, f1));
            return SG_ERR_INPUT;
        }
        kh_val(rs->index, it) = i;
    }
    return 0;
}

uint32_t sg_readset_n(const sg_readset_t *rs) { return rs->n; }
uint32_t sg_readset_len(const sg_readset_t *rs, uint32_t i) { return rs->len[i]; }
int sg_readset_stored(const sg_readset_t *rs, uint32_t i) { return rs->len[i] >= rs->min_len; }
const char *sg_readset_name(const sg_readset_t *rs, uint32_t i) { return rs->names + rs->name_off[i]; }

int64_t sg_readset_find(const sg_readset_t *rs, const char *name, size_t n)
{
    char small[256], *key = n < sizeof small ? small : sg_malloc(n + 1);
    memcpy(key, name, n);
    key[n] = 0;
    khint_t it = kh_get(rname, rs->index, key);
    if (key != small) free(key);
    return it == kh_end(rs->index) ? -1 : (int64_t)kh_val(rs->index, it);
}

/* The four codes of each packed byte, as bytes of a word (little-endian: the first lowest). */
static uint32_t unpack[256];

static void unpack_init(void)
{
    for (uint32_t x = 0; x < 256; x++)
        unpack[x] = (x & 3) | ((x >> 2) & 3) << 8 | ((x >> 4) & 3) << 16 | ((x >> 6) & 3) << 24;
}

void sg_readset_codes(const sg_readset_t *rs, uint32_t i, uint8_t *out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, unpack_init);
    uint64_t b = rs->base[i];
    uint32_t len = rs->len[i], j = 0;
    for (; j < len && (b + j) % 4; j++) out[j] = (rs->packed[(b + j) / 4] >> (2 * ((b + j) % 4))) & 3;
    for (; j + 4 <= len; j += 4) memcpy(out + j, &unpack[rs->packed[(b + j) / 4]], 4);
    for (; j < len; j++) out[j] = (rs->packed[(b + j) / 4] >> (2 * ((b + j) % 4))) & 3;
    for (uint64_t a = rs->amb_off[i]; a < rs->amb_off[i + 1]; a++) memset(out + (rs->amb[a].at - b), 4, rs->amb[a].len);
}

void sg_readset_spell(const sg_readset_t *rs, uint32_t i, char *out)
{
    uint32_t len = rs->len[i];
    sg_readset_codes(rs, i, (uint8_t *)out);
    for (uint32_t j = 0; j < len; j++) out[j] = out[j] < 4 ? sg_dna_letter(out[j]) : 'N';
    out[len] = 0;
}

void sg_readset_stream(const sg_readset_t *rs, sg_readset_stream_t *s)
{
    *s = (sg_readset_stream_t){rs->packed, rs->n_bases, rs->base, rs->len, rs->amb, rs->n_amb};
}

void sg_readset_totals(const sg_readset_t *rs, uint64_t *n_stored, uint64_t *bases_stored, uint64_t *n_short,
                       uint64_t *bases_short)
{
    *n_stored = rs->n - rs->short_n;
    *bases_stored = rs->n_bases;
    *n_short = rs->short_n;
    *bases_short = rs->short_bases;
}
