#define _GNU_SOURCE
#include "core/chunk.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

sg_chunk_t *sg_chunk_new(size_t cap)
{
    sg_chunk_t *c = sg_calloc(1, sizeof *c);
    c->cap = cap;
    c->seq = cap ? sg_malloc(cap) : NULL;
    c->err_seg = -1;
    return c;
}

void sg_chunk_free(sg_chunk_t *c)
{
    if (!c) return;
    if (c->out_free) c->out_free(c->out);
    free(c->seq);
    free(c->seg);
    free(c->names);
    free(c->err);
    free(c->packed);
    free(c);
}

void sg_chunk_reserve(sg_chunk_t *c, size_t n)
{
    size_t need = c->len + c->ov + n;
    if (need <= c->cap) return;
    c->cap = need + need / 4;
    c->seq = sg_realloc(c->seq, c->cap);
}

sg_seg_t *sg_chunk_add_seg(sg_chunk_t *c)
{
    if (c->n_seg == c->m_seg) {
        c->m_seg = c->m_seg ? 2 * c->m_seg : 16;
        c->seg = sg_realloc(c->seg, c->m_seg * sizeof *c->seg);
    }
    sg_seg_t *s = &c->seg[c->n_seg++];
    memset(s, 0, sizeof *s);
    return s;
}

uint32_t sg_chunk_add_name(sg_chunk_t *c, const char *s, size_t n)
{
    if (c->names_len + n + 1 > c->names_cap) {
        c->names_cap = 2 * (c->names_len + n + 1) + 64;
        c->names = sg_realloc(c->names, c->names_cap);
    }
    uint32_t at = (uint32_t)c->names_len;
    memcpy(c->names + at, s, n);
    c->names[at + n] = 0;
    c->names_len += n + 1;
    return at;
}

int sg_chunk_seg_at(const sg_chunk_t *c, uint64_t pos)
{
    int lo = 0, hi = c->n_seg - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->seg[mid].off <= pos) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

void sg_chunker_init(sg_chunker_t *ck, size_t overlap)
{
    memset(ck, 0, sizeof *ck);
    ck->overlap = overlap;
    ck->name = sg_strdup("");
}

void sg_chunker_resume(sg_chunker_t *ck, int file, int64_t rid, int64_t file_rid0, const char *name, int64_t rec_pos)
{
    ck->file = file;
    ck->file_rec0 = file_rid0;
    ck->n_rec = rid + 1; /* started */
    ck->rec_pos = rec_pos;
    free(ck->name);
    ck->name = sg_strdup(name);
}

void sg_chunker_free(sg_chunker_t *ck)
{
    sg_chunk_free(ck->pending);
    free(ck->name);
    ck->pending = NULL;
    ck->name = NULL;
}

static void emit(sg_chunker_t *ck, sg_chunk_t *c, sg_chunk_out_fn out, void *arg)
{
    c->id = ck->n_out++;
    out(arg, c);
}

/* The pending chunk's last piece ends its record: no overlap, hand it on. */
static void close_pending(sg_chunker_t *ck, sg_chunk_out_fn out, void *arg)
{
    sg_chunk_t *p = ck->pending;
    ck->pending = NULL;
    if (p->n_seg) p->seg[p->n_seg - 1].last = 1;
    emit(ck, p, out, arg);
}

void sg_chunker_push(sg_chunker_t *ck, sg_chunk_t *c, sg_chunk_out_fn out, void *arg)
{
    if (!c) {
        if (ck->pending) close_pending(ck, out, arg);
        return;
    }
    if (c->tail) {
        /* the part's last record goes on: its next bases complete the overlap */
        sg_chunk_t *p = ck->pending;
        if (p && c->n_seg && !c->seg[0].first) {
            size_t take = c->seg[0].len < ck->overlap ? c->seg[0].len : ck->overlap;
            sg_chunk_reserve(p, take);
            memcpy(p->seq + p->len + p->ov, c->seq + c->seg[0].off, take);
            p->ov += take;
            ck->pending = NULL;
            emit(ck, p, out, arg);
        } else if (p) {
            close_pending(ck, out, arg);
        }
        sg_chunk_free(c);
        return;
    }
    if (c->file != ck->file) {
        ck->file = c->file;
        ck->file_rec0 = ck->n_rec;
    }
    if (c->n_seg && !c->seg[0].first && c->seg[0].len == 0) {
        /* an empty continuation (blank lines, or the LF of a CRLF cut by the
         * reader) says nothing: drop it */
        memmove(c->seg, c->seg + 1, (c->n_seg - 1) * sizeof *c->seg);
        c->n_seg--;
        if (!c->n_seg && !c->file_end) {
            sg_chunk_free(c);
            return;
        }
    }
    sg_seg_t *cont = c->n_seg && !c->seg[0].first ? &c->seg[0] : NULL;
    if (ck->pending) {
        sg_chunk_t *p = ck->pending;
        if (!cont) {
            close_pending(ck, out, arg);
        } else {
            int ends_here = c->n_seg > 1 || c->file_end;
            size_t need = ck->overlap; /* a pending chunk has no overlap yet */
            if (cont->len >= need || ends_here) {
                size_t take = cont->len < need ? cont->len : need;
                sg_chunk_reserve(p, take);
                memcpy(p->seq + p->len + p->ov, c->seq + cont->off, take);
                p->ov += take;
                ck->pending = NULL;
                emit(ck, p, out, arg);
            } else {
                /* c is a short stretch in the middle of a record: its bases become
                 * owned bases of the pending chunk, which still waits for its overlap */
                sg_chunk_reserve(p, cont->len);
                memcpy(p->seq + p->len, c->seq + cont->off, cont->len);
                p->len += cont->len;
                p->seg[p->n_seg - 1].len += cont->len;
                ck->rec_pos += cont->len;
                sg_chunk_free(c);
                return;
            }
        }
    }
    for (int i = 0; i < c->n_seg; i++) {
        sg_seg_t *s = &c->seg[i];
        if (s->first) {
            s->rid = ck->n_rec++;
            s->rec_off = 0;
            free(ck->name);
            ck->name = sg_strdup(sg_chunk_name(c, s));
            ck->rec_pos = 0;
        } else {
            s->rid = ck->n_rec - 1;
            s->rec_off = ck->rec_pos;
            s->name = sg_chunk_add_name(c, ck->name, strlen(ck->name));
        }
        ck->rec_pos += s->len;
        s->last = i + 1 < c->n_seg;
    }
    if (c->n_seg == 0) {
        sg_chunk_free(c);
    } else if (c->file_end) {
        c->seg[c->n_seg - 1].last = 1;
        emit(ck, c, out, arg);
    } else {
        ck->pending = c;
    }
}

void sg_chunker_locate(const sg_chunker_t *ck, const sg_chunk_t *c, int seg, int64_t *recno, const char **name)
{
    int cont = c->n_seg && !c->seg[0].first;
    *recno = ck->n_rec + seg + 1 - cont - (c->file == ck->file ? ck->file_rec0 : ck->n_rec);
    if (seg == 0 && cont) *name = ck->name;
    else if (seg >= 0 && seg < c->n_seg) *name = sg_chunk_name(c, &c->seg[seg]);
    else *name = NULL;
}
