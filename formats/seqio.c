#define _GNU_SOURCE
#include "seqio.h"
#include "../src/log.h"
#include "../src/simd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>

struct sg_reader {
    char *const *paths;
    int n_paths, cur;      /* cur: index of the open file, or of the last one */
    BGZF *fp;              /* the open file, when streamed through htslib */
    char *map;             /* the open file, when mapped (plain regular files) */
    size_t map_len, map_pos;
    char **maps;           /* every mapping made, unmapped at the end: chunks point into them */
    size_t *map_lens;
    int n_maps;
    int fmt, started, eof;
    size_t block;
    int n_threads;
    char *carry;           /* streamed: bytes after the last cut, for the next block */
    size_t carry_len, carry_cap;
    int midline;           /* the next block continues a FASTA sequence line */
    uint64_t bytes;
};

sg_reader_t *sg_reader_new(char *const *paths, int n_paths, size_t block, int n_threads)
{
    sg_reader_t *r = sg_calloc(1, sizeof *r);
    r->paths = paths;
    r->n_paths = n_paths;
    r->cur = -1;
    r->block = block ? block : 1;
    r->n_threads = n_threads;
    r->maps = sg_calloc(n_paths, sizeof *r->maps);
    r->map_lens = sg_calloc(n_paths, sizeof *r->map_lens);
    return r;
}

const char *sg_reader_path(const sg_reader_t *r, int i)
{
    return strcmp(r->paths[i], "-") ? r->paths[i] : "(standard input)";
}

uint64_t sg_reader_bytes(const sg_reader_t *r) { return r->bytes; }

void sg_reader_free(sg_reader_t *r)
{
    if (!r) return;
    if (r->fp) bgzf_close(r->fp);
    for (int i = 0; i < r->n_maps; i++) munmap(r->maps[i], r->map_lens[i]);
    free(r->maps);
    free(r->map_lens);
    free(r->carry);
    free(r);
}

/* A plain regular file is mapped rather than streamed: the parse workers
 * then copy its bytes out of the page cache in parallel, instead of one
 * reader thread copying everything through read(). */
static int try_map(sg_reader_t *r, const char *path)
{
    struct stat st;
    if (!strcmp(path, "-") || bgzf_compression(r->fp) != 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size == 0)
        return 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    void *m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return 0;
    madvise(m, st.st_size, MADV_SEQUENTIAL);
    bgzf_close(r->fp);
    r->fp = NULL;
    r->map = r->maps[r->n_maps] = m;
    r->map_len = r->map_lens[r->n_maps++] = st.st_size;
    r->map_pos = 0;
    return 1;
}

static int open_next(sg_reader_t *r)
{
    const char *path = r->paths[++r->cur];
    r->fp = bgzf_open(path, "r");
    if (!r->fp) {
        sg_error("cannot read '%s': %s", sg_reader_path(r, r->cur), strerror(errno ? errno : EIO));
        return SG_ERR_INPUT;
    }
    r->fmt = 0;
    r->started = r->eof = 0;
    r->carry_len = 0;
    r->midline = 0;
    r->map = NULL;
    if (try_map(r, path)) return 0;
    if (bgzf_compression(r->fp) == 2) {
        /* htslib 1.16's threaded BGZF reader reports a truncated file as an
         * empty one (and can hang checking it), so threads inflate only files
         * whose end-of-file marker is there; others read on one thread, where
         * a cut block is an error */
        int eof_ok = strcmp(path, "-") ? bgzf_check_EOF(r->fp) : 0;
        if (eof_ok == 0 && strcmp(path, "-"))
            sg_warn("'%s' has no BGZF end-of-file marker: the file may be truncated", path);
        if (eof_ok == 1 && r->n_threads > 1 && bgzf_mt(r->fp, r->n_threads, 256) < 0)
            sg_warn("cannot start BGZF decompression threads");
    }
    return 0;
}

