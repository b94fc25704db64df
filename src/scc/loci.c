/* The loci of an assembly's repeats: the k-mers of the repeats' unitigs
 * looked up along the sequence (pass 1), runs of them grouped into loci;
 * then the loci's bases read again (pass 2) for the identity between their
 * copies and the pictures. Both passes are pipelines over the input (read,
 * parse, chunk in order; the k-mers looked up, or the identities aligned,
 * on all threads; the loci made in order), so that the loci do not depend
 * on the threads. */
#define _GNU_SOURCE
#include "scc/loci.h"
#include "scc/period.h"
#include "core/dna.h"
#include "formats/input.h"
#include "core/log.h"
#include "core/pipeline.h"
#include "core/progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the repeats' k-mers ---- */

/* How a k-mer's canonical form reads on the repeat's strand: the strand of
 * the twin component that the report describes. */
enum { SENSE_PLUS, SENSE_MINUS, SENSE_NONE /* a component that is its own twin: (AT)n */ };

/* Canonical k-mers with a value each (0: none), by open addressing. */
typedef struct {
    sg_kmer128_t *key;
    uint64_t *val;
    uint64_t mask;
    int k;
} ktab_t;

static void ktab_init(ktab_t *t, uint64_t n, int k)
{
    uint64_t cap = 64;
    while (cap < 2 * n) cap *= 2;
    *t = (ktab_t){.key = sg_malloc(cap * sizeof *t->key), .val = sg_calloc(cap, sizeof *t->val), .mask = cap - 1, .k = k};
}

static void ktab_free(ktab_t *t)
{
    free(t->key);
    free(t->val);
}

static uint64_t *ktab_slot(const ktab_t *t, sg_kmer128_t x)
{
    uint64_t i = sg_kmer128_hash(x) & t->mask;
    while (t->val[i] && t->key[i] != x) i = (i + 1) & t->mask;
    return &t->val[i];
}

static void ktab_put(ktab_t *t, sg_kmer128_t x, uint64_t v)
{
    uint64_t *slot = ktab_slot(t, x);
    t->key[slot - t->val] = x;
    *slot = v; /* a canonical k-mer is in one unitig, so in one repeat */
}

/* The value of canonical k-mer x, 0 for none. */
static uint64_t ktab_get(const ktab_t *t, sg_kmer128_t x) { return *ktab_slot(t, x); }

/* The k-mers of a text, in order: each one's canonical form, whether that
 * is the forward k-mer, and its start; k-mers stop at any base that is not
 * A/C/G/T. */
typedef struct {
    const char *s;
    uint64_t n, i;
    int k, run;
    sg_kmer128_t fwd, rev;
} kiter_t;

static kiter_t kiter(const char *s, uint64_t n, int k) { return (kiter_t){.s = s, .n = n, .k = k}; }

static int kiter_next(kiter_t *it, sg_kmer128_t *x, int *fw, uint64_t *at)
{
    while (it->i < it->n)
        if (sg_kmer128_roll(&it->fwd, &it->rev, &it->run, (unsigned char)it->s[it->i++], it->k)) {
            *fw = it->fwd <= it->rev;
            *x = *fw ? it->fwd : it->rev;
            *at = it->i - (uint64_t)it->k;
            return 1;
        }
    return 0;
}

/* The k-mers of every repeat's unitigs, each with its sense on the
 * repeat's strand (the twin holding the repeat's first node forwards):
 * (repeat index + 1) << 2 | sense. */
static void ktab_build(ktab_t *t, const sg_graph_t *g, const uint32_t *comp, const sg_repeats_t *rp)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < rp->n; i++)
        for (uint32_t j = 0; j < rp->r[i].n_nodes; j++) n += g->kmers[rp->r[i].nodes[j]];
    ktab_init(t, n, g->k);
    for (uint32_t i = 0; i < rp->n; i++) {
        const sg_repeat_t *r = &rp->r[i];
        uint32_t c = comp[sg_vert(r->nodes[0], 0)];
        int own_twin = comp[sg_vert(r->nodes[0], 1)] == c;
        for (uint32_t j = 0; j < r->n_nodes; j++) {
            uint32_t u = r->nodes[j];
            int minus = comp[sg_vert(u, 0)] != c; /* the unitig is in the repeat's twin reversed */
            kiter_t it = kiter(g->seq + g->seq_off[u], sg_graph_len(g, u), g->k);
            sg_kmer128_t x;
            int fw;
            uint64_t at;
            while (kiter_next(&it, &x, &fw, &at))
                ktab_put(t, x, (uint64_t)(i + 1) << 2 | (own_twin ? SENSE_NONE : fw != minus ? SENSE_PLUS : SENSE_MINUS));
        }
    }
}

