#define _GNU_SOURCE
#include "formats/fai.h"
#include "formats/outfile.h"
#include "formats/seqio.h"
#include "core/log.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

/* what an index may hold: offsets and counts below 2^62 */
#define FAI_MAX ((uint64_t)1 << 62)

void sg_fai_free(sg_fai_t *idx)
{
    for (int64_t i = 0; i < idx->n; i++) free(idx->rec[i].name);
    free(idx->rec);
    if (idx->gzi_tmp) sg_tmp_remove(idx->gzi_tmp);
    else free(idx->gzi);
    memset(idx, 0, sizeof *idx);
}

/* A FASTA file that can be indexed: a regular file, plain or BGZF, that
 * starts with '>'. *bgzf: it is BGZF. */
static int check_fasta(const char *path, const char *why, int *bgzf, int *empty)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        sg_error("cannot read '%s': %s", path, strerror(errno));
        return SG_ERR_INPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        sg_error("'%s' is not a regular file, and %s seeks in its input: save it to a file first (bgzip it, then "
                 "samtools faidx)", path, why);
        return SG_ERR_INPUT;
    }
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        sg_error("cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        return SG_ERR_INPUT;
    }
    int comp = bgzf_compression(fp);
    char buf[4096], err[256];
    ssize_t n = comp == 1 ? 0 : bgzf_read(fp, buf, sizeof buf);
    bgzf_close(fp);
    *bgzf = comp == 2;
    *empty = n == 0 && comp != 1;
    if (comp == 1) {
        sg_error("'%s' is gzip-compressed, not BGZF, and %s seeks only in plain or BGZF files: recompress it "
                 "(zcat '%s' | bgzip > NEW.fa.gz) and index that (samtools faidx NEW.fa.gz)", path, why, path);
        return SG_ERR_INPUT;
    }
    if (n < 0) {
        sg_error("cannot read '%s': %s", path, "truncated or corrupt compressed data");
        return SG_ERR_INPUT;
    }
    size_t bom, p;
    if (sg_text_start(buf, (size_t)n, &bom, err, sizeof err) < 0) {
        sg_error("'%s' is %s", path, err);
        return SG_ERR_INPUT;
    }
    for (p = bom; p < (size_t)n && (buf[p] == '\n' || buf[p] == '\r'); p++) continue;
    if (p == (size_t)n && (size_t)n < sizeof buf) *empty = 1; /* blank lines only: no records */
    if (p < (size_t)n && buf[p] == '@') {
        sg_error("'%s' is FASTQ, and %s cuts only FASTA, at any base, through its index: run the reads whole, or "
                 "convert them to FASTA (plain or bgzip-compressed; samtools faidx indexes it)", path, why);
        return SG_ERR_INPUT;
    }
    if (p < (size_t)n && buf[p] != '>') {
        sg_error("'%s' is not FASTA: it starts with neither '>' nor '@'", path);
        return SG_ERR_INPUT;
    }
    return 0;
}

/* The file's bytes of record r. */
static unsigned __int128 record_bytes(const sg_fai_rec_t *r)
{
    if (!r->len) return 0;
    uint64_t last = r->len - 1;
    return (unsigned __int128)(last / r->line_bases) * r->line_bytes + last % r->line_bases + 1;
}

/* One number of a .fai line: digits up to a tab (tab 1) or the line's end. */
static int field(char **p, int tab, uint64_t *v)
{
    char *end;
    if (**p < '0' || **p > '9') return -1;
    errno = 0;
    unsigned long long x = strtoull(*p, &end, 10);
    if (errno || x >= FAI_MAX || (tab ? *end != '\t' : *end != '\0')) return -1;
    *v = x;
    *p = end + (tab != 0);
    return 0;
}

