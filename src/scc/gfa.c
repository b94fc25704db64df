#define _GNU_SOURCE
#include "scc/gfa.h"
#include "core/log.h"
#include "formats/seqio.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/khash.h>
#include <htslib/kstring.h>

KHASH_MAP_INIT_STR(name, uint32_t)

/* Open a graph file (plain or gzip), or say why not. */
static BGZF *open_graph(const char *path)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) sg_error("cannot read '%s': %s", path, strerror(errno));
    return fp;
}

typedef struct {
    char *name;
    char *seq;      /* NULL for '*' */
    uint64_t len;
    double depth;   /* mean depth from km/DP, or < 0 */
    double kc;      /* KC or RC total, or < 0 */
} seg_t;

typedef struct {
    char *from, *to;
    int from_rev, to_rev;
    uint32_t ovl, ovl_to; /* the overlap's bases on each segment */
    long lineno;
} link_t;

/* What the S and L lines said so far. */
typedef struct {
    seg_t *seg;
    link_t *lk;
    size_t n_seg, m_seg, n_lk, m_lk;
    int stars;           /* segments without a sequence, with a length */
} gfa_t;

/* Tag name ("LN") of an S line, "LN:i:value", or NULL if it has none. */
static const char *tag(char **fields, int n, const char *name)
{
    for (int i = 3; i < n; i++)
        if (!strncmp(fields[i], name, 2) && fields[i][2] == ':' && fields[i][3] && fields[i][4] == ':')
            return fields[i];
    return NULL;
}

/* The largest depth (mean k-mer count) or count (KC, RC) taken: 2^64, a
 * count's own limit. Sums over 2^32 segments of 2^31 k-mers each stay far
 * from overflowing a double, their squares too. */
#define DEPTH_MAX 18446744073709551616.0

/* A depth tag: a number from 0 to DEPTH_MAX. 0 (none), 1, or SG_ERR_INPUT. */
static int depth_tag(char **fields, int n, const char *name, double *out, const char *path, long lineno)
{
    const char *t = tag(fields, n, name), *v = t ? t + 5 : NULL;
    if (!t) return 0;
    char *end;
    *out = strtod(v, &end);
    if (end == v || *end || !(*out >= 0 && *out <= DEPTH_MAX)) {
        sg_error("'%s' line %ld: %s is not a depth (a number from 0 to 2^64)", path, lineno, t);
        return SG_ERR_INPUT;
    }
    return 1;
}

/* Overlap of a link CIGAR on each segment: "31M" (or any alignment: the
 * bases of the first segment it spans, and of the second), "*" or "0M" for
 * none. */
static int cigar_overlap(const char *c, uint32_t *ovl, uint32_t *ovl_to)
{
    uint64_t sum = 0, sum_to = 0;
    *ovl = *ovl_to = 0;
    if (!strcmp(c, "*")) return 0;
    while (*c) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(c, &end, 10);
        if (end == c || !*end || !strchr("MIDNSHP=X", *end) || errno || n > INT32_MAX) return -1;
        if (strchr("MDN=X", *end)) sum += n;
        if (strchr("MIS=X", *end)) sum_to += n;
        c = end + 1;
    }
    if (sum >= INT32_MAX || sum_to >= INT32_MAX) return -1; /* k = overlap + 1 is an int */
    *ovl = (uint32_t)sum;
    *ovl_to = (uint32_t)sum_to;
    return 0;
}

