#define _GNU_SOURCE
#include "gfa.h"
#include "../src/log.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/khash.h>
#include <htslib/kstring.h>

KHASH_MAP_INIT_STR(name, uint32_t)

int sg_is_gfa(const char *path)
{
    if (!strcmp(path, "-")) return 0;
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) return 0;
    kstring_t s = {0};
    int gfa = 0;
    while (bgzf_getline(fp, '\n', &s) >= 0) {
        if (s.l == 0 || s.s[0] == '#') continue;
        gfa = s.l >= 2 && strchr("HSL", s.s[0]) && s.s[1] == '\t';
        break;
    }
    free(s.s);
    bgzf_close(fp);
    return gfa;
}

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
    uint32_t ovl;
} link_t;

static int tag_value(char **fields, int n, const char *tag, double *out)
{
    for (int i = 3; i < n; i++)
        if (!strncmp(fields[i], tag, 2) && fields[i][2] == ':' && fields[i][4] == ':') {
            char *end;
            double v = strtod(fields[i] + 5, &end);
            if (end != fields[i] + 5) {
                *out = v;
                return 1;
            }
        }
    return 0;
}

/* Overlap of a link CIGAR: "31M" (or any alignment: the bases on the first
 * segment), "*" or "0M" for none. */
static int cigar_overlap(const char *c, uint32_t *ovl)
{
    *ovl = 0;
    if (!strcmp(c, "*")) return 0;
    while (*c) {
        char *end;
        unsigned long n = strtoul(c, &end, 10);
        if (end == c || !*end || !strchr("MIDNSHP=X", *end)) return -1;
        if (strchr("MDN=X", *end)) *ovl += (uint32_t)n;
        c = end + 1;
    }
    return 0;
}