/* Parse the index file fai of the FASTA file path (size bytes when plain, 0 for BGZF). */
static int parse(const char *fai, const char *path, uint64_t size, sg_fai_t *idx)
{
    struct stat st;
    int fd = open(fai, O_RDONLY | O_NONBLOCK); /* a FIFO put there must not block the run */
    FILE *fp = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!fp) {
        int e = fd < 0 ? errno : EINVAL;
        if (fd >= 0) close(fd);
        sg_error("cannot read '%s': %s", fai, fd < 0 ? strerror(e) : "not a regular file");
        return SG_ERR_INPUT;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int64_t m = 0, lineno = 0;
    uint64_t end = 0;
    int r = 0;
    while (r == 0 && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (len && line[len - 1] == '\n') line[--len] = 0;
        char *tab = strchr(line, '\t'), *p = tab ? tab + 1 : NULL;
        sg_fai_rec_t rec = {0};
        uint64_t qual;
        if (!tab || tab == line || field(&p, 1, &rec.len) < 0 || field(&p, 1, &rec.off) < 0 ||
            field(&p, 1, &rec.line_bases) < 0 || field(&p, 0, &rec.line_bytes) < 0) {
            if (p && field(&p, 1, &qual) == 0)
                sg_error("'%s' indexes FASTQ (a sixth column), not FASTA", fai);
            else
                sg_error("'%s', line %lld: not a FASTA index line (name, length, offset, line bases, line bytes)",
                         fai, (long long)lineno);
            r = SG_ERR_INPUT;
            break;
        }
        if (rec.len && (!rec.line_bases || rec.line_bytes < rec.line_bases)) {
            sg_error("'%s', line %lld: %llu bases a line in lines of %llu bytes", fai, (long long)lineno,
                     (unsigned long long)rec.line_bases, (unsigned long long)rec.line_bytes);
            r = SG_ERR_INPUT;
            break;
        }
        /* records in file order, each after the one before, the last within the file */
        unsigned __int128 rec_end = (unsigned __int128)rec.off + record_bytes(&rec);
        if (rec.off < end || rec_end >= FAI_MAX || (size && rec_end > size) || idx->bases + rec.len >= FAI_MAX) {
            sg_error("'%s' does not fit '%s' (line %lld): it indexes another version of the file; make it again "
                     "(samtools faidx '%s')", fai, path, (long long)lineno, path);
            r = SG_ERR_INPUT;
            break;
        }
        end = (uint64_t)rec_end;
        idx->bases += rec.len;
        if (idx->n == m) {
            m = m ? 2 * m : 64;
            idx->rec = sg_realloc(idx->rec, m * sizeof *idx->rec);
        }
        *tab = 0;
        rec.name = sg_strdup(line);
        idx->rec[idx->n++] = rec;
    }
    if (r == 0 && ferror(fp)) {
        sg_error("cannot read '%s': %s", fai, strerror(errno ? errno : EIO));
        r = SG_ERR_INPUT;
    }
    free(line);
    fclose(fp);
    return r;
}

static char *with_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *s = sg_malloc(n);
    snprintf(s, n, "%s%s", path, suffix);
    return s;
}

/* Making an index (index_fasta): where the lines of the file have got to. */
typedef struct {
    FILE *out;
    kstring_t name;        /* of the record being read */
    int in_seq;            /* in its lines (else between records, or after its last line) */
    int kind;              /* of the line being read: 'h' header, 's' sequence, 'b' blank, 0 out of place */
    int named;             /* header: its first word is read */
    uint64_t line_no, ll, cl; /* the line's number, bytes and bases */
    uint64_t seq_off, seq_len, line_len, line_bases; /* the record's */
    char why[320];         /* what the file breaks, or "" */
    int err;               /* errno of a failed write, or 0 */
} indexer_t;

static void put_record(indexer_t *x)
{
    if (x->seq_len && fprintf(x->out, "%s\t%llu\t%llu\t%llu\t%llu\n", x->name.s, (unsigned long long)x->seq_len,
                              (unsigned long long)x->seq_off, (unsigned long long)x->line_bases,
                              (unsigned long long)x->line_len) < 0)
        x->err = errno ? errno : EIO;
}