/* Read until c holds at least want bytes or the file ends. */
static int fill(sg_reader_t *r, sg_chunk_t *c, size_t want)
{
    if (want + 1 > c->cap) {
        c->cap = want + 1;
        c->seq = sg_realloc(c->seq, c->cap);
    }
    while (c->len < want && !r->eof) {
        ssize_t n = bgzf_read(r->fp, c->seq + c->len, want - c->len);
        if (n < 0) {
            int compressed = bgzf_compression(r->fp) != 0;
            sg_error("cannot read '%s': %s", sg_reader_path(r, r->cur),
                     compressed ? "truncated or corrupt compressed data" : strerror(errno ? errno : EIO));
            return SG_ERR_INPUT;
        }
        if (n == 0) r->eof = 1;
        c->len += n;
        r->bytes += n;
    }
    return 0;
}

static size_t count_lines(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == '\n';
    return k;
}

/* Position just after the k-th newline of s (k >= 1). */
static size_t after_line(const char *s, size_t n, size_t k)
{
    const char *p = s, *end = s + n;
    while (k--) p = (const char *)memchr(p, '\n', end - p) + 1;
    return p - s;
}

/* Where to end a block that starts at b and could run to b + len (the end
 * of the file if eof): after the last whole line (FASTA; inside a sequence
 * line longer than the block if need be) or record (FASTQ). GROW: the
 * block must grow (a header line or FASTQ record longer than it). */
#define GROW SIZE_MAX
static size_t find_cut(int fmt, const char *b, size_t len, int eof, int midline, int *next_midline)
{
    *next_midline = 0;
    if (eof) return len;
    if (fmt == SG_FMT_FASTA) {
        const char *nl = memrchr(b, '\n', len);
        if (nl) return nl + 1 - b;
        if (midline || b[0] != '>') { /* inside one long sequence line */
            /* never between a CR and its LF: a CR is dropped only at a line's end */
            if (b[len - 1] == '\r') {
                if (len == 1) return GROW;
                len--;
            }
            *next_midline = 1;
            return len;
        }
        return GROW;
    }
    size_t lines = count_lines(b, len);
    return lines >= 4 ? after_line(b, len, lines - lines % 4) : GROW;
}

