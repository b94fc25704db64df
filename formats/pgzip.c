/* Plain gzip on all cores (pgzip.h).
 *
 * The file is mapped and cut into chunks of compressed bytes. A worker
 * thread takes chunk k: it finds the first candidate block start in it
 * (deflate.h: sg_dfl_find), decodes from there without the window before
 * it (16-bit symbols, markers for the unknown bytes) until the last 32 KiB
 * it made are all bytes, then goes on with ISA-L's inflate, given those
 * 32 KiB as its dictionary, to its end: the first candidate at or after
 * the next chunk's start that its decoding reaches between two blocks. A
 * start that is no real block start decodes into an error, and the next
 * candidate is tried.
 *
 * The reader's thread takes the chunks in order. Chunk k is accepted when
 * it starts where chunk k-1 ended, as the stream does there (at a member's
 * header, or between two blocks), its markers reaching back no further
 * than the member's start; then the window at its start is known,
 * and a worker resolves its markers and computes the CRC32 of its bytes.
 * So what is delivered is exactly the stream decoded from the file's
 * start, whatever the speculation did. A chunk whose start is not where
 * the one before ended (a false candidate that decoded, no candidate
 * found, an output over 32 chunks) is decoded again here, in order, with
 * ISA-L from where the one before ended, until a later chunk's start is
 * reached between two blocks. Each member's CRC32 and length are checked
 * against its trailer. At most threads + 2 chunks are in flight (docs/design.md). */
#define _GNU_SOURCE
#include "formats/pgzip.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SG_HAVE_ISAL

int sg_pgz_available(void) { return 0; }
sg_pgz_t *sg_pgz_open(const char *path, int threads)
{
    (void)path;
    (void)threads;
    return NULL;
}
/* never called: sg_pgz_open() gives no reader */
ssize_t sg_pgz_read(sg_pgz_t *g, void *buf, size_t n)
{
    (void)g;
    (void)buf;
    (void)n;
    return -1;
}
const char *sg_pgz_error(const sg_pgz_t *g)
{
    (void)g;
    return "";
}
uint64_t sg_pgz_pos(const sg_pgz_t *g)
{
    (void)g;
    return 0;
}
void sg_pgz_stats(const sg_pgz_t *g, sg_pgz_stats_t *st)
{
    (void)g;
    memset(st, 0, sizeof *st);
}
void sg_pgz_close(sg_pgz_t *g) { (void)g; }

#else

#include "formats/deflate.h"
#include "formats/mapguard.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

#define W SG_DFL_WINDOW
#define CHUNK_MAX ((size_t)4 << 20) /* compressed bytes per chunk, at most */
#define CHUNK_MIN ((size_t)1 << 20) /* ... and at least, unless the file compresses very well */
#define CHUNK_LEAST ((size_t)1 << 16) /* ... or SEQGPU_GZIP_CHUNK says */
#define ATTEMPTS 32                 /* candidate starts a chunk tries */
#define SPARES 4                    /* buffers of freed chunks kept for new ones, of each kind */

int sg_pgz_available(void) { return 1; }

/* A member that ends in a piece: where, and its trailer. */
typedef struct {
    size_t at;
    uint32_t crc, isize;
} member_end_t;

/* Decoded bytes in order (a chunk's, or the in-order decoder's): head_len
 * bytes at head (a chunk's symbols resolved in their own buffer), then len
 * at buf; the members that end in them (at offsets into both), and the
 * CRC32 of each stretch between. */
typedef struct {
    const uint8_t *head;
    size_t head_len;
    uint8_t *buf;
    size_t len, cap;
    member_end_t *ev;
    int n_ev, m_ev;
    uint32_t *crc; /* n_ev + 1 */
} piece_t;

static size_t piece_size(const piece_t *p) { return p->head_len + p->len; }

/* CRC32 of bytes [a, b) of p, on from crc */
static uint32_t piece_crc(const piece_t *p, size_t a, size_t b, uint32_t crc)
{
    if (a < p->head_len) crc = crc32_gzip_refl(crc, p->head + a, (b < p->head_len ? b : p->head_len) - a);
    if (b > p->head_len) {
        size_t from = a > p->head_len ? a - p->head_len : 0;
        crc = crc32_gzip_refl(crc, p->buf + from, b - p->head_len - from);
    }
    return crc;
}

static void piece_room(piece_t *p, size_t more)
{
    if (p->cap - p->len >= more) return;
    p->cap = p->cap * 2 > p->len + more ? p->cap * 2 : p->len + more;
    p->buf = sg_realloc(p->buf, p->cap);
}

/* a member ends at byte at of p, with this trailer */
static void piece_event(piece_t *p, size_t at, const uint8_t *trailer)
{
    if (p->n_ev == p->m_ev) p->ev = sg_realloc(p->ev, (p->m_ev = p->m_ev ? 2 * p->m_ev : 4) * sizeof *p->ev);
    p->ev[p->n_ev++] = (member_end_t){at, sg_dfl_le32(trailer), sg_dfl_le32(trailer + 4)};
}