static void line_begin(indexer_t *x, char c)
{
    sg_name_buf_t nb;
    x->line_no++;
    x->ll = x->cl = 0;
    x->named = 0;
    x->kind = c == '>' ? 'h' : c == '\n' || (!x->in_seq && c == '\r') ? 'b' : x->in_seq ? 's' : 0;
    if (x->kind == 'h') {
        put_record(x); /* the one before it is complete */
        x->name.l = 0;
        x->seq_len = 0;
    } else if (!x->kind && x->name.l) {
        snprintf(x->why, sizeof x->why, "a sequence line after the last line of record '%s' (a shorter line or a "
                 "blank one)", sg_name_shown(x->name.s, &nb));
    } else if (!x->kind) {
        snprintf(x->why, sizeof x->why, "a sequence line before the first header");
    }
}

/* The end of the line (its line end counted in ll); next: the offset after it. */
static void line_end(indexer_t *x, uint64_t next)
{
    sg_name_buf_t nb;
    if (x->kind == 'b' && x->ll > 2) /* "\n", or "\r\n" between records */
        snprintf(x->why, sizeof x->why, "a carriage return not followed by a line end");
    if (x->kind == 'b') x->in_seq = 0;
    if (x->kind == 'h') {
        if (!x->name.l) snprintf(x->why, sizeof x->why, "a header with no name");
        kputs("", &x->name);
        x->in_seq = 1;
        x->seq_off = next;
        x->line_len = x->line_bases = 0;
    }
    if (x->kind != 's') return;
    x->seq_len += x->cl;
    if (!x->line_len) {
        x->line_len = x->ll;
        x->line_bases = x->cl;
    } else if (x->ll > x->line_len) {
        snprintf(x->why, sizeof x->why, "a line of record '%s' longer than its first", sg_name_shown(x->name.s, &nb));
    } else if (x->ll < x->line_len) {
        x->in_seq = 0; /* the record's last line */
    } else if (x->cl != x->line_bases) {
        snprintf(x->why, sizeof x->why, "a line of record '%s' with %llu bases in the bytes of its first, which has "
                 "%llu", sg_name_shown(x->name.s, &nb), (unsigned long long)x->cl, (unsigned long long)x->line_bases);
    }
}

/* The index of FASTA file path written to fai (and for BGZF its block
 * index to gzi) as samtools faidx makes it, made here because htslib 1.16's
 * fai_build3 fails, saying nothing, when the last record has no bases. The
 * same rules: the name is the header's first word; a record's lines are as
 * long as its first (in bytes, the line end included; a last line with no
 * line end counts one), but the last, which may be shorter; its bases are
 * the lines' graphic characters; blank lines only between records; a record
 * with no bases is left out. One rule more: a record's full lines hold as
 * many bases as its first, else the index would put its bases elsewhere.
 * @return 0; SG_ERR_INPUT with the message printed; SG_ERR_SYSTEM with
 *         errno set when the index cannot be written (nothing printed) */