static int detect_format(sg_reader_t *r, const char *b, size_t len)
{
    const char *path = sg_reader_path(r, r->cur);
    if (!len) {
        sg_error("'%s' is empty: no FASTA or FASTQ records", path);
        return SG_ERR_INPUT;
    }
    unsigned char ch = b[0];
    if (ch == '>') r->fmt = SG_FMT_FASTA;
    else if (ch == '@') r->fmt = SG_FMT_FASTQ;
    else {
        if (ch >= 0x20 && ch < 0x7f)
            sg_error("'%s' is not FASTA or FASTQ: it starts with '%c', not '>' or '@'", path, ch);
        else
            sg_error("'%s' is not FASTA or FASTQ: it starts with byte 0x%02x (binary data?)", path, ch);
        return SG_ERR_INPUT;
    }
    return 0;
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

static int next_mapped(sg_reader_t *r, sg_chunk_t *c)
{
    if (!r->started) { /* leading blank lines are allowed */
        while (r->map_pos < r->map_len && is_blank(r->map[r->map_pos])) r->map_pos++;
        if (detect_format(r, r->map + r->map_pos, r->map_len - r->map_pos) < 0) return SG_ERR_INPUT;
    }
    const char *b = r->map + r->map_pos;
    size_t avail = r->map_len - r->map_pos, want = r->block, cut;
    int next_midline;
    for (;; want *= 2) {
        size_t len = want < avail ? want : avail;
        if ((cut = find_cut(r->fmt, b, len, len == avail, r->midline, &next_midline)) != GROW) break;
    }
    c->src = b;
    c->len = cut;
    c->midline = r->midline;
    r->midline = next_midline;
    r->map_pos += cut;
    r->bytes += cut;
    r->eof = r->map_pos == r->map_len;
    return 0;
}

static int next_streamed(sg_reader_t *r, sg_chunk_t *c)
{
    c->cap = r->block + r->carry_len + 1;
    c->seq = sg_malloc(c->cap);
    if (r->carry_len) memcpy(c->seq, r->carry, r->carry_len);
    c->len = r->carry_len;
    c->midline = r->midline;
    size_t want = r->block > c->len ? r->block : c->len + r->block;
    if (fill(r, c, want) < 0) return SG_ERR_INPUT;
    if (!r->started) {
        for (;;) { /* leading blank lines are allowed */
            size_t skip = 0;
            while (skip < c->len && is_blank(c->seq[skip])) skip++;
            memmove(c->seq, c->seq + skip, c->len - skip);
            c->len -= skip;
            if (c->len || r->eof) break;
            if (fill(r, c, r->block) < 0) return SG_ERR_INPUT;
        }
        if (detect_format(r, c->seq, c->len) < 0) return SG_ERR_INPUT;
    }
    size_t cut;
    int next_midline;
    while ((cut = find_cut(r->fmt, c->seq, c->len, r->eof, c->midline, &next_midline)) == GROW)
        if (fill(r, c, 2 * c->len + r->block) < 0) return SG_ERR_INPUT;
    r->midline = next_midline;
    r->carry_len = c->len - cut;
    if (r->carry_len > r->carry_cap) {
        r->carry_cap = r->carry_len + r->carry_len / 2;
        r->carry = sg_realloc(r->carry, r->carry_cap);
    }
    if (r->carry_len) memcpy(r->carry, c->seq + cut, r->carry_len);
    c->len = cut;
    return 0;
}

int sg_reader_next(sg_reader_t *r, sg_chunk_t **out)
{
    *out = NULL;
    if (!r->fp && !r->map) {
        if (r->cur + 1 >= r->n_paths) return 0;
        if (open_next(r) < 0) return SG_ERR_INPUT;
    }
    sg_chunk_t *c = sg_chunk_new(0);
    c->file = r->cur;
    if ((r->map ? next_mapped(r, c) : next_streamed(r, c)) < 0) {
        sg_chunk_free(c);
        return SG_ERR_INPUT;
    }
    c->fmt = r->fmt;
    r->started = 1;
    if (r->eof && !r->carry_len) {
        c->file_end = 1;
        if (r->fp) bgzf_close(r->fp);
        r->fp = NULL;
        r->map = NULL;
    }
    *out = c;
    return 1;
}

/* ---- parsing ---- */

/* Bytes allowed in sequence lines: letters and the gap/stop symbols - . * */
static int is_seq_byte(unsigned char c)
{
    return (unsigned char)((c | 0x20) - 'a') < 26 || c == '-' || c == '.' || c == '*';
}

static int block_error(sg_chunk_t *c, int rec, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int block_error(sg_chunk_t *c, int rec, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(c->err);
    c->err = sg_strdup(buf);
    c->err_seg = rec;
    return SG_ERR_INPUT;
}

static const char *char_name(unsigned char ch, char *buf, size_t n)
{
    if (ch > 0x20 && ch < 0x7f) snprintf(buf, n, "'%c'", ch);
    else snprintf(buf, n, "byte 0x%02x", ch);
    return buf;
}

/* Append the sequence line [p, e) at *out, without the CR of a CRLF line end
 * (line_end: e ends the line, rather than the block in mid-line). */
static inline void copy_seq(char **out, const char *p, const char *e, int line_end)
{
    if (line_end && e > p && e[-1] == '\r') e--;
    memmove(*out, p, e - p);
    *out += e - p;
}

/* Any byte of s[0..n) that is not a letter, - . * or SG_SEP? */
SG_CLONES static int has_bad_byte(const unsigned char *s, size_t n)
{
    unsigned char bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = s[i];
        bad |= ((unsigned char)((ch | 0x20) - 'a') >= 26) & (ch != '-') & (ch != '.') & (ch != '*') & (ch != SG_SEP);
    }
    return bad;
}

/* Check the packed sequence bytes of a parsed block in one pass (lines are
 * short: one long loop vectorises better than one per line). */
static int check_seq(sg_chunk_t *c)
{
    const unsigned char *s = (const unsigned char *)c->seq;
    size_t n = c->len;
    if (!has_bad_byte(s, n)) return 0;
    for (size_t i = 0; i < n; i++) {
        if (is_seq_byte(s[i]) || s[i] == SG_SEP) continue;
        char cb[16];
        return block_error(c, sg_chunk_seg_at(c, i), "invalid character %s in the sequence",
                           char_name(s[i], cb, sizeof cb));
    }
    return 0;
}

/* First word of a header line [p, e) without its marker. */
static uint32_t add_header_name(sg_chunk_t *c, const char *p, const char *e)
{
    const char *w = p;
    while (w < e && *w != ' ' && *w != '\t' && *w != '\r') w++;
    return sg_chunk_add_name(c, p, w - p);
}

static int parse_fasta(sg_chunk_t *c, const char *src)
{
    const char *p = src, *end = src + c->len;
    char *out = c->seq;
    sg_seg_t *seg = NULL;
    int line_start = !c->midline;
    while (p < end) {
        const char *nl = memchr(p, '\n', end - p);
        const char *e = nl ? nl : end;
        if (line_start && *p == '>') {
            uint32_t name = add_header_name(c, p + 1, e);
            if (seg) {
                seg->len = out - c->seq - seg->off;
                *out++ = SG_SEP;
            }
            seg = sg_chunk_add_seg(c);
            seg->first = 1;
            seg->name = name;
            seg->off = out - c->seq;
        } else {
            if (!seg) { /* the block continues the record of the block before */
                seg = sg_chunk_add_seg(c);
                seg->off = 0;
            }
            copy_seq(&out, p, e, nl || c->file_end);
        }
        p = nl ? nl + 1 : end;
        line_start = nl != NULL;
    }
    if (seg) seg->len = out - c->seq - seg->off;
    c->len = out - c->seq;
    return check_seq(c);
}

static const char *next_line(const char **p, const char *end, const char **e)
{
    if (*p >= end) return NULL;
    const char *s = *p, *nl = memchr(s, '\n', end - s);
    *e = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    return s;
}

static int parse_fastq(sg_chunk_t *c, const char *src)
{
    const char *p = src, *end = src + c->len;
    char *out = c->seq;
    char cb[16];
    for (int rec = 0;; rec++) {
        const char *h, *he, *s, *se, *pl, *ple, *q, *qe;
        if (!(h = next_line(&p, end, &he))) break;
        if (he == h || (he == h + 1 && *h == '\r')) {
            /* blank lines may end a file, nowhere else */
            const char *t = p;
            while (t < end && (*t == '\n' || *t == '\r')) t++;
            if (t == end && c->file_end) break;
            return block_error(c, rec, "blank line where a FASTQ header ('@') was expected");
        }
        if (*h != '@')
            return block_error(c, rec, "expected a FASTQ header starting with '@', found %s",
                               char_name(*h, cb, sizeof cb));
        uint32_t name = add_header_name(c, h + 1, he);
        if (!(s = next_line(&p, end, &se)) || !(pl = next_line(&p, end, &ple)) || !(q = next_line(&p, end, &qe)))
            return block_error(c, rec, "truncated FASTQ record (fewer than 4 lines)");
        (void)ple;
        if (*pl != '+')
            return block_error(c, rec, "expected the '+' line, found %s (multi-line FASTQ is not supported)",
                               char_name(*pl, cb, sizeof cb));
        sg_seg_t *seg = sg_chunk_add_seg(c);
        seg->first = 1;
        seg->name = name;
        seg->off = out - c->seq;
        copy_seq(&out, s, se, 1);
        seg->len = out - c->seq - seg->off;
        if (qe > q && qe[-1] == '\r') qe--;
        if ((uint64_t)(qe - q) != seg->len)
            return block_error(c, rec, "quality length %ld differs from sequence length %lu",
                               (long)(qe - q), (unsigned long)seg->len);
        for (const char *t = q; t < qe; t++)
            if (*t < '!' || *t > '~')
                return block_error(c, rec, "invalid quality character %s", char_name(*t, cb, sizeof cb));
        *out++ = SG_SEP;
    }
    c->len = out - c->seq;
    return check_seq(c);
}

/* Drop the whole pages of a parsed stretch of a mapped file from this
 * process's memory (they stay in the page cache): the genome is never held
 * twice. */
static void release_pages(const char *p, size_t n)
{
    size_t page = 4096;
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1), b = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

int sg_parse_block(sg_chunk_t *c)
{
    const char *src = c->src ? c->src : c->seq;
    size_t raw = c->len;
    if (c->src) { /* mapped: pack into a buffer of the chunk's own */
        c->cap = raw + 1;
        c->seq = sg_malloc(c->cap);
    }
    int r = c->fmt == SG_FMT_FASTQ ? parse_fastq(c, src) : parse_fasta(c, src);
    if (c->src) {
        release_pages(c->src, raw);
        c->src = NULL;
    }
    return r;
}