static void piece_crcs(piece_t *p)
{
    p->crc = sg_realloc(p->crc, ((size_t)p->n_ev + 1) * sizeof *p->crc);
    size_t prev = 0;
    for (int i = 0; i <= p->n_ev; i++) {
        size_t end = i < p->n_ev ? p->ev[i].at : piece_size(p);
        p->crc[i] = piece_crc(p, prev, end, 0);
        prev = end;
    }
}

static void piece_free(piece_t *p)
{
    free(p->buf);
    free(p->ev);
    free(p->crc);
    memset(p, 0, sizeof *p);
}

/* ---- ISA-L from a known window to a given bit offset ---- */

enum { KW_FULL = 1, KW_AT, KW_PAST, KW_END };

typedef struct {
    struct inflate_state st, snap;
    const uint8_t *d;
    size_t fed;     /* d[0..fed) given to ISA-L */
    uint64_t goal;  /* the bit offset to decode to */
    size_t trailer; /* after KW_END: the byte where the member's trailer starts */
} kw_t;

/* Start at bit pos, a block start, with the window dict (none: a member's first block). */
static void kw_start(kw_t *k, const uint8_t *d, uint64_t pos, const uint8_t *dict, size_t dict_len)
{
    isal_inflate_init(&k->st);
    k->st.crc_flag = ISAL_DEFLATE; /* raw deflate: the trailers are read here */
    if (dict_len) isal_inflate_set_dict(&k->st, (uint8_t *)dict, (uint32_t)dict_len);
    k->d = d;
    k->fed = (size_t)(pos / 8);
    k->st.next_in = (uint8_t *)d + k->fed;
    k->st.avail_in = 0;
    if (pos & 7) {
        k->st.read_in = d[k->fed] >> (pos & 7);
        k->st.read_in_length = 8 - (int)(pos & 7);
        k->st.next_in++;
        k->fed++;
    }
}

/* ISA-L stopped between two blocks, with bits (of the next block) unread:
 * it tried to read a header, found too little, and kept nothing else. */
static int kw_between(const struct inflate_state *s, int bits)
{
    return (s->block_state == ISAL_BLOCK_HDR || s->block_state == ISAL_BLOCK_NEW_HDR) && s->tmp_in_size == 0 &&
           s->read_in_length == bits && s->avail_in == 0 && s->avail_out > 0;
}

/* Room in p for ISA-L's output, up to limit (and a little past it), but no
 * more than p holds already (1 MiB at first): p's memory, address space
 * included (ulimit -v), grows with what it holds, not with its limit. */
static void kw_out(kw_t *k, piece_t *p, size_t limit)
{
    size_t want = limit > p->len + (1u << 16) ? limit - p->len : 1u << 16;
    size_t step = p->len > (1u << 20) ? p->len : 1u << 20;
    if (want > step) want = step;
    if (want > (1u << 30)) want = 1u << 30;
    piece_room(p, want);
    k->st.next_out = p->buf + p->len;
    k->st.avail_out = (uint32_t)want;
}

/* Decode toward k->goal into p until p holds limit bytes. KW_FULL: it
 * does (call again); KW_AT: at the goal, between two blocks; KW_PAST: the
 * input is given up to the goal, which is not between two blocks;
 * KW_END: a member's last block ended before it (k->trailer); or
 * SG_DFL_CORRUPT. The goal's last partial byte is tried on a copy of the
 * state with the bits after the goal zero: it ends between blocks there
 * only when a block ended at the goal. */
static int kw_step(kw_t *k, piece_t *p, size_t limit)
{
    size_t last = (size_t)(k->goal / 8);
    unsigned r = (unsigned)(k->goal & 7);
    for (;;) {
        if (k->st.avail_in == 0 && k->fed < last) {
            size_t m = last - k->fed < (1u << 30) ? last - k->fed : 1u << 30;
            k->st.next_in = (uint8_t *)k->d + k->fed;
            k->st.avail_in = (uint32_t)m;
            k->fed += m;
        }
        if (p->len >= limit) return KW_FULL;
        kw_out(k, p, limit);
        uint32_t in0 = k->st.avail_in, out0 = k->st.avail_out;
        int in_bits0 = k->st.read_in_length;
        int ret = isal_inflate(&k->st);
        p->len = (size_t)(k->st.next_out - p->buf);
        if (ret < 0) return SG_DFL_CORRUPT;
        if (k->st.block_state == ISAL_BLOCK_FINISH) {
            /* whole bytes ISA-L holds unread are the trailer's (a partial one is the block's padding) */
            k->trailer = (size_t)(k->st.next_in - k->d) - (size_t)k->st.read_in_length / 8;
            return KW_END;
        }
        if (k->st.avail_out == 0) continue;
        if (k->st.avail_in == 0 && k->fed >= last) break;
        if (k->st.avail_in == in0 && k->st.avail_out == out0 && k->st.read_in_length == in_bits0)
            return SG_DFL_CORRUPT; /* stuck */
    }
    if (r == 0) return kw_between(&k->st, 0) ? KW_AT : KW_PAST;
    kw_out(k, p, limit);
    memcpy(&k->snap, &k->st, sizeof k->st);
    size_t len0 = p->len;
    uint8_t byte = k->d[last] & (uint8_t)((1u << r) - 1);
    k->st.next_in = &byte;
    k->st.avail_in = 1;
    int ret = isal_inflate(&k->st);
    if (ret >= 0 && k->st.block_state != ISAL_BLOCK_FINISH && kw_between(&k->st, (int)(8 - r))) {
        p->len = (size_t)(k->st.next_out - p->buf);
        k->st.read_in = k->d[last] >> r; /* the real bits after the goal */
        k->st.next_in = (uint8_t *)k->d + last + 1;
        k->fed = last + 1;
        return KW_AT;
    }
    memcpy(&k->st, &k->snap, sizeof k->st);
    p->len = len0;
    return KW_PAST;
}

