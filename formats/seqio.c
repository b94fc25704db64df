#define _GNU_SOURCE
#include "formats/seqio.h"
#include "formats/fai.h"
#include "formats/mapguard.h"
#include "formats/pgzip.h"
#include "formats/twobit.h"
#include "core/log.h"
#include "core/simd.h"

#include <errno.h>
#include <pthread.h>
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
    sg_pgz_t *gz;          /* ... plain gzip inflated on all threads (fp stays open) */
    unsigned kind;         /* the open file's SG_READ_* */
    uint64_t file_bytes;   /* its bytes read (decompressed) */
    double inflate_s;      /* the seconds bgzf_read took on this thread, for a compressed file */
    char *map;             /* the open file, when mapped (plain regular files) */
    size_t map_len, map_pos;
    char **maps;           /* every mapping made, unmapped at the end: chunks point into them */
    size_t *map_lens;
    int n_maps;
    int fmt, started, eof;
    int graph_ok;          /* a GFA graph is welcome (the first input, see sg_reader_format) */
    sg_chunk_t *peeked;    /* the first block, read by sg_reader_format */
    size_t block;
    int n_threads;
    char *carry;           /* streamed: bytes after the last cut, for the next block */
    size_t carry_len, carry_cap;
    int midline;           /* the next block continues a FASTA sequence line */
    uint64_t bytes;
    uint64_t pos_done;     /* stored bytes of the files already closed */
    sg_reader_part_t part; /* find --part: what to read (has_part) */
    int has_part;
    uint64_t stop;         /* the open file's offset where reading stops (its end, or the part's) */
    uint64_t upos;         /* streamed: the uncompressed offset of the next byte read */
    int tail_due;          /* the part's tail block comes next */
    /* UCSC .2bit: the open file's records (tb, kept in tbs until the end: chunks point into them); map_pos is
     * then the next base, counted over all the file's records, and tb_rec its record */
    sg_2bit_t *tb, **tbs;
    uint64_t *tb_start;    /* the first base of each record, so counted */
    int tb_rec;
    int tb_cont;           /* the next block continues a record it does not start (a part's first block) */
};

/* A .2bit block: stretches of records, for the parser (chunk.h: packed). */
typedef struct {
    int rec;
    uint32_t b0, b1;
    int first; /* the stretch starts its record */
} stretch_t;
typedef struct {
    const sg_2bit_t *tb;
    int n, m;
    stretch_t s[];
} packed_t;

/* fn(r, c) reading a mapping (mapguard.h); *lost set (and SG_ERR_INPUT returned) when the file lost pages under it. */
typedef struct {
    int (*fn)(sg_reader_t *, sg_chunk_t *);
    sg_reader_t *r;
    sg_chunk_t *c;
} guarded_call_t;

static int guarded_run(void *arg)
{
    guarded_call_t *g = arg;
    return g->fn(g->r, g->c);
}

static int guarded(int (*fn)(sg_reader_t *, sg_chunk_t *), sg_reader_t *r, sg_chunk_t *c, int *lost)
{
    guarded_call_t g = {fn, r, c};
    return sg_map_guarded(guarded_run, &g, lost);
}

/* The read stage of every reader of the run, for --stats. */
static sg_read_stats_t read_totals;
static pthread_mutex_t read_totals_mu = PTHREAD_MUTEX_INITIALIZER;

void sg_read_stats(sg_read_stats_t *st)
{
    pthread_mutex_lock(&read_totals_mu);
    *st = read_totals;
    pthread_mutex_unlock(&read_totals_mu);
}

