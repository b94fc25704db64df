#include "find/gpu_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

void sg_gpu_init(sg_gpu_driver_t *g)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
}

void sg_gpu_close(sg_gpu_driver_t *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g->busy);
    g->busy = NULL;
}

void sg_gpu_ready(sg_gpu_driver_t *g, int n_slot, int rc, const char *err)
{
    pthread_mutex_lock(&g->mu);
    g->busy = sg_calloc((size_t)n_slot + 1, 1);
    g->n_slot = n_slot;
    g->rc = rc;
    snprintf(g->err, sizeof g->err, "%s", err ? err : "");
    if (rc < 0) g->broken = 1;
    g->ready = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

int sg_gpu_take(sg_gpu_driver_t *g, char *msg, size_t msgsz, int *at_start)
{
    int i = -1;
    pthread_mutex_lock(&g->mu);
    while (!g->ready) pthread_cond_wait(&g->cv, &g->mu);
    if (g->rc < 0 && !g->reported && msg) { /* said once, by the first call to see it */
        g->reported = 1;
        snprintf(msg, msgsz, "%s", g->err);
        *at_start = 1;
    }
    while (!g->broken && i < 0) {
        for (int k = 0; k < g->n_slot && i < 0; k++)
            if (!g->busy[k]) i = k;
        if (i < 0) pthread_cond_wait(&g->cv, &g->mu);
    }
    if (i >= 0) g->busy[i] = 1;
    int rc = g->rc;
    pthread_mutex_unlock(&g->mu);
    if (i < 0) return rc < 0 ? rc : SG_ERR_DEVICE;
    return i;
}

void sg_gpu_give(sg_gpu_driver_t *g, int i, int failed)
{
    pthread_mutex_lock(&g->mu);
    g->busy[i] = 0;
    if (failed) g->broken = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* The hits of [a, a + n) of chunk c on slot: put, count (again with a
 * larger hit buffer while they overflow it), read back. */
static int scan_window(sg_gpu_driver_t *g, void *slot, const sg_chunk_t *c, size_t a, size_t n, sg_hits_t *hits,
                       char *err, size_t errsz)
{
    const sg_gpu_ops_t *o = g->ops;
    size_t text = c->len + c->ov - a;
    if (text > n + g->overlap) text = n + g->overlap;
    int r = o->put(g->be, slot, c->seq + a, text, n, err, errsz);
    if (r < 0) return r;
    uint64_t found;
    size_t cap;
    int rescans = 0;
    for (;;) {
        if ((r = o->count(g->be, slot, n, &found, &cap, err, errsz)) < 0) return r;
        if (hits->max && hits->n + found > hits->max) break; /* more than the caller keeps: it scans less */
        if (found <= cap) break;
        /* an exact count is the window's hits; one that stops soon after the buffer's size
         * (it never wraps) says they are at least that: grow the buffer (up to what the
         * caller keeps) and scan again */
        size_t want = g->exact ? found + found / 4 : 2 * (size_t)found;
        if (hits->max && want > hits->max - hits->n) want = hits->max - hits->n;
        if ((r = o->grow(g->be, slot, want, err, errsz)) < 0) return r;
        rescans++;
    }
    size_t at = hits->n;
    if (sg_hits_grow(hits, at + found) < 0) {
        hits->n = at + found; /* counted, not kept: sg_hits_over */
        found = 0;
    }
    if ((r = o->get(g->be, slot, found ? hits->a + at : NULL, found, err, errsz)) < 0) return r;
    for (size_t i = at; i < at + found; i++) hits->a[i] += (uint64_t)a << 32; /* window to chunk coordinates */
    if (!sg_hits_over(hits)) hits->n = at + found;
    if (o->done) o->done(g->be, slot, n, found);
    pthread_mutex_lock(&g->mu);
    g->windows++;
    g->rescans += rescans;
    pthread_mutex_unlock(&g->mu);
    return 0;
}

int sg_gpu_scan(sg_gpu_driver_t *g, void *slot, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits,
                char *err, size_t errsz)
{
    for (size_t a = from; a < to && !sg_hits_over(hits); a += g->window) {
        size_t n = to - a < g->window ? to - a : g->window;
        int r = scan_window(g, slot, c, a, n, hits, err, errsz);
        if (r < 0) return r;
    }
    return 0;
}