/* ---- chunks ---- */

enum { END_BLOCK, END_MEMBER, END_EOF };
enum { T_QUEUED, T_DECODED, T_RESOLVING, T_READY };

typedef struct {
    size_t k;
    uint64_t lo, hi; /* its start is looked for in these bits */
    int last;        /* it decodes to the file's end */
    int state;
    int dropped; /* no longer wanted: a worker that takes it does nothing */
    int ok, lost;
    uint64_t start, end;
    int at_member; /* it starts at a member's header (else between two blocks) */
    size_t reach;  /* how far before its start its markers reach (sg_dfl_reach) */
    int end_kind;
    uint16_t *sym; /* the symbols before its window was known; resolved in place (out.head) once it is */
    size_t n_sym, sym_cap;
    piece_t out;
    uint8_t window[W]; /* the bytes before its start, for resolving */
} task_t;

struct sg_pgz {
    const uint8_t *d;
    size_t n, chunk, cap; /* file bytes; compressed bytes per chunk; the most a chunk may decode to */
    size_t n_tasks, depth;
    task_t **task;
    int n_threads;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    size_t next_decode, decode_limit; /* chunks given to workers, and up to where they may go */
    size_t *rq, rq_head, rq_tail;     /* chunks to resolve */
    int stop;
    double cpu;
    /* the reader's side */
    size_t k_valid, k_deliver; /* chunks accepted, and delivered */
    uint64_t pos;              /* where the accepted stream ends */
    int at_member;             /* ... at a member's header */
    uint64_t member_bytes;     /* ... after how many bytes of its open member */
    int eof;                   /* the stream is complete */
    uint8_t window[W];         /* its last 32 KiB */
    uint32_t crc;              /* of the current member so far */
    uint64_t isize;
    int serial;                /* decoding in order here */
    kw_t *skw;
    size_t s_next;    /* the chunk whose start the in-order decoding makes for */
    uint64_t s_fed;   /* where it is in the input */
    int s_between;    /* ... between two blocks there (or before a member's header: s_header) */
    int s_header;
    int s_counted;    /* it inflated something since it began (stats) */
    int s_begin;      /* ISA-L is to start at s_fed with the window */
    piece_t own;      /* its piece */
    piece_t *cur;     /* the piece being read, from cur_off */
    task_t *cur_task; /* its chunk, or NULL */
    size_t cur_off;
    size_t released; /* mapped bytes given back */
    struct {
        void *p;
        size_t cap;
    } spare[2][SPARES]; /* (bytes, symbols): new chunks reuse them rather than fault in fresh pages */
    int n_spare[2];
    uint64_t chunks, n_serial;
    char err[128];
};

/* Where a chunk goes: the first candidate at or after a bit offset, found a
 * stretch at a time (real 0: no candidate before t, search on from t). */
typedef struct {
    uint64_t t;
    int real;
} goal_t;

static void goal_from(const sg_pgz_t *g, goal_t *gl, uint64_t from)
{
    /* a stretch ends at a byte: a stop there needs no partial byte (kw_step) */
    uint64_t end = (uint64_t)g->n * 8, lim = (from + 16 * (uint64_t)g->chunk) & ~(uint64_t)7;
    if (lim > end) lim = end;
    uint64_t c = from < lim ? sg_dfl_find(g->d, g->n, from, lim) : SG_DFL_NONE;
    gl->real = c != SG_DFL_NONE;
    gl->t = gl->real ? c : lim;
}

/* The goal after reaching bit p between two blocks (or members). */
static void goal_past(const sg_pgz_t *g, goal_t *gl, uint64_t p)
{
    while (gl->t < p || (gl->t == p && !gl->real && p < (uint64_t)g->n * 8)) goal_from(g, gl, p);
}

typedef struct {
    sg_pgz_t *g;
    task_t *t;
    sg_dfl_t *z;
    kw_t *kw;
} job_t;

/* A trailer at byte q: the member's event, and where what follows starts
 * (q + 8), or an error. */
static int take_trailer(const sg_pgz_t *g, piece_t *p, size_t at, size_t q, size_t *after)
{
    if (q + 8 > g->n) return SG_DFL_TRUNCATED;
    piece_event(p, at, g->d + q);
    *after = q + 8;
    return 0;
}

/* The first block of the member whose header starts at byte q. */
static int member_body(const sg_pgz_t *g, size_t q, uint64_t *pos)
{
    long h = sg_dfl_gzip_header(g->d + q, g->n - q);
    if (h < 0) return (int)h;
    *pos = (uint64_t)(q + (size_t)h) * 8;
    return 0;
}