static int index_fasta(const char *path, const char *fai, const char *gzi)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        sg_error("cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        return SG_ERR_INPUT;
    }
    indexer_t x = {.out = fopen(fai, "w")};
    if (!x.out || (gzi && bgzf_index_build_init(fp) != 0)) x.err = errno ? errno : EIO;
    char *buf = sg_malloc(1 << 16);
    int line_start = 1;
    uint64_t off = 0;
    ssize_t n = 0;
    while (!x.err && !x.why[0] && (n = bgzf_read(fp, buf, 1 << 16)) > 0) {
        /* a UTF-8 byte-order mark is no part of the first header (as the reader takes it) */
        ssize_t i0 = !off && n >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
        for (ssize_t i = i0; i < n && !x.why[0]; i++) {
            if (line_start) line_begin(&x, buf[i]);
            line_start = 0;
            if (x.kind == 's') { /* the bulk of the file: the rest of the line at once */
                const char *nl = memchr(buf + i, '\n', (size_t)(n - i));
                ssize_t end = nl ? nl - buf : n;
                for (ssize_t j = i; j < end; j++) x.cl += isgraph((unsigned char)buf[j]) != 0;
                x.ll += (uint64_t)(end - i);
                i = end;
                if (!nl) continue;
            } else if (buf[i] != '\n') {
                x.ll++;
                if (x.kind == 'h' && x.ll > 1 && !x.named) {
                    if (!isspace((unsigned char)buf[i])) kputc(buf[i], &x.name);
                    else x.named = x.name.l > 0;
                }
                continue;
            }
            x.ll++;
            line_end(&x, off + (uint64_t)i + 1);
            line_start = 1;
        }
        off += (uint64_t)n;
    }
    int r = 0;
    if (!x.err && !x.why[0] && n < 0) {
        sg_error("cannot read '%s': %s", path, "truncated or corrupt compressed data");
        r = SG_ERR_INPUT;
    }
    if (!x.err && !x.why[0] && !line_start && x.kind != 'h') { /* a last line with no line end */
        x.ll++;
        line_end(&x, off);
    }
    if (x.why[0]) {
        sg_error("cannot index '%s', line %llu: %s (samtools faidx's rules: the lines of a record as long as its first, "
                 "but the last; blank lines between records only)", path, (unsigned long long)x.line_no, x.why);
        r = SG_ERR_INPUT;
    }
    if (r == 0 && !x.err) put_record(&x); /* the last (none when the file ends in a header) */
    if (x.out && fclose(x.out) != 0 && !x.err) x.err = errno ? errno : EIO;
    if (r == 0 && !x.err && gzi && bgzf_index_dump(fp, gzi, NULL) < 0) x.err = errno ? errno : EIO;
    bgzf_close(fp);
    free(buf);
    free(x.name.s);
    if (r == 0 && x.err) {
        errno = x.err;
        r = SG_ERR_SYSTEM;
    }
    return r;
}

/* Temporary files in $TMPDIR for an index of this run only (*gzi_tmp too
 * for BGZF): 0, or -1 with none left behind. */
static int run_only_tmp(int bgzf, char **fai_tmp, char **gzi_tmp)
{
    const char *dir = getenv("TMPDIR");
    char *base = with_suffix(dir && *dir ? dir : "/tmp", "/seqgpu");
    *fai_tmp = sg_tmp_beside(base);
    *gzi_tmp = bgzf && *fai_tmp ? sg_tmp_beside(base) : NULL;
    free(base);
    if (*fai_tmp && (!bgzf || *gzi_tmp)) return 0;
    if (*fai_tmp) sg_tmp_remove(*fai_tmp);
    *fai_tmp = NULL;
    return -1;
}

/* Make the index of path with htslib: beside it when its folder takes new
 * files, else in temporary files in $TMPDIR. */
