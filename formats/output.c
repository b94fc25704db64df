#define _GNU_SOURCE
#include "output.h"
#include "../src/find_kernels.h"
#include "../src/log.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sg_outfmt_parse(const char *s)
{
    if (!strcmp(s, "bed")) return SG_OUT_BED;
    if (!strcmp(s, "tsv")) return SG_OUT_TSV;
    if (!strcmp(s, "count")) return SG_OUT_COUNT;
    if (!strcmp(s, "casoffinder")) return SG_OUT_CASOFFINDER;
    return -1;
}

void sg_formatter_init(sg_formatter_t *f, sg_outfmt_t fmt, const sg_motif_set_t *ms, int skip_masked)
{
    sg_encode_table(f->enc, skip_masked);
    f->fmt = fmt;
    f->ms = ms;
    f->rank_pat = sg_malloc((ms->n_pat + 1) * sizeof *f->rank_pat);
    for (int i = 0; i < ms->n_pat; i++) f->rank_pat[ms->pat[i].rank] = (uint32_t)i;
}

void sg_formatter_free(sg_formatter_t *f)
{
    free(f->rank_pat);
    f->rank_pat = NULL;
}

void sg_chunk_text_free(sg_chunk_text_t *o)
{
    free(o->text.s);
    free(o->per_pat);
    free(o->first_recs);
    free(o->head);
    free(o->tail);
    memset(o, 0, sizeof *o);
}

/* Room for n more bytes, so that the kput calls after it cannot fail. */
static void reserve(kstring_t *s, size_t n)
{
    if (s->l + n + 1 > s->m) {
        size_t m = (s->l + n + 1) * 3 / 2;
        s->s = sg_realloc(s->s, m);
        s->m = m;
    }
}

static void put_u64(uint64_t x, kstring_t *s)
{
    if (x <= UINT32_MAX) kputuw((unsigned)x, s);
    else kputll((long long)x, s);
}

static void put_count_rows(const sg_motif_set_t *ms, const char *name, const uint64_t *cnt, kstring_t *s)
{
    size_t nl = strlen(name);
    for (int m = 0; m < ms->n_motif; m++) {
        reserve(s, nl + strlen(ms->motif[m].name) + 32);
        kputs(name, s);
        kputc('\t', s);
        kputs(ms->motif[m].name, s);
        kputc('\t', s);
        put_u64(cnt[m], s);
        kputc('\n', s);
    }
}

/* Mismatches of the window at t against pattern p. */
static int mismatches(const sg_formatter_t *f, const sg_pattern_t *p, const char *t)
{
    int mm = 0;
    for (int j = 0; j < p->len; j++) mm += !(f->enc[(unsigned char)t[j]] & p->mask[j]);
    return mm; /* a PAM position never mismatches in a hit */
}

/* The window at t in the pattern's orientation (reverse complement for '-'),
 * upper case, mismatched bases in lower case. */
static void put_site(const sg_formatter_t *f, const sg_pattern_t *p, const char *t, int minus, kstring_t *s)
{
    char *o = s->s + s->l;
    for (int j = 0; j < p->len; j++) {
        char c = (char)toupper((unsigned char)t[j]);
        if (!(f->enc[(unsigned char)t[j]] & p->mask[j])) c = (char)tolower((unsigned char)c);
        o[minus ? p->len - 1 - j : j] = minus ? sg_base_complement(c) : c;
    }
    s->l += p->len;
}