void sg_read_stats_json(FILE *fp)
{
    static const char *kinds[] = {"plain", "gzip (all threads)", "gzip (one thread)", "BGZF (htslib threads)",
                                  "BGZF (one thread)", "2bit"};
    sg_read_stats_t st;
    sg_read_stats(&st);
    fprintf(fp, "  \"read\": {\"bytes_in\": %llu, \"bytes_out\": %llu, \"inputs\": [", (unsigned long long)st.bytes_in,
            (unsigned long long)st.bytes_out);
    for (unsigned k = 0, first = 1; k < sizeof kinds / sizeof *kinds; k++)
        if (st.kinds >> k & 1) {
            fprintf(fp, "%s\"%s\"", first ? "" : ", ", kinds[k]);
            first = 0;
        }
    fprintf(fp, "], \"inflate_threads\": %d, \"inflate_seconds\": ", st.threads);
    if (st.seconds_unknown) fputs("null", fp);
    else fprintf(fp, "%.4f", st.seconds);
    fprintf(fp, ", \"gzip_chunks\": %llu, \"gzip_in_order\": %llu},\n", (unsigned long long)st.chunks,
            (unsigned long long)st.in_order);
}

int sg_inputs_check(char *const *paths, int n)
{
    struct stat in;
    int have_in = fstat(STDIN_FILENO, &in) == 0;
    int first_stdin = -1, m = 0;
    struct {
        struct stat st;
        int i;
    } *once = sg_malloc(((size_t)n + 1) * sizeof *once); /* the inputs that are streams */
    for (int i = 0; i < n; i++) {
        struct stat st;
        int std = !strcmp(paths[i], "-");
        if (!std && stat(paths[i], &st) != 0) {
            /* now, not once the inputs before it are read (hours, on a large run) */
            sg_error("cannot read '%s': %s", paths[i], strerror(errno));
            free(once);
            return SG_ERR_INPUT;
        }
        if (std && !have_in) continue; /* the reader says what is wrong */
        if (std) st = in;
        if (std || (have_in && st.st_dev == in.st_dev && st.st_ino == in.st_ino && !S_ISREG(in.st_mode))) {
            if (first_stdin >= 0) {
                sg_error("standard input can be read only once: '%s' and '%s' are both standard input",
                         paths[first_stdin], paths[i]);
                free(once);
                return SG_ERR_INPUT;
            }
            first_stdin = i;
        }
        if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) continue;
        for (int j = 0; j < m; j++)
            if (once[j].st.st_dev == st.st_dev && once[j].st.st_ino == st.st_ino) {
                sg_error("'%s' and '%s' are the same stream, which can be read only once", paths[once[j].i], paths[i]);
                free(once);
                return SG_ERR_INPUT;
            }
        once[m].st = st;
        once[m++].i = i;
    }
    free(once);
    return 0;
}