static int build(const char *path, const char *fai, const char *gzi, int bgzf, uint64_t size, sg_fai_t *idx)
{
    char *fai_tmp = sg_tmp_beside(fai), *gzi_tmp = bgzf && fai_tmp ? sg_tmp_beside(gzi) : NULL;
    int beside = fai_tmp && (!bgzf || gzi_tmp);
    if (!beside) {
        int e = errno;
        if (fai_tmp) sg_tmp_remove(fai_tmp);
        if (run_only_tmp(bgzf, &fai_tmp, &gzi_tmp) < 0) {
            sg_error("cannot index '%s': cannot create '%s' (%s) nor a temporary file (%s)", path, fai, strerror(e),
                     strerror(errno));
            return SG_ERR_INPUT;
        }
        sg_notice("cannot create '%s' (%s): indexing '%s' for this run only; 'samtools faidx %s' in a writable folder "
                  "would save the scan", fai, strerror(e), path, path);
    }
    int r = index_fasta(path, fai_tmp, gzi_tmp), e = errno;
    if (r == SG_ERR_SYSTEM && beside) {
        /* no room beside the FASTA: an index for this run only */
        sg_tmp_remove(fai_tmp);
        if (gzi_tmp) sg_tmp_remove(gzi_tmp);
        fai_tmp = gzi_tmp = NULL;
        beside = 0;
        if (run_only_tmp(bgzf, &fai_tmp, &gzi_tmp) == 0) {
            sg_warn("cannot write '%s'%s%s (%s): indexing '%s' for this run only", fai, bgzf ? " and " : "",
                    bgzf ? gzi : "", strerror(e), path);
            r = index_fasta(path, fai_tmp, gzi_tmp);
            e = errno;
        }
    }
    if (r == SG_ERR_SYSTEM) sg_error("cannot index '%s': cannot write the index (%s)", path, strerror(e));
    if (r == 0) r = parse(fai_tmp, path, size, idx);
    if (r == 0 && beside) {
        /* an index made by another process meanwhile stays */
        struct stat st;
        if (stat(fai, &st) != 0 && sg_tmp_place(fai_tmp, fai) == 0) fai_tmp = NULL;
        if (gzi_tmp && stat(gzi, &st) != 0 && sg_tmp_place(gzi_tmp, gzi) == 0) gzi_tmp = NULL;
    }
    if (fai_tmp) sg_tmp_remove(fai_tmp);
    if (r < 0 && gzi_tmp) sg_tmp_remove(gzi_tmp);
    else if (bgzf) {
        idx->gzi_tmp = gzi_tmp;
        idx->gzi = gzi_tmp ? gzi_tmp : sg_strdup(gzi);
    }
    return r;
}

/* The BGZF block at compressed offset c of a file of csize bytes: its
 * bytes and its uncompressed bytes, from its header and its end (no
 * inflating); -1 when there is no BGZF block there. */
static int block_at(int fd, uint64_t csize, uint64_t c, uint64_t *bsize, uint64_t *isize)
{
    uint8_t h[18], t[4];
    if (c >= csize || csize - c < 18 + 8 || pread(fd, h, sizeof h, (off_t)c) != (ssize_t)sizeof h) return -1;
    if (h[0] != 31 || h[1] != 139 || h[2] != 8 || !(h[3] & 4) || (h[10] | h[11] << 8) != 6 || h[12] != 'B' ||
        h[13] != 'C' || (h[14] | h[15] << 8) != 2)
        return -1;
    *bsize = (uint64_t)(h[16] | h[17] << 8) + 1;
    if (*bsize < 18 + 8 || *bsize > csize - c || pread(fd, t, sizeof t, (off_t)(c + *bsize - 4)) != (ssize_t)sizeof t)
        return -1;
    *isize = t[0] | t[1] << 8 | t[2] << 16 | (uint64_t)t[3] << 24;
    return *isize <= 65536 ? 0 : -1;
}

/* Entry i of a .gzi (-1: the first block, which it leaves out). */
static void gzi_entry(const uint8_t *e, int64_t i, uint64_t *c, uint64_t *u)
{
    *c = *u = 0;
    for (int b = 7; i >= 0 && b >= 0; b--) {
        *c = *c << 8 | e[16 * i + b];
        *u = *u << 8 | e[16 * i + 8 + b];
    }
}

/* Why the .gzi gzi cannot take a seek to uncompressed offset at of the
 * BGZF file path (NULL when it can): the entries in order and inside the
 * file, and the block a seek goes through, and its neighbours, where and
 * as large as the entries say. htslib trusts the index (a wrong one aborts
 * it inside bgzf_useek), so it is checked against the file first. */
