#define _GNU_SOURCE
#include "core/pipeline.h"
#include "core/log.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint64_t seq;
    void *item;
} slot_t;

typedef struct { /* min-heap on seq: the lowest item goes first, which keeps memory bounded */
    slot_t *a;
    int n, m;
} heap_t;

struct sg_emit {
    slot_t *a;
    int n, m;
};

typedef struct {
    const sg_step_t *steps;
    int n_steps;
    void *ctx;
    const sg_pipeline_opts_t *opt;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    heap_t *q;          /* input queue of each step (q[0] unused) */
    uint64_t *next;     /* ordered steps: sequence number of the next item to take */
    uint64_t *n_out;    /* items each ordered step has emitted so far (their numbering) */
    int *running, *done;
    int alive;          /* items emitted by the source and not yet freed or kept */
    int err;
} pipe_t;

static void heap_push(heap_t *h, slot_t s)
{
    if (h->n == h->m) {
        h->m = h->m ? 2 * h->m : 16;
        h->a = sg_realloc(h->a, h->m * sizeof *h->a);
    }
    int i = h->n++;
    while (i > 0 && h->a[(i - 1) / 2].seq > s.seq) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = s;
}

static slot_t heap_pop(heap_t *h)
{
    slot_t top = h->a[0], last = h->a[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->a[c + 1].seq < h->a[c].seq) c++;
        if (h->a[c].seq >= last.seq) break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n) h->a[i] = last;
    return top;
}

void sg_emit(sg_emit_t *e, void *item)
{
    if (e->n == e->m) {
        e->m = e->m ? 2 * e->m : 4;
        e->a = sg_realloc(e->a, e->m * sizeof *e->a);
    }
    e->a[e->n++].item = item;
}

/* Items that leave step s go to step s+1, or are freed after the last step. */
static void pass_on(pipe_t *p, int s, slot_t sl)
{
    if (s + 1 < p->n_steps) {
        heap_push(&p->q[s + 1], sl);
    } else {
        if (p->opt->free_item) p->opt->free_item(p->ctx, sl.item);
        p->alive--;
    }
}

/* Choose work under the lock. Returns the step, or -1 if none now.
 * *flush is set when an ordered step is to be called with NULL. */
static int pick(pipe_t *p, slot_t *sl, int *flush)
{
    *flush = 0;
    /* an unordered step has ended when the step before it has and it holds nothing;
     * a forward pass, so that an end reaches the ordered steps after it at once */
    for (int s = 1; s < p->n_steps; s++)
        if (!p->steps[s].ordered && !p->done[s] && p->done[s - 1] && !p->q[s].n && !p->running[s]) p->done[s] = 1;
    for (int s = p->n_steps - 1; s >= 1; s--) {
        const sg_step_t *st = &p->steps[s];
        heap_t *h = &p->q[s];
        if (p->done[s]) continue;
        if (st->ordered) {
            if (p->running[s]) continue;
            if (h->n && h->a[0].seq == p->next[s]) {
                *sl = heap_pop(h);
                return s;
            }
            if (!h->n && p->done[s - 1]) {
                *flush = 1;
                return s;
            }
        } else {
            if (h->n && (!st->max_par || p->running[s] < st->max_par)) {
                *sl = heap_pop(h);
                return s;
            }
        }
    }
    if (!p->done[0] && !p->running[0] && p->alive < p->opt->max_items) return 0;
    return -1;
}