int sg_input_rereadable(const char *path)
{
    struct stat st;
    return strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

sg_reader_t *sg_reader_new(char *const *paths, int n_paths, size_t block, int n_threads)
{
    sg_reader_t *r = sg_calloc(1, sizeof *r);
    r->paths = paths;
    r->n_paths = n_paths;
    r->cur = -1;
    r->block = block ? block : 1;
    r->n_threads = n_threads;
    r->maps = sg_calloc(n_paths, sizeof *r->maps);
    r->tbs = sg_calloc(n_paths, sizeof *r->tbs);
    r->map_lens = sg_calloc(n_paths, sizeof *r->map_lens);
    return r;
}

void sg_reader_set_part(sg_reader_t *r, const sg_reader_part_t *p)
{
    r->part = *p;
    r->has_part = 1;
    r->cur = p->first - 1;
}

const char *sg_reader_path(const sg_reader_t *r, int i)
{
    return strcmp(r->paths[i], "-") ? r->paths[i] : "(standard input)";
}

uint64_t sg_reader_bytes(const sg_reader_t *r) { return r->bytes; }

/* Where the open file is, as stored: a compressed stream's block address is its compressed offset. */
static uint64_t file_pos(const sg_reader_t *r)
{
    if (r->tb) { /* the packed bases of the next base, or the file's end */
        const sg_2bit_t *tb = r->tb;
        if (r->tb_rec >= tb->n) return tb->size;
        return (uint64_t)(tb->rec[r->tb_rec].dna - tb->map) + (r->map_pos - r->tb_start[r->tb_rec]) / 4;
    }
    return r->map ? r->map_pos : r->gz ? sg_pgz_pos(r->gz) : r->fp ? (uint64_t)(bgzf_tell(r->fp) >> 16) : 0;
}

uint64_t sg_reader_pos(const sg_reader_t *r) { return r->pos_done + file_pos(r); }

static void close_file(sg_reader_t *r)
{
    if (!r->fp && !r->map) return;
    uint64_t stored = file_pos(r);
    r->pos_done += stored;
    pthread_mutex_lock(&read_totals_mu);
    read_totals.bytes_in += stored;
    read_totals.bytes_out += r->file_bytes;
    read_totals.kinds |= r->kind;
    if (r->gz) {
        sg_pgz_stats_t gs;
        sg_pgz_stats(r->gz, &gs);
        if (gs.threads > read_totals.threads) read_totals.threads = gs.threads;
        read_totals.seconds += gs.seconds;
        read_totals.chunks += gs.chunks;
        read_totals.in_order += gs.in_order;
    } else if (r->kind & (SG_READ_BGZF_MT)) {
        if (r->n_threads > read_totals.threads) read_totals.threads = r->n_threads;
        read_totals.seconds_unknown = 1;
    } else if (r->kind & (SG_READ_GZIP_1 | SG_READ_BGZF_1)) {
        if (read_totals.threads < 1) read_totals.threads = 1;
        read_totals.seconds += r->inflate_s;
    }
    pthread_mutex_unlock(&read_totals_mu);
    sg_pgz_close(r->gz);
    r->gz = NULL;
    if (r->fp) bgzf_close(r->fp);
    r->fp = NULL;
    r->map = NULL;
    r->tb = NULL;
    free(r->tb_start);
    r->tb_start = NULL;
}

void sg_reader_free(sg_reader_t *r)
{
    if (!r) return;
    close_file(r);
    sg_chunk_free(r->peeked);
    for (int i = 0; i < r->n_paths; i++)
        if (r->tbs[i]) {
            sg_2bit_free(r->tbs[i]);
            free(r->tbs[i]);
        }
    free(r->tbs);
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
    sg_map_guard_init();
    madvise(m, st.st_size, MADV_SEQUENTIAL);
    bgzf_close(r->fp);
    r->fp = NULL;
    r->map = r->maps[r->n_maps] = m;
    r->map_len = r->map_lens[r->n_maps++] = st.st_size;
    r->map_pos = 0;
    return 1;
}

/* The open file, mapped, is .2bit: its records (checked). */
static int open_2bit(sg_reader_t *r, sg_chunk_t *c)
{
    (void)c;
    char err[256];
    sg_2bit_t *tb = sg_calloc(1, sizeof *tb);
    if (sg_2bit_parse(r->map, r->map_len, tb, err, sizeof err) < 0) {
        sg_error("cannot read '%s': %s", sg_reader_path(r, r->cur), err);
        sg_2bit_free(tb);
        free(tb);
        return SG_ERR_INPUT;
    }
    r->tb = r->tbs[r->cur] = tb;
    r->tb_start = sg_malloc(((size_t)tb->n + 1) * sizeof *r->tb_start);
    r->tb_start[0] = 0;
    for (int i = 0; i < tb->n; i++) r->tb_start[i + 1] = r->tb_start[i] + tb->rec[i].len;
    r->tb_rec = 0;
    r->tb_cont = 0;
    r->fmt = SG_FMT_2BIT;
    r->started = 1;
    r->kind = SG_READ_2BIT;
    if (!tb->n) sg_notice("'%s' is empty: no records", sg_reader_path(r, r->cur));
    return 0;
}

/* The open file's part: where reading starts and stops (sg_fai_check has
 * checked the index against the file). */
static int open_part(sg_reader_t *r)
{
    if (!r->has_part) return 0;
    const sg_reader_part_t *p = &r->part;
    const char *path = r->paths[r->cur];
    if (r->cur == p->last) {
        r->stop = p->end;
        r->tail_due = p->tail_end > p->end;
    }
    if (r->cur != p->first) return 0;
    if (r->map) {
        r->map_pos = p->beg;
    } else {
        if (sg_gzi_seek(r->fp, p->gzi[r->cur], path, p->beg) < 0) return SG_ERR_INPUT;
        r->upos = p->beg;
    }
    r->fmt = SG_FMT_FASTA;
    r->started = 1;
    r->midline = 1; /* the part starts at a base, maybe inside a line */
    return 0;
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
    r->stop = UINT64_MAX;
    r->upos = 0;
    r->file_bytes = 0;
    r->inflate_s = 0;
    r->kind = SG_READ_PLAIN;
    if (try_map(r, path)) {
        int lost = 0, ret = sg_2bit_magic(r->map, r->map_len) ? guarded(open_2bit, r, NULL, &lost) : 0;
        if (lost) sg_error("cannot read '%s': %s", path, SG_MAP_LOST);
        if (ret < 0 || (ret = open_part(r)) < 0 || !r->tb) return ret;
        if (r->has_part) { /* the part's offsets count bases over the file's records */
            r->fmt = SG_FMT_2BIT;
            r->tb_cont = r->cur == r->part.first;
            while (r->tb_rec + 1 < r->tb->n && r->tb_start[r->tb_rec + 1] <= r->map_pos) r->tb_rec++;
        }
        return 0;
    }
    if (r->has_part && open_part(r) < 0) return SG_ERR_INPUT;
    if (bgzf_compression(r->fp) == 1) {
        /* plain gzip: on all threads when it is worth it (a file, big enough) */
        r->gz = strcmp(path, "-") ? sg_pgz_open(path, r->n_threads) : NULL;
        r->kind = r->gz ? SG_READ_GZIP_MT : SG_READ_GZIP_1;
    }
    if (bgzf_compression(r->fp) == 2) {
        /* htslib 1.16's threaded BGZF reader reports a truncated file as an
         * empty one (and can hang checking it), so threads inflate only files
         * whose end-of-file marker is there; others read on one thread, where
         * a cut block is an error */
        int eof_ok = strcmp(path, "-") ? bgzf_check_EOF(r->fp) : 0;
        if (eof_ok == 0 && strcmp(path, "-"))
            sg_warn("'%s' has no BGZF end-of-file marker: the file may be truncated", path);
        r->kind = SG_READ_BGZF_1;
        if (eof_ok == 1 && r->n_threads > 1) {
            if (bgzf_mt(r->fp, r->n_threads, 256) < 0) sg_warn("cannot start BGZF decompression threads");
            else r->kind = SG_READ_BGZF_MT;
        }
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
    if (want - c->len > r->stop - r->upos) want = c->len + (r->stop - r->upos);
    int timed = r->kind & (SG_READ_GZIP_1 | SG_READ_BGZF_1);
    double t0 = timed ? sg_realtime() : 0;
    while (c->len < want && !r->eof) {
        ssize_t n = r->gz ? sg_pgz_read(r->gz, c->seq + c->len, want - c->len)
                          : bgzf_read(r->fp, c->seq + c->len, want - c->len);
        if (n < 0) {
            int compressed = bgzf_compression(r->fp) != 0;
            sg_error("cannot read '%s': %s", sg_reader_path(r, r->cur),
                     r->gz ? sg_pgz_error(r->gz)
                     : compressed ? "truncated or corrupt compressed data" : strerror(errno ? errno : EIO));
            return SG_ERR_INPUT;
        }
        if (n == 0) r->eof = 1;
        c->len += n;
        r->bytes += n;
        r->file_bytes += n;
        r->upos += n;
    }
    if (timed) r->inflate_s += sg_realtime() - t0;
    if (r->upos == r->stop) r->eof = 1;
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

/* Blanks that may end a line (trailing spaces and tabs, as seqkit and
 * samtools faidx accept them, and the CR of CRLF). */
static int is_line_end_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

/* Where to end a block that starts at b and could run to b + len (the end
 * of the file if eof): after the last whole line (FASTA; inside a sequence
 * line longer than the block if need be) or record (FASTQ). GROW: the
 * block must grow (a header line, GFA line or FASTQ record longer than it). */
#define GROW SIZE_MAX
static size_t find_cut(int fmt, const char *b, size_t len, int eof, int midline, int *next_midline)
{
    *next_midline = 0;
    if (eof) return len;
    if (fmt != SG_FMT_FASTQ) {
        const char *nl = memrchr(b, '\n', len);
        if (nl) return nl + 1 - b;
        if (fmt == SG_FMT_FASTA && (midline || b[0] != '>')) { /* inside one long sequence line */
            /* never inside the blanks that may end the line: they are dropped only there */
            while (len && is_line_end_blank(b[len - 1])) len--;
            if (!len) return GROW;
            *next_midline = 1;
            return len;
        }
        return GROW;
    }
    size_t lines = count_lines(b, len);
    return lines >= 4 ? after_line(b, len, lines - lines % 4) : GROW;
}

static int is_blank(char ch) { return ch == '\n' || is_line_end_blank(ch); }

int sg_text_start(const char *s, size_t n, size_t *bom, char *err, size_t errsz)
{
    static const struct {
        const char *magic, *name, *how;
        size_t len;
    } formats[] = {
        {"BZh", "bzip2", "bzip2 -dc", 3},         {"\xfd" "7zXZ\0", "xz", "xz -dc", 6},
        {"\x28\xb5\x2f\xfd", "zstd", "zstd -dc", 4}, {"\x04\x22\x4d\x18", "lz4", "lz4 -dc", 4},
        {"\x1f\x9d", "compress (.Z)", "gzip -dc", 2}, {"PK\x03\x04", "zip", "unzip -p", 4},
        {"7z\xbc\xaf\x27\x1c", "7-Zip", "7z x -so", 6},
    };
    if (sg_2bit_magic(s, n)) {
        snprintf(err, errsz, "a UCSC .2bit file read through a pipe or a compressed file: seqgpu reads .2bit by its "
                 "index, so name the .2bit file itself");
        return SG_ERR_INPUT;
    }
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (n >= formats[i].len && !memcmp(s, formats[i].magic, formats[i].len)) {
            snprintf(err, errsz, "%s-compressed, which seqgpu cannot read (htslib reads gzip and BGZF): decompress it "
                     "first, e.g. '%s FILE | seqgpu ... -'", formats[i].name, formats[i].how);
            return SG_ERR_INPUT;
        }
    *bom = n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0;
    return 0;
}

/* The start of a file, b[0..len) (the whole file when eof): its format
 * (SG_FMT_*), 0 when it has no records, MORE when more bytes are needed to
 * tell, or SG_ERR_INPUT (message printed). *skip: bytes before the first
 * record: a UTF-8 byte-order mark, and for FASTA and FASTQ blank lines (a
 * GFA reader counts its lines, blank ones too). */
enum { MORE = 256 };
static int file_start(sg_reader_t *r, const char *b, size_t len, int eof, size_t *skip)
{
    const char *path = sg_reader_path(r, r->cur);
    char err[256];
    size_t bom;
    if (!eof && len < 8) return MORE; /* enough for any magic number */
    if (sg_text_start(b, len, &bom, err, sizeof err) < 0) {
        sg_error("'%s' is %s", path, err);
        return SG_ERR_INPUT;
    }
    size_t p = bom;
    while (p < len && is_blank(b[p])) p++;
    if (p == len) {
        if (!eof) return MORE;
        sg_notice("'%s' is empty: no records", path);
        return 0;
    }
    *skip = p;
    if (b[p] == '>') return SG_FMT_FASTA;
    if (b[p] == '@') return SG_FMT_FASTQ;
    size_t q = p; /* GFA: the first line that is not a comment says */
    while (q < len && b[q] == '#') {
        const char *nl = memchr(b + q, '\n', len - q);
        if (!nl && !eof) return MORE;
        q = nl ? (size_t)(nl + 1 - b) : len;
    }
    if (q + 1 < len && b[q] && memchr("HSLPWC", b[q], 6) && b[q + 1] == '\t') {
        if (!r->graph_ok) {
            sg_error("'%s' is a GFA graph, not FASTA or FASTQ (seqgpu scc takes a graph as its only input)", path);
            return SG_ERR_INPUT;
        }
        *skip = bom;
        return SG_FMT_GFA;
    }
    unsigned char ch = b[p];
    if (ch >= 0x20 && ch < 0x7f)
        sg_error("'%s' is not FASTA or FASTQ: it starts with '%c', not '>' or '@'", path, ch);
    else
        sg_error("'%s' is not FASTA or FASTQ: it starts with byte 0x%02x (binary data?)", path, ch);
    return SG_ERR_INPUT;
}

static int cut_mapped(sg_reader_t *r, sg_chunk_t *c)
{
    if (!r->started) {
        size_t skip = 0;
        int f = file_start(r, r->map, r->map_len, 1, &skip);
        if (f <= 0) return f;
        r->fmt = f;
        r->map_pos = skip;
        r->bytes += skip;
    }
    const char *b = r->map + r->map_pos;
    size_t end = r->stop < r->map_len ? r->stop : r->map_len;
    size_t avail = end - r->map_pos, want = r->block, cut;
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
    r->file_bytes += cut;
    r->eof = r->map_pos == end;
    return 1;
}

static int next_mapped(sg_reader_t *r, sg_chunk_t *c)
{
    int lost, ret = guarded(cut_mapped, r, c, &lost);
    if (lost) sg_error("cannot read '%s': %s", sg_reader_path(r, r->cur), SG_MAP_LOST);
    return ret;
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
        size_t skip = 0;
        int f;
        while ((f = file_start(r, c->seq, c->len, r->eof, &skip)) == MORE)
            if (fill(r, c, 2 * c->len + r->block) < 0) return SG_ERR_INPUT;
        if (f <= 0) return f;
        r->fmt = f;
        memmove(c->seq, c->seq + skip, c->len - skip);
        c->len -= skip;
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
    return 1;
}

/* A stretch of record rec for a .2bit block. */
static void add_stretch(packed_t **pk, int rec, uint64_t b0, uint64_t b1, int first)
{
    if ((*pk)->n == (*pk)->m) {
        (*pk)->m *= 2;
        *pk = sg_realloc(*pk, sizeof **pk + (size_t)(*pk)->m * sizeof *(*pk)->s);
    }
    (*pk)->s[(*pk)->n++] = (stretch_t){rec, (uint32_t)b0, (uint32_t)b1, first};
}

static packed_t *packed_new(const sg_2bit_t *tb)
{
    packed_t *pk = sg_malloc(sizeof *pk + 4 * sizeof *pk->s);
    pk->tb = tb;
    pk->n = 0;
    pk->m = 4;
    return pk;
}

/* The next block of a .2bit file: up to a block's bases of its records
 * (a record's stretch costs 64 more, so that tiny records come in blocks
 * of bounded size), stopping at the part's end. 0 when it has none. */
static int cut_2bit(sg_reader_t *r, sg_chunk_t *c)
{
    const sg_2bit_t *tb = r->tb;
    if (!tb->n) return 0;
    packed_t *pk = packed_new(tb);
    int64_t budget = (int64_t)r->block;
    uint64_t bases = 0;
    while (r->tb_rec < tb->n && budget > 0 && r->map_pos < r->stop) {
        uint64_t b = r->map_pos - r->tb_start[r->tb_rec], avail = tb->rec[r->tb_rec].len - b;
        if (avail > r->stop - r->map_pos) avail = r->stop - r->map_pos;
        uint64_t take = avail < (uint64_t)budget ? avail : (uint64_t)budget;
        add_stretch(&pk, r->tb_rec, b, b + take, b == 0 && !r->tb_cont);
        r->tb_cont = 0;
        r->map_pos += take;
        bases += take;
        budget -= (int64_t)take + 64;
        if (b + take < tb->rec[r->tb_rec].len) break; /* the block, or the part, is full */
        r->tb_rec++;
    }
    c->packed = pk;
    c->len = bases;
    r->bytes += bases;
    r->file_bytes += bases;
    r->eof = r->tb_rec >= tb->n || r->map_pos >= r->stop;
    return 1;
}

static int next_2bit(sg_reader_t *r, sg_chunk_t *c)
{
    int lost, ret = guarded(cut_2bit, r, c, &lost);
    if (lost) sg_error("cannot read '%s': %s", sg_reader_path(r, r->cur), SG_MAP_LOST);
    return ret;
}

/* The part's tail, its last record's bases after it: one block, then the file closes. */
static int next_tail(sg_reader_t *r, sg_chunk_t *c, sg_chunk_t **out)
{
    size_t n = r->part.tail_end - r->part.end;
    r->tail_due = 0;
    c->fmt = SG_FMT_FASTA;
    c->midline = 1;
    c->tail = c->file_end = 1;
    int ret = 1;
    if (r->tb) {
        c->fmt = SG_FMT_2BIT;
        if (r->part.tail_end > r->tb->bases || r->tb_rec >= r->tb->n) {
            ret = 0;
        } else {
            packed_t *pk = packed_new(r->tb);
            uint64_t s = r->tb_start[r->tb_rec];
            add_stretch(&pk, r->tb_rec, r->part.end - s, r->part.tail_end - s, 0);
            c->packed = pk;
            c->len = n;
        }
    } else if (r->map) {
        c->src = r->map + r->part.end;
        c->len = n;
        if (r->part.tail_end > r->map_len) ret = 0;
    } else {
        r->stop = r->part.tail_end;
        r->eof = 0;
        ret = fill(r, c, n) < 0 ? SG_ERR_INPUT : c->len == n;
    }
    if (ret == 0) {
        sg_error("cannot read '%s': it is shorter than its index says", sg_reader_path(r, r->cur));
        ret = SG_ERR_INPUT;
    }
    close_file(r);
    if (ret < 0) {
        sg_chunk_free(c);
        return ret;
    }
    *out = c;
    return 1;
}

int sg_reader_next(sg_reader_t *r, sg_chunk_t **out)
{
    *out = r->peeked;
    r->peeked = NULL;
    if (*out) return 1;
    for (;;) {
        if (!r->fp && !r->map) {
            if (r->cur + 1 >= r->n_paths || (r->has_part && r->cur + 1 > r->part.last)) return 0;
            if (open_next(r) < 0) return SG_ERR_INPUT;
        }
        sg_chunk_t *c = sg_chunk_new(0);
        c->file = r->cur;
        if (r->tail_due && r->eof) return next_tail(r, c, out);
        int got = r->tb ? next_2bit(r, c) : r->map ? next_mapped(r, c) : next_streamed(r, c);
        if (got <= 0) {
            sg_chunk_free(c);
            if (got < 0) return SG_ERR_INPUT;
            close_file(r); /* no records: on to the next file */
            continue;
        }
        c->fmt = r->fmt;
        r->started = 1;
        r->graph_ok = 0;
        if (r->eof && !r->carry_len && !r->tail_due) {
            c->file_end = 1;
            close_file(r);
        }
        *out = c;
        return 1;
    }
}

int sg_reader_format(sg_reader_t *r)
{
    r->graph_ok = 1; /* until the first block is read */
    int ret = sg_reader_next(r, &r->peeked);
    return ret <= 0 ? ret : r->peeked->fmt;
}

/* ---- parsing ---- */

/* Bytes allowed in sequence lines: letters and the gap/stop symbols - . * */
static int is_seq_byte(unsigned char c)
{
    return (unsigned char)((c | 0x20) - 'a') < 26 || c == '-' || c == '.' || c == '*';
}

#define CR_ONLY "the file has old Mac (CR-only) line ends: convert them first, e.g. tr '\\r' '\\n' < FILE"

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

/* Append the sequence line [p, e) at *out, without the blanks that may end
 * it (line_end: e ends the line, rather than the block in mid-line). */
static inline void copy_seq(char **out, const char *p, const char *e, int line_end)
{
    if (line_end)
        while (e > p && is_line_end_blank(e[-1])) e--;
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
        if (s[i] == '\r') return block_error(c, sg_chunk_seg_at(c, i), "a carriage return inside a sequence line: " CR_ONLY);
        return block_error(c, sg_chunk_seg_at(c, i), "invalid character %s in the sequence",
                           char_name(s[i], cb, sizeof cb));
    }
    return 0;
}

/* The first word of a header line [p, e) without its marker, as the name
 * of record rec of the block: a record without one would be an empty BED
 * chrom. */
static int add_header_name(sg_chunk_t *c, int rec, const char *p, const char *e, uint32_t *name)
{
    const char *w = p;
    while (w < e && *w != ' ' && *w != '\t' && *w != '\r') w++;
    if (w == p) return block_error(c, rec, "the header has no name (the first word after '%c')", p[-1]);
    *name = sg_chunk_add_name(c, p, w - p);
    /* a CR inside the line, not at its end (CRLF): the lines after it would be taken for the header's */
    while (e > w && is_line_end_blank(e[-1])) e--;
    if (memchr(w, '\r', e - w)) return block_error(c, rec, "a carriage return inside the header line: " CR_ONLY);
    return 0;
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
            uint32_t name = 0;
            if (add_header_name(c, c->n_seg, p + 1, e, &name) < 0) return SG_ERR_INPUT;
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
        uint32_t name = 0;
        if (add_header_name(c, rec, h + 1, he, &name) < 0) return SG_ERR_INPUT;
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
        while (qe > q && is_line_end_blank(qe[-1])) qe--;
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

static int parse_src(sg_reader_t *r, sg_chunk_t *c)
{
    (void)r;
    const char *src = c->src ? c->src : c->seq;
    if (c->fmt == SG_FMT_GFA) { /* lines for the GFA reader */
        if (c->src) memcpy(c->seq, src, c->len);
        return 0;
    }
    return c->fmt == SG_FMT_FASTQ ? parse_fastq(c, src) : parse_fasta(c, src);
}

/* A .2bit block as text: its stretches, each a piece (a record's first one
 * named), with separators between. */
static int parse_2bit(sg_reader_t *r, sg_chunk_t *c)
{
    (void)r;
    const packed_t *pk = c->packed;
    size_t total = 0;
    for (int i = 0; i < pk->n; i++) total += pk->s[i].b1 - pk->s[i].b0 + 1;
    c->cap = total + total / 32 + 256; /* room for the overlap the chunker appends, as a FASTA block's line ends leave */
    free(c->seq);
    c->seq = sg_malloc(c->cap);
    char *out = c->seq;
    for (int i = 0; i < pk->n; i++) {
        const stretch_t *s = &pk->s[i];
        sg_seg_t *seg = sg_chunk_add_seg(c);
        if (s->first) {
            const char *name = pk->tb->rec[s->rec].name;
            seg->first = 1;
            seg->name = sg_chunk_add_name(c, name, strlen(name));
        }
        seg->off = (uint64_t)(out - c->seq);
        sg_2bit_text(pk->tb, s->rec, s->b0, s->b1, out);
        release_pages((const char *)pk->tb->rec[s->rec].dna + s->b0 / 4, (s->b1 - s->b0) / 4);
        seg->len = s->b1 - s->b0;
        out += seg->len;
        if (i + 1 < pk->n) *out++ = SG_SEP;
    }
    c->len = (size_t)(out - c->seq);
    return 0;
}

int sg_parse_block(sg_chunk_t *c)
{
    if (c->packed) {
        int lost, r = guarded(parse_2bit, NULL, c, &lost);
        free(c->packed);
        c->packed = NULL;
        return lost ? block_error(c, -1, SG_MAP_LOST) : r;
    }
    if (!c->src) return parse_src(NULL, c);
    /* mapped: into a buffer of the chunk's own */
    size_t raw = c->len;
    c->cap = raw + 1;
    c->seq = sg_malloc(c->cap);
    int lost, r = guarded(parse_src, NULL, c, &lost);
    if (lost) r = block_error(c, -1, SG_MAP_LOST);
    release_pages(c->src, raw);
    c->src = NULL;
    return r;
}