int sg_gfa_read(const char *path, sg_graph_t *g)
{
    memset(g, 0, sizeof *g);
    BGZF *fp = open_graph(path);
    if (!fp) return SG_ERR_INPUT;
    kstring_t line = {0};
    seg_t *seg = NULL;
    link_t *lk = NULL;
    size_t n_seg = 0, m_seg = 0, n_lk = 0, m_lk = 0;
    long lineno = 0;
    int r, ret = 0;
    char *fields[64];
    while ((r = bgzf_getline(fp, '\n', &line)) >= 0) {
        lineno++;
        if (line.l && line.s[line.l - 1] == '\r') line.s[--line.l] = 0;
        if (!line.l || line.s[0] == '#') continue;
        int n = 0;
        for (char *save = NULL, *t = strtok_r(line.s, "\t", &save); t && n < 64; t = strtok_r(NULL, "\t", &save))
            fields[n++] = t;
        if (line.s[0] == 'S') {
            if (n < 3) {
                sg_error("'%s' line %ld: an S line needs a name and a sequence", path, lineno);
                ret = SG_ERR_INPUT;
                break;
            }
            if (n_seg == m_seg) seg = sg_realloc(seg, (m_seg = m_seg ? 2 * m_seg : 1024) * sizeof *seg);
            seg_t *s = &seg[n_seg++];
            s->name = sg_strdup(fields[1]);
            s->seq = strcmp(fields[2], "*") ? sg_strdup(fields[2]) : NULL;
            double ln = 0;
            s->len = s->seq ? strlen(s->seq) : (tag_value(fields, n, "LN", &ln) ? (uint64_t)ln : 0);
            s->depth = -1;
            s->kc = -1;
            if (!tag_value(fields, n, "km", &s->depth)) tag_value(fields, n, "DP", &s->depth);
            if (!tag_value(fields, n, "KC", &s->kc)) tag_value(fields, n, "RC", &s->kc);
        } else if (line.s[0] == 'L') {
            uint32_t ovl = 0;
            if (n < 6 || strlen(fields[2]) != 1 || strlen(fields[4]) != 1 || !strchr("+-", fields[2][0]) ||
                !strchr("+-", fields[4][0]) || cigar_overlap(fields[5], &ovl) < 0) {
                sg_error("'%s' line %ld: an L line is 'L<TAB>from<TAB>+|-<TAB>to<TAB>+|-<TAB>overlap'", path, lineno);
                ret = SG_ERR_INPUT;
                break;
            }
            if (n_lk == m_lk) lk = sg_realloc(lk, (m_lk = m_lk ? 2 * m_lk : 1024) * sizeof *lk);
            lk[n_lk++] = (link_t){sg_strdup(fields[1]), sg_strdup(fields[3]), fields[2][0] == '-', fields[4][0] == '-', ovl};
        }
    }
    if (!ret && r < -1) {
        sg_error("cannot read '%s': truncated or corrupt file", path);
        ret = SG_ERR_INPUT;
    }
    bgzf_close(fp);
    free(line.s);
    if (!ret && n_seg == 0) {
        sg_error("'%s' has no segments (S lines)", path);
        ret = SG_ERR_INPUT;
    }
    khash_t(name) *h = kh_init(name);
    for (size_t i = 0; !ret && i < n_seg; i++) {
        int absent;
        khint_t it = kh_put(name, h, seg[i].name, &absent);
        if (!absent) {
            sg_error("'%s': segment '%s' is defined twice", path, seg[i].name);
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
            sg_error("'%s': a link names segment '%s', which has no S line", path,
                     a == kh_end(h) ? lk[i].from : lk[i].to);
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
        for (size_t i = 0; i < n_seg; i++) total += seg[i].len;
        g->seq = sg_malloc(total + 1);
        g->seq_off[0] = 0;
        for (size_t i = 0; i < n_seg; i++) {
            g->name[i] = seg[i].name;
            seg[i].name = NULL;
            if (seg[i].seq) memcpy(g->seq + g->seq_off[i], seg[i].seq, seg[i].len);
            else memset(g->seq + g->seq_off[i], 'N', seg[i].len);
            g->seq_off[i + 1] = g->seq_off[i] + seg[i].len;
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
        lineno++;
        char *p = line.s, *end;
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
    if (n && (uint64_t)(hi - lo) < 4 * (uint64_t)n + 1024 && (uint64_t)(hi - lo) < UINT32_MAX) {
        uint64_t range = (uint64_t)(hi - lo) + 1;
        uint32_t *id = sg_calloc(range, sizeof *id); /* 1 + node number; 0: absent */
        for (size_t i = 0; i < n; i++) id[ends[i] - lo] = 1;
        labels = sg_malloc((n + 1) * sizeof *labels);
        for (uint64_t x = 0; x < range; x++)
            if (id[x]) {
                labels[n_node] = lo + (int64_t)x;
                id[x] = ++n_node;
            }
        for (size_t i = 0; i < n / 2; i++) e[i] = (sg_edge_t){id[ends[2 * i] - lo] - 1, id[ends[2 * i + 1] - lo] - 1, 0};
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

int sg_gfa_write(const char *path, const sg_graph_t *g, const uint8_t *keep, const uint32_t *comp_of)
{
    sg_outfile_t out;
    if (sg_outfile_open(&out, path) < 0) return SG_ERR_SYSTEM;
    FILE *fp = out.fp;
    char nb[32], nb2[32];
    fputs("H\tVN:Z:1.0\n", fp);
    for (uint32_t i = 0; i < g->n; i++) {
        if (keep && !keep[i]) continue;
        uint64_t len = sg_graph_len(g, i);
        /* an empty sequence is '*': an empty field would make the tags the sequence */
        fprintf(fp, "S\t%s\t%.*s\tLN:i:%llu\tKC:i:%.0f\tDP:f:%.2f", sg_graph_name(g, i, nb, sizeof nb), len ? (int)len : 1,
                len ? g->seq + g->seq_off[i] : "*", (unsigned long long)len, g->count_sum[i],
                g->kmers[i] ? g->count_sum[i] / g->kmers[i] : 0.0);
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
    return sg_outfile_close(&out);
}