static const char *gzi_unfit(const char *gzi, const char *path, uint64_t at, uint64_t *end_block)
{
    static __thread char why[128];
    struct stat st, gst;
    int fd = open(path, O_RDONLY), gfd = open(gzi, O_RDONLY | O_NONBLOCK); /* a FIFO put there must not block */
    FILE *fp = gfd >= 0 ? fdopen(gfd, "rb") : NULL;
    uint8_t *e = NULL, head[8];
    const char *bad = NULL;
    if (gfd >= 0 && !fp) close(gfd);
    if (fd < 0 || !fp || fstat(fd, &st) != 0 || fstat(gfd, &gst) != 0 || !S_ISREG(gst.st_mode) ||
        fread(head, 1, 8, fp) != 8) {
        bad = fp && fstat(gfd, &gst) == 0 && !S_ISREG(gst.st_mode) ? "it is not a regular file" : "it cannot be read";
        goto out;
    }
    uint64_t n = 0, csize = (uint64_t)st.st_size;
    for (int b = 7; b >= 0; b--) n = n << 8 | head[b];
    if (n > (uint64_t)gst.st_size / 16 || 8 + 16 * n != (uint64_t)gst.st_size) {
        bad = "its length is not that of the entries it declares";
        goto out;
    }
    e = sg_malloc(16 * n + 1);
    if (fread(e, 16, n, fp) != n) {
        bad = "it cannot be read";
        goto out;
    }
    /* entry k is the last block starting at or before at */
    int64_t k = -1;
    uint64_t pc = 0, pu = 0;
    for (int64_t i = 0; i < (int64_t)n; i++) {
        uint64_t c, u;
        gzi_entry(e, i, &c, &u);
        if (c <= pc || u <= pu || c >= csize) {
            snprintf(why, sizeof why, "entry %lld is out of order or past the end of the file", (long long)i + 1);
            bad = why;
            goto out;
        }
        if (u <= at) k = i;
        pc = c, pu = u;
    }
    /* the first block, the one before k, k's own and the last: each where the
     * entries say, as long as the next entry says (a file that goes on after
     * the last is one with records added since: tail_fits says so) */
    int64_t check[4] = {-1, k - 1, k, (int64_t)n - 1};
    for (int j = 0; j < 4; j++) {
        int64_t i = check[j];
        uint64_t c, u, c1, u1, bsize, isize;
        if (i < -1) continue;
        gzi_entry(e, i, &c, &u);
        if (block_at(fd, csize, c, &bsize, &isize) < 0) {
            snprintf(why, sizeof why, "no BGZF block starts where entry %lld says", (long long)i + 1);
            bad = why;
            break;
        }
        if (i + 1 < (int64_t)n) gzi_entry(e, i + 1, &c1, &u1);
        if (i + 1 < (int64_t)n && (c1 != c + bsize || u1 != u + isize)) {
            snprintf(why, sizeof why, "entry %lld is not where the block before it ends", (long long)i + 2);
            bad = why;
            break;
        }
        if (i == k && at - u > isize) {
            bad = "the file ends before the offset sought";
            break;
        }
        if (i == k && i == (int64_t)n - 1 && at - u == isize) *end_block = c + bsize; /* nothing after at */
    }
out:
    if (fd >= 0) close(fd);
    if (fp) fclose(fp);
    free(e);
    return bad;
}

int sg_gzi_seek(BGZF *fp, const char *gzi, const char *path, uint64_t at)
{
    uint64_t end_block = 0;
    if (gzi) {
        const char *bad = gzi_unfit(gzi, path, at, &end_block);
        if (bad) {
            sg_error("'%s', the BGZF index of '%s', does not fit the file (%s): make it again (samtools faidx '%s' "
                     "remakes both its .fai and its .gzi)", gzi, path, bad, path);
            return SG_ERR_INPUT;
        }
        if (!fp->idx && bgzf_index_load(fp, gzi, NULL) < 0) {
            sg_error("cannot read '%s', the BGZF index of '%s': make it again (samtools faidx '%s')", gzi, path, path);
            return SG_ERR_INPUT;
        }
    }
    /* at the end of the last block htslib's next read fails (its offset is past the empty block after
     * it): the start of what follows the block reads as the end instead */
    if (end_block ? bgzf_seek(fp, (int64_t)end_block << 16, SEEK_SET) < 0 : bgzf_useek(fp, (off_t)at, SEEK_SET) < 0) {
        sg_error("cannot seek in '%s' to offset %llu%s%s%s", path, (unsigned long long)at, gzi ? " through '" : "",
                 gzi ? gzi : "", gzi ? "'" : "");
        return SG_ERR_INPUT;
    }
    return 0;
}