/* Whether the unit (as units.fa writes it) reads on the repeat's strand
 * (+1), against it (-1), or cannot tell (0: no unit, its own twin). */
static int unit_sense(const ktab_t *t, const sg_repeat_t *r, uint32_t i)
{
    uint64_t p = strlen(r->unit);
    if (!p) return 0;
    char *s = sg_malloc(t->k + 1);
    for (int j = 0; j < t->k; j++) s[j] = r->unit[j % p];
    int sense = 0, fw;
    kiter_t it = kiter(s, (uint64_t)t->k, t->k);
    sg_kmer128_t x;
    uint64_t at;
    if (kiter_next(&it, &x, &fw, &at)) {
        uint64_t v = ktab_get(t, x);
        if (v >> 2 == i + 1 && (v & 3) != SENSE_NONE) sense = fw == ((v & 3) == SENSE_PLUS) ? 1 : -1;
    }
    free(s);
    return sense;
}

/* ---- pass 1: the k-mers along the sequence, grouped into loci ---- */

typedef struct {
    int64_t rid;
    uint64_t pos;
    uint32_t val; /* the k-mer's in the table: repeat and sense */
    uint8_t fw;
} hit_t;

typedef struct {
    hit_t *h;
    size_t n;
} hits_t;

/* A repeat's locus while its k-mers go on. */
typedef struct {
    int64_t rid; /* -1: none open */
    uint64_t start, last;
    uint64_t plus, minus; /* k-mers on the repeat's strand and against it */
} open_t;

typedef struct {
    sg_input_t in; /* first: the input steps take the context as theirs */
    const ktab_t *t;
    open_t *open;
    uint8_t *listed;               /* per repeat: in open_list */
    uint32_t *open_list, n_open;   /* the repeats with a locus open (and some whose locus ended) */
    uint64_t *gap; /* per repeat: the most bases from one of its k-mers to the next in one locus */
    sg_loci_t *out;
    size_t m_loci;
    int64_t named_rid; /* the last record named in out */
} pass1_t;

static void free_hits(void *p)
{
    hits_t *h = p;
    free(h->h);
    free(h);
}

static int step_lookup(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    const pass1_t *x = vctx;
    sg_chunk_t *c = item;
    hits_t *h = sg_calloc(1, sizeof *h);
    size_t m = 0;
    int seg = 0;
    const int k = x->t->k;
    kiter_t it = kiter(c->seq, (uint64_t)(c->len + c->ov), k);
    sg_kmer128_t km;
    int fw;
    uint64_t at;
    while (kiter_next(&it, &km, &fw, &at) && at < c->len) {
        uint32_t v = (uint32_t)ktab_get(x->t, km);
        if (!v) continue;
        while (seg + 1 < c->n_seg && c->seg[seg + 1].off <= at) seg++;
        const sg_seg_t *sg = &c->seg[seg];
        if (h->n == m) h->h = sg_realloc(h->h, (m = m ? 2 * m : 256) * sizeof *h->h);
        h->h[h->n++] = (hit_t){sg->rid, (uint64_t)sg->rec_off + (at - sg->off), v, (uint8_t)fw};
    }
    c->out = h;
    c->out_free = free_hits;
    return 0;
}

/* The record names: a record's first k-mer of a repeat names it. */
static void name_record(pass1_t *x, int64_t rid, const char *name)
{
    sg_loci_t *o = x->out;
    o->names = sg_realloc(o->names, ((size_t)o->n_names + 1) * sizeof *o->names);
    o->rids = sg_realloc(o->rids, ((size_t)o->n_names + 1) * sizeof *o->rids);
    o->rids[o->n_names] = rid;
    o->names[o->n_names++] = sg_strdup(name);
    x->named_rid = rid;
}

/* A locus ends: kept when it spans more than one k-mer. */
static void close_locus(pass1_t *x, uint32_t i, uint32_t rec)
{
    open_t *op = &x->open[i];
    sg_loci_t *o = x->out;
    uint64_t end = op->last + (uint64_t)x->t->k;
    if (end - op->start > (uint64_t)x->t->k) {
        if (o->n == x->m_loci) o->l = sg_realloc(o->l, (x->m_loci = x->m_loci ? 2 * x->m_loci : 1024) * sizeof *o->l);
        char strand = op->plus > op->minus ? '+' : op->minus > op->plus ? '-' : '.';
        o->l[o->n++] = (sg_locus_t){.rec = rec, .repeat = i, .start = op->start, .end = end, .strand = strand};
    }
    op->rid = -1;
}