/* a chunk's output over its limit: the in-order decoder takes it (and no
 * later candidate of the chunk would do better) */
#define TOO_BIG (-100)

/* Decode chunk t from candidate c to its end. 0, or why not. */
static int decode_from(job_t *j, uint64_t c)
{
    sg_pgz_t *g = j->g;
    task_t *t = j->t;
    const uint64_t end = (uint64_t)g->n * 8;
    goal_t gl = {end, 0};
    if (!t->last) goal_from(g, &gl, t->hi);
    uint64_t pos = c;
    size_t after;
    int r;
    t->n_sym = 0;
    t->reach = 0;
    t->at_member = !(c & 7) && sg_dfl_gzip_header(g->d + c / 8, g->n - c / 8) > 0;
    if (t->at_member) {
        if ((r = member_body(g, (size_t)(c / 8), &pos)) < 0) return r;
        kw_start(j->kw, g->d, pos, NULL, 0);
    } else {
        sg_dfl_t *z = j->z = sg_dfl_new(g->d, g->n, c, 0, t->sym, t->sym_cap);
        t->sym = NULL;
        int finished = 0;
        while (!finished) {
            pos = sg_dfl_pos(z);
            if (!t->last) goal_past(g, &gl, pos);
            if (gl.real && pos == gl.t) {
                t->end = pos;
                t->end_kind = END_BLOCK;
                finished = 1;
                break;
            }
            if (sg_dfl_clean(z)) break;
            if ((r = sg_dfl_block(z)) < 0) return r;
            size_t ns;
            sg_dfl_out(z, &ns);
            if (2 * ns > g->cap) return TOO_BIG;
            if (r == 0) continue;
            if ((r = take_trailer(g, &t->out, ns, (size_t)(sg_dfl_pos(z) / 8), &after)) < 0) return r;
            if (after == g->n) {
                t->end = end;
                t->end_kind = END_EOF;
                finished = 1;
            } else {
                if (!t->last) goal_past(g, &gl, (uint64_t)after * 8);
                if (gl.real && gl.t == (uint64_t)after * 8) {
                    t->end = gl.t;
                    t->end_kind = END_MEMBER;
                    finished = 1;
                } else {
                    if ((r = member_body(g, after, &pos)) < 0) return r;
                    sg_dfl_member(z, pos / 8);
                }
            }
        }
        uint8_t dict[W];
        size_t dict_len = finished ? 0 : sg_dfl_window(z, dict);
        t->reach = sg_dfl_reach(z);
        t->sym = sg_dfl_take(z, &t->n_sym, &t->sym_cap);
        sg_dfl_free(z);
        j->z = NULL;
        t->out.len = 0;
        if (finished) return 0;
        piece_room(&t->out, 4 * g->chunk);
        kw_start(j->kw, g->d, pos, dict, dict_len);
    }
    for (;;) {
        j->kw->goal = gl.t;
        r = kw_step(j->kw, &t->out, g->cap - 2 * t->n_sym);
        if (r == KW_FULL) return TOO_BIG;
        if (r < 0) return r;
        if (r == KW_AT && gl.real) {
            t->end = gl.t;
            t->end_kind = END_BLOCK;
            return 0;
        }
        if (r == KW_AT || r == KW_PAST) {
            if (gl.t >= end) return SG_DFL_TRUNCATED;
            goal_from(g, &gl, gl.real ? gl.t + 1 : gl.t);
            continue;
        }
        if ((r = take_trailer(g, &t->out, t->n_sym + t->out.len, j->kw->trailer, &after)) < 0) return r;
        if (after == g->n) {
            t->end = end;
            t->end_kind = END_EOF;
            return 0;
        }
        if (!t->last) goal_past(g, &gl, (uint64_t)after * 8);
        if (gl.real && gl.t == (uint64_t)after * 8) {
            t->end = gl.t;
            t->end_kind = END_MEMBER;
            return 0;
        }
        if ((r = member_body(g, after, &pos)) < 0) return r;
        if (!t->last) goal_past(g, &gl, pos);
        kw_start(j->kw, g->d, pos, NULL, 0);
    }
}

static void task_reset(task_t *t)
{
    t->n_sym = 0;
    free(t->out.ev);
    t->out.ev = NULL;
    t->out.n_ev = t->out.m_ev = 0;
    t->out.len = 0;
}

/* A worker's job on chunk t: find its start and decode it (under the
 * mapping's guard). */
static int decode_job(void *arg)
{
    job_t *j = arg;
    task_t *t = j->t;
    uint64_t from = t->lo;
    for (int a = 0; a < ATTEMPTS; a++) {
        uint64_t c = sg_dfl_find(j->g->d, j->g->n, from, t->hi);
        if (c == SG_DFL_NONE) break;
        int r = decode_from(j, c);
        if (r == 0) {
            t->start = c;
            t->ok = 1;
            return 0;
        }
        if (j->z) { /* its buffer back for the next try */
            size_t n;
            t->sym = sg_dfl_take(j->z, &n, &t->sym_cap);
            sg_dfl_free(j->z);
            j->z = NULL;
        }
        task_reset(t);
        if (r == TOO_BIG) break;
        from = c + 1;
    }
    return 0;
}