/* A FASTA file read at offsets (through its .gzi when it is BGZF). */
typedef struct {
    BGZF *fp;
    const char *path, *gzi;
    int failed; /* a seek failed, and said why */
} fasta_t;

/* n bytes of the file from offset at (uncompressed): 0, or -1 (a seek that failed, a read error, or fewer there). */
static int read_at(fasta_t *f, uint64_t at, char *buf, size_t n)
{
    if (f->failed || sg_gzi_seek(f->fp, f->gzi, f->path, at) < 0) {
        f->failed = 1;
        return -1;
    }
    return bgzf_read(f->fp, buf, n) != (ssize_t)n ? -1 : 0;
}

static int is_base(char c) { return (unsigned char)((c | 0x20) - 'a') < 26 || c == '-' || c == '.' || c == '*'; }

/* The header line ending at offset at (just before a record's first base):
 * record name's? Read back from its end to the line before it a window at
 * a time, so that a header of any length costs one window of memory. */
static int header_before(fasta_t *f, uint64_t at, const char *name)
{
    char buf[1 << 16];
    if (at == 0 || read_at(f, at - 1, buf, 1) < 0 || buf[0] != '\n') return 0;
    uint64_t ls = 0, p = at - 1; /* the line's start: after the line end before it (or the file's start) */
    while (p > 0) {
        uint64_t from = p > sizeof buf ? p - sizeof buf : 0;
        if (read_at(f, from, buf, (size_t)(p - from)) < 0) return 0;
        size_t i = (size_t)(p - from);
        while (i > 0 && buf[i - 1] != '\n') i--;
        if (i > 0) {
            ls = from + i;
            break;
        }
        p = from;
    }
    if (ls == 0 && read_at(f, 0, buf, 3) == 0 && !memcmp(buf, "\xef\xbb\xbf", 3)) ls = 3; /* a byte-order mark */
    size_t len = strlen(name);
    uint64_t line = at - 1 - ls; /* its bytes, less the line end */
    if (line < len + 1) return 0;
    char *h = len + 2 > sizeof buf ? sg_malloc(len + 2) : buf; /* '>', the name, what follows it */
    int ok = read_at(f, ls, h, len + 2) == 0 && h[0] == '>' && !memcmp(h + 1, name, len) &&
             (line == len + 1 || isspace((unsigned char)h[len + 1]));
    if (h != buf) free(h);
    return ok;
}

/* Bases of a line read around a part's cut: a line of an unwrapped
 * chromosome (250 Mb) is not read whole for each part. */
#define LINE_WINDOW ((uint64_t)1 << 16)

/* The line holding base pos of r: a line before it that ended, bases where
 * the index says (its first and last, and those around pos), and its end
 * after them. */
static int line_fits(fasta_t *fp, const sg_fai_rec_t *r, uint64_t pos)
{
    uint64_t first = pos / r->line_bases * r->line_bases, n = r->len - first < r->line_bases ? r->len - first : r->line_bases;
    uint64_t start = sg_fai_offset(r, first), lo = pos - first > LINE_WINDOW / 2 ? pos - first - LINE_WINDOW / 2 : 0;
    uint64_t hi = n - lo < LINE_WINDOW ? n : lo + LINE_WINDOW; /* bases [lo, hi) of the line */
    char *buf = sg_malloc((size_t)(hi - lo) + 1), c;
    int ok = start == r->off || (read_at(fp, start - 1, &c, 1) == 0 && c == '\n');
    ok = ok && read_at(fp, start, &c, 1) == 0 && is_base(c) && read_at(fp, start + n - 1, &c, 1) == 0 && is_base(c);
    ok = ok && read_at(fp, start + lo, buf, (size_t)(hi - lo)) == 0;
    for (uint64_t i = 0; ok && i < hi - lo; i++) ok = is_base(buf[i]);
    /* after the bases: the line's end, or the end of the file */
    if (ok && read_at(fp, start + n, &c, 1) == 0) ok = c == '\n' || c == '\r' || c == ' ' || c == '\t';
    free(buf);
    return ok;
}

