#define _GNU_SOURCE
#include "find/output.h"
#include "find/align.h"
#include "find/kernels.h"
#include "core/log.h"
#include "core/version.h"

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
    if (!strcmp(s, "casoffinder3")) return SG_OUT_CASOFFINDER3;
    return -1;
}

void sg_formatter_init(sg_formatter_t *f, sg_outfmt_t fmt, const sg_motif_set_t *ms, int skip_masked)
{
    memset(f, 0, sizeof *f);
    sg_encode_table(f->enc, skip_masked);
    f->fmt = fmt;
    f->ms = ms;
    f->rank_site = sg_malloc((ms->n_rank + 1) * sizeof *f->rank_site);
    for (int i = 0; i < ms->n_pat; i++)
        for (int v = 0; v < SG_VARIANTS; v++)
            if (ms->pat[i].vrank[v] != SG_NO_RANK) f->rank_site[ms->pat[i].vrank[v]] = (uint32_t)i << 3 | (uint32_t)v;
    char why[256];
    f->scored = 1;
    for (int m = 0; m < ms->n_motif; m++) f->scored &= sg_score_applies(&ms->motif[m], why, sizeof why);
}

void sg_formatter_free(sg_formatter_t *f)
{
    free(f->rank_site);
    f->rank_site = NULL;
}