/* Once its window is known: the chunk's markers resolved, its CRCs. */

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A spare buffer of kind (0 bytes, 1 symbols) and its capacity, or NULL (under mu). */
static void *spare_take(sg_pgz_t *g, int kind, size_t *cap)
{
    *cap = 0;
    if (!g->n_spare[kind]) return NULL;
    int i = --g->n_spare[kind];
    *cap = g->spare[kind][i].cap;
    return g->spare[kind][i].p;
}

static void spare_give(sg_pgz_t *g, int kind, void *p, size_t cap)
{
    if (p && g->n_spare[kind] < SPARES) {
        int i = g->n_spare[kind]++;
        g->spare[kind][i].p = p;
        g->spare[kind][i].cap = cap;
    } else {
        free(p);
    }
}

static int resolve_job(void *arg)
{
    job_t *j = arg;
    task_t *t = j->t;
    /* in place: byte i is written after symbol i / 2 was read */
    if (t->n_sym) sg_dfl_resolve(t->sym, t->n_sym, t->window, (uint8_t *)t->sym);
    t->out.head = (const uint8_t *)t->sym;
    t->out.head_len = t->n_sym;
    piece_crcs(&t->out);
    (void)j;
    return 0;
}

/* Chunk k, with spare buffers (under mu). */
static task_t *task_new(sg_pgz_t *g, size_t k)
{
    task_t *t = sg_calloc(1, sizeof *t);
    t->out.buf = spare_take(g, 0, &t->out.cap);
    t->sym = spare_take(g, 1, &t->sym_cap);
    t->k = k;
    t->lo = (uint64_t)(k * g->chunk) * 8;
    t->hi = (uint64_t)((k + 1) * g->chunk) * 8;
    t->last = (k + 1) * g->chunk >= g->n;
    if (t->last) t->hi = (uint64_t)g->n * 8;
    return t;
}

static void task_free(task_t *t)
{
    if (!t) return;
    free(t->sym);
    piece_free(&t->out);
    free(t);
}

/* A chunk done with: its buffers kept for new ones. */
static void task_release(sg_pgz_t *g, task_t *t)
{
    if (!t) return;
    pthread_mutex_lock(&g->mu);
    spare_give(g, 0, t->out.buf, t->out.cap);
    spare_give(g, 1, t->sym, t->sym_cap);
    pthread_mutex_unlock(&g->mu);
    t->out.buf = NULL;
    t->sym = NULL;
    task_free(t);
}

static void *worker(void *arg)
{
    sg_pgz_t *g = arg;
    kw_t *kw = sg_malloc(sizeof *kw);
    pthread_mutex_lock(&g->mu);
    for (;;) {
        while (!g->stop && g->rq_head == g->rq_tail && g->next_decode >= g->decode_limit)
            pthread_cond_wait(&g->work, &g->mu);
        if (g->stop) break;
        int resolve = g->rq_head != g->rq_tail;
        task_t *t = resolve ? g->task[g->rq[g->rq_head++]] : g->task[g->next_decode++];
        if (t->dropped) {
            t->state = T_DECODED;
            pthread_cond_broadcast(&g->done);
            continue;
        }
        pthread_mutex_unlock(&g->mu);
        double t0 = thread_cpu();
        job_t j = {g, t, NULL, kw};
        int lost;
        (void)sg_map_guarded(resolve ? resolve_job : decode_job, &j, &lost);
        sg_dfl_free(j.z);
        if (lost) {
            t->ok = 0;
            t->lost = 1;
        }
        double t1 = thread_cpu();
        pthread_mutex_lock(&g->mu);
        g->cpu += t1 - t0;
        t->state = resolve ? T_READY : T_DECODED;
        pthread_cond_broadcast(&g->done);
    }
    pthread_mutex_unlock(&g->mu);
    free(kw);
    return NULL;
}

/* Give workers the chunks up to depth ahead of the oldest one still needed (under mu). */
static void feed_workers(sg_pgz_t *g)
{
    size_t base = g->serial ? g->s_next : g->k_deliver, lim = base + g->depth;
    if (lim > g->n_tasks) lim = g->n_tasks;
    for (size_t k = g->decode_limit; k < lim; k++) g->task[k] = task_new(g, k);
    if (lim > g->decode_limit) {
        g->decode_limit = lim;
        pthread_cond_broadcast(&g->work);
    }
}