int sg_fai_check(const char *path, const sg_fai_t *idx, int64_t rec, uint64_t pos)
{
    fasta_t f = {bgzf_open(path, "r"), path, idx->gzi, 0};
    const sg_fai_rec_t *r = &idx->rec[rec];
    int ok = f.fp && header_before(&f, r->off, r->name) && line_fits(&f, r, pos);
    if (f.fp) bgzf_close(f.fp);
    if (f.failed) return SG_ERR_INPUT; /* said */
    sg_name_buf_t nb;
    if (!ok)
        sg_error("'%s' does not match its index (record '%s', base %llu): make the index again (samtools faidx '%s'%s)",
                 path, sg_name_shown(r->name, &nb), (unsigned long long)pos, path, idx->gzi ? "; both its .fai and its .gzi" : "");
    return ok ? 0 : SG_ERR_INPUT;
}

/* After the last record's bases, only blanks, and headers of records with
 * no bases, to the end of the file: an index made before records were
 * added stops short of them. */
static int tail_fits(const char *path, const char *fai, const sg_fai_t *idx)
{
    fasta_t f = {bgzf_open(path, "r"), path, idx->gzi, 0};
    if (!f.fp) {
        sg_error("cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        return SG_ERR_INPUT;
    }
    int ok = 1;
    uint64_t end = 0;
    if (idx->n) {
        const sg_fai_rec_t *r = &idx->rec[idx->n - 1];
        end = r->off + (uint64_t)record_bytes(r);
    }
    if (end && sg_gzi_seek(f.fp, f.gzi, path, end) < 0) {
        bgzf_close(f.fp);
        return SG_ERR_INPUT; /* said */
    }
    /* the rest of the last line, then blank lines and headers of records with no bases (left out of the index) */
    char buf[4096];
    ssize_t n = 0;
    int line_start = !end, header = 0;
    while (ok && (n = bgzf_read(f.fp, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; ok && i < n; i++) {
            if (buf[i] == '\n') line_start = 1, header = 0;
            else if (line_start && buf[i] == '>') line_start = 0, header = 1;
            else if (!header) line_start = 0, ok = !isgraph((unsigned char)buf[i]);
        }
    }
    bgzf_close(f.fp);
    if (n < 0)
        sg_error("cannot read '%s': %s", path, "truncated or corrupt compressed data");
    else if (!ok)
        sg_error("'%s' does not fit '%s': the file goes on after the last record it indexes (records added since?); "
                 "make it again (samtools faidx '%s')", fai, path, path);
    return ok && n == 0 ? 0 : SG_ERR_INPUT;
}

int sg_fai_load(const char *path, const char *why, sg_fai_t *idx)
{
    memset(idx, 0, sizeof *idx);
    int bgzf;
    int empty;
    int r = check_fasta(path, why, &bgzf, &empty);
    if (r < 0) return r;
    if (empty) return 0; /* no records, no bases: nothing to index, every part empty */
    struct stat st, fst, gst;
    stat(path, &st);
    uint64_t size = bgzf ? 0 : (uint64_t)st.st_size;
    char *fai = with_suffix(path, ".fai"), *gzi = with_suffix(path, ".gzi");
    if (stat(fai, &fst) == 0 && (!bgzf || stat(gzi, &gst) == 0)) {
        if (fst.st_mtime < st.st_mtime)
            sg_warn("'%s' is older than '%s': if the FASTA changed since, make the index again (samtools faidx)", fai,
                    path);
        r = parse(fai, path, size, idx);
        if (bgzf) idx->gzi = sg_strdup(gzi);
        if (r == 0) r = tail_fits(path, fai, idx);
    } else {
        r = build(path, fai, gzi, bgzf, size, idx);
    }
    free(fai);
    free(gzi);
    if (r < 0) sg_fai_free(idx);
    return r;
}