static void *worker(void *arg)
{
    pipe_t *p = arg;
    sg_emit_t em = {0};
    pthread_mutex_lock(&p->mu);
    while (!p->err && !p->done[p->n_steps - 1]) {
        slot_t sl = {0};
        int flush, s = pick(p, &sl, &flush);
        if (s < 0) {
            if (p->done[p->n_steps - 1]) break;
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        const sg_step_t *st = &p->steps[s];
        p->running[s]++;
        pthread_mutex_unlock(&p->mu);

        double t0 = sg_realtime();
        em.n = 0;
        int r = st->fn(p->ctx, s == 0 || flush ? NULL : sl.item, &em);
        double dt = sg_realtime() - t0;

        pthread_mutex_lock(&p->mu);
        p->running[s]--;
        if (p->opt->busy) p->opt->busy[s] += dt;
        if (s == 0 || st->ordered) {
            for (int i = 0; i < em.n; i++) {
                slot_t o = {p->n_out[s]++, em.a[i].item};
                pass_on(p, s, o);
            }
            if (s == 0) {
                p->alive += em.n;
                if (r == 0) p->done[0] = 1;
            } else {
                p->alive += em.n - (flush ? 0 : 1);
                if (flush) p->done[s] = 1;
                else p->next[s]++;
            }
        } else if (r >= 0) {
            pass_on(p, s, sl);
        } else {
            if (p->opt->free_item) p->opt->free_item(p->ctx, sl.item);
            p->alive--;
        }
        if (r < 0 && !p->err) p->err = r;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    free(em.a);
    return NULL;
}

int sg_pipeline_run(const sg_step_t *steps, int n_steps, void *ctx, const sg_pipeline_opts_t *opt)
{
    pipe_t p = {.steps = steps, .n_steps = n_steps, .ctx = ctx, .opt = opt};
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    p.q = sg_calloc(n_steps, sizeof *p.q);
    p.next = sg_calloc(n_steps, sizeof *p.next);
    p.n_out = sg_calloc(n_steps, sizeof *p.n_out);
    p.running = sg_calloc(n_steps, sizeof *p.running);
    p.done = sg_calloc(n_steps, sizeof *p.done);

    int nt = opt->n_threads > 0 ? opt->n_threads : 1;
    pthread_t *tid = sg_malloc(nt * sizeof *tid);
    int started = 0;
    for (int i = 0; i < nt; i++, started++)
        if (pthread_create(&tid[i], NULL, worker, &p) != 0) break;
    if (started == 0) {
        sg_error("cannot start worker threads");
        p.err = SG_ERR_SYSTEM;
    }
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);

    for (int s = 1; s < n_steps; s++) {
        while (p.q[s].n) {
            slot_t sl = heap_pop(&p.q[s]);
            if (opt->free_item) opt->free_item(ctx, sl.item);
        }
        free(p.q[s].a);
    }
    free(tid);
    free(p.q);
    free(p.next);
    free(p.n_out);
    free(p.running);
    free(p.done);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    return p.err;
}

/* ---- a parallel loop ---- */

typedef struct {
    void (*fn)(void *arg, void *state, uint64_t i);
    void *arg;
    uint64_t n, next, grain;
    size_t state_size;
    void (*done)(void *arg, void *state); /* each thread's state at its end, in turn */
    pthread_mutex_t mu;
} loop_t;

static void *loop_worker(void *arg)
{
    loop_t *l = arg;
    void *state = l->state_size ? sg_calloc(1, l->state_size) : NULL;
    for (uint64_t i; (i = __atomic_fetch_add(&l->next, l->grain, __ATOMIC_RELAXED)) < l->n;)
        for (uint64_t e = i + l->grain < l->n ? i + l->grain : l->n; i < e; i++) l->fn(l->arg, state, i);
    if (l->done) {
        pthread_mutex_lock(&l->mu);
        l->done(l->arg, state);
        pthread_mutex_unlock(&l->mu);
    }
    free(state);
    return NULL;
}

void sg_parallel_for(int n_threads, uint64_t n, uint64_t grain, void (*fn)(void *, void *, uint64_t), void *arg,
                     size_t state_size, void (*done)(void *, void *))
{
    loop_t l = {fn, arg, n, 0, grain ? grain : 1, state_size, done, PTHREAD_MUTEX_INITIALIZER};
    uint64_t chunks = (n + l.grain - 1) / l.grain;
    if ((uint64_t)n_threads > (chunks ? chunks : 1)) n_threads = (int)(chunks ? chunks : 1);
    if (n_threads < 1) n_threads = 1;
    pthread_t *tid = sg_malloc(n_threads * sizeof *tid);
    uint8_t *running = sg_calloc(n_threads, 1);
    for (int i = 1; i < n_threads; i++) running[i] = pthread_create(&tid[i], NULL, loop_worker, &l) == 0;
    loop_worker(&l); /* a thread that did not start leaves its share to the others */
    for (int i = 1; i < n_threads; i++)
        if (running[i]) pthread_join(tid[i], NULL);
    free(running);
    free(tid);
}

static void *bg_main(void *arg)
{
    sg_pfor_bg_t *bg = arg;
    sg_parallel_for(bg->n_threads, bg->n, bg->grain, bg->fn, bg->arg, 0, NULL);
    return NULL;
}

void sg_parallel_start(sg_pfor_bg_t *bg, int n_threads, uint64_t n, uint64_t grain,
                       void (*fn)(void *, void *, uint64_t), void *arg)
{
    bg->n_threads = n_threads;
    bg->n = n;
    bg->grain = grain;
    bg->fn = fn;
    bg->arg = arg;
    bg->started = pthread_create(&bg->thread, NULL, bg_main, bg) == 0;
    if (!bg->started) bg_main(bg);
}

void sg_parallel_join(sg_pfor_bg_t *bg)
{
    if (bg->started) pthread_join(bg->thread, NULL);
    bg->started = 0;
}

/* ---- a loop over numbered items, on the pipeline ---- */

typedef struct {
    size_t i;
    void *out;
} pitem_t;

static int pfor_source(void *vctx, void *item, sg_emit_t *emit)
{
    (void)item;
    sg_pfor_t *pf = vctx;
    if (pf->next == pf->n || __atomic_load_n(&pf->stop, __ATOMIC_RELAXED)) return 0;
    pitem_t *it = sg_calloc(1, sizeof *it);
    it->i = pf->next++;
    sg_emit(emit, it);
    return pf->next < pf->n && !__atomic_load_n(&pf->stop, __ATOMIC_RELAXED);
}

static int pfor_work(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    sg_pfor_t *pf = vctx;
    pitem_t *it = item;
    return pf->work(pf->ctx, it->i, &it->out);
}

static int pfor_collect(void *vctx, void *item, sg_emit_t *emit)
{
    sg_pfor_t *pf = vctx;
    pitem_t *it = item;
    if (!it) return 0;
    int r = pf->collect(pf->ctx, it->i, it->out);
    sg_emit(emit, it); /* freed as it leaves */
    return r;
}

static void pfor_free(void *vctx, void *item)
{
    sg_pfor_t *pf = vctx;
    pitem_t *it = item;
    if (it->out && pf->free_out) pf->free_out(it->out);
    free(it);
}

int sg_parallel_map(sg_pfor_t *pf, int n_threads)
{
    if (pf->next == pf->n) return 0;
    const sg_step_t steps[] = {
        {"items", pfor_source, 1, 0},
        {"work", pfor_work, 0, 0},
        {"collect", pfor_collect, 1, 0},
    };
    sg_pipeline_opts_t po = {.n_threads = n_threads, .max_items = 4 * n_threads + 4, .free_item = pfor_free};
    return sg_pipeline_run(steps, pf->collect ? 3 : 2, pf, &po);
}