static void close_all(pass1_t *x)
{
    for (uint32_t j = 0; j < x->n_open; j++) {
        uint32_t i = x->open_list[j];
        if (x->open[i].rid >= 0) close_locus(x, i, x->out->n_names - 1);
        x->listed[i] = 0;
    }
    x->n_open = 0;
}

static int step_group(void *vctx, void *item, sg_emit_t *emit)
{
    pass1_t *x = vctx;
    if (!item) { /* the end of the input */
        close_all(x);
        return 0;
    }
    sg_chunk_t *c = item;
    const hits_t *h = c->out;
    int seg = 0;
    for (size_t j = 0; j < h->n; j++) {
        const hit_t *t = &h->h[j];
        if (t->rid != x->named_rid) { /* a new record: every locus of the one before ends */
            close_all(x);
            while (c->seg[seg].rid != t->rid) seg++;
            name_record(x, t->rid, sg_chunk_name(c, &c->seg[seg]));
        }
        uint32_t i = (t->val >> 2) - 1, sense = t->val & 3;
        open_t *op = &x->open[i];
        if (op->rid >= 0 && t->pos - op->last > x->gap[i]) close_locus(x, i, x->out->n_names - 1);
        if (op->rid < 0) {
            if (!x->listed[i]) x->open_list[x->n_open++] = i, x->listed[i] = 1;
            *op = (open_t){.rid = t->rid, .start = t->pos};
        }
        op->last = t->pos;
        if (sense != SENSE_NONE) {
            if (t->fw == (sense == SENSE_PLUS)) op->plus++;
            else op->minus++;
        }
    }
    /* the repeats whose loci ended leave the list */
    uint32_t kept = 0;
    for (uint32_t j = 0; j < x->n_open; j++) {
        uint32_t i = x->open_list[j];
        if (x->open[i].rid >= 0) x->open_list[kept++] = i;
        else x->listed[i] = 0;
    }
    x->n_open = kept;
    sg_emit(emit, c);
    return 0;
}

/* A pass over the input: its chunks (with overlap bases of the next) through the steps. */
static int run_pass(sg_input_t *in, const sg_loci_opts_t *o, size_t overlap, const sg_step_t *more, int n_more,
                    void *ctx, const char *stage)
{
    sg_input_init(in, sg_reader_new(o->inputs, o->n_inputs, o->read_block, o->n_threads), overlap);
    sg_step_t steps[8] = {{"read", sg_input_read, 1, 0}, {"parse", sg_input_parse, 0, 0}, {"chunk", sg_input_chunk, 1, 0}};
    for (int i = 0; i < n_more; i++) steps[3 + i] = more[i];
    sg_progress_stage(stage, sg_input_stored_bytes(o->inputs, o->n_inputs));
    sg_pipeline_opts_t po = {.n_threads = o->n_threads, .max_items = 2 * o->n_threads + 4,
                             .free_item = sg_input_free_chunk};
    int r = sg_pipeline_run(steps, 3 + n_more, ctx, &po);
    sg_input_free(in);
    return r;
}

static int cmp_locus(const void *a, const void *b)
{
    const sg_locus_t *x = a, *y = b;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->repeat > y->repeat) - (x->repeat < y->repeat);
}

/* ---- pass 2: the loci's bases ---- */

/* A locus whose bases are being read, then aligned. */
typedef struct {
    size_t idx;     /* into the loci */
    char *seq;
    uint64_t got;
    double identity;
    uint32_t period;    /* the locus's own */
    uint64_t *spectrum; /* its distance spectrum, n_spectrum entries */
    size_t n_spectrum;
} bases_t;

typedef struct {
    bases_t *b;
    size_t n;
} done_t;

typedef struct {
    sg_input_t in; /* first: the input steps take the context as theirs */
    sg_loci_t *out;
    const sg_repeats_t *rp;
    size_t next;        /* the first locus not started */
    bases_t *active;    /* the loci started and not complete */
    size_t n_active, m_active;
} pass2_t;

static void free_done(void *p)
{
    done_t *d = p;
    for (size_t i = 0; i < d->n; i++) {
        free(d->b[i].seq);
        free(d->b[i].spectrum);
    }
    free(d->b);
    free(d);
}