static void wait_state(sg_pgz_t *g, task_t *t, int state)
{
    pthread_mutex_lock(&g->mu);
    while (t->state < state) pthread_cond_wait(&g->done, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

/* The last 32 KiB of the stream after n_sym symbols (resolved with the
 * window before them) and n8 bytes. */
static void window_push(uint8_t *win, const uint16_t *sym, size_t n_sym, const uint8_t *bytes, size_t n8)
{
    uint8_t w[W];
    size_t total = n_sym + n8, take = total < W ? total : W, keep = W - take;
    memcpy(w, win + W - keep, keep);
    size_t s0 = total - take; /* the first symbol or byte taken */
    if (s0 < n_sym) sg_dfl_resolve(sym + s0, n_sym - s0, win, w + keep);
    size_t b0 = s0 > n_sym ? s0 - n_sym : 0;
    if (n8 > b0) memcpy(w + W - (n8 - b0), bytes + b0, n8 - b0);
    memcpy(win, w, W);
}

#define CORRUPT_MSG "truncated or corrupt compressed data"
static int fail(sg_pgz_t *g, const char *why)
{
    snprintf(g->err, sizeof g->err, "%s", why);
    return -1;
}


/* The members that end in piece p (bytes final, CRCs made), in order. */
static int check_piece(sg_pgz_t *g, const piece_t *p)
{
    size_t prev = 0;
    for (int i = 0; i <= p->n_ev; i++) {
        size_t end = i < p->n_ev ? p->ev[i].at : piece_size(p);
        g->crc = (uint32_t)crc32_combine(g->crc, p->crc[i], (z_off_t)(end - prev));
        g->isize += end - prev;
        if (i < p->n_ev) {
            if (g->crc != p->ev[i].crc || (uint32_t)g->isize != p->ev[i].isize) return fail(g, CORRUPT_MSG);
            g->crc = 0;
            g->isize = 0;
        }
        prev = end;
    }
    return 0;
}

/* The bytes of the member open after a piece of size bytes (p's events),
 * given those before it. */
static uint64_t member_after(uint64_t before, const piece_t *p, size_t size)
{
    return p->n_ev ? size - p->ev[p->n_ev - 1].at : before + size;
}

/* Whether chunk t goes on from where the stream is, at bit pos after
 * member_bytes bytes of its open member: it starts there, and as the
 * stream does there (at a member's header, or between two blocks), and
 * its markers reach back no further than the member's start (a distance
 * past it is an error, which the in-order decoding reports). */
static int continues(const task_t *t, uint64_t pos, int at_member, uint64_t member_bytes)
{
    return t->ok && t->start == pos && t->at_member == at_member && t->reach <= member_bytes;
}

/* Start decoding in order at g->pos (chunk g->k_valid could not be taken):
 * a later chunk may start right there (the chunks between found no start). */
static void serial_begin(sg_pgz_t *g)
{
    if (!g->skw) g->skw = sg_malloc(sizeof *g->skw);
    g->serial = 1;
    g->s_fed = g->pos;
    g->s_between = 1;
    g->s_header = g->at_member;
    g->s_begin = !g->at_member; /* ISA-L is started by serial_piece_run, which reads the mapping under its guard */
}

/* Drop the chunks [from, to): the in-order decoding went past their starts
 * (those no worker has taken are not decoded). */
static void drop_tasks(sg_pgz_t *g, size_t from, size_t to)
{
    pthread_mutex_lock(&g->mu);
    for (size_t k = from; k < to; k++) g->task[k]->dropped = 1;
    pthread_mutex_unlock(&g->mu);
    for (size_t k = from; k < to; k++) {
        wait_state(g, g->task[k], T_DECODED);
        task_release(g, g->task[k]);
        g->task[k] = NULL;
    }
}

static int serial_piece_run(void *arg);

/* The next piece of the in-order decoding into g->own: 1; 0 when it
 * reached a chunk's start (or the end) with nothing more; -1. */
static int serial_piece(sg_pgz_t *g)
{
    int lost, r = sg_map_guarded(serial_piece_run, g, &lost);
    if (lost) return fail(g, SG_MAP_LOST);
    if (r < 0) return r;
    if (!g->own.len && !g->own.n_ev) return 0;
    g->member_bytes = member_after(g->member_bytes, &g->own, g->own.len);
    piece_crcs(&g->own);
    window_push(g->window, NULL, 0, g->own.buf, g->own.len);
    if (check_piece(g, &g->own) < 0) return -1;
    g->cur = &g->own;
    g->cur_task = NULL;
    g->cur_off = 0;
    return 1;
}

static int serial_piece_run(void *arg)
{
    sg_pgz_t *g = arg;
    const uint64_t end = (uint64_t)g->n * 8;
    piece_t *p = &g->own;
    p->len = 0;
    p->n_ev = 0;
    for (;;) {
        /* the goal: the next chunk's start not behind us, or the end */
        task_t *t = NULL;
        while (g->s_next < g->n_tasks) {
            pthread_mutex_lock(&g->mu);
            feed_workers(g);
            pthread_mutex_unlock(&g->mu);
            t = g->task[g->s_next];
            wait_state(g, t, T_DECODED);
            if (t->ok && t->start > g->s_fed) break;
            if (g->s_between && continues(t, g->s_fed, g->s_header, member_after(g->member_bytes, p, p->len))) break;
            drop_tasks(g, g->s_next, g->s_next + 1);
            g->s_next++;
            t = NULL;
        }
        if (t && t->start == g->s_fed && g->s_between) { /* in step again at chunk s_next */
            g->pos = t->start;
            g->at_member = g->s_header;
            g->serial = 0;
            g->k_valid = g->k_deliver = g->s_next;
            return 1;
        }
        if (g->s_begin) { /* the window: the open member's last bytes */
            size_t w = g->member_bytes < W ? (size_t)g->member_bytes : W;
            kw_start(g->skw, g->d, g->s_fed, g->window + W - w, w);
            g->s_begin = 0;
        }
        if (g->s_header) { /* the member whose header is at s_fed */
            uint64_t pos = 0;
            if (member_body(g, (size_t)(g->s_fed / 8), &pos) < 0) return fail(g, CORRUPT_MSG);
            kw_start(g->skw, g->d, pos, NULL, 0);
            g->s_fed = pos;
            g->s_header = 0;
            continue;
        }
        if (!g->s_counted) g->n_serial++, g->s_counted = 1;
        g->skw->goal = t ? t->start : end;
        int r = kw_step(g->skw, p, g->chunk);
        if (r == KW_FULL) {
            g->s_between = 0;
            return 1;
        }
        if (r < 0) return fail(g, CORRUPT_MSG);
        g->s_fed = g->skw->goal;
        g->s_between = r == KW_AT;
        if (r == KW_AT || r == KW_PAST) {
            if (!t) return fail(g, CORRUPT_MSG); /* the file ends inside a member */
            continue;
        }
        size_t after;
        if (take_trailer(g, p, p->len, g->skw->trailer, &after) < 0) return fail(g, CORRUPT_MSG);
        if (after == g->n) {
            drop_tasks(g, g->s_next, g->decode_limit);
            g->s_next = g->n_tasks;
            g->eof = 1;
            g->serial = 0;
            return 1;
        }
        g->s_fed = (uint64_t)after * 8;
        g->s_between = g->s_header = 1;
    }
}

/* Accept the decoded chunks that start where the stream ends, in order,
 * waiting for the first; or start decoding in order. */
static int take_chunks(sg_pgz_t *g)
{
    for (int first = 1; g->k_valid < g->n_tasks && !g->eof; first = 0) {
        pthread_mutex_lock(&g->mu);
        feed_workers(g);
        task_t *t = g->k_valid < g->decode_limit ? g->task[g->k_valid] : NULL;
        if (!t || (!first && t->state < T_DECODED)) { /* t: none yet when all given out wait to be read */
            pthread_mutex_unlock(&g->mu);
            return 0;
        }
        while (t->state < T_DECODED) pthread_cond_wait(&g->done, &g->mu);
        pthread_mutex_unlock(&g->mu);
        if (t->lost) return fail(g, SG_MAP_LOST);
        if (!continues(t, g->pos, g->at_member, g->member_bytes)) {
            if (!first) return 0; /* after the chunks taken */
            drop_tasks(g, g->k_valid, g->k_valid + 1);
            g->s_next = ++g->k_valid;
            g->k_deliver = g->k_valid;
            g->s_counted = 0;
            serial_begin(g);
            return 0;
        }
        memcpy(t->window, g->window, W);
        window_push(g->window, t->sym, t->n_sym, t->out.buf, t->out.len);
        g->pos = t->end;
        g->at_member = t->end_kind == END_MEMBER;
        g->member_bytes = member_after(g->member_bytes, &t->out, t->n_sym + t->out.len);
        if (t->end_kind == END_EOF) g->eof = 1;
        g->chunks++;
        pthread_mutex_lock(&g->mu);
        t->state = T_RESOLVING;
        g->rq[g->rq_tail++] = g->k_valid++;
        pthread_cond_broadcast(&g->work);
        pthread_mutex_unlock(&g->mu);
    }
    return 0;
}

/* Give the mapped pages behind the stream back (they stay in the page
 * cache), keeping what a chunk's block finder may look back at. */
static void release_behind(sg_pgz_t *g)
{
    size_t page = 4096, keep = (size_t)1 << 18;
    size_t upto = (size_t)(g->pos / 8);
    if (!g->serial && g->k_valid * g->chunk < upto) upto = g->k_valid * g->chunk;
    upto = upto > keep ? (upto - keep) & ~(page - 1) : 0;
    if (upto > g->released) {
        madvise((void *)(g->d + g->released), upto - g->released, MADV_DONTNEED);
        g->released = upto;
    }
}

/* The next piece in order: 1, 0 at the end, -1. */
static int next_piece(sg_pgz_t *g)
{
    if (g->cur_task) {
        task_release(g, g->cur_task);
        g->cur_task = NULL;
    }
    g->cur = NULL;
    for (;;) {
        if (g->k_deliver < g->k_valid && !g->serial) {
            task_t *t = g->task[g->k_deliver];
            wait_state(g, t, T_READY);
            g->task[g->k_deliver++] = NULL;
            pthread_mutex_lock(&g->mu);
            feed_workers(g);
            pthread_mutex_unlock(&g->mu);
            if (check_piece(g, &t->out) < 0) {
                task_release(g, t);
                return -1;
            }
            g->cur = &t->out;
            g->cur_task = t;
            g->cur_off = 0;
            release_behind(g);
            return 1;
        }
        if (g->serial) {
            int r = serial_piece(g);
            if (r) return r;
            continue;
        }
        if (g->eof) return 0;
        if (g->k_valid >= g->n_tasks) return fail(g, CORRUPT_MSG);
        if (take_chunks(g) < 0) return -1;
    }
}

ssize_t sg_pgz_read(sg_pgz_t *g, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        const piece_t *p = g->cur;
        if (!p || g->cur_off == piece_size(p)) {
            int r = next_piece(g);
            if (r < 0) return -1;
            if (r == 0) break;
            continue;
        }
        int in_head = g->cur_off < p->head_len;
        const uint8_t *src = in_head ? p->head + g->cur_off : p->buf + (g->cur_off - p->head_len);
        size_t left = in_head ? p->head_len - g->cur_off : piece_size(p) - g->cur_off;
        size_t m = left < n - done ? left : n - done;
        memcpy((char *)buf + done, src, m);
        g->cur_off += m;
        done += m;
    }
    return (ssize_t)done;
}

const char *sg_pgz_error(const sg_pgz_t *g) { return g->err; }

uint64_t sg_pgz_pos(const sg_pgz_t *g) { return (g->serial ? g->s_fed : g->eof ? (uint64_t)g->n * 8 : g->pos) / 8; }

void sg_pgz_stats(const sg_pgz_t *g, sg_pgz_stats_t *st)
{
    pthread_mutex_lock((pthread_mutex_t *)&g->mu);
    st->threads = g->n_threads;
    st->seconds = g->cpu;
    pthread_mutex_unlock((pthread_mutex_t *)&g->mu);
    st->chunks = g->chunks;
    st->in_order = g->n_serial;
}

/* Compressed bytes per chunk: two chunks a thread at least, 1 to 4 MiB;
 * but some 12 MiB of output each where the last member's length says the
 * file compresses well (when it is one member of less than 4 GiB), down
 * to 64 KiB (a file of one base: a chunk over its limit is decoded in
 * order, and the limit is 32 chunks of output). Or SEQGPU_GZIP_CHUNK. */
static size_t chunk_size(int fd, size_t n, int threads)
{
    size_t chunk = n / (2 * (size_t)threads);
    chunk = chunk > CHUNK_MAX ? CHUNK_MAX : chunk < CHUNK_MIN ? CHUNK_MIN : chunk;
    uint8_t isize[4];
    if (n > 4 && pread(fd, isize, 4, (off_t)(n - 4)) == 4 && sg_dfl_le32(isize) > 3 * (uint64_t)n) {
        size_t c = (size_t)((uint64_t)n * (12u << 20) / sg_dfl_le32(isize));
        c = c < CHUNK_LEAST ? CHUNK_LEAST : c;
        if (c < chunk) chunk = c;
    }
    const char *env = getenv("SEQGPU_GZIP_CHUNK");
    if (env && *env) {
        char *e;
        unsigned long long v = strtoull(env, &e, 10);
        if (*e || v < 64) sg_warn("SEQGPU_GZIP_CHUNK='%s' is not a chunk size (bytes, 64 or more): ignored", env);
        else chunk = (size_t)v;
    }
    return chunk;
}

sg_pgz_t *sg_pgz_open(const char *path, int threads)
{
    struct stat st;
    int fd;
    if (threads < 2 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (fd = open(path, O_RDONLY)) < 0) return NULL;
    size_t n = (size_t)st.st_size, chunk = chunk_size(fd, n, threads);
    if (n < 2 * chunk) {
        close(fd);
        return NULL;
    }
    void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return NULL;
    sg_map_guard_init();
    sg_pgz_t *g = sg_calloc(1, sizeof *g);
    g->d = m;
    g->n = n;
    g->chunk = chunk;
    g->cap = 32 * chunk;
    g->n_tasks = (n + chunk - 1) / chunk;
    if ((size_t)threads > g->n_tasks) threads = (int)g->n_tasks; /* no thread without a chunk */
    g->n_threads = threads;
    g->depth = (size_t)threads + 2;
    g->task = sg_calloc(g->n_tasks, sizeof *g->task);
    g->rq = sg_malloc(g->n_tasks * sizeof *g->rq);
    g->at_member = 1; /* the first chunk starts at the file's first header */
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->work, NULL);
    pthread_cond_init(&g->done, NULL);
    g->th = sg_malloc((size_t)threads * sizeof *g->th);
    pthread_mutex_lock(&g->mu);
    feed_workers(g);
    pthread_mutex_unlock(&g->mu);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&g->th[i], NULL, worker, g) != 0) {
            g->n_threads = i;
            break;
        }
    if (!g->n_threads) {
        sg_pgz_close(g);
        return NULL;
    }
    return g;
}

void sg_pgz_close(sg_pgz_t *g)
{
    if (!g) return;
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    pthread_cond_broadcast(&g->work);
    pthread_mutex_unlock(&g->mu);
    for (int i = 0; i < g->n_threads; i++) pthread_join(g->th[i], NULL);
    for (size_t k = 0; k < g->n_tasks; k++) task_free(g->task[k]);
    task_free(g->cur_task);
    piece_free(&g->own);
    for (int kind = 0; kind < 2; kind++)
        for (int i = 0; i < g->n_spare[kind]; i++) free(g->spare[kind][i].p);
    free(g->skw);
    free(g->task);
    free(g->rq);
    free(g->th);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->work);
    pthread_cond_destroy(&g->done);
    munmap((void *)g->d, g->n);
    free(g);
}

#endif