static int gfa_line(gfa_t *st, char *line, size_t len, const char *path, long lineno)
{
    char *fields[64];
    if (len && line[len - 1] == '\r') line[--len] = 0;
    if (!len || line[0] == '#') return 0;
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, "\t", &save); t && n < 64; t = strtok_r(NULL, "\t", &save))
        fields[n++] = t;
    if (line[0] == 'S') {
        if (n < 3) {
            sg_error("'%s' line %ld: an S line needs a name and a sequence", path, lineno);
            return SG_ERR_INPUT;
        }
        /* a length is what a GFA integer (i, 32 bits) can hold, and the
         * sequence's own when there is one */
        const char *ln = tag(fields, n, "LN");
        int has_seq = strcmp(fields[2], "*") != 0;
        long long v = 0;
        if (ln) {
            char *end;
            errno = 0;
            v = strtoll(ln + 5, &end, 10);
            if (end == ln + 5 || *end || errno || v < 1 || v > INT32_MAX) {
                sg_error("'%s' line %ld: %s is not a length (an integer from 1 to %d)", path, lineno, ln, INT32_MAX);
                return SG_ERR_INPUT;
            }
            if (has_seq && (size_t)v != strlen(fields[2])) {
                sg_error("'%s' line %ld: LN %lld differs from the length of the sequence, %zu", path, lineno, v,
                         strlen(fields[2]));
                return SG_ERR_INPUT;
            }
        }
        if (st->n_seg == st->m_seg) st->seg = sg_realloc(st->seg, (st->m_seg = st->m_seg ? 2 * st->m_seg : 1024) * sizeof *st->seg);
        seg_t *s = &st->seg[st->n_seg++];
        memset(s, 0, sizeof *s);
        s->name = sg_strdup(fields[1]);
        s->seq = has_seq ? sg_strdup(fields[2]) : NULL;
        s->len = has_seq ? strlen(s->seq) : (uint64_t)v;
        st->stars += !has_seq && s->len;
        s->depth = -1;
        s->kc = -1;
        int r;
        if ((r = depth_tag(fields, n, "km", &s->depth, path, lineno)) == 0) r = depth_tag(fields, n, "DP", &s->depth, path, lineno);
        if (r >= 0 && (r = depth_tag(fields, n, "KC", &s->kc, path, lineno)) == 0) r = depth_tag(fields, n, "RC", &s->kc, path, lineno);
        return r < 0 ? r : 0;
    }
    if (line[0] == 'L') {
        uint32_t ovl = 0, ovl_to = 0;
        if (n < 6 || strlen(fields[2]) != 1 || strlen(fields[4]) != 1 || !strchr("+-", fields[2][0]) ||
            !strchr("+-", fields[4][0]) || cigar_overlap(fields[5], &ovl, &ovl_to) < 0) {
            sg_error("'%s' line %ld: an L line is 'L<TAB>from<TAB>+|-<TAB>to<TAB>+|-<TAB>overlap'", path, lineno);
            return SG_ERR_INPUT;
        }
        if (st->n_lk == st->m_lk) st->lk = sg_realloc(st->lk, (st->m_lk = st->m_lk ? 2 * st->m_lk : 1024) * sizeof *st->lk);
        st->lk[st->n_lk++] = (link_t){sg_strdup(fields[1]), sg_strdup(fields[3]), fields[2][0] == '-', fields[4][0] == '-',
                                      ovl, ovl_to, lineno};
    }
    return 0;
}

/* The lines of the reader's blocks, through gfa_line. */
static int gfa_lines(sg_reader_t *rd, gfa_t *st, const char **path)
{
    sg_chunk_t *c;
    long lineno = 0;
    int got, ret = 0;
    while (ret == 0 && (got = sg_reader_next(rd, &c)) > 0) {
        *path = sg_reader_path(rd, c->file);
        if (sg_parse_block(c) < 0) {
            sg_error("cannot read '%s': %s", *path, c->err);
            ret = SG_ERR_INPUT;
        }
        for (char *p = c->seq, *end = c->seq + c->len; ret == 0 && p < end;) {
            char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;
            *e = 0; /* a block has room for one byte after its end */
            ret = gfa_line(st, p, e - p, *path, ++lineno);
            p = e + 1;
        }
        sg_chunk_free(c);
    }
    return ret < 0 ? ret : got < 0 ? SG_ERR_INPUT : 0;
}