/* In order: the bases of each piece go to the loci over it; the loci that
 * it completes go on with the chunk. */
static int step_gather(void *vctx, void *item, sg_emit_t *emit)
{
    pass2_t *x = vctx;
    if (!item) return 0;
    sg_chunk_t *c = item;
    sg_loci_t *o = x->out;
    done_t *d = sg_calloc(1, sizeof *d);
    size_t m_done = 0;
    for (int s = 0; s < c->n_seg; s++) {
        const sg_seg_t *sg = &c->seg[s];
        const uint64_t beg = (uint64_t)sg->rec_off, end = beg + sg->len;
        /* the loci that start in the piece (loci of records the first pass did not see cannot be) */
        while (x->next < o->n && o->rids[o->l[x->next].rec] == sg->rid && o->l[x->next].start < end) {
            const sg_locus_t *l = &o->l[x->next];
            if (x->n_active == x->m_active)
                x->active = sg_realloc(x->active, (x->m_active = x->m_active ? 2 * x->m_active : 16) * sizeof *x->active);
            x->active[x->n_active++] = (bases_t){.idx = x->next, .seq = sg_malloc(l->end - l->start + 1)};
            x->next++;
        }
        size_t kept = 0;
        for (size_t a = 0; a < x->n_active; a++) {
            bases_t *b = &x->active[a];
            const sg_locus_t *l = &o->l[b->idx];
            if (o->rids[l->rec] == sg->rid) {
                uint64_t from = l->start + b->got, to = l->end < end ? l->end : end;
                for (uint64_t p = from > beg ? from : beg; p < to; p++)
                    b->seq[b->got++] = (char)(c->seq[sg->off + (p - beg)] & ~0x20); /* upper case */
            }
            if (b->got < l->end - l->start && o->rids[l->rec] == sg->rid) {
                x->active[kept++] = *b;
                continue;
            }
            /* complete (or its record ended short of it: the input changed) */
            if (d->n == m_done) d->b = sg_realloc(d->b, (m_done = m_done ? 2 * m_done : 16) * sizeof *d->b);
            d->b[d->n++] = *b;
        }
        x->n_active = kept;
    }
    c->out = d;
    c->out_free = free_done;
    sg_emit(emit, c);
    return 0;
}

/* A locus's own period: the distance at which most of its k-mers come
 * back (up to half its length), when a twentieth of them do; else the
 * repeat's (the shortest cycle of its component, which may hold arrays of
 * several periods). */
static uint32_t locus_period(const uint64_t *spectrum, size_t n_spectrum, uint64_t len, uint64_t repeat_period)
{
    uint32_t best = 0;
    for (uint64_t d = 1; d < n_spectrum && 2 * d <= len; d++)
        if (spectrum[d] > spectrum[best]) best = (uint32_t)d;
    const double kmers = len >= SG_SPECTRUM_K ? (double)(len - SG_SPECTRUM_K + 1) : 0;
    return best && spectrum[best] >= 2 && spectrum[best] >= 0.05 * kmers ? best : (uint32_t)repeat_period;
}

/* On all threads: the spectrum, period and identity of each completed locus. */
static int step_align(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    const pass2_t *x = vctx;
    done_t *d = ((sg_chunk_t *)item)->out;
    for (size_t i = 0; i < d->n; i++) {
        bases_t *b = &d->b[i];
        const sg_locus_t *l = &x->out->l[b->idx];
        const uint64_t n = b->got < SG_LOCUS_SEQ_MAX ? b->got : SG_LOCUS_SEQ_MAX;
        b->n_spectrum = n < SG_SPECTRUM_MAX + 1 ? n + 1 : SG_SPECTRUM_MAX + 1;
        b->spectrum = sg_calloc(b->n_spectrum, sizeof *b->spectrum);
        sg_distance_spectrum(b->seq, n, b->spectrum);
        b->period = locus_period(b->spectrum, b->n_spectrum, n, x->rp->r[l->repeat].period);
        b->identity = b->got == l->end - l->start ? sg_copy_identity(b->seq, b->got, b->period) : -1;
    }
    return 0;
}