void sg_format_chunk(const sg_formatter_t *f, const sg_chunk_t *c, const sg_hits_t *h, sg_chunk_text_t *o)
{
    const sg_motif_set_t *ms = f->ms;
    kstring_t *s = &o->text;
    o->per_pat = sg_calloc(ms->n_pat, sizeof *o->per_pat);
    if (c->n_seg && c->seg[0].rid < SG_SUMMARY_RECORDS)
        o->first_recs = sg_calloc((size_t)c->n_seg * ms->n_motif, sizeof *o->first_recs);
    uint64_t *cnt = f->fmt == SG_OUT_COUNT ? sg_calloc(ms->n_motif, sizeof *cnt) : NULL;
    size_t k = 0;
    for (int i = 0; i < c->n_seg; i++) {
        const sg_seg_t *g = &c->seg[i];
        const char *name = sg_chunk_name(c, g);
        size_t name_len = strlen(name);
        uint64_t end = g->off + g->len;
        if (cnt) memset(cnt, 0, ms->n_motif * sizeof *cnt);
        uint64_t *rec = g->rid < SG_SUMMARY_RECORDS ? o->first_recs + (size_t)i * ms->n_motif : NULL;
        for (; k < h->n && sg_hit_pos(h->a[k]) < end; k++) {
            uint64_t pos = sg_hit_pos(h->a[k]);
            const sg_pattern_t *p = &ms->pat[f->rank_pat[sg_hit_rank(h->a[k])]];
            const sg_motif_t *m = &ms->motif[p->motif];
            const char *t = c->seq + pos;
            uint64_t start = g->rec_off + (pos - g->off);
            o->per_pat[p - ms->pat]++;
            if (rec) rec[p->motif]++;
            if (f->fmt == SG_OUT_COUNT_FILE) continue; /* the writer sums per_pat by file */
            if (cnt) {
                cnt[p->motif]++;
                continue;
            }
            int mm = ms->approx ? mismatches(f, p, t) : 0;
            reserve(s, 2 * (name_len + strlen(m->name) + strlen(m->window) + (m->id ? strlen(m->id) : 0) + p->len + 80));
            if (f->fmt == SG_OUT_CASOFFINDER) {
                /* Cas-OFFinder gives both strands of a palindromic window (of those searched) */
                for (int minus = p->strand == '-'; minus <= (p->strand != '+'); minus++) {
                    if (p->strand == '.' && !(ms->strands & (minus ? SG_STRAND_REV : SG_STRAND_FWD))) continue;
                    kputs(m->query, s);
                    kputc('\t', s);
                    kputsn(name, name_len, s);
                    kputc('\t', s);
                    put_u64(start, s);
                    kputc('\t', s);
                    put_site(f, p, t, minus, s);
                    kputc('\t', s);
                    kputc(minus ? '-' : '+', s);
                    kputc('\t', s);
                    kputw(mm, s);
                    if (m->id) {
                        kputc('\t', s);
                        kputs(m->id, s);
                    }
                    kputc('\n', s);
                }
                continue;
            }
            kputsn(name, name_len, s);
            kputc('\t', s);
            if (f->fmt == SG_OUT_BED) {
                put_u64(start, s);
                kputc('\t', s);
                put_u64(start + p->len, s);
                kputc('\t', s);
                kputs(m->name, s);
                kputc('\t', s);
                kputw(mm, s);
                kputc('\t', s);
                kputc(p->strand, s);
            } else {
                kputs(m->name, s);
                kputc('\t', s);
                kputs(m->window, s);
                kputc('\t', s);
                kputc(p->strand, s);
                kputc('\t', s);
                put_u64(start + 1, s);
                kputc('\t', s);
                put_u64(start + p->len, s);
                kputc('\t', s);
                if (ms->approx) {
                    put_site(f, p, t, p->strand == '-', s);
                    kputc('\t', s);
                    kputw(mm, s);
                } else if (p->strand == '-') {
                    for (int j = p->len - 1; j >= 0; j--) s->s[s->l++] = sg_base_complement(t[j]);
                } else {
                    for (int j = 0; j < p->len; j++) s->s[s->l++] = t[j];
                }
            }
            kputc('\n', s);
        }
        if (!cnt) continue;
        if (!g->first) {
            o->head = memcpy(sg_malloc(ms->n_motif * sizeof *cnt), cnt, ms->n_motif * sizeof *cnt);
        } else if (!g->last) {
            o->tail = memcpy(sg_malloc(ms->n_motif * sizeof *cnt), cnt, ms->n_motif * sizeof *cnt);
        } else {
            put_count_rows(ms, name, cnt, s);
        }
    }
    free(cnt);
}

static int write_all(sg_writer_t *w, const char *s, size_t n)
{
    if (n && fwrite(s, 1, n, w->out->fp) != n) {
        sg_error("cannot write to '%s': %s", w->out->name, strerror(errno ? errno : EIO));
        return SG_ERR_SYSTEM;
    }
    return 0;
}

int sg_writer_open(sg_writer_t *w, sg_outfile_t *out, const sg_formatter_t *f, int header, int n_files)
{
    const int nm = f->ms->n_motif;
    memset(w, 0, sizeof *w);
    w->f = f;
    w->out = out;
    w->n_files = n_files;
    setvbuf(out->fp, NULL, _IOFBF, 1 << 20);
    w->acc = sg_calloc(nm, sizeof *w->acc);
    w->total = sg_calloc(nm, sizeof *w->total);
    w->total_pat = sg_calloc(f->ms->n_pat + 1, sizeof *w->total_pat);
    w->file_total = sg_calloc((size_t)n_files * nm + 1, sizeof *w->file_total);
    w->rec_total = sg_calloc((size_t)SG_SUMMARY_RECORDS * nm, sizeof *w->rec_total);
    const char *head = !header                ? ""
                       : f->fmt == SG_OUT_COUNT ? "seqID\tpatternName\thits\n"
                       : f->fmt == SG_OUT_COUNT_FILE ? "file\tpatternName\thits\n"
                       : f->fmt != SG_OUT_TSV   ? ""
                       : f->ms->approx          ? "seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\tmismatches\n"
                                                : "seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n";
    return write_all(w, head, strlen(head));
}

