#define _GNU_SOURCE
#include "scc/overlap/paf.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "core/progress.h"
#include "formats/seqio.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/kstring.h>

#define PAF_COLUMNS 12
#define BATCH 4096

/* A whole non-negative decimal number of at most 10 digits. */
static int paf_uint(const char *s, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9' || strlen(s) > 10) return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

/* A tag "XX:f:value" or "XX:i:value" among fields [from, n), as a number; 0 when absent, -1 when not a number. */
static int paf_tag(char **f, int from, int n, const char *name, double *out)
{
    for (int i = from; i < n; i++)
        if (!strncmp(f[i], name, 2) && f[i][2] == ':' && (f[i][3] == 'f' || f[i][3] == 'i') && f[i][4] == ':') {
            char *end;
            errno = 0;
            *out = strtod(f[i] + 5, &end);
            return end == f[i] + 5 || *end || errno || !isfinite(*out) ? -1 : 1;
        }
    return 0;
}

/* One read of a line (columns name, length, start, end from f): its
 * number, or -2 for a read passed over (too short to be stored). */
static int64_t paf_read_of(char **f, const sg_readset_t *rs, const char *path, long lineno, uint32_t *s, uint32_t *e)
{
    static const char *const what[] = {"length", "start", "end"};
    uint64_t v[3];
    sg_name_buf_t nb, nb2;
    for (int i = 0; i < 3; i++)
        if (paf_uint(f[i + 1], &v[i]) < 0) {
            sg_error("'%s' line %ld: the %s of read '%s' is not a number: '%s'", path, lineno, what[i],
                     sg_name_shown(f[0], &nb), sg_name_shown(f[i + 1], &nb2));
            return -1;
        }
    int64_t id = sg_readset_find(rs, f[0], strlen(f[0]));
    if (id < 0) {
        sg_error("'%s' line %ld: read '%s' is not in the input", path, lineno, sg_name_shown(f[0], &nb));
        return -1;
    }
    uint32_t len = sg_readset_len(rs, (uint32_t)id);
    if (v[0] != len) {
        sg_error("'%s' line %ld: read '%s' is %u bases long in the input but %llu in the PAF (overlaps of other reads?)",
                 path, lineno, sg_name_shown(f[0], &nb), len, (unsigned long long)v[0]);
        return -1;
    }
    if (v[1] >= v[2] || v[2] > len) {
        sg_error("'%s' line %ld: %llu-%llu is outside read '%s' (%u bases) or empty", path, lineno,
                 (unsigned long long)v[1], (unsigned long long)v[2], sg_name_shown(f[0], &nb), len);
        return -1;
    }
    *s = (uint32_t)v[1];
    *e = (uint32_t)v[2];
    return sg_readset_stored(rs, (uint32_t)id) ? id : -2;
}

/* A line's overlap: 1, 0 for a line passed over, or SG_ERR_INPUT. */
static int paf_line(char *line, const sg_readset_t *rs, const char *path, long lineno, sg_overlap_t *o)
{
    char *f[64];
    int n = 0;
    for (char *p = line;; p++) {
        if (n < 64) f[n++] = p;
        p = strchr(p, '\t');
        if (!p) break;
        *p = 0;
    }
    if (n < PAF_COLUMNS) {
        sg_error("'%s' line %ld: truncated: %d columns where PAF has %d or more", path, lineno, n, PAF_COLUMNS);
        return SG_ERR_INPUT;
    }
    if (strcmp(f[4], "+") && strcmp(f[4], "-")) {
        sg_error("'%s' line %ld: the strand is '%s', not '+' or '-'", path, lineno, f[4]);
        return SG_ERR_INPUT;
    }
    memset(o, 0, sizeof *o);
    int64_t q = paf_read_of(f, rs, path, lineno, &o->qs, &o->qe);
    if (q == -1) return SG_ERR_INPUT;
    int64_t t = paf_read_of(f + 5, rs, path, lineno, &o->ts, &o->te);
    if (t == -1) return SG_ERR_INPUT;
    o->rev = f[4][0] == '-';
    if (!strcmp(f[0], f[5]) && !o->rev && o->qs == o->ts) {
        sg_name_buf_t nb;
        sg_error("'%s' line %ld: read '%s' is matched onto itself at the same place (query equal to target): "
                 "all-vs-all overlaps (minimap2 -x ava-pb or ava-ont) leave those out",
                 path, lineno, sg_name_shown(f[0], &nb));
        return SG_ERR_INPUT;
    }
    uint64_t match, block;
    if (paf_uint(f[9], &match) < 0 || paf_uint(f[10], &block) < 0) {
        sg_error("'%s' line %ld: columns 10 and 11 (matching bases, block length) are not numbers", path, lineno);
        return SG_ERR_INPUT;
    }
    if (match > block) {
        sg_error("'%s' line %ld: %llu matching bases (column 10) in a block of %llu (column 11)", path, lineno,
                 (unsigned long long)match, (unsigned long long)block);
        return SG_ERR_INPUT;
    }
    if (q < 0 || t < 0) return 0;
    double dv = 0, cm = 0;
    int has = paf_tag(f, PAF_COLUMNS, n, "dv", &dv);
    if (has == 0) has = paf_tag(f, PAF_COLUMNS, n, "de", &dv);
    if (has < 0 || paf_tag(f, PAF_COLUMNS, n, "cm", &cm) < 0) {
        sg_error("'%s' line %ld: a dv, de or cm tag is not a number", path, lineno);
        return SG_ERR_INPUT;
    }
    double id = has ? 1 - dv : block ? (double)match / block : 0;
    o->identity = (float)(id < 0 ? 0 : id > 1 ? 1 : id);
    o->anchors = cm > 0 && cm < UINT32_MAX ? (uint32_t)cm : 0;
    o->q = (uint32_t)q;
    o->t = (uint32_t)t;
    return 1;
}

int sg_paf_read(const char *path, const sg_readset_t *rs, sg_overlap_sink_t sink, void *arg)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        sg_error("cannot read '%s': %s", path, strerror(errno));
        return SG_ERR_INPUT;
    }
    kstring_t line = {0};
    sg_overlap_t *batch = sg_malloc(BATCH * sizeof *batch);
    size_t nb = 0;
    long lineno = 0;
    int r, ret = 0;
    while (ret == 0 && (r = bgzf_getline(fp, '\n', &line)) >= 0) {
        char err[256], *s = line.s;
        size_t bom = 0;
        if (++lineno == 1 && sg_text_start(line.s, line.l, &bom, err, sizeof err) < 0) {
            sg_error("'%s' is %s", path, err);
            ret = SG_ERR_INPUT;
            break;
        }
        s += bom;
        size_t len = strlen(s);
        if (len && s[len - 1] == '\r') s[--len] = 0;
        if (!len) continue;
        int got = paf_line(s, rs, path, lineno, &batch[nb]);
        if (got < 0) ret = got;
        else if ((nb += (size_t)got) == BATCH) {
            ret = sink(arg, batch, nb);
            nb = 0;
            sg_progress_set((uint64_t)htell(fp->fp)); /* the file's bytes read (compressed ones for gzip) */
        }
    }
    if (ret == 0 && r < -1) {
        sg_error("cannot read '%s': truncated or corrupt file", path);
        ret = SG_ERR_INPUT;
    }
    if (ret == 0 && nb) ret = sink(arg, batch, nb);
    bgzf_close(fp);
    free(line.s);
    free(batch);
    return ret;
}