/* In order: the identities into the loci, the spectra and sequences into the views. */
static int step_store(void *vctx, void *item, sg_emit_t *emit)
{
    pass2_t *x = vctx;
    if (!item) return 0;
    done_t *d = ((sg_chunk_t *)item)->out;
    for (size_t i = 0; i < d->n; i++) {
        bases_t *b = &d->b[i];
        sg_locus_t *l = &x->out->l[b->idx];
        l->identity = (float)b->identity;
        l->period = b->period;
        if (l->repeat >= x->out->n_view) continue;
        sg_locus_view_t *v = &x->out->view[l->repeat];
        for (size_t j = 1; j < b->n_spectrum; j++) v->spectrum[j] += b->spectrum[j];
        if (b->idx == v->locus) {
            v->len = b->got < SG_LOCUS_SEQ_MAX ? b->got : SG_LOCUS_SEQ_MAX;
            v->seq = b->seq;
            b->seq = NULL;
        }
    }
    sg_emit(emit, item); /* past the last step, where the pipeline frees it */
    return 0;
}

/* ---- the loci ---- */

/* Loci apart: more than two k-mers and two periods (at most 2 kb) of bases
 * without a k-mer of the repeat; a copy's variant takes up to k k-mers
 * away, two close ones twice that, and the copies of a diverged array, or
 * of arrays of related units in one component (a family), may hold a few
 * k-mers of the repeat each. */
static uint64_t locus_gap(int k, uint64_t period) { return 2 * (uint64_t)k + 2 * (period < 1000 ? period : 1000); }

int sg_loci_find(const sg_loci_opts_t *o, const sg_graph_t *g, const uint32_t *comp, sg_repeats_t *rp, sg_loci_t *out)
{
    memset(out, 0, sizeof *out);
    if (!rp->n) return 0;
    ktab_t t = {0};
    ktab_build(&t, g, comp, rp);
    pass1_t x = {.t = &t, .out = out, .named_rid = -1};
    x.open = sg_malloc(((size_t)rp->n + 1) * sizeof *x.open);
    x.listed = sg_calloc((size_t)rp->n + 1, 1);
    x.open_list = sg_malloc(((size_t)rp->n + 1) * sizeof *x.open_list);
    x.gap = sg_malloc(((size_t)rp->n + 1) * sizeof *x.gap);
    int *sense = sg_malloc(((size_t)rp->n + 1) * sizeof *sense);
    for (uint32_t i = 0; i < rp->n; i++) {
        x.open[i].rid = -1;
        x.gap[i] = locus_gap(g->k, rp->r[i].period);
        sense[i] = unit_sense(&t, &rp->r[i], i);
    }
    const sg_step_t steps1[] = {{"look up", step_lookup, 0, 0}, {"group", step_group, 1, 0}};
    int r = run_pass(&x.in, o, (size_t)g->k - 1, steps1, 2, &x, "placing the repeats");
    ktab_free(&t);
    free(x.open);
    free(x.listed);
    free(x.open_list);
    free(x.gap);
    if (r < 0) {
        free(sense);
        return r;
    }
    /* the strand of the unit, not of the repeat's twin; each repeat the sum of its loci */
    for (uint32_t i = 0; i < rp->n; i++) rp->r[i].copies = rp->r[i].length = rp->r[i].loci = 0;
    for (size_t j = 0; j < out->n; j++) {
        sg_locus_t *l = &out->l[j];
        sg_repeat_t *rr = &rp->r[l->repeat];
        if (!sense[l->repeat]) l->strand = '.';
        else if (sense[l->repeat] < 0 && l->strand != '.') l->strand = l->strand == '+' ? '-' : '+';
        rr->length += (double)(l->end - l->start);
        rr->loci++;
    }
    free(sense);
    uint32_t *rank = sg_malloc(((size_t)rp->n + 1) * sizeof *rank);
    sg_repeats_order(rp, rank);
    for (size_t j = 0; j < out->n; j++) out->l[j].repeat = rank[out->l[j].repeat];
    free(rank);
    qsort(out->l, out->n, sizeof *out->l, cmp_locus);

    /* the views: each repeat's largest locus (the first of them) */
    out->n_view = o->n_view < rp->n ? o->n_view : rp->n;
    out->view = sg_calloc((size_t)out->n_view + 1, sizeof *out->view);
    for (uint32_t i = 0; i < out->n_view; i++) {
        out->view[i].spectrum = sg_calloc(SG_SPECTRUM_MAX + 1, sizeof *out->view[i].spectrum);
        out->view[i].locus = SIZE_MAX;
    }
    for (size_t j = 0; j < out->n; j++) {
        const sg_locus_t *l = &out->l[j];
        if (l->repeat >= out->n_view) continue;
        sg_locus_view_t *v = &out->view[l->repeat];
        if (v->locus == SIZE_MAX || l->end - l->start > out->l[v->locus].end - out->l[v->locus].start) v->locus = j;
    }
    pass2_t y = {.out = out, .rp = rp};
    const sg_step_t steps2[] = {{"gather", step_gather, 1, 0}, {"align", step_align, 0, 0}, {"store", step_store, 1, 0}};
    r = run_pass(&y.in, o, 0, steps2, 3, &y, "reading the loci");
    for (size_t a = 0; a < y.n_active; a++) free(y.active[a].seq);
    free(y.active);
    /* copies: each locus's length over its own period */
    for (size_t j = 0; j < out->n && r == 0; j++)
        rp->r[out->l[j].repeat].copies += (double)(out->l[j].end - out->l[j].start) / out->l[j].period;
    return r;
}