int sg_writer_put(sg_writer_t *w, const sg_chunk_t *c, const sg_chunk_text_t *o)
{
    const sg_motif_set_t *ms = w->f->ms;
    for (int p = 0; p < ms->n_pat; p++) {
        w->total_pat[p] += o->per_pat[p];
        w->total[ms->pat[p].motif] += o->per_pat[p];
        w->file_total[(size_t)c->file * ms->n_motif + ms->pat[p].motif] += o->per_pat[p];
    }
    for (int i = 0; o->first_recs && i < c->n_seg && c->seg[i].rid < SG_SUMMARY_RECORDS; i++) {
        int64_t rid = c->seg[i].rid;
        for (int m = 0; m < ms->n_motif; m++) w->rec_total[rid * ms->n_motif + m] += o->first_recs[(size_t)i * ms->n_motif + m];
        if (!w->rec_name[rid]) w->rec_name[rid] = sg_strdup(sg_chunk_name(c, &c->seg[i]));
    }
    if (o->head) {
        for (int m = 0; m < ms->n_motif; m++) w->acc[m] += o->head[m];
        if (c->seg[0].last) {
            kstring_t s = {0};
            put_count_rows(ms, w->acc_name, w->acc, &s);
            int r = write_all(w, s.s, s.l);
            free(s.s);
            if (r < 0) return r;
        }
    }
    if (write_all(w, o->text.s, o->text.l) < 0) return SG_ERR_SYSTEM;
    if (o->tail) {
        memcpy(w->acc, o->tail, ms->n_motif * sizeof *w->acc);
        free(w->acc_name);
        w->acc_name = sg_strdup(sg_chunk_name(c, &c->seg[c->n_seg - 1]));
    }
    return 0;
}

int sg_writer_files(sg_writer_t *w, char *const *inputs)
{
    kstring_t s = {0};
    for (int i = 0; i < w->n_files; i++) put_count_rows(w->f->ms, inputs[i], w->file_total + (size_t)i * w->f->ms->n_motif, &s);
    int r = write_all(w, s.s, s.l);
    free(s.s);
    return r;
}

void sg_writer_free(sg_writer_t *w)
{
    free(w->acc);
    free(w->acc_name);
    free(w->total);
    free(w->total_pat);
    free(w->file_total);
    free(w->rec_total);
    for (int i = 0; i < SG_SUMMARY_RECORDS; i++) free(w->rec_name[i]);
    memset(w, 0, sizeof *w);
}

/* Most motifs given a column of their own in the table of records. */
#define SUMMARY_COLUMNS 8

static int num_width(uint64_t x)
{
    int n = 1;
    while (x >= 10) x /= 10, n++;
    return n;
}

void sg_writer_summary(const sg_writer_t *w, int64_t n_records, FILE *fp)
{
    const sg_motif_set_t *ms = w->f->ms;
    uint64_t all = 0;
    int wname = (int)strlen("motif"), whits = (int)strlen("hits");
    for (int m = 0; m < ms->n_motif; m++) {
        all += w->total[m];
        if ((int)strlen(ms->motif[m].name) > wname) wname = (int)strlen(ms->motif[m].name);
    }
    if (num_width(all) > whits) whits = num_width(all);
    fprintf(fp, "%-*s  strand  %*s\n", wname, "motif", whits, "hits");
    for (int m = 0; m < ms->n_motif; m++)
        for (int p = 0; p < ms->n_pat; p++)
            if (ms->pat[p].motif == m)
                fprintf(fp, "%-*s  %-6c  %*llu\n", wname, ms->motif[m].name, ms->pat[p].strand, whits,
                        (unsigned long long)w->total_pat[p]);
    fprintf(fp, "%-*s  %-6s  %*llu\n", wname, "all", "", whits, (unsigned long long)all);
    if (n_records > SG_SUMMARY_RECORDS) {
        fprintf(fp, "(%lld records: more than %d, so no table of records; -F count has one)\n", (long long)n_records,
                SG_SUMMARY_RECORDS);
        return;
    }
    /* records: a column per motif when there are few, and their sum */
    int cols = ms->n_motif <= SUMMARY_COLUMNS ? ms->n_motif : 0, wrec = (int)strlen("record");
    for (int64_t r = 0; r < n_records; r++)
        if (w->rec_name[r] && (int)strlen(w->rec_name[r]) > wrec) wrec = (int)strlen(w->rec_name[r]);
    fprintf(fp, "\n%-*s", wrec, "record");
    for (int m = 0; m < cols; m++) {
        int wm = (int)strlen(ms->motif[m].name) > whits ? (int)strlen(ms->motif[m].name) : whits;
        fprintf(fp, "  %*s", wm, ms->motif[m].name);
    }
    fprintf(fp, "  %*s\n", whits, "all");
    for (int64_t r = 0; r < n_records; r++) {
        uint64_t sum = 0;
        fprintf(fp, "%-*s", wrec, w->rec_name[r] ? w->rec_name[r] : "");
        for (int m = 0; m < ms->n_motif; m++) {
            uint64_t x = w->rec_total[r * ms->n_motif + m];
            int wm = (int)strlen(ms->motif[m].name) > whits ? (int)strlen(ms->motif[m].name) : whits;
            if (m < cols) fprintf(fp, "  %*llu", wm, (unsigned long long)x);
            sum += x;
        }
        fprintf(fp, "  %*llu\n", whits, (unsigned long long)sum);
    }
}