void sg_chunk_text_free(sg_chunk_text_t *o)
{
    free(o->text.s);
    free(o->per_pat);
    free(o->first_recs);
    free(o->head);
    free(o->tail);
    free(o->cnt);
    for (int m = 0; m < o->n_tally; m++) sg_tally_free(&o->tally[m]);
    free(o->tally);
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

/* The rows of a record from *row on, until s holds budget bytes: 0 when all are put, -1 when s was full first. */
static int put_count_rows(const sg_motif_set_t *ms, const char *name, const uint64_t *cnt, int *row, size_t budget,
                          kstring_t *s)
{
    size_t nl = strlen(name);
    for (int m = *row; m < ms->n_motif; *row = ++m) {
        if (s->l >= budget) return -1;
        reserve(s, nl + strlen(ms->motif[m].name) + 32);
        kputs(name, s);
        kputc('\t', s);
        kputs(ms->motif[m].name, s);
        kputc('\t', s);
        put_u64(cnt[m], s);
        kputc('\n', s);
    }
    return 0;
}

static const char *const bulge_name[3] = {"X", "DNA", "RNA"};

/* A score column: six decimals, or NA where the score is not defined. */
static void put_score(double x, kstring_t *s)
{
    if (x < 0) kputs("\tNA", s);
    else ksprintf(s, "\t%.6f", x);
}

/* One site as the formats print it: its pattern, variant and bases. */
typedef struct {
    const sg_pattern_t *p;
    const sg_motif_t *m;
    int v, len;          /* bulge variant, and the site's length */
    const char *t;       /* its first base in the chunk */
    uint64_t start;      /* in the record, 0-based */
} site_t;

/* The scores of one alignment, from its rows in the guide's orientation
 * (the PAM their last 3 columns): CFD of any site, MIT of one without a
 * bulge; -1 where undefined. */
static void score(const sg_formatter_t *f, const site_t *x, const sg_aln_t *a, double *cfd, double *mit, char pam2[2])
{
    char rna[SG_MAX_COLUMNS], dna[SG_MAX_COLUMNS];
    *cfd = *mit = -1;
    if (!f->scored) return;
    int n = sg_aln_rows(x->p, a, x->t, f->enc, x->m->window, x->p->strand == '-', rna, dna);
    *cfd = sg_cfd(rna, dna, n - 3, dna + n - 2);
    if (a->v == 0) *mit = sg_mit(x->m->window, dna);
    if (pam2) memcpy(pam2, dna + n - 2, 2);
}

/* One row of -F casoffinder3, in the strand's orientation. */
static void put_casoff3(const sg_formatter_t *f, const site_t *x, const sg_aln_t *a, int minus, const char *name,
                        size_t name_len, kstring_t *s)
{
    const sg_motif_t *m = x->m;
    char rna[SG_MAX_COLUMNS], dna[SG_MAX_COLUMNS];
    int n = sg_aln_rows(x->p, a, x->t, f->enc, m->query, minus, rna, dna);
    reserve(s, name_len + strlen(m->id ? m->id : m->name) + 2 * (size_t)n + 96);
    kputs(m->id ? m->id : m->name, s);
    kputc('\t', s);
    kputs(bulge_name[sg_variant_type(a->v)], s);
    kputc('\t', s);
    kputsn(rna, n, s);
    kputc('\t', s);
    kputsn(dna, n, s);
    kputc('\t', s);
    kputsn(name, name_len, s);
    kputc('\t', s);
    put_u64(x->start, s);
    kputc('\t', s);
    kputc(minus ? '-' : '+', s);
    kputc('\t', s);
    kputw(a->mm, s);
    kputc('\t', s);
    kputw(a->v ? sg_variant_size(a->v) : 0, s);
}

/* The rows of one site in the formats that print a row per site or per
 * alignment (all but count). */
static void put_site(const sg_formatter_t *f, const site_t *x, const sg_aln_t *aln, int n_aln, const char *name,
                     size_t name_len, kstring_t *s)
{
    const sg_motif_set_t *ms = f->ms;
    const sg_pattern_t *p = x->p;
    const sg_motif_t *m = x->m;
    const int bulges = ms->dna_bulge || ms->rna_bulge;
    char rna[SG_MAX_COLUMNS], dna[SG_MAX_COLUMNS];
    for (int i = 0; i < n_aln; i++) {
        const sg_aln_t *a = &aln[i];
        double cfd = -1, mit = -1;
        if (f->scores) score(f, x, a, &cfd, &mit, NULL);
        if (f->fmt == SG_OUT_CASOFFINDER || f->fmt == SG_OUT_CASOFFINDER3) {
            /* Cas-OFFinder gives both strands of a palindromic window (of those searched) */
            for (int minus = p->strand == '-'; minus <= (p->strand != '+'); minus++) {
                if (p->strand == '.' && !(ms->strands & (minus ? SG_STRAND_REV : SG_STRAND_FWD))) continue;
                if (f->fmt == SG_OUT_CASOFFINDER3) {
                    put_casoff3(f, x, a, minus, name, name_len, s);
                } else {
                    int n = sg_aln_rows(p, a, x->t, f->enc, m->window, minus, rna, dna);
                    reserve(s, strlen(m->query) + name_len + (m->id ? strlen(m->id) : 0) + (size_t)n + 64);
                    kputs(m->query, s);
                    kputc('\t', s);
                    kputsn(name, name_len, s);
                    kputc('\t', s);
                    put_u64(x->start, s);
                    kputc('\t', s);
                    kputsn(dna, n, s);
                    kputc('\t', s);
                    kputc(minus ? '-' : '+', s);
                    kputc('\t', s);
                    kputw(a->mm, s);
                    if (m->id) {
                        kputc('\t', s);
                        kputs(m->id, s);
                    }
                }
                if (f->scores & SG_SCORE_CFD) put_score(cfd, s);
                if (f->scores & SG_SCORE_MIT) put_score(mit, s);
                kputc('\n', s);
            }
            continue;
        }
        reserve(s, 2 * (name_len + strlen(m->name) + strlen(m->window) + (size_t)x->len) + 96);
        kputsn(name, name_len, s);
        kputc('\t', s);
        if (f->fmt == SG_OUT_BED) {
            put_u64(x->start, s);
            kputc('\t', s);
            put_u64(x->start + x->len, s);
            kputc('\t', s);
            kputs(m->name, s);
            kputc('\t', s);
            kputw(a->mm, s);
            kputc('\t', s);
            kputc(p->strand, s);
        } else {
            kputs(m->name, s);
            kputc('\t', s);
            kputs(m->window, s);
            kputc('\t', s);
            kputc(p->strand, s);
            kputc('\t', s);
            put_u64(x->start + 1, s);
            kputc('\t', s);
            put_u64(x->start + x->len, s);
            kputc('\t', s);
            if (ms->approx || bulges) {
                int n = sg_aln_rows(p, a, x->t, f->enc, m->window, p->strand == '-', rna, dna);
                kputsn(dna, n, s);
                kputc('\t', s);
                kputw(a->mm, s);
                if (bulges) {
                    kputc('\t', s);
                    kputs(bulge_name[sg_variant_type(a->v)], s);
                    kputc('\t', s);
                    kputw(a->v ? sg_variant_size(a->v) : 0, s);
                    kputc('\t', s);
                    kputsn(rna, n, s);
                }
            } else if (p->strand == '-') {
                for (int j = x->len - 1; j >= 0; j--) s->s[s->l++] = sg_base_complement(x->t[j]);
            } else {
                for (int j = 0; j < x->len; j++) s->s[s->l++] = x->t[j];
            }
        }
        if (f->fmt == SG_OUT_BED && bulges) {
            kputc('\t', s);
            kputs(bulge_name[sg_variant_type(a->v)], s);
            kputc('\t', s);
            kputw(a->v ? sg_variant_size(a->v) : 0, s);
        }
        if (f->scores & SG_SCORE_CFD) put_score(cfd, s);
        if (f->scores & SG_SCORE_MIT) put_score(mit, s);
        kputc('\n', s);
    }
}

/* A site into its motif's tally: its best alignment's mismatches and scores. */
static void tally_site(const sg_formatter_t *f, const site_t *x, const sg_aln_t *best, sg_guide_tally_t *t)
{
    double cfd, mit;
    char pam2[2] = {'N', 'N'};
    score(f, x, best, &cfd, &mit, pam2);
    sg_tally_site(t, sg_variant_type(best->v), best->mm, mit, cfd, pam2);
}

int sg_format_hits(const sg_formatter_t *f, const sg_chunk_t *c, const sg_hits_t *h, uint64_t upto, size_t budget,
                   sg_chunk_text_t *o, size_t *taken)
{
    const sg_motif_set_t *ms = f->ms;
    kstring_t *s = &o->text;
    if (!o->per_pat) {
        o->per_pat = sg_calloc(ms->n_pat, sizeof *o->per_pat);
        int first = 0; /* the pieces of the first records: at most SG_SUMMARY_RECORDS of the chunk's */
        while (first < c->n_seg && c->seg[first].rid < SG_SUMMARY_RECORDS) first++;
        if (first) o->first_recs = sg_calloc((size_t)first * ms->n_motif, sizeof *o->first_recs);
        if (f->fmt == SG_OUT_COUNT) o->cnt = sg_calloc(ms->n_motif, sizeof *o->cnt);
        if (f->tally) {
            o->tally = sg_calloc(ms->n_motif, sizeof *o->tally);
            o->n_tally = ms->n_motif;
        }
    }
    uint64_t *cnt = o->cnt;
    const int align = ms->approx || ms->dna_bulge || ms->rna_bulge;
    sg_aln_t aln[SG_MAX_ALIGNMENTS], best;
    size_t k = 0;
    for (; o->seg < c->n_seg; o->seg++, o->row = 0) {
        int i = o->seg;
        const sg_seg_t *g = &c->seg[i];
        const char *name = sg_chunk_name(c, g);
        size_t name_len = strlen(name);
        uint64_t end = g->off + g->len;
        uint64_t *rec = g->rid < SG_SUMMARY_RECORDS ? o->first_recs + (size_t)i * ms->n_motif : NULL;
        for (; k < h->n && sg_hit_pos(h->a[k]) < end; k++) {
            if (sg_chunk_text_held(o) >= budget) {
                *taken = k;
                return 0;
            }
            uint64_t pos = sg_hit_pos(h->a[k]);
            uint32_t ref = f->rank_site[sg_hit_rank(h->a[k])];
            site_t x = {.p = &ms->pat[ref >> 3], .v = (int)(ref & 7), .t = c->seq + pos,
                        .start = g->rec_off + (pos - g->off)};
            x.m = &ms->motif[x.p->motif];
            x.len = x.p->len + x.p->gap[x.v].delta;
            o->per_pat[x.p - ms->pat]++;
            if (rec) rec[x.p->motif]++;
            const int counted = cnt || f->fmt == SG_OUT_COUNT_FILE;
            int n_aln = 1;
            aln[0] = (sg_aln_t){x.v, 0, 0};
            if (align && (!counted || o->tally)) n_aln = sg_site_align(x.p, x.v, x.p->max_mm, x.t, f->enc, f->all_alignments, aln);
            if (o->tally) {
                sg_guide_tally_t *t = &o->tally[x.p->motif];
                size_t before = t->n_hit;
                if (f->all_alignments) sg_site_align(x.p, x.v, x.p->max_mm, x.t, f->enc, 0, &best);
                tally_site(f, &x, f->all_alignments ? &best : &aln[0], t);
                o->tally_bytes += (t->n_hit - before) * sizeof *t->hit;
            }
            if (f->fmt == SG_OUT_COUNT_FILE) continue; /* the writer sums per_pat by file */
            if (cnt) {
                cnt[x.p->motif]++;
                continue;
            }
            put_site(f, &x, aln, n_aln, name, name_len, s);
        }
        if (end > upto) break; /* the piece goes on past these hits */
        if (!cnt) continue;
        if (!g->first) {
            o->head = memcpy(sg_malloc(ms->n_motif * sizeof *cnt), cnt, ms->n_motif * sizeof *cnt);
        } else if (!g->last) {
            o->tail = memcpy(sg_malloc(ms->n_motif * sizeof *cnt), cnt, ms->n_motif * sizeof *cnt);
        } else if (put_count_rows(ms, name, cnt, &o->row, budget > o->tally_bytes ? budget - o->tally_bytes : 0, s) < 0) {
            *taken = k;
            return 0;
        }
        memset(cnt, 0, ms->n_motif * sizeof *cnt);
    }
    o->done = o->seg == c->n_seg;
    *taken = k;
    return 1;
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
    if (f->tally) w->tally = sg_calloc(nm, sizeof *w->tally);
    if (!header || f->fmt == SG_OUT_BED || f->fmt == SG_OUT_CASOFFINDER) return 0;
    const int bulges = f->ms->dna_bulge || f->ms->rna_bulge, cfd = f->scores & SG_SCORE_CFD, mit = f->scores & SG_SCORE_MIT;
    kstring_t head = {0};
    if (f->fmt == SG_OUT_COUNT) {
        kputs("seqID\tpatternName\thits", &head);
    } else if (f->fmt == SG_OUT_COUNT_FILE) {
        kputs("file\tpatternName\thits", &head);
    } else if (f->fmt == SG_OUT_CASOFFINDER3) {
        ksprintf(&head, "##Generated by seqgpu %s\n#Id\tBulge Type\tcrRNA\tDNA\tChromosome\tLocation\tDirection\t"
                        "Mismatches\tBulge Size%s%s", SG_VERSION, cfd ? "\tCFD" : "", mit ? "\tMIT" : "");
    } else {
        ksprintf(&head, "seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched%s%s%s%s",
                 f->ms->approx || bulges ? "\tmismatches" : "", bulges ? "\tbulge_type\tbulge_size\tcrRNA" : "",
                 cfd ? "\tcfd" : "", mit ? "\tmit" : "");
    }
    kputc('\n', &head);
    int r = write_all(w, head.s, head.l);
    free(head.s);
    return r;
}

/* The count rows of name, a piece at a time: the record that spans chunks, an input file. */
static int put_rows(sg_writer_t *w, const char *name, const uint64_t *cnt)
{
    kstring_t s = {0};
    int row = 0, more = 1, r = 0;
    while (more && r == 0) {
        s.l = 0;
        more = put_count_rows(w->f->ms, name, cnt, &row, 1 << 20, &s) < 0;
        r = write_all(w, s.s, s.l);
    }
    free(s.s);
    return r;
}

int sg_writer_put(sg_writer_t *w, const sg_chunk_t *c, sg_chunk_text_t *o)
{
    const sg_motif_set_t *ms = w->f->ms;
    /* the record the chunk continues comes first (its first piece ends before any row of the chunk's own) */
    if (o->head && !o->head_put) {
        o->head_put = 1;
        for (int m = 0; m < ms->n_motif; m++) w->acc[m] += o->head[m];
        if (c->seg[0].last && put_rows(w, w->acc_name, w->acc) < 0) return SG_ERR_SYSTEM;
    }
    if (write_all(w, o->text.s, o->text.l) < 0) return SG_ERR_SYSTEM;
    o->text.l = 0;
    /* the sites tallied so far, in output order (the chunk's earlier pieces went before) */
    for (int m = 0; o->tally && m < ms->n_motif; m++) sg_tally_merge(&w->tally[m], &o->tally[m]);
    o->tally_bytes = 0;
    if (!o->done) return 0;
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
    if (o->tail) {
        memcpy(w->acc, o->tail, ms->n_motif * sizeof *w->acc);
        free(w->acc_name);
        w->acc_name = sg_strdup(sg_chunk_name(c, &c->seg[c->n_seg - 1]));
    }
    return 0;
}

int sg_writer_files(sg_writer_t *w, char *const *inputs)
{
    int r = 0;
    for (int i = 0; i < w->n_files && r == 0; i++) r = put_rows(w, inputs[i], w->file_total + (size_t)i * w->f->ms->n_motif);
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
    free(w->tally);
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