/* ---- bridges ---- */

/* A break the sequence shows: the last k-mer of vertex from (an oriented
 * unitig) and, a few k-mers on, the first of vertex to, the bases from the
 * one to the other (the gap's k-mers, each under the threshold) between. */
typedef struct {
    uint32_t from, to, len;
    char *seq;
} bridge_t;

typedef struct {
    bridge_t *b;
    size_t n, m;
} bridges_t;

typedef struct {
    sg_input_t in; /* first: the input steps take the context as theirs */
    const ktab_t *t;
    const sg_graph_t *g;
    uint32_t max_gap;
    bridges_t all;
} bridge_ctx_t;

static void bridges_push(bridges_t *b, bridge_t x)
{
    if (b->n == b->m) b->b = sg_realloc(b->b, (b->m = b->m ? 2 * b->m : 64) * sizeof *b->b);
    b->b[b->n++] = x;
}

static void free_bridges(void *p)
{
    bridges_t *b = p;
    for (size_t i = 0; i < b->n; i++) free(b->b[i].seq);
    free(b->b);
    free(b);
}

/* One bridge in one of its two readings (the sequence may show either
 * strand): the one whose vertices, then bases, come first. */
static bridge_t bridge_of(uint32_t from, uint32_t to, const char *s, uint32_t len)
{
    bridge_t b = {from, to, len, sg_malloc((size_t)len + 1)}, r = {sg_vert_flip(to), sg_vert_flip(from), len, NULL};
    char *rc = sg_malloc((size_t)len + 1);
    for (uint32_t i = 0; i < len; i++) {
        b.seq[i] = (char)(s[i] & ~0x20);
        rc[len - 1 - i] = sg_base_complement(b.seq[i]);
    }
    b.seq[len] = rc[len] = 0;
    int flip = r.from != b.from ? r.from < b.from : r.to != b.to ? r.to < b.to : strcmp(rc, b.seq) < 0;
    if (!flip) {
        free(rc);
        return b;
    }
    free(b.seq);
    r.seq = rc;
    return r;
}

/* On all threads: each chunk's breaks whose first k-mer it owns. */
static int step_breaks(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    const bridge_ctx_t *x = vctx;
    sg_chunk_t *c = item;
    bridges_t *out = sg_calloc(1, sizeof *out);
    const int k = x->t->k;
    kiter_t it = kiter(c->seq, (uint64_t)(c->len + c->ov), k);
    sg_kmer128_t km;
    int fw, last = 0;
    uint64_t at, prev = UINT64_MAX;
    uint32_t prev_v = 0;
    while (kiter_next(&it, &km, &fw, &at) && at <= c->len + x->max_gap) {
        uint64_t v = ktab_get(x->t, km);
        if (!v) continue;
        /* the unitig, and where the k-mer is along it as the sequence reads it */
        uint32_t u = (uint32_t)(v >> 32) - 1, off = (uint32_t)(v >> 1) & 0x7fffffffu;
        int along = fw == (int)(v & 1);
        uint64_t n = x->g->kmers[u], idx = along ? off : n - 1 - off;
        uint32_t vert = sg_vert(u, !along);
        if (prev != UINT64_MAX && last && idx == 0 && at - prev >= 2 && at - prev <= (uint64_t)x->max_gap + 1 &&
            prev < c->len) {
            /* the gap's bases, from the second base of the last k-mer to the last but one of the first: no N,
             * no record's end */
            const char *gap = c->seq + prev + 1;
            uint32_t len = (uint32_t)(at - prev + (uint64_t)k - 2), ok = 1;
            for (uint32_t i = 0; i < len && ok; i++) ok = sg_dna_code((unsigned char)gap[i]) >= 0;
            if (ok) bridges_push(out, bridge_of(prev_v, vert, gap, len));
        }
        prev = at;
        prev_v = vert;
        last = idx == n - 1;
    }
    c->out = out;
    c->out_free = free_bridges;
    return 0;
}