/* Decimal digits of v at p; the end. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do tmp[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n) *p++ = tmp[--n];
    return p;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* A line as printf's "%s\t%u\t%u\t%u\t%c\t%s\t%u\t%u\t%u\t%.0f\t%u\t255\ttp:A:S\tcm:i:%u\tdv:f:%.4f\n"
 * writes it, without printf (millions of lines), into buf (the names' bytes
 * and PAF_LINE_MORE more): the matches, an integer, and the divergence
 * 1 - identity, a float in [0, 1], times 10^4 rounded to nearest even as
 * printf rounds its exact value: the product's own rounding error is
 * smaller than any non-tie's distance from a tie, which the unit test checks
 * against printf (every float in [0, 1] was checked once). @return its length */
#define PAF_LINE_MORE 192
static size_t format_line(char *buf, const sg_readset_t *rs, const sg_overlap_t *o)
{
    uint32_t span = o->qe - o->qs > o->te - o->ts ? o->qe - o->qs : o->te - o->ts;
    char *p = buf;
    p = put_str(p, sg_readset_name(rs, o->q)), *p++ = '\t';
    p = put_u64(p, sg_readset_len(rs, o->q)), *p++ = '\t';
    p = put_u64(p, o->qs), *p++ = '\t';
    p = put_u64(p, o->qe), *p++ = '\t';
    *p++ = o->rev ? '-' : '+', *p++ = '\t';
    p = put_str(p, sg_readset_name(rs, o->t)), *p++ = '\t';
    p = put_u64(p, sg_readset_len(rs, o->t)), *p++ = '\t';
    p = put_u64(p, o->ts), *p++ = '\t';
    p = put_u64(p, o->te), *p++ = '\t';
    p = put_u64(p, (uint64_t)floor(o->identity * span + 0.5)), *p++ = '\t';
    p = put_u64(p, span);
    p = put_str(p, "\t255\ttp:A:S\tcm:i:");
    p = put_u64(p, o->anchors);
    p = put_str(p, "\tdv:f:");
    const double dv = 1 - o->identity; /* computed in float, as printf's argument was */
    const uint64_t t = (uint64_t)nearbyint(dv * 10000);
    p = put_u64(p, t / 10000), *p++ = '.';
    const uint64_t frac = t % 10000;
    *p++ = (char)('0' + frac / 1000), *p++ = (char)('0' + frac / 100 % 10), *p++ = (char)('0' + frac / 10 % 10);
    *p++ = (char)('0' + frac % 10), *p++ = '\n';
    return (size_t)(p - buf);
}