int sg_gfa_parse(sg_reader_t *rd, sg_graph_t *g)
{
    memset(g, 0, sizeof *g);
    gfa_t st = {0};
    const char *path = "(no input)";
    int ret = gfa_lines(rd, &st, &path);
    seg_t *seg = st.seg;
    link_t *lk = st.lk;
    size_t n_seg = st.n_seg, n_lk = st.n_lk;
    if (!ret && n_seg == 0) {
        sg_error("'%s' has no segments (S lines)", path);
        ret = SG_ERR_INPUT;
    }
    khash_t(name) *h = kh_init(name);
    for (size_t i = 0; !ret && i < n_seg; i++) {
        int absent;
        khint_t it = kh_put(name, h, seg[i].name, &absent);
        if (!absent) {
            sg_name_buf_t nb;
            sg_error("'%s': segment '%s' is defined twice", path, sg_name_shown(seg[i].name, &nb));
            ret = SG_ERR_INPUT;
        }
        kh_val(h, it) = (uint32_t)i;
    }
    /* k: the most common overlap of the links, plus one */
    uint32_t k = 0;
    if (!ret && n_lk) {
        uint32_t best = 0, cnt = 0;
        for (size_t i = 0; i < n_lk && i < 1000; i++) {
            uint32_t c = 0;
            for (size_t j = 0; j < n_lk && j < 1000; j++) c += lk[j].ovl == lk[i].ovl;
            if (c > cnt) cnt = c, best = lk[i].ovl;
        }
        k = best + 1;
    }
    sg_edge_t *e = sg_malloc((2 * n_lk + 1) * sizeof *e);
    size_t n_e = 0;
    for (size_t i = 0; !ret && i < n_lk; i++) {
        khint_t a = kh_get(name, h, lk[i].from), b = kh_get(name, h, lk[i].to);
        if (a == kh_end(h) || b == kh_end(h)) {
            sg_name_buf_t nb;
            sg_error("'%s': a link names segment '%s', which has no S line", path,
                     sg_name_shown(a == kh_end(h) ? lk[i].from : lk[i].to, &nb));
            ret = SG_ERR_INPUT;
            break;
        }
        /* an overlap takes part of each segment, never all of it: the walk
         * through a link adds a segment's bases past the overlap, and a
         * cycle's period is their sum */
        const seg_t *sa = &seg[kh_val(h, a)], *sb = &seg[kh_val(h, b)];
        const seg_t *whole = lk[i].ovl && lk[i].ovl >= sa->len ? sa : lk[i].ovl_to && lk[i].ovl_to >= sb->len ? sb : NULL;
        if (whole) {
            sg_name_buf_t nb;
            sg_error("'%s' line %ld: the link's overlap, %u bases, is not shorter than segment '%s' (%llu bases%s)",
                     path, lk[i].lineno, whole == sa ? lk[i].ovl : lk[i].ovl_to, sg_name_shown(whole->name, &nb),
                     (unsigned long long)whole->len, whole->seq ? "" : whole->len ? ", its LN" : ": no sequence, no LN");
            ret = SG_ERR_INPUT;
            break;
        }
        uint32_t u = sg_vert(kh_val(h, a), lk[i].from_rev), v = sg_vert(kh_val(h, b), lk[i].to_rev);
        e[n_e++] = (sg_edge_t){u, v, lk[i].ovl};
        e[n_e++] = (sg_edge_t){sg_vert_flip(v), sg_vert_flip(u), lk[i].ovl};
    }
    kh_destroy(name, h);
    if (!ret) {
        g->oriented = 1;
        g->k = (int)k;
        g->n = (uint32_t)n_seg;
        g->n_vert = 2 * g->n;
        g->name = sg_malloc(n_seg * sizeof *g->name);
        g->seq_off = sg_malloc((n_seg + 1) * sizeof *g->seq_off);
        g->kmers = sg_malloc(n_seg * sizeof *g->kmers);
        g->count_sum = sg_malloc(n_seg * sizeof *g->count_sum);
        uint64_t total = 0;
        for (size_t i = 0; i < n_seg; i++) total += seg[i].seq ? seg[i].len : 0;
        g->seq = sg_malloc(total + 1);
        g->star_len = st.stars ? sg_calloc(n_seg, sizeof *g->star_len) : NULL;
        g->seq_off[0] = 0;
        for (size_t i = 0; i < n_seg; i++) {
            g->name[i] = seg[i].name;
            seg[i].name = NULL;
            if (seg[i].seq) memcpy(g->seq + g->seq_off[i], seg[i].seq, seg[i].len);
            else if (g->star_len) g->star_len[i] = seg[i].len;
            g->seq_off[i + 1] = g->seq_off[i] + (seg[i].seq ? seg[i].len : 0);
            g->kmers[i] = k && seg[i].len >= k ? seg[i].len - k + 1 : 1;
            g->count_sum[i] = seg[i].kc >= 0 ? seg[i].kc : seg[i].depth >= 0 ? seg[i].depth * g->kmers[i] : 0;
        }
        sg_graph_set_edges(g, e, n_e);
    }
    free(e);
    for (size_t i = 0; i < n_seg; i++) {
        free(seg[i].name);
        free(seg[i].seq);
    }
    for (size_t i = 0; i < n_lk; i++) {
        free(lk[i].from);
        free(lk[i].to);
    }
    free(seg);
    free(lk);
    return ret;
}