/* In order: every chunk's breaks into one list. */
static int step_gather_breaks(void *vctx, void *item, sg_emit_t *emit)
{
    bridge_ctx_t *x = vctx;
    if (!item) return 0;
    bridges_t *b = ((sg_chunk_t *)item)->out;
    for (size_t i = 0; i < b->n; i++) bridges_push(&x->all, b->b[i]);
    b->n = 0; /* theirs now */
    sg_emit(emit, item); /* past the last step, where the pipeline frees it */
    return 0;
}

static int cmp_bridge(const void *a, const void *b)
{
    const bridge_t *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return strcmp(x->seq, y->seq);
}

int64_t sg_bridges_add(const sg_loci_opts_t *o, sg_graph_t *g)
{
    if (!g->n || !o->max_gap) return 0;
    /* every unitig's k-mers: (node + 1) << 32 | offset << 1 | whether the canonical k-mer is the forward one */
    uint64_t n = 0;
    for (uint32_t u = 0; u < g->n; u++) n += g->kmers[u];
    ktab_t t;
    ktab_init(&t, n, g->k);
    for (uint32_t u = 0; u < g->n; u++) {
        kiter_t it = kiter(g->seq + g->seq_off[u], sg_graph_len(g, u), g->k);
        sg_kmer128_t x;
        int fw;
        uint64_t at;
        while (kiter_next(&it, &x, &fw, &at)) ktab_put(&t, x, (uint64_t)(u + 1) << 32 | at << 1 | (uint64_t)fw);
    }
    bridge_ctx_t x = {.t = &t, .g = g, .max_gap = o->max_gap};
    const sg_step_t steps[] = {{"breaks", step_breaks, 0, 0}, {"gather", step_gather_breaks, 1, 0}};
    int r = run_pass(&x.in, o, (size_t)g->k - 1 + o->max_gap, steps, 2, &x, "bridging");
    ktab_free(&t);
    /* each bridge once, with the times the sequence shows it; those shown
     * often enough become segments between their two unitigs' ends */
    qsort(x.all.b, x.all.n, sizeof *x.all.b, cmp_bridge);
    uint64_t n_edges = 0;
    sg_edge_t *e = sg_malloc((g->n_edges + 4 * x.all.n + 1) * sizeof *e);
    for (uint32_t v = 0; v < g->n_vert; v++)
        for (uint64_t j = g->off[v]; j < g->off[v + 1]; j++) e[n_edges++] = (sg_edge_t){v, g->adj[j], g->ovl[j]};
    int64_t added = 0;
    for (size_t i = 0, j; r == 0 && i < x.all.n; i = j) {
        for (j = i + 1; j < x.all.n && !cmp_bridge(&x.all.b[i], &x.all.b[j]);) j++;
        if (j - i < o->min_support) continue;
        const bridge_t *b = &x.all.b[i];
        uint32_t s = g->n++;
        g->n_vert += 2;
        g->seq_off = sg_realloc(g->seq_off, ((size_t)g->n + 1) * sizeof *g->seq_off);
        g->seq = sg_realloc(g->seq, g->seq_off[s] + b->len + 1);
        memcpy(g->seq + g->seq_off[s], b->seq, b->len);
        g->seq_off[s + 1] = g->seq_off[s] + b->len;
        g->kmers = sg_realloc(g->kmers, (size_t)g->n * sizeof *g->kmers);
        g->count_sum = sg_realloc(g->count_sum, (size_t)g->n * sizeof *g->count_sum);
        g->kmers[s] = b->len - (uint32_t)g->k + 1;
        g->count_sum[s] = (double)g->kmers[s] * (double)(j - i);
        const uint32_t ov = (uint32_t)g->k - 1;
        e[n_edges++] = (sg_edge_t){b->from, sg_vert(s, 0), ov};
        e[n_edges++] = (sg_edge_t){sg_vert(s, 0), b->to, ov};
        e[n_edges++] = (sg_edge_t){sg_vert_flip(b->to), sg_vert(s, 1), ov};
        e[n_edges++] = (sg_edge_t){sg_vert(s, 1), sg_vert_flip(b->from), ov};
        added++;
    }
    if (added) sg_graph_set_edges(g, e, n_edges);
    free(e);
    for (size_t i = 0; i < x.all.n; i++) free(x.all.b[i].seq);
    free(x.all.b);
    return r < 0 ? r : added;
}