static size_t line_room(const sg_readset_t *rs, const sg_overlap_t *o)
{
    return strlen(sg_readset_name(rs, o->q)) + strlen(sg_readset_name(rs, o->t)) + PAF_LINE_MORE;
}

void sg_paf_write(FILE *fp, const sg_readset_t *rs, const sg_overlap_t *o)
{
    char small[512], *buf = small;
    size_t need = line_room(rs, o);
    if (need > sizeof small) buf = sg_malloc(need);
    fwrite(buf, 1, format_line(buf, rs, o), fp);
    if (buf != small) free(buf);
}

/* sg_paf_write_all: chunks of overlaps formatted on any thread, written in order */
#define PAF_CHUNK 65536

typedef struct {
    FILE *fp;
    const sg_readset_t *rs;
    const sg_overlap_t *ov;
    size_t n, next;
} paf_all_t;

typedef struct {
    size_t first, n, len;
    char *text;
} paf_chunk_t;

static int paf_source(void *vctx, void *item, sg_emit_t *emit)
{
    (void)item;
    paf_all_t *a = vctx;
    if (a->next == a->n) return 0;
    paf_chunk_t *c = sg_calloc(1, sizeof *c);
    c->first = a->next;
    c->n = a->n - a->next < PAF_CHUNK ? a->n - a->next : PAF_CHUNK;
    a->next += c->n;
    sg_emit(emit, c);
    return a->next < a->n;
}

static int paf_format(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    const paf_all_t *a = vctx;
    paf_chunk_t *c = item;
    size_t room = 0;
    for (size_t i = 0; i < c->n; i++) room += line_room(a->rs, &a->ov[c->first + i]);
    c->text = sg_malloc(room);
    for (size_t i = 0; i < c->n; i++) c->len += format_line(c->text + c->len, a->rs, &a->ov[c->first + i]);
    return 0;
}

static int paf_out(void *vctx, void *item, sg_emit_t *emit)
{
    paf_all_t *a = vctx;
    paf_chunk_t *c = item;
    if (!c) return 0;
    fwrite(c->text, 1, c->len, a->fp); /* errors: the output's close reports them */
    sg_emit(emit, c);
    return 0;
}

static void paf_free(void *vctx, void *item)
{
    (void)vctx;
    paf_chunk_t *c = item;
    free(c->text);
    free(c);
}

int sg_paf_write_all(FILE *fp, const sg_readset_t *rs, const sg_overlap_t *ov, size_t n, int n_threads)
{
    if (!n) return 0;
    paf_all_t a = {fp, rs, ov, n, 0};
    const sg_step_t steps[] = {{"overlaps", paf_source, 1, 0}, {"format", paf_format, 0, 0}, {"write", paf_out, 1, 0}};
    sg_pipeline_opts_t po = {.n_threads = n_threads > 0 ? n_threads : 1, .max_items = 2 * n_threads + 4, .free_item = paf_free};
    return sg_pipeline_run(steps, 3, &a, &po);
}