int sg_gfa_read(const char *path, sg_graph_t *g)
{
    char *paths[] = {(char *)path};
    sg_reader_t *rd = sg_reader_new(paths, 1, 1 << 20, 1);
    int fmt = sg_reader_format(rd), r;
    if (fmt == SG_FMT_GFA) {
        r = sg_gfa_parse(rd, g);
    } else {
        memset(g, 0, sizeof *g);
        if (fmt >= 0) sg_error("'%s' is not a GFA graph", path);
        r = SG_ERR_INPUT;
    }
    sg_reader_free(rd);
    return r;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static uint32_t find_label(const int64_t *labels, uint32_t n, int64_t x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (labels[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int sg_edges_read(const char *path, sg_graph_t *g)
{
    memset(g, 0, sizeof *g);
    BGZF *fp = open_graph(path);
    if (!fp) return SG_ERR_INPUT;
    kstring_t line = {0};
    int64_t *ends = NULL;
    size_t n = 0, m = 0;
    long lineno = 0;
    int r, ret = 0;
    while ((r = bgzf_getline(fp, '\n', &line)) >= 0) {
        char *p = line.s, *end, err[256];
        size_t bom = 0;
        if (++lineno == 1 && sg_text_start(line.s, line.l, &bom, err, sizeof err) < 0) {
            sg_error("'%s' is %s", path, err);
            ret = SG_ERR_INPUT;
            break;
        }
        p += bom;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '#' || *p == '\r') continue;
        errno = 0;
        long long a = strtoll(p, &end, 10);
        if (end == p || (*end != ' ' && *end != '\t') || errno) goto bad;
        p = end;
        long long b = strtoll(p, &end, 10);
        if (end == p || errno) goto bad;
        while (*end == ' ' || *end == '\t' || *end == '\r') end++;
        if (*end) goto bad;
        if (n + 2 > m) ends = sg_realloc(ends, (m = m ? 2 * m : 4096) * sizeof *ends);
        ends[n++] = a;
        ends[n++] = b;
        continue;
    bad:
        sg_error("'%s' line %ld: expected two integers, 'from to'", path, lineno);
        ret = SG_ERR_INPUT;
        break;
    }
    if (!ret && r < -1) {
        sg_error("cannot read '%s': truncated or corrupt file", path);
        ret = SG_ERR_INPUT;
    }
    bgzf_close(fp);
    free(line.s);
    if (ret) {
        free(ends);
        return ret;
    }
    /* nodes are numbered in label order; labels spanning a range not much
     * larger than the list (ids 0..N, the usual case) are numbered through a
     * table over the range, others by sorting and binary search */
    int64_t lo = n ? ends[0] : 0, hi = lo;
    for (size_t i = 1; i < n; i++) {
        if (ends[i] < lo) lo = ends[i];
        if (ends[i] > hi) hi = ends[i];
    }
    int64_t *labels;
    uint32_t n_node = 0;
    sg_edge_t *e = sg_malloc((n / 2 + 1) * sizeof *e);
    /* the span of the labels in unsigned arithmetic: hi - lo overflows an int64_t for ids near both ends */
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (n && span < 4 * (uint64_t)n + 1024 && span < UINT32_MAX) {
        uint64_t range = span + 1;
        uint32_t *id = sg_calloc(range, sizeof *id); /* 1 + node number; 0: absent */
        for (size_t i = 0; i < n; i++) id[(uint64_t)ends[i] - (uint64_t)lo] = 1;
        labels = sg_malloc((n + 1) * sizeof *labels);
        for (uint64_t x = 0; x < range; x++)
            if (id[x]) {
                labels[n_node] = lo + (int64_t)x;
                id[x] = ++n_node;
            }
        for (size_t i = 0; i < n / 2; i++)
            e[i] = (sg_edge_t){id[(uint64_t)ends[2 * i] - (uint64_t)lo] - 1, id[(uint64_t)ends[2 * i + 1] - (uint64_t)lo] - 1, 0};
        free(id);
    } else {
        labels = sg_malloc((n + 1) * sizeof *labels);
        if (n) { /* an empty list is an empty graph */
            memcpy(labels, ends, n * sizeof *labels);
            qsort(labels, n, sizeof *labels, cmp_i64);
        }
        for (size_t i = 0; i < n; i++)
            if (!n_node || labels[i] != labels[n_node - 1]) labels[n_node++] = labels[i];
        for (size_t i = 0; i < n / 2; i++)
            e[i] = (sg_edge_t){find_label(labels, n_node, ends[2 * i]), find_label(labels, n_node, ends[2 * i + 1]), 0};
    }
    g->oriented = 0;
    g->n = n_node;
    g->n_vert = n_node;
    g->label = labels;
    sg_graph_set_edges(g, e, n / 2);
    free(e);
    free(ends);
    return 0;
}

/* A colour per component, for Bandage. */
static const char *palette[] = {"#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
                                "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#800000", "#aaffc3",
                                "#808000", "#ffd8b1", "#000075", "#808080"};

void sg_gfa_write(FILE *fp, const sg_graph_t *g, const uint8_t *keep, const uint32_t *comp_of)
{
    char nb[32], nb2[32];
    fputs("H\tVN:Z:1.0\n", fp);
    for (uint32_t i = 0; i < g->n; i++) {
        if (keep && !keep[i]) continue;
        uint64_t len = sg_graph_len(g, i);
        int no_seq = sg_graph_no_seq(g, i);
        /* no bases: '*' (an empty field would make the tags the sequence); LN only when it is a length */
        char ln[32] = "";
        if (len) snprintf(ln, sizeof ln, "\tLN:i:%llu", (unsigned long long)len);
        fprintf(fp, "S\t%s\t%.*s%s", sg_graph_name(g, i, nb, sizeof nb), no_seq || !len ? 1 : (int)len,
                no_seq || !len ? "*" : g->seq + g->seq_off[i], ln);
        /* a read: RC, the bases of the reads it stands for (Bandage's depth is RC / LN) */
        if (g->reads) fprintf(fp, "\tRC:i:%.0f", g->count_sum[i]);
        else fprintf(fp, "\tKC:i:%.0f\tDP:f:%.2f", g->count_sum[i], g->kmers[i] ? g->count_sum[i] / g->kmers[i] : 0.0);
        if (comp_of && comp_of[i])
            fprintf(fp, "\tLB:Z:repeat%u\tCL:Z:%s", comp_of[i], palette[(comp_of[i] - 1) % (sizeof palette / sizeof *palette)]);
        fputc('\n', fp);
    }
    /* each link once: of an edge and its complement, the one that is smaller as (from, to) */
    for (uint32_t v = 0; v < g->n_vert; v++) {
        if (keep && !keep[v >> 1]) continue;
        for (uint64_t j = g->off[v]; j < g->off[v + 1]; j++) {
            uint32_t w = g->adj[j], cf = sg_vert_flip(w), ct = sg_vert_flip(v);
            if (keep && !keep[w >> 1]) continue;
            if (cf < v || (cf == v && ct < w)) continue;
            fprintf(fp, "L\t%s\t%c\t%s\t%c\t%uM\n", sg_graph_name(g, v >> 1, nb, sizeof nb), v & 1 ? '-' : '+',
                    sg_graph_name(g, w >> 1, nb2, sizeof nb2), w & 1 ? '-' : '+', g->ovl[j]);
        }
    }
}