/* ---- the distance spectrum and the identity of copies ---- */

void sg_distance_spectrum(const char *s, uint64_t len, uint64_t *spectrum)
{
    _Static_assert(SG_SPECTRUM_K == SG_PERIOD_K, "one k-mer size for the distance spectra");
    sg_kmer_last_t t = {0};
    /* a locus's or a read's sequence: far under 2^32 bases (SG_LOCUS_SEQ_MAX) */
    sg_repeated_kmers(s, len < UINT32_MAX ? (uint32_t)len : UINT32_MAX, SG_SPECTRUM_MAX, &t, sg_count_distance,
                      spectrum);
    sg_kmer_last_free(&t);
}

double sg_copy_identity(const char *s, uint64_t len, uint64_t p)
{
    if (!p || len < 2 * p) return -1;
    const uint64_t n = len - p;
    const char *a = s, *b = s + p;
    /* the band: a copy's insertions and deletions shift the next one's
     * alignment a few bases at most (its own come back one copy on) */
    const int64_t w = p / 16 + 8 < 64 ? (int64_t)(p / 16 + 8) : 64;
    const int64_t width = 2 * w + 1;
    /* row i holds D[i][j] for j = i - w .. i + w, at index j - i + w */
    uint32_t *prev = sg_malloc((size_t)width * sizeof *prev), *cur = sg_malloc((size_t)width * sizeof *cur);
    const uint32_t INF = UINT32_MAX / 2;
    for (int64_t d = 0; d < width; d++) {
        int64_t j = d - w;
        prev[d] = j >= 0 ? (uint32_t)j : INF;
    }
    for (uint64_t i = 1; i <= n; i++) {
        for (int64_t d = 0; d < width; d++) {
            int64_t j = (int64_t)i + d - w;
            if (j < 0 || j > (int64_t)n) {
                cur[d] = INF;
                continue;
            }
            uint32_t best = INF;
            if (j == 0) best = (uint32_t)i;
            else {
                int same = a[i - 1] == b[j - 1] && sg_dna_code((unsigned char)a[i - 1]) >= 0;
                best = prev[d] + !same;                                 /* D[i-1][j-1] */
                if (d + 1 < width && prev[d + 1] + 1 < best) best = prev[d + 1] + 1; /* D[i-1][j]: a gap in b */
                if (d > 0 && cur[d - 1] + 1 < best) best = cur[d - 1] + 1;           /* D[i][j-1]: a gap in a */
            }
            cur[d] = best;
        }
        uint32_t *tmp = prev;
        prev = cur;
        cur = tmp;
    }
    double edits = prev[w];
    free(prev);
    free(cur);
    return edits >= (double)n ? 0 : 1 - edits / (double)n;
}

/* ---- the output ---- */

void sg_loci_write_header(FILE *fp) { fputs("#chrom\tstart\tend\trepeat\tscore\tstrand\tperiod\tcopies\tidentity\n", fp); }

void sg_loci_write_bed(FILE *fp, const sg_loci_t *l)
{
    sg_loci_write_header(fp);
    for (size_t j = 0; j < l->n; j++) {
        const sg_locus_t *x = &l->l[j];
        fprintf(fp, "%s\t%llu\t%llu\trepeat%u\t", l->names[x->rec], (unsigned long long)x->start,
                (unsigned long long)x->end, x->repeat + 1);
        if (x->identity >= 0) fprintf(fp, "%d", (int)lround(1000.0 * x->identity));
        else fputc('0', fp);
        fprintf(fp, "\t%c\t%u\t%.2f\t", x->strand, x->period, (double)(x->end - x->start) / x->period);
        if (x->identity >= 0) fprintf(fp, "%.3f\n", x->identity);
        else fputs(".\n", fp);
    }
}

void sg_loci_free(sg_loci_t *l)
{
    for (uint32_t i = 0; i < l->n_names; i++) free(l->names[i]);
    for (uint32_t i = 0; i < l->n_view; i++) {
        free(l->view[i].spectrum);
        free(l->view[i].seq);
    }
    free(l->names);
    free(l->rids);
    free(l->view);
    free(l->l);
    memset(l, 0, sizeof *l);
}
